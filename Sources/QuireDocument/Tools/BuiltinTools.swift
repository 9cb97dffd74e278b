import QuireSyntax

/// The default tool: a tap or a drag on an annotation hands over to AnnotEdit, a tap on a
/// link to the link tool, on a form field to form filling; on empty space it clears the
/// selection and handles the event (panning and zooming are the host's). With Shift, a tap
/// on empty space keeps the selection, and a drag there hands over to AnnotEdit, which
/// draws a rubber band.
final class PanTool: Tool {
    let id = ToolID.pan
    private var next = ToolID.pan

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        switch event.kind {
        case .tap, .doubleTap, .longPress, .dragBegin:
            switch try m.hit(event) {
            case .annotation:
                next = .builtIn(.annotEdit)
                return false
            case .link:
                guard event.kind == .tap else { return true }
                next = .builtIn(.link)
                return false
            case .widget:
                guard event.kind == .tap else { return true }
                next = .builtIn(.formFill)
                return false
            case .none:
                if event.modifiers.contains(.shift) {
                    guard event.kind == .dragBegin else { return true }
                    next = .builtIn(.annotEdit)
                    return false
                }
                m.select(nil)
                return true
            }
        case .dragMove, .dragEnd, .cancel:
            return true
        }
    }

    func nextTool(in manager: ToolManager) -> ToolID { next }
}

/// Selects, moves (drag the annotation), resizes (drag one of the selection's eight
/// handles) and reports double taps; deleting and editing contents are the manager's
/// ``ToolManager/deleteSelection()`` and ``ToolManager/setSelectionContents(_:)``.
///
/// Several annotations: a Shift-tap toggles one in the selection; a Shift-drag on empty
/// space draws a rubber band that adds the annotations it meets; a drag on a selected
/// annotation moves every selected annotation of that page (those that are locked or
/// read-only stay where they are).
final class AnnotEditTool: Tool {
    let id = ToolID.builtIn(.annotEdit)

    /// The handles: corners, then edge midpoints. Each says which edges it moves
    /// (left, bottom, right, top).
    static let handles: [(Double, Double, edges: (Bool, Bool, Bool, Bool))] = [
        (0, 0, (true, true, false, false)), (1, 0, (false, true, true, false)),
        (0, 1, (true, false, false, true)), (1, 1, (false, false, true, true)),
        (0, 0.5, (true, false, false, false)), (1, 0.5, (false, false, true, false)),
        (0.5, 0, (false, true, false, false)), (0.5, 1, (false, false, false, true)),
    ]

    enum Mode {
        case idle
        case moving([Annotation], Point, page: Int)
        case resizing(Annotation, Int)
        case rubberBand(Point, page: Int, base: [ObjectID])
    }
    private var mode = Mode.idle
    private var last: Point? = nil

    /// Where the handles of `rect` are, in the order of ``handles``.
    static func handlePoints(of rect: Rect) -> [Point] {
        let r = rect.normalized
        return handles.map { Point(x: r.left + $0.0 * r.width, y: r.bottom + $0.1 * r.height) }
    }

    /// The handle of `rect` at `p`, within `tolerance`.
    static func handle(of rect: Rect, at p: Point, tolerance: Double) -> Int? {
        for (i, h) in handlePoints(of: rect).enumerated() {
            if abs(p.x - h.x) <= tolerance && abs(p.y - h.y) <= tolerance { return i }
        }
        return nil
    }

    /// `rect` with the edges handle `h` moves brought to `p` (at least a point wide and high).
    static func resized(_ rect: Rect, handle h: Int, to p: Point) -> Rect {
        let r = rect.normalized
        guard handles.indices.contains(h) else { return r }
        let e = handles[h].edges
        var n = r
        if e.0 { n.left = Swift.min(p.x, r.right - 1) }
        if e.1 { n.bottom = Swift.min(p.y, r.top - 1) }
        if e.2 { n.right = Swift.max(p.x, r.left + 1) }
        if e.3 { n.top = Swift.max(p.y, r.bottom + 1) }
        return n
    }

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        let shift = event.modifiers.contains(.shift)
        switch event.kind {
        case .tap, .longPress, .doubleTap:
            guard case .annotation(let a) = try m.hit(event), let aid = a.id else {
                if shift { return true }  // a Shift-tap beside the selection keeps it
                m.select(nil)
                return false
            }
            if shift && event.kind == .tap {
                try m.select([aid], mode: .toggle)
            } else {
                m.select(aid)
            }
            if event.kind == .doubleTap { m.emit(.editRequested(aid)) }
            return true
        case .dragBegin:
            if !shift, m.selectedAnnotations.count == 1, let sel = m.selection, let a = try m.document.annotation(sel),
               a.pageIndex == event.pageIndex, a.isDrawnOnPage,
               let h = AnnotEditTool.handle(of: a.rect, at: event.point, tolerance: m.style.tolerance) {
                mode = .resizing(a, h)
                last = event.point
                return true
            }
            guard case .annotation(let a) = try m.hit(event), let aid = a.id else {
                if shift {
                    mode = .rubberBand(event.point, page: event.pageIndex, base: m.selectedAnnotations)
                    last = event.point
                    return true
                }
                m.select(nil)
                return false
            }
            if shift {
                try m.select([aid], mode: .add)
            } else if !m.selectedAnnotations.contains(where: { $0.number == aid.number }) {
                m.select(aid)
            }
            // Every selected annotation of this page moves with it.
            var moving: [Annotation] = []
            for id in m.selectedAnnotations {
                if let s = try m.document.annotation(id), s.pageIndex == event.pageIndex { moving.append(s) }
            }
            mode = .moving(moving, event.point, page: event.pageIndex)
            last = event.point
            return true
        case .dragMove:
            if case .idle = mode { return true }
            if pageOf(mode) == event.pageIndex { last = event.point }
            return true
        case .dragEnd:
            if pageOf(mode) == event.pageIndex { last = event.point }
            defer { mode = .idle; last = nil }
            guard let p = last else { return true }
            switch mode {
            case .idle: return true
            case .moving(let list, let start, _):
                let dx = p.x - start.x, dy = p.y - start.y
                let movable = list.filter(ToolManager.isMovable)
                guard dx != 0 || dy != 0, !movable.isEmpty else { return true }
                m.describeStep("Move")
                for a in movable {
                    try m.update(AnnotEditTool.transformed(a, to: Rect(left: a.rect.left + dx, bottom: a.rect.bottom + dy,
                                                                       right: a.rect.right + dx, top: a.rect.top + dy)))
                }
            case .resizing(let a, let h):
                guard ToolManager.isMovable(a) else { return true }
                let n = AnnotEditTool.resized(a.rect, handle: h, to: p)
                guard n != a.rect.normalized else { return true }
                m.describeStep("Resize")
                try m.update(AnnotEditTool.transformed(a, to: n))
            case .rubberBand(let start, let page, let base):
                let band = Rect(left: start.x, bottom: start.y, right: p.x, top: p.y)
                let found = try m.annotations(in: band, pageIndex: page)
                var list = base
                for id in found where !list.contains(where: { $0.number == id.number }) { list.append(id) }
                m.setSelection(list)
            }
            return true
        case .cancel:
            mode = .idle
            last = nil
            return true
        }
    }

    var preview: ToolPreview? {
        guard let p = last else { return nil }
        switch mode {
        case .idle: return nil
        case .moving(let list, let start, let page):
            let movable = list.filter(ToolManager.isMovable)
            guard let first = movable.first else { return nil }
            let dx = p.x - start.x, dy = p.y - start.y
            var r = first.rect.normalized
            for a in movable.dropFirst() {
                let b = a.rect.normalized
                r = Rect(left: Swift.min(r.left, b.left), bottom: Swift.min(r.bottom, b.bottom),
                         right: Swift.max(r.right, b.right), top: Swift.max(r.top, b.top))
            }
            var out = ToolPreview(kind: .move, tool: id, pageIndex: page,
                                  rect: Rect(left: r.left + dx, bottom: r.bottom + dy, right: r.right + dx, top: r.top + dy))
            out.offset = Point(x: dx, y: dy)
            out.annotations = movable.compactMap(\.id)
            return out
        case .resizing(let a, let h):
            guard ToolManager.isMovable(a) else { return nil }
            var out = ToolPreview(kind: .resize, tool: id, pageIndex: a.pageIndex, rect: AnnotEditTool.resized(a.rect, handle: h, to: p))
            out.annotations = a.id.map { [$0] } ?? []
            return out
        case .rubberBand(let start, let page, _):
            return ToolPreview(kind: .select, tool: id, pageIndex: page, rect: Rect(left: start.x, bottom: start.y, right: p.x, top: p.y))
        }
    }

    private func pageOf(_ mode: Mode) -> Int? {
        switch mode {
        case .idle: return nil
        case .moving(_, _, let page), .rubberBand(_, let page, _): return page
        case .resizing(let a, _): return a.pageIndex
        }
    }

    /// `a` with its rect mapped onto `target`, and its points (quads, ink, line, vertices)
    /// mapped the same way.
    static func transformed(_ a: Annotation, to target: Rect) -> Annotation {
        let r = a.rect.normalized
        let sx = r.width > 0 ? target.width / r.width : 1
        let sy = r.height > 0 ? target.height / r.height : 1
        func map(_ xy: [Double]) -> [Double] {
            xy.enumerated().map { i, v in i % 2 == 0 ? target.left + (v - r.left) * sx : target.bottom + (v - r.bottom) * sy }
        }
        var b = a
        b.rect = target.normalized
        b.quadPoints = map(a.quadPoints)
        b.inkList = a.inkList.map(map)
        b.linePoints = map(a.linePoints)
        b.vertices = map(a.vertices)
        return b
    }
}

/// Ink strokes from drags; the strokes of one page make one annotation, committed when the
/// tool finishes (a tool change, ``ToolManager/commit()``), or when a stroke starts on
/// another page. The signature tool is the same, committed as an Ink annotation whose
/// subject is "Signature"; drawn in an unsigned signature field, it signs that field when
/// the manager has a ``ToolManager/signatureSigner``.
final class InkTool: Tool {
    let id: ToolID
    let signature: Bool
    private var strokes: [[Double]] = []
    private var stroke: [Double] = []
    private var page: Int? = nil

    init(signature: Bool) {
        self.signature = signature
        id = .builtIn(signature ? .signature : .ink)
    }

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        let p = event.point
        switch event.kind {
        case .dragBegin:
            if let page, page != event.pageIndex { try finish(in: m) }
            page = event.pageIndex
            stroke = [p.x, p.y]
            return true
        case .dragMove, .dragEnd:
            guard page == event.pageIndex, !stroke.isEmpty else { return true }
            if stroke.count < 2 * ToolManager.maxPoints { stroke += [p.x, p.y] }
            if event.kind == .dragEnd {
                strokes.append(stroke)
                stroke = []
            }
            return true
        case .cancel:
            stroke = []
            return true
        case .tap, .doubleTap, .longPress:
            return false
        }
    }

    var preview: ToolPreview? {
        guard let page else { return nil }
        return ToolPreview.paths(.ink, tool: id, pageIndex: page, stroke.isEmpty ? strokes : strokes + [stroke])
    }

    func finish(in m: ToolManager) throws {
        defer { strokes = []; stroke = []; page = nil }
        guard let page, !strokes.isEmpty else { return }
        let width = m.style.borderWidth
        guard let rect = bounds(strokes.flatMap { $0 }, pad: Swift.max(1, width)) else { return }
        var a = m.styled("Ink", page: page, rect: rect)
        a.inkList = strokes
        if signature {
            a.subject = "Signature"
            a.color = [0, 0, 0]
        }
        let stored = try m.add(a)
        // Drawn in an unsigned signature field: signed with the drawing as its look, once
        // the step that added it ends.
        if signature, m.signatureSigner != nil, let ink = stored.id,
           let field = try m.unsignedSignatureField(around: rect, page: page) {
            m.pendingSignature = (ink, field)
        }
    }
}

/// Square, Circle, Line and Arrow from a drag (start to end).
final class ShapeTool: Tool {
    let id: ToolID
    let kind: ToolKind
    private var start: Point? = nil
    private var end: Point? = nil
    private var page = 0
    /// Drags shorter than this (points) make nothing.
    static let minSize = 2.0

    init(_ kind: ToolKind) { self.kind = kind; id = .builtIn(kind) }

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        switch event.kind {
        case .dragBegin:
            start = event.point; end = event.point; page = event.pageIndex
            return true
        case .dragMove:
            if start != nil, event.pageIndex == page { end = event.point }
            return true
        case .dragEnd:
            if start != nil, event.pageIndex == page { end = event.point }
            defer { start = nil; end = nil }
            guard let s = start, let e = end else { return true }
            try create(from: s, to: e, in: m)
            return true
        case .cancel:
            start = nil; end = nil
            return true
        case .tap, .doubleTap, .longPress:
            return false
        }
    }

    var preview: ToolPreview? {
        guard let s = start, let e = end else { return nil }
        switch kind {
        case .line, .arrow, .distance: return ToolPreview.paths(.segment, tool: id, pageIndex: page, [[s.x, s.y, e.x, e.y]])
        default: return ToolPreview(kind: .rect, tool: id, pageIndex: page, rect: Rect(left: s.x, bottom: s.y, right: e.x, top: e.y))
        }
    }

    private func create(from s: Point, to e: Point, in m: ToolManager) throws {
        let w = m.style.borderWidth
        switch kind {
        case .line, .arrow, .distance:
            guard ((e.x - s.x) * (e.x - s.x) + (e.y - s.y) * (e.y - s.y)).squareRoot() >= ShapeTool.minSize else { return }
            let xy = [s.x, s.y, e.x, e.y]
            guard let rect = bounds(xy, pad: Swift.max(4, 4 * w)) else { return }
            var a = m.styled("Line", page: page, rect: rect)
            a.linePoints = xy
            if kind == .arrow { a.lineEndings = ["None", "OpenArrow"] }
            if kind == .distance {
                a.lineEndings = ["Butt", "Butt"]
                a.measurement = m.measurementScale
            }
            try m.add(a)
        default:
            let r = Rect(left: s.x, bottom: s.y, right: e.x, top: e.y).normalized
            guard r.width >= ShapeTool.minSize, r.height >= ShapeTool.minSize else { return }
            try m.add(m.styled(kind == .circle ? "Circle" : "Square", page: page, rect: r))
        }
    }
}

/// Polygon and PolyLine: each tap adds a vertex; a double tap adds the last one and
/// commits; a tool change commits what has enough vertices (3 for a polygon, 2 for a
/// polyline). A tap on another page commits and starts there.
final class PolyTool: Tool {
    let id: ToolID
    let kind: ToolKind
    private var vertices: [Double] = []
    private var page = 0

    init(_ kind: ToolKind) { self.kind = kind; id = .builtIn(kind) }

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        switch event.kind {
        case .tap, .doubleTap:
            if !vertices.isEmpty && event.pageIndex != page { try finish(in: m) }
            page = event.pageIndex
            if vertices.count < 2 * ToolManager.maxPoints { vertices += [event.point.x, event.point.y] }
            if event.kind == .doubleTap { try finish(in: m) }
            return true
        case .cancel:
            vertices = []
            return true
        case .longPress, .dragBegin, .dragMove, .dragEnd:
            return true
        }
    }

    var preview: ToolPreview? {
        guard var p = ToolPreview.paths(.vertices, tool: id, pageIndex: page, [vertices]) else { return nil }
        p.closed = kind == .polygon || kind == .cloud || kind == .area
        return p
    }

    func finish(in m: ToolManager) throws {
        defer { vertices = [] }
        // A double tap often lands on the last tap's point: one vertex, not two.
        var v = vertices
        if v.count >= 4, v[v.count - 2] == v[v.count - 4], v[v.count - 1] == v[v.count - 3] { v.removeLast(2) }
        let closed = kind == .polygon || kind == .cloud || kind == .area
        guard v.count >= (closed ? 6 : 4), let rect = bounds(v, pad: Swift.max(1, m.style.borderWidth)) else { return }
        var a = m.styled(closed ? "Polygon" : "PolyLine", page: page, rect: rect)
        a.vertices = v
        switch kind {
        case .cloud:
            a.cloudyIntensity = 1
            a.intent = "PolygonCloud"  // the Polygon grows to hold its cloud when added
        case .perimeter, .area:
            a.measurement = m.measurementScale
        default:
            break
        }
        try m.add(a)
    }
}

/// Sticky notes (a tap places a note whose top-left is the point) and free text (a tap
/// places a box there, a drag places it in the dragged rectangle). The new annotation is
/// selected, so the host can set its text with ``ToolManager/setSelectionContents(_:)``.
/// Carets, callouts, image stamps (the manager's ``ToolManager/stampImage``) and file
/// attachments (its ``ToolManager/attachment``) are placed the same way.
final class PlaceTool: Tool {
    let id: ToolID
    let kind: ToolKind
    private var start: Point? = nil
    private var end: Point? = nil
    private var page = 0
    static let noteSize = 24.0
    static let caretSize = (width: 12.0, height: 16.0)
    static let attachmentSize = (width: 16.0, height: 20.0)
    /// The longer side of an image stamp placed by a tap, at most (points).
    static let stampSide = 200.0

    var preview: ToolPreview? {
        guard let s = start, let e = end else { return nil }
        return ToolPreview(kind: .rect, tool: id, pageIndex: page, rect: Rect(left: s.x, bottom: s.y, right: e.x, top: e.y))
    }

    init(_ kind: ToolKind) { self.kind = kind; id = .builtIn(kind) }

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        let p = event.point
        switch (kind, event.kind) {
        case (.stickyNote, .tap):
            var a = m.styled("Text", page: event.pageIndex,
                             rect: Rect(left: p.x, bottom: p.y - PlaceTool.noteSize, right: p.x + PlaceTool.noteSize, top: p.y))
            a.iconName = "Comment"
            a.color = m.style.color.count == 3 ? m.style.color : [1, 1, 0]
            a.flags = Annotation.Flag.print | Annotation.Flag.noZoom | Annotation.Flag.noRotate
            m.select(try m.add(a).id)
            return true
        case (.caret, .tap):
            var a = m.styled("Caret", page: event.pageIndex,
                             rect: Rect(left: p.x - PlaceTool.caretSize.width / 2, bottom: p.y,
                                        right: p.x + PlaceTool.caretSize.width / 2, top: p.y + PlaceTool.caretSize.height))
            a.symbol = "None"
            m.select(try m.add(a).id)
            return true
        case (.fileAttachment, .tap):
            guard let file = m.attachment else {
                throw PDFError(.state, "the file attachment tool has no file: give it one first (quire_tool_manager_set_attachment)")
            }
            var a = m.styled("FileAttachment", page: event.pageIndex,
                             rect: Rect(left: p.x, bottom: p.y - PlaceTool.attachmentSize.height,
                                        right: p.x + PlaceTool.attachmentSize.width, top: p.y))
            a.iconName = "PushPin"
            a.file = file
            a.flags = Annotation.Flag.print | Annotation.Flag.noZoom | Annotation.Flag.noRotate
            m.select(try m.add(a).id)
            return true
        case (.imageStamp, .tap):
            let (w, h) = try PlaceTool.stampSize(m)
            try stamp(Rect(left: p.x - w / 2, bottom: p.y - h / 2, right: p.x + w / 2, top: p.y + h / 2), page: event.pageIndex, m)
            return true
        case (.imageStamp, .dragEnd):
            defer { start = nil; end = nil }
            guard let s = start, event.pageIndex == page else { return true }
            let r = Rect(left: s.x, bottom: s.y, right: p.x, top: p.y).normalized
            guard r.width >= ShapeTool.minSize, r.height >= ShapeTool.minSize else { return true }
            // The image fitted into the rectangle, centred, keeping its proportions.
            let (w, h) = try PlaceTool.stampSize(m)
            let k = Swift.min(r.width / w, r.height / h)
            let (cx, cy) = ((r.left + r.right) / 2, (r.bottom + r.top) / 2)
            try stamp(Rect(left: cx - w * k / 2, bottom: cy - h * k / 2, right: cx + w * k / 2, top: cy + h * k / 2), page: page, m)
            return true
        case (.callout, .dragBegin), (.imageStamp, .dragBegin):
            start = p; end = p; page = event.pageIndex
            return true
        case (.callout, .dragMove), (.imageStamp, .dragMove):
            if start != nil, event.pageIndex == page { end = p }
            return true
        case (.callout, .dragEnd):
            defer { start = nil; end = nil }
            guard let s = start, event.pageIndex == page else { return true }
            try callout(from: s, to: p, page: page, m)
            return true
        case (.freeText, .tap):
            let size = m.style.fontSize
            try place(Rect(left: p.x, bottom: p.y - 2 * size, right: p.x + 10 * size, top: p.y), page: event.pageIndex, m)
            return true
        case (.freeText, .dragBegin):
            start = p; end = p; page = event.pageIndex
            return true
        case (.freeText, .dragMove):
            if start != nil, event.pageIndex == page { end = p }
            return true
        case (.freeText, .dragEnd):
            defer { start = nil; end = nil }
            guard let s = start, event.pageIndex == page else { return true }
            let r = Rect(left: s.x, bottom: s.y, right: p.x, top: p.y).normalized
            guard r.width >= ShapeTool.minSize, r.height >= ShapeTool.minSize else { return true }
            try place(r, page: page, m)
            return true
        case (_, .cancel):
            start = nil; end = nil
            return true
        default:
            return false
        }
    }

    /// A callout pointing at `s` whose text box (10 by 2 font sizes) starts at `e`, to the
    /// side away from `s`; the line runs from `s` to the box's nearest edge.
    private func callout(from s: Point, to e: Point, page: Int, _ m: ToolManager) throws {
        guard ((e.x - s.x) * (e.x - s.x) + (e.y - s.y) * (e.y - s.y)).squareRoot() >= ShapeTool.minSize else { return }
        let size = m.style.fontSize.isFinite && m.style.fontSize > 0 ? m.style.fontSize : 12
        let (w, h) = (10 * size, 2 * size)
        let box = e.x >= s.x ? Rect(left: e.x, bottom: e.y - h / 2, right: e.x + w, top: e.y + h / 2)
            : Rect(left: e.x - w, bottom: e.y - h / 2, right: e.x, top: e.y + h / 2)
        // /Rect holds the box and the line's start (with room for the arrow); /RD says where the box is.
        let pad = 8.0
        let rect = Rect(left: Swift.min(box.left, s.x - pad), bottom: Swift.min(box.bottom, s.y - pad),
                        right: Swift.max(box.right, s.x + pad), top: Swift.max(box.top, s.y + pad))
        var a = m.styled("FreeText", page: page, rect: rect)
        a.contents = m.style.freeTextContents
        a.defaultAppearance = Annotation.defaultAppearance(fontSize: size)
        a.intent = "FreeTextCallout"
        a.calloutLine = [s.x, s.y, e.x, e.y]
        a.lineEndings = ["OpenArrow"]
        a.rectDifferences = [box.left - rect.left, box.bottom - rect.bottom, rect.right - box.right, rect.top - box.top]
        a.borderWidth = 1
        m.select(try m.add(a).id)
    }

    /// The size of the manager's stamp image placed by a tap: a pixel a point, the longer
    /// side at most ``stampSide``. Throws `.state` when the manager has no image.
    static func stampSize(_ m: ToolManager) throws -> (Double, Double) {
        guard let s = m.stampImage else {
            throw PDFError(.state, "the image stamp tool has no image: give it one first (quire_tool_manager_set_stamp_image)")
        }
        let (w, h) = (Double(s.width), Double(s.height))
        let k = Swift.min(1, stampSide / Swift.max(w, h))
        return (w * k, h * k)
    }

    private func stamp(_ rect: Rect, page: Int, _ m: ToolManager) throws {
        guard let image = m.stampImage?.image else { return }
        var a = m.styled("Stamp", page: page, rect: rect)
        a.image = image
        a.color = nil
        m.select(try m.add(a).id)
    }

    private func place(_ rect: Rect, page: Int, _ m: ToolManager) throws {
        var a = m.styled("FreeText", page: page, rect: rect)
        a.contents = m.style.freeTextContents
        let size = m.style.fontSize.isFinite && m.style.fontSize > 0 ? m.style.fontSize : 12
        a.defaultAppearance = Annotation.defaultAppearance(fontSize: size)
        a.color = nil
        m.select(try m.add(a).id)
    }
}

/// Reports where a tapped link leads (``ToolEvent/linkActivated(_:_:)``); anything else
/// goes back to Pan.
final class LinkTool: Tool {
    let id = ToolID.builtIn(.link)
    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        guard event.kind == .tap, case .link(let a) = try m.hit(event) else { return false }
        m.emit(.linkActivated(a.id, a.linkTarget()))
        return true
    }
}

/// Form filling: a tap on a widget selects it and reports ``ToolEvent/fieldActivated(_:)``;
/// a check box toggles (off to the tapped widget's on-state, anything else to Off) and a
/// radio button turns on, through the forms model. Text and choice fields take their value
/// from the host (``ToolManager/setSelectedFieldValue(_:)``). Read-only fields are only
/// selected.
final class FormFillTool: Tool {
    let id = ToolID.builtIn(.formFill)
    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        guard event.kind == .tap, case .widget(let a) = try m.hit(event), let wid = a.id else { return false }
        m.select(wid)
        m.emit(.fieldActivated(wid))
        guard let field = try m.fieldOf(widget: wid), !field.isReadOnly,
              field.type == .checkBox || field.type == .radioButton else { return true }
        let widget = field.widgets.first { $0.id.number == wid.number }
        // A check box without appearance states gets "Yes" (the forms model draws a check).
        guard let on = widget?.onStates.first ?? field.options.first?.exportValue
                ?? (field.type == .checkBox ? "Yes" : nil) else { return true }
        // The state as the forms model names it: the on-state itself, or (with /Opt) the
        // export value at the widget's position.
        var state = on
        if !field.options.contains(where: { $0.exportValue == on }) {
            if let o = field.options.first(where: { $0.displayText == on }) {
                state = o.exportValue
            } else if let i = field.widgets.firstIndex(where: { $0.id.number == wid.number }), i < field.options.count {
                state = field.options[i].exportValue
            }
        }
        let current = field.values.first ?? "Off"
        if field.type == .checkBox {
            try m.setField(field, [current == "Off" ? state : "Off"], widget: wid)
        } else if current != state {
            try m.setField(field, [state], widget: wid)
        }
        return true
    }
}

/// Highlight, Underline, StrikeOut and Squiggly over the text a drag selects: the
/// characters from the one at the drag's start to the one at its end (the text model's
/// ``TextPage/select(from:to:)``), one quad per character run. A drag over a page without
/// text makes nothing; taps go back to Pan. Redact marks the same text, or the drag's
/// rectangle (at least 2 points each way) where it selects none; its fill is the style's
/// interior colour, black without one.
final class TextMarkupTool: Tool {
    let id: ToolID
    let kind: ToolKind
    private var start: Point? = nil
    private var page = 0

    private var end: Point? = nil

    init(_ kind: ToolKind) { self.kind = kind; id = .builtIn(kind) }

    var preview: ToolPreview? {
        guard let s = start, let e = end else { return nil }
        return ToolPreview(kind: .rect, tool: id, pageIndex: page, rect: Rect(left: s.x, bottom: s.y, right: e.x, top: e.y))
    }

    var subtype: String {
        switch kind {
        case .underline: return "Underline"
        case .strikeOut: return "StrikeOut"
        case .squiggly: return "Squiggly"
        case .redact: return "Redact"
        default: return "Highlight"
        }
    }

    func handle(_ event: PointerEvent, in m: ToolManager) throws -> Bool {
        switch event.kind {
        case .dragBegin:
            start = event.point; end = event.point; page = event.pageIndex
            return true
        case .dragMove:
            if start != nil, event.pageIndex == page { end = event.point }
            return true
        case .dragEnd:
            defer { start = nil; end = nil }
            guard let s = start, event.pageIndex == page else { return true }
            let text = try m.document.textPage(at: page)
            var quads: [TextQuad] = []
            if let span = text.select(from: TextPoint(x: s.x, y: s.y), to: TextPoint(x: event.point.x, y: event.point.y)) {
                quads = span.quads
            }
            if quads.isEmpty && kind == .redact {
                let r = Rect(left: s.x, bottom: s.y, right: event.point.x, top: event.point.y).normalized
                guard r.width >= ShapeTool.minSize, r.height >= ShapeTool.minSize else { return true }
                quads = [TextQuad(lowerLeft: TextPoint(x: r.left, y: r.bottom), lowerRight: TextPoint(x: r.right, y: r.bottom),
                                  upperRight: TextPoint(x: r.right, y: r.top), upperLeft: TextPoint(x: r.left, y: r.top))]
            }
            guard let first = quads.first else { return true }
            var b = first.bounds
            for q in quads.dropFirst() {
                let r = q.bounds
                b = Rect(left: min(b.left, r.left), bottom: min(b.bottom, r.bottom), right: max(b.right, r.right), top: max(b.top, r.top))
            }
            var a = m.styled(subtype, page: page, rect: b)
            a.quadPoints = quads.flatMap(\.quadPoints)
            a.borderWidth = nil
            if kind == .redact {
                a.color = nil  // the marked state's outline: red
                a.interiorColor = m.style.interiorColor ?? [0, 0, 0]
            }
            try m.add(a)
            return true
        case .cancel:
            start = nil; end = nil
            return true
        case .tap, .doubleTap, .longPress:
            return false
        }
    }
}
