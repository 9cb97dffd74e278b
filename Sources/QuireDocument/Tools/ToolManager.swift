import QuireSyntax

/// The built-in tools (after PDFTron's Tools framework).
public enum ToolKind: Int, Sendable, CaseIterable {
    /// The default: decides which tool a hit needs.
    case pan
    /// Selects, moves, resizes, deletes annotations and edits their contents.
    case annotEdit
    /// Ink strokes from drags, several per annotation, committed on a tool change.
    case ink
    case square
    case circle
    case line
    /// A line with an open arrow at its end.
    case arrow
    /// Vertices from taps; a double tap (or a tool change) closes it.
    case polygon
    case polyLine
    /// A note (Text annotation) where the user taps.
    case stickyNote
    case freeText
    /// Reports where a tapped link leads; does not navigate.
    case link
    /// Activates a form field's widget (selects it and reports it).
    case formFill
    /// An ink signature: strokes like ``ink``, committed as one Ink annotation.
    case signature
    /// Text markup over the text a drag selects (from the character at the drag's start to
    /// the one at its end, as ``TextPage/select(from:to:)``).
    case highlight
    case underline
    case strikeOut
    case squiggly
    /// A Redact annotation (docs/redaction.md) over the text a drag selects, as the text
    /// markup tools take it, or over the drag's rectangle where it selects no text.
    case redact
    /// A Caret where the user taps (an insertion mark, 12 by 16 points, its tip at the point).
    case caret
    /// A cloud: a Polygon with a cloudy border (intensity 1, /IT PolygonCloud) from taps,
    /// as ``polygon``.
    case cloud
    /// A FreeText callout from a drag: the line from the drag's start (what it points at,
    /// with an open arrow) to a text box at its end.
    case callout
    /// Measurements at ``ToolManager/measurementScale``: a distance (Line) from a drag, a
    /// perimeter (PolyLine) and an area (Polygon) from taps as ``polyLine`` and ``polygon``.
    case distance
    case perimeter
    case area
    /// A Stamp with the image of ``ToolManager/stampImage``: centred at a tap at its size
    /// (a pixel a point, the longer side at most 200 points), or fitted into a drag's
    /// rectangle keeping its proportions.
    case imageStamp
    /// A FileAttachment with the file of ``ToolManager/attachment``: its icon (PushPin, 16
    /// by 20 points) with its top-left at a tap.
    case fileAttachment
}

/// A tool: built in, or one of the host's (registered by name).
public enum ToolID: Sendable, Hashable, CustomStringConvertible {
    case builtIn(ToolKind)
    case custom(String)
    public var description: String {
        switch self {
        case .builtIn(let k): return "\(k)"
        case .custom(let n): return "custom:\(n)"
        }
    }
    public static let pan = ToolID.builtIn(.pan)
}

/// A pointer event from the host, in page coordinates (user space).
public struct PointerEvent: Sendable, Equatable {
    public enum Kind: Int, Sendable, CaseIterable {
        case tap, doubleTap, longPress, dragBegin, dragMove, dragEnd, cancel
    }
    /// The keys held with the event.
    public struct Modifiers: OptionSet, Sendable, Equatable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Shift: a tap toggles an annotation in the selection; a drag on empty space draws
        /// a rubber band that adds the annotations it touches.
        public static let shift = Modifiers(rawValue: 1)
    }
    public var kind: Kind
    public var pageIndex: Int
    public var point: Point
    public var modifiers: Modifiers
    public init(_ kind: Kind, pageIndex: Int, _ point: Point, modifiers: Modifiers = []) {
        self.kind = kind; self.pageIndex = pageIndex; self.point = point; self.modifiers = modifiers
    }
}

/// What the tool manager reports to the host.
public enum ToolEvent: Sendable, Equatable {
    case toolChanged(from: ToolID, to: ToolID)
    /// The selected annotation (nil: nothing selected).
    case selectionChanged(ObjectID?)
    case annotationAdded(ObjectID)
    case annotationModified(ObjectID)
    case annotationRemoved(ObjectID)
    /// A tap on a link with the link tool.
    case linkActivated(ObjectID?, LinkTarget)
    /// A tap on a form field's widget with the form-filling tool.
    case fieldActivated(ObjectID)
    /// A double tap on an annotation with AnnotEdit: the host may offer to edit its contents.
    case editRequested(ObjectID)
    /// A form field's value was set through the tools (the widget that was used).
    case fieldChanged(ObjectID)
    /// No tool handled the event within ``ToolManager/maxHops`` replacements: it was
    /// dropped, and Pan is current.
    case unhandled(PointerEvent)
}

/// How new annotations look.
public struct ToolStyle: Sendable, Equatable {
    public var color: [Double] = [1, 0, 0]
    public var interiorColor: [Double]? = nil
    public var borderWidth: Double = 2
    public var opacity: Double = 1
    public var author: String? = nil
    public var fontSize: Double = 12
    /// The text of a new free text annotation.
    public var freeTextContents: String = "Text"
    /// The hit-test tolerance in points.
    public var tolerance: Double = 4
    public init() {}
}

/// A tool in the manager's loop. `handle` returns whether it handled the event; when it
/// did not, the manager asks `nextTool` for the tool to replace it with, and sends that
/// tool the same event.
public protocol Tool: AnyObject {
    var id: ToolID { get }
    func handle(_ event: PointerEvent, in manager: ToolManager) throws -> Bool
    /// The tool to replace this one with, after `handle` returned false.
    func nextTool(in manager: ToolManager) -> ToolID
    /// The tool is replaced: commit what it holds (pending ink strokes, polygon vertices).
    func finish(in manager: ToolManager) throws
    /// What it is drawing and has not made yet (nil: nothing), for the host to draw.
    var preview: ToolPreview? { get }
}

extension Tool {
    public func nextTool(in manager: ToolManager) -> ToolID { .pan }
    public func finish(in manager: ToolManager) throws {}
    public var preview: ToolPreview? { nil }
}

/// A headless tool manager: the host sends pointer events in page coordinates; the
/// current tool handles each, or names the tool that replaces it (PDFTron's loop).
/// Every change goes through the document's annotation API (``Document/addAnnotation(_:)``
/// and its siblings), so the change log, checkpoints and sync see it; each public call
/// that changes the document is one undo step (``UndoStep``: the objects it changed, each
/// before and after, so that undo and redo restore them exactly and refuse to apply over
/// a change made outside the manager).
///
/// Not thread-safe: use it on the thread that uses its document.
public final class ToolManager {
    public let document: Document
    /// How new annotations look (``setStyle(_:)`` checks a new one).
    public private(set) var style = ToolStyle()
    /// The scale of the measurement tools (``ToolKind/distance``, ``ToolKind/perimeter``,
    /// ``ToolKind/area``): 1 in = 1 in with 2 decimals until the host sets one.
    public var measurementScale = MeasurementScale()
    /// The image the image stamp tool (``ToolKind/imageStamp``) places, with its size in
    /// pixels (``setStampImage(_:)``); nil until the host gives one.
    public private(set) var stampImage: (image: Annotation.StampImage, width: Int, height: Int)? = nil
    /// The file the file attachment tool (``ToolKind/fileAttachment``) attaches; nil until
    /// the host gives one. Each annotation it places embeds its own copy.
    public var attachment: Annotation.AttachedFile? = nil
    public private(set) var current: Tool
    /// The selected annotations, in the order they were selected.
    public private(set) var selectedAnnotations: [ObjectID] = []
    /// The first selected annotation (the one a reply or a contents change is for).
    public var selection: ObjectID? { selectedAnnotations.first }
    /// Receives every ``ToolEvent``, on the thread that made the call.
    public var onEvent: ((ToolEvent) -> Void)?
    /// Signs the field a signature is drawn in (issue 37): the Signature tool calls it when
    /// the ink it commits is centred in an unsigned signature field's widget on its page,
    /// with the ink annotation (added, a step of its own) and the field's full name. Set by
    /// the signatures layer, which holds the key (QuireSignatures'
    /// `signDrawnSignatures(_:to:)`, the C `quire_tool_manager_set_signing`); nil (the
    /// default): the Signature tool only draws. An error it throws is the commit's, and the
    /// ink stays.
    public var signatureSigner: ((_ ink: ObjectID, _ field: String) throws -> Void)?
    /// The most tool replacements for one event; past it the event is dropped
    /// (``ToolEvent/unhandled(_:)``) and Pan becomes current.
    public static let maxHops = 8
    /// The most points kept of one ink stroke, and vertices of one polygon.
    public static let maxPoints = 10_000
    /// The most undo steps kept (the oldest go first).
    public static let maxUndo = 1_000

    private var factories: [String: () -> Tool] = [:]
    private var undoStack: [UndoStep] = []
    private var redoStack: [UndoStep] = []
    /// The record of the call being made, and what the step it makes is called.
    private var record: ObjectChangeRecord? = nil
    private var stepVerb: String? = nil
    private var stepDescription: String? = nil
    /// The document's ``Document/renumberings`` the history belongs to.
    private var numbering: Int

    public init(document: Document) {
        self.document = document
        self.current = PanTool()
        self.numbering = document.renumberings
    }

    /// Sets the style of new annotations. Throws `.invalidArgument` for a colour of other
    /// than 0, 1, 3 or 4 components in 0...1, a border width or tolerance that is negative
    /// or not finite, an opacity outside 0...1, or a font size that is not positive.
    public func setStyle(_ style: ToolStyle) throws {
        try Annotation.validate(color: style.color)
        if let ic = style.interiorColor { try Annotation.validate(interiorColor: ic) }
        try Annotation.validate(borderWidth: style.borderWidth)
        try Annotation.validate(opacity: style.opacity)
        guard style.fontSize.isFinite, style.fontSize > 0, style.fontSize <= 1_000 else {
            throw PDFError(.invalidArgument, "the font size \(style.fontSize) must be in (0, 1000]")
        }
        guard style.tolerance.isFinite, style.tolerance >= 0 else {
            throw PDFError(.invalidArgument, "the tolerance \(style.tolerance) must be finite and not negative")
        }
        self.style = style
    }

    /// Sets the image the image stamp tool places (nil: none). Throws what
    /// ``ImageAttachment/read(_:contentType:)`` throws for an image Quire does not read (the
    /// ``Annotation/StampImage`` was checked when made; its size is read here).
    public func setStampImage(_ image: Annotation.StampImage?) throws {
        guard let image else { stampImage = nil; return }
        let read = try ImageAttachment.read(image.bytes, contentType: image.contentType)
        stampImage = (image, read.width, read.height)
    }

    // MARK: Tools

    /// Registers a tool of the host's under `name` (replacing one of that name): `make`
    /// gives a fresh instance each time the tool becomes current.
    public func register(name: String, _ make: @escaping () -> Tool) {
        factories[name] = make
    }

    /// Makes `id` the current tool (the old one finishes: pending strokes are committed).
    /// Throws `.notFound` for a custom tool that is not registered.
    public func setTool(_ id: ToolID) throws {
        let tool = try make(id)
        try step { try replace(with: tool) }
    }

    private func make(_ id: ToolID) throws -> Tool {
        switch id {
        case .builtIn(let kind): return ToolManager.builtIn(kind)
        case .custom(let name):
            guard let make = factories[name] else { throw PDFError(.notFound, "no tool is registered as \(name)") }
            return make()
        }
    }

    static func builtIn(_ kind: ToolKind) -> Tool {
        switch kind {
        case .pan: return PanTool()
        case .annotEdit: return AnnotEditTool()
        case .ink: return InkTool(signature: false)
        case .signature: return InkTool(signature: true)
        case .square, .circle, .line, .arrow, .distance: return ShapeTool(kind)
        case .polygon, .polyLine, .cloud, .perimeter, .area: return PolyTool(kind)
        case .stickyNote, .freeText, .caret, .callout, .imageStamp, .fileAttachment: return PlaceTool(kind)
        case .link: return LinkTool()
        case .formFill: return FormFillTool()
        case .highlight, .underline, .strikeOut, .squiggly, .redact: return TextMarkupTool(kind)
        }
    }

    private func replace(with tool: Tool) throws {
        let old = current
        current = tool
        emit(.toolChanged(from: old.id, to: tool.id))
        try old.finish(in: self)
    }

    /// What the current tool is drawing and has not made yet (nil: nothing): the host
    /// draws it as a preview.
    public var preview: ToolPreview? { current.preview }

    // MARK: Events

    /// Sends `event` through the loop: `handled = tool.handle(event); if !handled { tool =
    /// tool.nextTool() }` until a tool handles it, at most ``maxHops`` replacements.
    /// Returns whether a tool handled it. Throws `.range` for a page out of range,
    /// `.invalidArgument` for a point that is not finite, and what the document throws
    /// for a change it refuses (the document stays as it was before that change).
    @discardableResult
    public func send(_ event: PointerEvent) throws -> Bool {
        guard event.point.isFinite else { throw PDFError(.invalidArgument, "the point \(event.point) is not finite") }
        let count = try document.pageCount()
        guard event.pageIndex >= 0, event.pageIndex < count else {
            throw PDFError(.range, "page \(event.pageIndex) is out of range (the document has \(document.pagesText(count)))")
        }
        return try step {
            var hops = 0
            while true {
                if try current.handle(event, in: self) { return true }
                hops += 1
                if hops > ToolManager.maxHops {
                    if current.id != .pan { try replace(with: PanTool()) }
                    emit(.unhandled(event))
                    return false
                }
                let next = current.nextTool(in: self)
                let tool: Tool
                do { tool = try make(next) } catch { tool = PanTool() }
                try replace(with: tool)
            }
        }
    }

    /// Commits what the current tool holds (pending ink strokes, polygon vertices) without
    /// changing the tool.
    public func commit() throws {
        try step { try current.finish(in: self) }
    }

    // MARK: Selection

    /// Selects annotation `id` alone (nil: nothing).
    public func select(_ id: ObjectID?) {
        setSelection(id.map { [$0] } ?? [])
    }

    /// Changes the selection by `ids` as `mode` says. Throws `.notFound` for an object
    /// that is no annotation of the document (and changes nothing then).
    public func select(_ ids: [ObjectID], mode: SelectionMode) throws {
        for id in ids where try document.annotation(id) == nil {
            throw PDFError(.notFound, "no annotation is object \(id)")
        }
        var list = selectedAnnotations
        switch mode {
        case .replace:
            list = []
            for id in ids where !list.contains(where: { $0.number == id.number }) { list.append(id) }
        case .add:
            for id in ids where !list.contains(where: { $0.number == id.number }) { list.append(id) }
        case .toggle:
            for id in ids {
                if let i = list.firstIndex(where: { $0.number == id.number }) { list.remove(at: i) } else { list.append(id) }
            }
        case .remove:
            list.removeAll { s in ids.contains { $0.number == s.number } }
        }
        setSelection(list)
    }

    /// The annotations a viewer lets the user select on page `pageIndex` whose rectangle
    /// meets `rect` (a rubber band): drawn on the page (``Annotation/isDrawnOnPage``), not
    /// links or form widgets, in /Annots order.
    public func annotations(in rect: Rect, pageIndex: Int) throws -> [ObjectID] {
        let band = rect.normalized
        guard [band.left, band.bottom, band.right, band.top].allSatisfy(\.isFinite) else {
            throw PDFError(.invalidArgument, "the rectangle \(rect) is not finite")
        }
        return try document.annotations(onPage: pageIndex).compactMap { a in
            guard let id = a.id, a.isDrawnOnPage, a.subtype != "Link", a.subtype != "Widget" else { return nil }
            let r = a.rect.normalized
            return r.left <= band.right && band.left <= r.right && r.bottom <= band.top && band.bottom <= r.top ? id : nil
        }
    }

    /// Changes the selection by the annotations of page `pageIndex` that `rect` meets
    /// (``annotations(in:pageIndex:)``), as `mode` says; returns them.
    @discardableResult
    public func select(in rect: Rect, pageIndex: Int, mode: SelectionMode) throws -> [ObjectID] {
        let found = try annotations(in: rect, pageIndex: pageIndex)
        try select(found, mode: mode)
        return found
    }

    /// Sets the selection; reports ``ToolEvent/selectionChanged(_:)`` (with the first
    /// selected annotation) when it changed.
    func setSelection(_ ids: [ObjectID]) {
        guard ids != selectedAnnotations else { return }
        selectedAnnotations = ids
        emit(.selectionChanged(selection))
    }

    /// Whether annotation `a` may be moved or resized by the user: not read-only, not
    /// locked (ISO 32000-2 §12.5.3).
    static func isMovable(_ a: Annotation) -> Bool {
        a.flags & (Annotation.Flag.readOnly | Annotation.Flag.locked) == 0
    }

    /// The selection's eight handles (corners, then the middles of the edges: left-bottom,
    /// right-bottom, left-top, right-top, left, right, bottom, top), which a drag resizes
    /// it by; none unless exactly one annotation is selected, drawn on its page and movable.
    public func selectionHandles() throws -> [Point] {
        guard selectedAnnotations.count == 1, let id = selection, let a = try document.annotation(id),
              a.isDrawnOnPage, ToolManager.isMovable(a) else { return [] }
        return AnnotEditTool.handlePoints(of: a.rect)
    }

    // MARK: Editing the selection

    /// Deletes the selected annotations (one undo step). Throws `.state` when nothing is
    /// selected, or when one of them is locked (/F 128: ISO 32000-2 §12.5.3 forbids
    /// deleting it; nothing is deleted then).
    public func deleteSelection() throws {
        guard !selectedAnnotations.isEmpty else { throw PDFError(.state, "no annotation is selected") }
        var found: [Annotation] = []
        for id in selectedAnnotations {
            guard let a = try document.annotation(id) else { continue }
            if a.flags & Annotation.Flag.locked != 0 {
                throw PDFError(.state, "annotation \(id) is locked (/F 128): it cannot be deleted (ISO 32000-2 12.5.3)")
            }
            found.append(a)
        }
        guard !found.isEmpty else { throw PDFError(.notFound, "the selected annotations are gone") }
        try step(verb: "Delete") {
            for a in found {
                guard let id = a.id, try document.annotation(id) != nil else { continue }  // a popup went with its parent
                try remove(id)
            }
        }
    }

    /// Moves the selected annotations in their pages' drawing order (one undo step: "Bring
    /// Forward Square"). Returns how many moved. Throws `.state` when nothing is selected.
    @discardableResult
    public func moveSelection(_ order: AnnotationOrder) throws -> Int {
        guard !selectedAnnotations.isEmpty else { throw PDFError(.state, "no annotation is selected") }
        let found = try selectedAnnotations.compactMap { try document.annotation($0) }
        let ids = found.compactMap(\.id)
        guard !ids.isEmpty else { throw PDFError(.notFound, "the selected annotations are gone") }
        let verb: String
        switch order {
        case .forward: verb = "Bring Forward"
        case .backward: verb = "Send Backward"
        case .front: verb = "Bring to Front"
        case .back: verb = "Send to Back"
        }
        // To the front in selection order (the last selected ends on top), to the back in
        // reverse (the first selected ends at the bottom); forward last first and backward
        // first first, so that a selected annotation does not step over another selected
        // one listed next to it in that order.
        let ordered = order == .back || order == .forward ? ids.reversed() : ids
        // The step changes the pages' /Annots, not the annotations: it names them itself.
        let noun = found.count == 1 ? UndoStep.noun(found[0].subtype) : "\(found.count) annotations"
        let moved = try step(verb: verb, description: "\(verb) \(noun)") {
            var count = 0
            for id in ordered where try document.moveAnnotation(id, order) {
                count += 1
                emit(.annotationModified(id))
            }
            return count
        }
        return moved
    }

    /// The one selected annotation; throws `.state` when none or several are selected.
    private func single(_ what: String) throws -> ObjectID {
        guard let id = selection else { throw PDFError(.state, "no annotation is selected") }
        guard selectedAnnotations.count == 1 else {
            throw PDFError(.state, "\(selectedAnnotations.count) annotations are selected: \(what) needs one")
        }
        return id
    }

    /// Sets the contents of the selected annotation (one undo step). Throws `.state` when
    /// nothing or several are selected, or when its contents are locked (/F 512,
    /// LockedContents).
    public func setSelectionContents(_ text: String?) throws {
        let id = try single("setting the contents")
        guard var a = try document.annotation(id) else { throw PDFError(.notFound, "the selected annotation \(id) is gone") }
        if a.flags & Annotation.Flag.lockedContents != 0 {
            throw PDFError(.state, "the contents of annotation \(id) are locked (/F 512, LockedContents)")
        }
        a.contents = text
        try step(verb: "Edit") { try update(a) }
    }

    /// Adds a text reply with `text` to the selected annotation, by the style's author (one
    /// undo step). Returns the reply. Throws `.state` when nothing or several are selected,
    /// `.disabled` when the document's replies are off.
    @discardableResult
    public func reply(_ text: String) throws -> Annotation {
        let id = try single("a reply")
        guard let parent = try document.annotation(id) else { throw PDFError(.notFound, "the selected annotation \(id) is gone") }
        return try step(description: "Reply to \(UndoStep.noun(parent.subtype))") {
            let r = try document.addReply(to: id, author: style.author, contents: text)
            if let rid = r.id { emit(.annotationAdded(rid)) }
            return r
        }
    }

    /// Sets a review state on the selected annotation: a state reply by the style's author
    /// (one undo step). Returns the reply. Throws `.state` when nothing or several are
    /// selected, `.invalidArgument` for a state that is not one of `model`'s.
    @discardableResult
    public func setReviewState(_ state: String, model: StateModel = .review) throws -> Annotation {
        let id = try single("a review state")
        guard model.states.contains(state) else {
            throw PDFError(.invalidArgument, "\(state) is not a state of the \(model.rawValue) model (\(model.states.joined(separator: ", ")))")
        }
        return try step(description: "Set state \(state)") {
            let r = try document.addStateReply(to: id, author: style.author, model: model, state: state)
            if let rid = r.id { emit(.annotationAdded(rid)) }
            return r
        }
    }

    /// Sets the value of the form field whose widget is selected (one undo step), with the
    /// forms model's rules (``Document/setFieldValues(_:of:)``): text, a check box's or radio
    /// button's state ("Off" or an on-state), a choice (list boxes: one choice per line).
    /// Throws `.state` when no widget is selected, `.notFound` when the selected annotation
    /// is no field's widget.
    public func setSelectedFieldValue(_ value: String) throws {
        guard let id = selection else { throw PDFError(.state, "no form field is selected") }
        guard let field = try fieldOf(widget: id) else { throw PDFError(.notFound, "the selection \(id) is no field's widget") }
        let values = field.type == .listBox ? value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [value]
        try step { try setField(field, values, widget: id) }
    }

    /// The form field that has widget `id` (or is merged with it).
    func fieldOf(widget id: ObjectID) throws -> FormField? {
        try document.formFields().first { $0.id.number == id.number || $0.widgets.contains { $0.id.number == id.number } }
    }

    /// Sets `field`'s values through the forms model (part of the current step).
    func setField(_ field: FormField, _ values: [String], widget: ObjectID) throws {
        try step(description: "Fill \(field.name)") {
            try document.setFieldValues(values, of: field)
            emit(.fieldChanged(widget))
        }
    }

    // MARK: Changes (for tools)

    /// Adds `annotation` through the document (part of the current step, or a step of its
    /// own when called outside one).
    @discardableResult
    public func add(_ annotation: Annotation) throws -> Annotation {
        try step {
            let stored = try document.addAnnotation(annotation)
            if let id = stored.id { emit(.annotationAdded(id)) }
            return stored
        }
    }

    /// The full name of the unsigned signature field with a widget on page `page` whose
    /// rectangle holds the centre of `rect`, if any.
    func unsignedSignatureField(around rect: Rect, page: Int) throws -> String? {
        let x = (rect.left + rect.right) / 2, y = (rect.bottom + rect.top) / 2
        for field in try document.formFields() where field.type == .signature {
            guard try document.dictionary(.reference(field.id))?["V"] == nil else { continue }
            for w in field.widgets where w.pageIndex == page {
                let r = w.rect
                if Swift.min(r.left, r.right) <= x && x <= Swift.max(r.left, r.right)
                    && Swift.min(r.bottom, r.top) <= y && y <= Swift.max(r.bottom, r.top) {
                    return field.name
                }
            }
        }
        return nil
    }

    /// Writes a changed annotation through the document (part of the current step).
    public func update(_ annotation: Annotation) throws {
        guard let id = annotation.id, try document.annotation(id) != nil else {
            throw PDFError(.notFound, "the annotation is not in the document")
        }
        try step {
            try document.updateAnnotation(annotation)
            emit(.annotationModified(id))
        }
    }

    /// Deletes annotation `id` through the document (part of the current step).
    public func remove(_ id: ObjectID) throws {
        guard try document.annotation(id) != nil else { throw PDFError(.notFound, "no annotation is object \(id)") }
        try step {
            try document.deleteAnnotation(id)
            if selectedAnnotations.contains(where: { $0.number == id.number }) {
                setSelection(selectedAnnotations.filter { $0.number != id.number })
            }
            emit(.annotationRemoved(id))
        }
    }

    /// Names the step being made ("Move", "Resize"): its description is this verb and what
    /// it changed ("Move Square", "Move 3 annotations").
    public func describeStep(_ verb: String) {
        if record != nil { stepVerb = verb }
    }

    func emit(_ event: ToolEvent) { onEvent?(event) }

    // MARK: Steps

    /// Runs `body` as one undo step: the objects it changes are recorded with their states
    /// before and after. Inside another step, it is part of that one.
    func step<T>(verb: String? = nil, description: String? = nil, _ body: () throws -> T) throws -> T {
        if record != nil {
            if let verb, stepVerb == nil { stepVerb = verb }
            if let description, stepDescription == nil { stepDescription = description }
            return try body()
        }
        pendingSignature = nil
        let result = try recordedStep(verb: verb, description: description, body)
        // A signature drawn in a field is signed after its step, never as part of it: the
        // signing is no undo step (undoing the drawing is then refused, as for any object
        // changed outside the manager).
        if let pending = pendingSignature, let signer = signatureSigner {
            pendingSignature = nil
            try signer(pending.ink, pending.field)
        }
        return result
    }

    /// A drawing the Signature tool committed in an unsigned signature field, to sign when
    /// the step that added it ends (see ``signatureSigner``).
    var pendingSignature: (ink: ObjectID, field: String)? = nil

    private func recordedStep<T>(verb: String?, description: String?, _ body: () throws -> T) throws -> T {
        followDocument()
        let r = ObjectChangeRecord()
        record = r
        stepVerb = verb
        stepDescription = description
        defer {
            record = nil
            if var made = try? UndoStep.make(r, in: document) {
                made.description = stepDescription ?? describe(made, verb: stepVerb)
                undoStack.append(made)
                if undoStack.count > ToolManager.maxUndo { undoStack.removeFirst(undoStack.count - ToolManager.maxUndo) }
                redoStack.removeAll()
            }
            stepVerb = nil
            stepDescription = nil
        }
        return try document.recordingObjectChanges(r, body)
    }

    /// "Add Square", "Delete 2 annotations", "Move Ink", "Edit Note".
    private func describe(_ step: UndoStep, verb: String?) -> String {
        let shown = step.annotations.filter { $0.subtype != "Popup" }
        let noun: String
        if shown.count == 1, let a = shown.first {
            noun = UndoStep.noun(a.subtype)
        } else if shown.isEmpty {
            noun = "the document"
        } else {
            noun = "\(shown.count) annotations"
        }
        if let verb { return "\(verb) \(noun)" }
        if !shown.isEmpty && shown.allSatisfy({ $0.kind == .added }) { return "Add \(noun)" }
        if !shown.isEmpty && shown.allSatisfy({ $0.kind == .removed }) { return "Delete \(noun)" }
        return "Change \(noun)"
    }

    /// A full save renumbered the document's objects: the history names objects that no
    /// longer are what it recorded, and is dropped (as is the selection).
    private func followDocument() {
        guard document.renumberings != numbering else { return }
        numbering = document.renumberings
        undoStack.removeAll()
        redoStack.removeAll()
        setSelection([])
    }

    // MARK: Undo

    public var canUndo: Bool { followDocument(); return !undoStack.isEmpty }
    public var canRedo: Bool { followDocument(); return !redoStack.isEmpty }

    /// The steps undo would take, the next one first.
    public var undoSteps: [UndoStepInfo] { followDocument(); return undoStack.reversed().map(ToolManager.info) }
    /// The steps redo would take, the next one first.
    public var redoSteps: [UndoStepInfo] { followDocument(); return redoStack.reversed().map(ToolManager.info) }

    private static func info(_ s: UndoStep) -> UndoStepInfo {
        UndoStepInfo(description: s.description, annotations: s.annotations.map(\.id))
    }

    /// Undoes the last step (one gesture) exactly: every object it changed gets back its
    /// state before it, under its own number (an undone deletion restores the same object
    /// at its place in /Annots; dates are not stamped again). Returns false when there is
    /// nothing to undo. What the current tool holds (ink strokes) is committed first, as a
    /// step of its own, which is the one undone. When an object the step changed was
    /// changed outside the manager since (a script, a collaborator's change applied by the
    /// sync client, another manager), the step is refused: it throws `.state` naming that
    /// object, is dropped, and the document is left as it was.
    @discardableResult
    public func undo() throws -> Bool {
        try commit()
        followDocument()
        guard let s = undoStack.popLast() else { return false }
        try s.apply(.undo, in: document)
        redoStack.append(s)
        report(s, .undo)
        return true
    }

    /// Redoes the last undone step exactly (the mirror of ``undo()``, with the same
    /// refusal). Returns false when there is nothing to redo.
    @discardableResult
    public func redo() throws -> Bool {
        followDocument()
        guard let s = redoStack.popLast() else { return false }
        try s.apply(.redo, in: document)
        undoStack.append(s)
        report(s, .redo)
        return true
    }

    /// The events of an undone or redone step, and the selection without what it removed.
    private func report(_ s: UndoStep, _ direction: UndoStep.Direction) {
        var gone: Set<Int> = []
        for a in s.annotations {
            if a.isWidget { emit(.fieldChanged(a.id)); continue }
            switch (a.kind, direction) {
            case (.added, .undo), (.removed, .redo):
                gone.insert(a.id.number)
                emit(.annotationRemoved(a.id))
            case (.added, .redo), (.removed, .undo): emit(.annotationAdded(a.id))
            case (.modified, _): emit(.annotationModified(a.id))
            }
        }
        if selectedAnnotations.contains(where: { gone.contains($0.number) }) {
            setSelection(selectedAnnotations.filter { !gone.contains($0.number) })
        }
    }

    // MARK: Helpers for tools

    /// A new annotation in the manager's style.
    func styled(_ subtype: String, page: Int, rect: Rect) -> Annotation {
        var a = Annotation(subtype: subtype, pageIndex: page, rect: rect.normalized)
        a.color = style.color
        a.opacity = style.opacity
        a.author = style.author
        if ["Square", "Circle", "Line", "Polygon", "PolyLine", "Ink"].contains(subtype) { a.borderWidth = style.borderWidth }
        if ["Square", "Circle", "Polygon"].contains(subtype) { a.interiorColor = style.interiorColor }
        return a
    }

    func hit(_ event: PointerEvent) throws -> HitTarget {
        try document.hitTest(pageIndex: event.pageIndex, at: event.point, tolerance: style.tolerance)
    }
}

extension Annotation.Flag {
    /// LockedContents (ISO 32000-2 Table 167, bit 10): the contents may not be changed by
    /// the user; position, size and deletion are not restricted by it.
    public static let lockedContents = 512
}

/// The bounds of x, y pairs, grown by `pad`.
func bounds(_ xy: [Double], pad: Double) -> Rect? {
    guard xy.count >= 2 else { return nil }
    var r = Rect(left: xy[0], bottom: xy[1], right: xy[0], top: xy[1])
    for i in stride(from: 0, to: xy.count - 1, by: 2) {
        r.left = Swift.min(r.left, xy[i]); r.right = Swift.max(r.right, xy[i])
        r.bottom = Swift.min(r.bottom, xy[i + 1]); r.top = Swift.max(r.top, xy[i + 1])
    }
    return Rect(left: r.left - pad, bottom: r.bottom - pad, right: r.right + pad, top: r.top + pad)
}
