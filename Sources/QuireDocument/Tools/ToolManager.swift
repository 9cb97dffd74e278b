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
    public var kind: Kind
    public var pageIndex: Int
    public var point: Point
    public init(_ kind: Kind, pageIndex: Int, _ point: Point) {
        self.kind = kind; self.pageIndex = pageIndex; self.point = point
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
}

extension Tool {
    public func nextTool(in manager: ToolManager) -> ToolID { .pan }
    public func finish(in manager: ToolManager) throws {}
}

/// A headless tool manager: the host sends pointer events in page coordinates; the
/// current tool handles each, or names the tool that replaces it (PDFTron's loop).
/// Every change goes through the document's annotation API (``Document/addAnnotation(_:)``
/// and its siblings), so the change log, checkpoints and sync see it; each public call
/// that changes the document is one undo step.
///
/// Not thread-safe: use it on the thread that uses its document.
public final class ToolManager {
    public let document: Document
    /// How new annotations look (``setStyle(_:)`` checks a new one).
    public private(set) var style = ToolStyle()
    public private(set) var current: Tool
    /// The selected annotation.
    public private(set) var selection: ObjectID?
    /// Receives every ``ToolEvent``, on the thread that made the call.
    public var onEvent: ((ToolEvent) -> Void)?
    /// The most tool replacements for one event; past it the event is dropped
    /// (``ToolEvent/unhandled(_:)``) and Pan becomes current.
    public static let maxHops = 8
    /// The most points kept of one ink stroke, and vertices of one polygon.
    public static let maxPoints = 10_000
    /// The most undo steps kept (the oldest go first).
    public static let maxUndo = 1_000

    private var factories: [String: () -> Tool] = [:]
    private var undoStack: [[Op]] = []
    private var redoStack: [[Op]] = []
    private var gesture: [Op] = []
    /// Object number of an annotation that undo or redo re-added -> its new id.
    private var remap: [Int: ObjectID] = [:]

    enum Op {
        case added(Annotation)
        case modified(before: Annotation, after: Annotation)
        case removed(Annotation)
        /// A form field's values, before and after (by its fully qualified name).
        case field(name: String, widget: ObjectID, before: [String], after: [String])
    }

    public init(document: Document) {
        self.document = document
        self.current = PanTool()
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
        defer { closeGesture() }
        try replace(with: tool)
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
        case .square, .circle, .line, .arrow: return ShapeTool(kind)
        case .polygon, .polyLine: return PolyTool(kind)
        case .stickyNote, .freeText: return PlaceTool(kind)
        case .link: return LinkTool()
        case .formFill: return FormFillTool()
        case .highlight, .underline, .strikeOut, .squiggly: return TextMarkupTool(kind)
        }
    }

    private func replace(with tool: Tool) throws {
        let old = current
        current = tool
        emit(.toolChanged(from: old.id, to: tool.id))
        try old.finish(in: self)
    }

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
        defer { closeGesture() }
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

    /// Commits what the current tool holds (pending ink strokes, polygon vertices) without
    /// changing the tool.
    public func commit() throws {
        defer { closeGesture() }
        try current.finish(in: self)
    }

    // MARK: Selection and editing

    /// Selects annotation `id` (nil: nothing).
    public func select(_ id: ObjectID?) {
        guard id != selection else { return }
        selection = id
        emit(.selectionChanged(id))
    }

    /// Deletes the selected annotation (one undo step). Throws `.state` when nothing is selected.
    public func deleteSelection() throws {
        guard let id = selection else { throw PDFError(.state, "no annotation is selected") }
        defer { closeGesture() }
        try remove(id)
    }

    /// Sets the contents of the selected annotation (one undo step). Throws `.state` when
    /// nothing is selected.
    public func setSelectionContents(_ text: String?) throws {
        guard let id = selection else { throw PDFError(.state, "no annotation is selected") }
        guard var a = try document.annotation(id) else { throw PDFError(.notFound, "the selected annotation \(id) is gone") }
        defer { closeGesture() }
        a.contents = text
        try update(a)
    }

    /// Sets the value of the form field whose widget is selected (one undo step), with the
    /// forms model's rules (``Document/setFieldValues(_:of:)``): text, a check box's or radio
    /// button's state ("Off" or an on-state), a choice (list boxes: one choice per line).
    /// Throws `.state` when no widget is selected, `.notFound` when the selected annotation
    /// is no field's widget.
    public func setSelectedFieldValue(_ value: String) throws {
        guard let id = selection else { throw PDFError(.state, "no form field is selected") }
        guard let field = try fieldOf(widget: id) else { throw PDFError(.notFound, "the selection \(id) is no form field's widget") }
        defer { closeGesture() }
        let values = field.type == .listBox ? value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [value]
        try setField(field, values, widget: id)
    }

    /// The form field that has widget `id` (or is merged with it).
    func fieldOf(widget id: ObjectID) throws -> FormField? {
        try document.formFields().first { $0.id.number == id.number || $0.widgets.contains { $0.id.number == id.number } }
    }

    /// Sets `field`'s values through the forms model and records it for undo.
    func setField(_ field: FormField, _ values: [String], widget: ObjectID) throws {
        let before = field.values.isEmpty ? [""] : field.values
        try document.setFieldValues(values, of: field)
        gesture.append(.field(name: field.name, widget: widget, before: before, after: values))
        emit(.fieldChanged(widget))
    }

    // MARK: Changes (for tools)

    /// Adds `annotation` through the document and records it for undo.
    @discardableResult
    public func add(_ annotation: Annotation) throws -> Annotation {
        let stored = try document.addAnnotation(annotation)
        gesture.append(.added(stored))
        if let id = stored.id { emit(.annotationAdded(id)) }
        return stored
    }

    /// Writes a changed annotation through the document and records it for undo.
    public func update(_ annotation: Annotation) throws {
        guard let id = annotation.id, let before = try document.annotation(id) else {
            throw PDFError(.notFound, "the annotation is not in the document")
        }
        try document.updateAnnotation(annotation)
        let after = try document.annotation(id) ?? annotation
        gesture.append(.modified(before: before, after: after))
        emit(.annotationModified(id))
    }

    /// Deletes annotation `id` through the document and records it for undo.
    public func remove(_ id: ObjectID) throws {
        guard let before = try document.annotation(id) else { throw PDFError(.notFound, "no annotation is object \(id)") }
        try document.deleteAnnotation(id)
        gesture.append(.removed(before))
        if selection == id { select(nil) }
        emit(.annotationRemoved(id))
    }

    func emit(_ event: ToolEvent) { onEvent?(event) }

    private func closeGesture() {
        guard !gesture.isEmpty else { return }
        undoStack.append(gesture)
        if undoStack.count > ToolManager.maxUndo { undoStack.removeFirst(undoStack.count - ToolManager.maxUndo) }
        redoStack.removeAll()
        gesture = []
    }

    // MARK: Undo

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Undoes the last step (one gesture). Returns false when there is nothing to undo.
    /// A step that cannot be undone (its annotation was changed behind the manager's back)
    /// throws and is dropped.
    @discardableResult
    public func undo() throws -> Bool {
        try current.finish(in: self)
        closeGesture()
        guard let step = undoStack.popLast() else { return false }
        try document.batch {
            for op in step.reversed() {
                switch op {
                case .added(let a): try removeQuietly(a)
                case .modified(let before, _): try writeQuietly(before)
                case .removed(let a): try readd(a)
                case .field(let name, let widget, let before, _): try setFieldQuietly(name, widget, before)
                }
            }
        }
        redoStack.append(step)
        return true
    }

    /// Redoes the last undone step. Returns false when there is nothing to redo.
    @discardableResult
    public func redo() throws -> Bool {
        guard let step = redoStack.popLast() else { return false }
        try document.batch {
            for op in step {
                switch op {
                case .added(let a): try readd(a)
                case .modified(_, let after): try writeQuietly(after)
                case .removed(let a): try removeQuietly(a)
                case .field(let name, let widget, _, let after): try setFieldQuietly(name, widget, after)
                }
            }
        }
        undoStack.append(step)
        return true
    }

    /// The id an annotation has now (undo and redo re-add deleted annotations as new objects).
    func currentID(_ id: ObjectID) -> ObjectID {
        var id = id
        var hops = 0
        while let next = remap[id.number], next != id, hops < 10_000 { id = next; hops += 1 }
        return id
    }

    private func removeQuietly(_ a: Annotation) throws {
        guard let original = a.id else { return }
        let id = currentID(original)
        try document.deleteAnnotation(id)
        if selection == id { select(nil) }
        emit(.annotationRemoved(id))
    }

    private func writeQuietly(_ a: Annotation) throws {
        guard let original = a.id else { return }
        var b = a
        b.id = currentID(original)
        b.inReplyTo = b.inReplyTo.map(currentID)
        try document.updateAnnotation(b)
        emit(.annotationModified(currentID(original)))
    }

    private func setFieldQuietly(_ name: String, _ widget: ObjectID, _ values: [String]) throws {
        try document.setFieldValues(values, of: try document.formField(named: name))
        emit(.fieldChanged(widget))
    }

    private func readd(_ a: Annotation) throws {
        var b = a
        b.inReplyTo = b.inReplyTo.map(currentID)
        b.popup = nil
        let stored = try document.addAnnotation(b)
        if let old = a.id, let new = stored.id {
            if new.number != old.number { remap[old.number] = new }
            emit(.annotationAdded(new))
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
