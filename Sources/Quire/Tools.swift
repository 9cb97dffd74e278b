// The tool manager of include/quire.h: handles, enums and events converted; the rules are
// QuireDocument's (Sources/QuireDocument/Tools).
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

let toolCallbacksVersions = StructVersions<quire_tool_callbacks>(name: "callbacks", sizes: [MemoryLayout<quire_tool_callbacks>.size])
let toolStyleVersions = StructVersions<quire_tool_style>(name: "style", sizes: [MemoryLayout<quire_tool_style>.size])
let customToolVersions = StructVersions<quire_custom_tool>(name: "tool", sizes: [MemoryLayout<quire_custom_tool>.size])
let pointerEventVersions = StructVersions<quire_pointer_event>(name: "event", sizes: [MemoryLayout<quire_pointer_event>.size])
let toolPreviewVersions = StructVersions<quire_tool_preview>(name: "preview", sizes: [MemoryLayout<quire_tool_preview>.size])

var pointerEventDefaults: quire_pointer_event {
    quire_pointer_event(version: pointerEventVersions.current, kind: QUIRE_POINTER_TAP, page_index: 0, x: 0, y: 0, modifiers: 0)
}

var toolPreviewDefaults: quire_tool_preview {
    quire_tool_preview(version: toolPreviewVersions.current, kind: QUIRE_PREVIEW_NONE, tool: QUIRE_TOOL_PAN, page_index: -1,
                       rect: quire_rect(left: 0, bottom: 0, right: 0, top: 0), dx: 0, dy: 0, path_count: 0, closed: 0)
}

var customToolDefaults: quire_custom_tool {
    quire_custom_tool(version: customToolVersions.current, name: nil, handle: nil, finish: nil, release: nil, payload: nil)
}

/// A registered C tool: its callbacks and payload, released once.
final class CToolRegistration {
    let name: String
    let tool: quire_custom_tool
    init(name: String, tool: quire_custom_tool) { self.name = name; self.tool = tool }
    deinit { tool.release?(tool.payload) }
}

/// A C tool in the manager's loop.
final class CCustomTool: Tool {
    let registration: CToolRegistration
    let handle: OpaquePointer
    private var next = ToolID.pan
    var id: ToolID { .custom(registration.name) }

    init(_ registration: CToolRegistration, handle: OpaquePointer) {
        self.registration = registration
        self.handle = handle
    }

    func handle(_ event: PointerEvent, in manager: ToolManager) throws -> Bool {
        guard let fn = registration.tool.handle else { return false }
        var handled: Int32 = 0
        var nextTool = QUIRE_TOOL_PAN
        var nextName: UnsafePointer<CChar>? = nil
        let kind = quire_pointer_kind(rawValue: QUIRE_POINTER_TAP.rawValue + UInt32(event.kind.rawValue))
        let rc = fn(&handled, &nextTool, &nextName, handle, kind, Int32(clamping: event.pageIndex),
                    event.point.x, event.point.y, registration.tool.payload)
        guard rc == 0 else {
            throw CallError(code: QUIRE_EUSER, message: "the handler of tool \(registration.name) returned \(rc)")
        }
        if handled != 0 { return true }
        if nextTool == QUIRE_TOOL_CUSTOM {
            next = nextName.map { .custom(String(cString: $0)) } ?? .pan
        } else {
            next = (try? toolKind(nextTool)).map { .builtIn($0) } ?? .pan
        }
        return false
    }

    func nextTool(in manager: ToolManager) -> ToolID { next }

    func finish(in manager: ToolManager) throws {
        guard let fn = registration.tool.finish else { return }
        let rc = fn(handle, registration.tool.payload)
        guard rc == 0 else {
            throw CallError(code: QUIRE_EUSER, message: "the finish callback of tool \(registration.name) returned \(rc)")
        }
    }
}

var toolCallbacksDefaults: quire_tool_callbacks {
    quire_tool_callbacks(version: toolCallbacksVersions.current, on_event: nil, payload: nil)
}

var toolStyleDefaults: quire_tool_style {
    quire_tool_style(version: toolStyleVersions.current, red: 1, green: 0, blue: 0, border_width: 2, opacity: 1,
                     font_size: 12, tolerance: 4, author: nil, free_text: nil)
}

/// A manager behind a handle, with its callbacks.
final class ToolManagerBox {
    let manager: ToolManager
    let callbacks: quire_tool_callbacks
    /// Inside a call: a callback must not call back in.
    var busy = false
    /// The C tools registered, by name (their payloads are released with the box).
    var registrations: [String: CToolRegistration] = [:]
    /// The style's strings as `quire_tool_manager_style` hands them out (malloc'd, so
    /// that they never move; replaced by the next set_style, freed with the box).
    private(set) var styleAuthor: UnsafeMutablePointer<CChar>? = nil
    private(set) var styleFreeText: UnsafeMutablePointer<CChar>? = nil

    init(_ manager: ToolManager, _ callbacks: quire_tool_callbacks) {
        self.manager = manager
        self.callbacks = callbacks
    }

    deinit {
        free(styleAuthor)
        free(styleFreeText)
    }

    /// The style's strings as C strings owned by the box, made again when they changed.
    func styleStrings() -> (author: UnsafePointer<CChar>?, freeText: UnsafePointer<CChar>?) {
        let style = manager.style
        if styleAuthor.map({ String(cString: $0) }) != style.author {
            free(styleAuthor)
            styleAuthor = style.author.flatMap { strdup($0) }
        }
        if styleFreeText.map({ String(cString: $0) }) != style.freeTextContents {
            free(styleFreeText)
            styleFreeText = strdup(style.freeTextContents)
        }
        return (styleAuthor.map { UnsafePointer($0) }, styleFreeText.map { UnsafePointer($0) })
    }

    /// Drops the strings handed out (a new style replaces them).
    func dropStyleStrings() {
        free(styleAuthor)
        free(styleFreeText)
        styleAuthor = nil
        styleFreeText = nil
    }

    /// Runs `body` with the manager, refusing re-entry from a callback.
    func run<T>(_ body: (ToolManager) throws -> T) throws -> T {
        guard !busy else { throw CallError(code: QUIRE_ESTATE, message: "the tool manager is in a call (a callback may not call it)") }
        busy = true
        defer { busy = false }
        return try body(manager)
    }
}

func toolBox(_ handle: OpaquePointer?) throws -> ToolManagerBox {
    let handle = try required(handle, "manager")
    let box = Unmanaged<ToolManagerBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    if let lock = box.manager.document.sharedLock { HeldDocumentLocks.current.take(lock) }
    return box
}

func cTool(_ id: ToolID) -> quire_tool {
    switch id {
    case .builtIn(let kind): return quire_tool(rawValue: QUIRE_TOOL_PAN.rawValue + UInt32(kind.rawValue))
    case .custom: return QUIRE_TOOL_CUSTOM
    }
}

func toolKind(_ tool: quire_tool) throws -> ToolKind {
    let offset = Int(tool.rawValue) - Int(QUIRE_TOOL_PAN.rawValue)
    guard let kind = ToolKind(rawValue: offset) else {
        throw CallError(code: QUIRE_EINVAL, message: "tool 0x\(String(tool.rawValue, radix: 16)) is not a built-in QUIRE_TOOL_* value")
    }
    return kind
}

private func pointerKind(_ kind: quire_pointer_kind) throws -> PointerEvent.Kind {
    let offset = Int(kind.rawValue) - Int(QUIRE_POINTER_TAP.rawValue)
    guard let k = PointerEvent.Kind(rawValue: offset) else {
        throw CallError(code: QUIRE_EINVAL, message: "kind 0x\(String(kind.rawValue, radix: 16)) is not one of the QUIRE_POINTER_* values")
    }
    return k
}

private func withOptionalCString<T>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}

/// Delivers `event` to the C callback.
private func deliver(_ event: ToolEvent, _ handle: OpaquePointer, _ callbacks: quire_tool_callbacks) {
    guard let fn = callbacks.on_event else { return }
    var e = quire_tool_event(version: UInt32(QUIRE_TOOL_EVENT_VERSION), kind: QUIRE_TOOL_EVENT_TOOL_CHANGED,
                             from_tool: QUIRE_TOOL_PAN, to_tool: QUIRE_TOOL_PAN, from_name: nil, to_name: nil,
                             object_number: 0, page_index: -1, uri: nil, pointer: QUIRE_POINTER_TAP, x: 0, y: 0)
    func number(_ id: ObjectID?) -> Int32 { Int32(clamping: id?.number ?? 0) }
    var uri: String? = nil
    var fromName: String? = nil, toName: String? = nil
    switch event {
    case .toolChanged(let from, let to):
        e.from_tool = cTool(from); e.to_tool = cTool(to)
        if case .custom(let n) = from { fromName = n }
        if case .custom(let n) = to { toName = n }
    case .selectionChanged(let id): e.kind = QUIRE_TOOL_EVENT_SELECTION_CHANGED; e.object_number = number(id)
    case .annotationAdded(let id): e.kind = QUIRE_TOOL_EVENT_ANNOTATION_ADDED; e.object_number = number(id)
    case .annotationModified(let id): e.kind = QUIRE_TOOL_EVENT_ANNOTATION_MODIFIED; e.object_number = number(id)
    case .annotationRemoved(let id): e.kind = QUIRE_TOOL_EVENT_ANNOTATION_REMOVED; e.object_number = number(id)
    case .linkActivated(let id, let target):
        e.kind = QUIRE_TOOL_EVENT_LINK_ACTIVATED; e.object_number = number(id)
        switch target {
        case .uri(let s): uri = s
        case .page(let p): e.page_index = Int32(clamping: p)
        case .other: break
        }
    case .fieldActivated(let id): e.kind = QUIRE_TOOL_EVENT_FIELD_ACTIVATED; e.object_number = number(id)
    case .editRequested(let id): e.kind = QUIRE_TOOL_EVENT_EDIT_REQUESTED; e.object_number = number(id)
    case .fieldChanged(let id): e.kind = QUIRE_TOOL_EVENT_FIELD_CHANGED; e.object_number = number(id)
    case .unhandled(let p):
        e.kind = QUIRE_TOOL_EVENT_UNHANDLED
        e.page_index = Int32(clamping: p.pageIndex)
        e.pointer = quire_pointer_kind(rawValue: QUIRE_POINTER_TAP.rawValue + UInt32(p.kind.rawValue))
        e.x = p.point.x; e.y = p.point.y
    }
    withOptionalCString(uri) { u in
        withOptionalCString(fromName) { f in
            withOptionalCString(toName) { t in
                e.uri = u; e.from_name = f; e.to_name = t
                fn(handle, &e, callbacks.payload)
            }
        }
    }
}

// MARK: Coordinates and hit testing

private func view(_ sx: Int32, _ sy: Int32, _ w: Int32, _ h: Int32, _ rotate: Int32) throws -> PageView {
    guard (0...3).contains(rotate) else { throw CallError(code: QUIRE_EINVAL, message: "rotate \(rotate) is not 0, 1, 2 or 3") }
    return PageView(startX: Double(sx), startY: Double(sy), sizeX: Double(w), sizeY: Double(h), rotate: Int(rotate))
}

@c @implementation
public func quire_page_device_to_page(_ outX: UnsafeMutablePointer<Double>?, _ outY: UnsafeMutablePointer<Double>?,
                                      _ doc: OpaquePointer?, _ pageIndex: Int32, _ startX: Int32, _ startY: Int32,
                                      _ sizeX: Int32, _ sizeY: Int32, _ rotate: Int32,
                                      _ deviceX: Double, _ deviceY: Double) -> Int32 {
    guarded("quire_page_device_to_page") {
        let ox = try required(outX, "out_x"), oy = try required(outY, "out_y")
        let v = try view(startX, startY, sizeX, sizeY, rotate)
        let p = try page(doc, pageIndex).geometry().deviceToPage(Point(x: deviceX, y: deviceY), view: v)
        ox.pointee = p.x; oy.pointee = p.y
    }
}

@c @implementation
public func quire_page_page_to_device(_ outX: UnsafeMutablePointer<Double>?, _ outY: UnsafeMutablePointer<Double>?,
                                      _ doc: OpaquePointer?, _ pageIndex: Int32, _ startX: Int32, _ startY: Int32,
                                      _ sizeX: Int32, _ sizeY: Int32, _ rotate: Int32,
                                      _ pageX: Double, _ pageY: Double) -> Int32 {
    guarded("quire_page_page_to_device") {
        let ox = try required(outX, "out_x"), oy = try required(outY, "out_y")
        let v = try view(startX, startY, sizeX, sizeY, rotate)
        let p = try page(doc, pageIndex).geometry().pageToDevice(Point(x: pageX, y: pageY), view: v)
        ox.pointee = p.x; oy.pointee = p.y
    }
}

@c @implementation
public func quire_page_hit_test(_ outKind: UnsafeMutablePointer<quire_hit_kind>?, _ outObject: UnsafeMutablePointer<Int32>?,
                                _ doc: OpaquePointer?, _ pageIndex: Int32, _ x: Double, _ y: Double,
                                _ tolerance: Double) -> Int32 {
    guarded("quire_page_hit_test") {
        let ok = try required(outKind, "out_kind"), oo = try required(outObject, "out_object")
        let hit = try document(doc).hitTest(pageIndex: Int(pageIndex), at: Point(x: x, y: y), tolerance: tolerance)
        switch hit {
        case .none: ok.pointee = QUIRE_HIT_NONE
        case .annotation: ok.pointee = QUIRE_HIT_ANNOTATION
        case .link: ok.pointee = QUIRE_HIT_LINK
        case .widget: ok.pointee = QUIRE_HIT_WIDGET
        }
        oo.pointee = Int32(clamping: hit.annotation?.id?.number ?? 0)
    }
}

@c @implementation
public func quire_page_hit_test_text(_ outIndex: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ pageIndex: Int32,
                                     _ x: Double, _ y: Double, _ tolerance: Double) -> Int32 {
    guarded("quire_page_hit_test_text") {
        let out = try required(outIndex, "out_index")
        let index = try document(doc).hitTestText(pageIndex: Int(pageIndex), at: Point(x: x, y: y), tolerance: tolerance)
        out.pointee = index.map { Int32(clamping: $0) } ?? -1
    }
}

// MARK: The manager

@c @implementation
public func quire_tool_callbacks_init(_ callbacks: UnsafeMutablePointer<quire_tool_callbacks>?, _ version: UInt32) -> Int32 {
    guarded("quire_tool_callbacks_init") {
        try toolCallbacksVersions.initialize(callbacks, version: version, defaults: toolCallbacksDefaults)
    }
}

@c @implementation
public func quire_tool_style_init(_ style: UnsafeMutablePointer<quire_tool_style>?, _ version: UInt32) -> Int32 {
    guarded("quire_tool_style_init") {
        try toolStyleVersions.initialize(style, version: version, defaults: toolStyleDefaults)
    }
}

@c @implementation
public func quire_tool_manager_new(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                   _ callbacks: UnsafePointer<quire_tool_callbacks>?) -> Int32 {
    guarded("quire_tool_manager_new") {
        let out = try required(out, "out")
        let d = try document(doc)
        let cb = try callbacks.map { try toolCallbacksVersions.read($0, defaults: toolCallbacksDefaults).value } ?? toolCallbacksDefaults
        let box = ToolManagerBox(ToolManager(document: d), cb)
        let handle = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
        // The manager's events go to the C callback with this handle; unowned, since the
        // box owns the manager.
        box.manager.onEvent = { event in deliver(event, handle, cb) }
        out.pointee = handle
    }
}

@c @implementation
public func quire_tool_manager_free(_ manager: OpaquePointer?) {
    guard let manager else { return }
    let box = Unmanaged<ToolManagerBox>.fromOpaque(UnsafeRawPointer(manager))
    box.takeUnretainedValue().manager.onEvent = nil
    box.release()
}

@c @implementation
public func quire_tool_manager_set_style(_ manager: OpaquePointer?, _ style: UnsafePointer<quire_tool_style>?) -> Int32 {
    guarded("quire_tool_manager_set_style") {
        let box = try toolBox(manager)
        let s = try toolStyleVersions.read(try required(style, "style"), defaults: toolStyleDefaults).value
        var out = ToolStyle()
        out.color = [s.red, s.green, s.blue]
        out.borderWidth = s.border_width
        out.opacity = s.opacity
        out.fontSize = s.font_size
        out.tolerance = s.tolerance
        out.author = s.author.map { String(cString: $0) }
        out.freeTextContents = s.free_text.map { String(cString: $0) } ?? "Text"
        out.interiorColor = box.manager.style.interiorColor
        try box.run { try $0.setStyle(out) }
        box.dropStyleStrings()
    }
}

@c @implementation
public func quire_tool_manager_set_tool(_ manager: OpaquePointer?, _ tool: quire_tool) -> Int32 {
    guarded("quire_tool_manager_set_tool") {
        let box = try toolBox(manager)
        let kind = try toolKind(tool)
        try box.run { try $0.setTool(.builtIn(kind)) }
    }
}

@c @implementation
public func quire_tool_manager_current_tool(_ out: UnsafeMutablePointer<quire_tool>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_current_tool") {
        let out = try required(out, "out")
        out.pointee = cTool(try toolBox(manager).manager.current.id)
    }
}

@c @implementation
public func quire_tool_manager_send(_ outHandled: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                    _ kind: quire_pointer_kind, _ pageIndex: Int32, _ x: Double, _ y: Double) -> Int32 {
    guarded("quire_tool_manager_send") {
        let box = try toolBox(manager)
        let k = try pointerKind(kind)
        let handled = try box.run { try $0.send(PointerEvent(k, pageIndex: Int(pageIndex), Point(x: x, y: y))) }
        outHandled?.pointee = handled ? 1 : 0
    }
}

@c @implementation
public func quire_tool_manager_selection(_ out: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_selection") {
        let out = try required(out, "out_object")
        out.pointee = Int32(clamping: try toolBox(manager).manager.selection?.number ?? 0)
    }
}

@c @implementation
public func quire_tool_manager_delete_selection(_ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_delete_selection") {
        try toolBox(manager).run { try $0.deleteSelection() }
    }
}

@c @implementation
public func quire_tool_manager_move_selection(_ outMoved: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                              _ order: quire_annot_order) -> Int32 {
    guarded("quire_tool_manager_move_selection") {
        let box = try toolBox(manager)
        let o = try annotationOrder(order)
        let moved = try box.run { try $0.moveSelection(o) }
        outMoved?.pointee = Int32(clamping: moved)
    }
}

@c @implementation
public func quire_tool_manager_set_measurement(_ manager: OpaquePointer?, _ fromValue: Double, _ fromUnit: UnsafePointer<CChar>?,
                                               _ toValue: Double, _ toUnit: UnsafePointer<CChar>?, _ precision: Int32) -> Int32 {
    guarded("quire_tool_manager_set_measurement") {
        let box = try toolBox(manager)
        var scale = MeasurementScale()
        if let from = cText(fromUnit) {
            guard let to = cText(toUnit) else { throw CallError(code: QUIRE_EINVAL, message: "to_unit is NULL") }
            scale = MeasurementScale(fromValue: fromValue, fromUnit: from, toValue: toValue, toUnit: to, precision: Int(precision))
            try Annotation.validate(measurement: scale, subtype: "Line")
        }
        try box.run { $0.measurementScale = scale }
    }
}

@c @implementation
public func quire_tool_manager_set_stamp_image(_ manager: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
                                               _ contentType: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_stamp_image") {
        let box = try toolBox(manager)
        let image = try imageArgument(data, length, contentType)
        try box.run { try $0.setStampImage(image) }
    }
}

@c @implementation
public func quire_tool_manager_set_attachment(_ manager: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int,
                                              _ fileName: UnsafePointer<CChar>?, _ contentType: UnsafePointer<CChar>?,
                                              _ description: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_attachment") {
        let box = try toolBox(manager)
        let file = try fileArgument(data, length, fileName, contentType, description)
        try box.run { $0.attachment = file }
    }
}

@c @implementation
public func quire_tool_manager_set_selection_contents(_ manager: OpaquePointer?, _ text: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_selection_contents") {
        let box = try toolBox(manager)
        let s = text.map { String(cString: $0) }
        try box.run { try $0.setSelectionContents(s) }
    }
}

@c @implementation
public func quire_tool_manager_set_field_value(_ manager: OpaquePointer?, _ value: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_field_value") {
        let box = try toolBox(manager)
        let v = String(cString: try required(value, "value"))
        try box.run { try $0.setSelectedFieldValue(v) }
    }
}

@c @implementation
public func quire_custom_tool_init(_ tool: UnsafeMutablePointer<quire_custom_tool>?, _ version: UInt32) -> Int32 {
    guarded("quire_custom_tool_init") {
        try customToolVersions.initialize(tool, version: version, defaults: customToolDefaults)
    }
}

@c @implementation
public func quire_tool_manager_register_tool(_ manager: OpaquePointer?, _ tool: UnsafePointer<quire_custom_tool>?) -> Int32 {
    guarded("quire_tool_manager_register_tool") {
        let handle = try required(manager, "manager")
        let box = try toolBox(manager)
        let t = try customToolVersions.read(try required(tool, "tool"), defaults: customToolDefaults).value
        guard let cName = t.name else { throw CallError(code: QUIRE_EINVAL, message: "tool->name is NULL") }
        guard t.handle != nil else { throw CallError(code: QUIRE_EINVAL, message: "tool->handle is NULL") }
        let name = String(cString: cName)
        guard !name.isEmpty else { throw CallError(code: QUIRE_EINVAL, message: "tool->name is empty") }
        try box.run { manager in
            let registration = CToolRegistration(name: name, tool: t)
            box.registrations[name] = registration
            manager.register(name: name) { CCustomTool(registration, handle: handle) }
        }
    }
}

@c @implementation
public func quire_tool_manager_set_custom_tool(_ manager: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_custom_tool") {
        let box = try toolBox(manager)
        let n = String(cString: try required(name, "name"))
        try box.run { try $0.setTool(.custom(n)) }
    }
}

@c @implementation
public func quire_tool_manager_commit(_ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_commit") {
        try toolBox(manager).run { try $0.commit() }
    }
}

@c @implementation
public func quire_tool_manager_undo(_ outDone: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_undo") {
        let done = try toolBox(manager).run { try $0.undo() }
        outDone?.pointee = done ? 1 : 0
    }
}

@c @implementation
public func quire_tool_manager_redo(_ outDone: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_redo") {
        let done = try toolBox(manager).run { try $0.redo() }
        outDone?.pointee = done ? 1 : 0
    }
}

// MARK: Issue 31: modifiers, selection, previews, handles, history, style, replies

private func selectionMode(_ mode: quire_selection_mode) throws -> SelectionMode {
    let offset = Int(mode.rawValue) - Int(QUIRE_SELECT_REPLACE.rawValue)
    guard let m = SelectionMode(rawValue: offset) else {
        throw CallError(code: QUIRE_EINVAL, message: "mode 0x\(String(mode.rawValue, radix: 16)) is not one of the QUIRE_SELECT_* values")
    }
    return m
}

private func history(_ which: quire_history, _ manager: ToolManager) throws -> [UndoStepInfo] {
    switch which {
    case QUIRE_HISTORY_UNDO: return manager.undoSteps
    case QUIRE_HISTORY_REDO: return manager.redoSteps
    default:
        throw CallError(code: QUIRE_EINVAL, message: "which 0x\(String(which.rawValue, radix: 16)) is not QUIRE_HISTORY_UNDO or QUIRE_HISTORY_REDO")
    }
}

/// An RGB triple for the C style from a colour of 0, 1, 3 or 4 components.
private func rgb(_ c: [Double]) -> (Double, Double, Double) {
    switch c.count {
    case 1: return (c[0], c[0], c[0])
    case 3: return (c[0], c[1], c[2])
    case 4: return ((1 - c[0]) * (1 - c[3]), (1 - c[1]) * (1 - c[3]), (1 - c[2]) * (1 - c[3]))
    default: return (0, 0, 0)
    }
}

@c @implementation
public func quire_pointer_event_init(_ event: UnsafeMutablePointer<quire_pointer_event>?, _ version: UInt32) -> Int32 {
    guarded("quire_pointer_event_init") {
        try pointerEventVersions.initialize(event, version: version, defaults: pointerEventDefaults)
    }
}

@c @implementation
public func quire_tool_manager_send_event(_ outHandled: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                          _ event: UnsafePointer<quire_pointer_event>?) -> Int32 {
    guarded("quire_tool_manager_send_event") {
        let box = try toolBox(manager)
        let e = try pointerEventVersions.read(try required(event, "event"), defaults: pointerEventDefaults).value
        let k = try pointerKind(e.kind)
        let mods = PointerEvent.Modifiers(rawValue: e.modifiers & UInt32(QUIRE_MODIFIER_SHIFT))
        let handled = try box.run {
            try $0.send(PointerEvent(k, pageIndex: Int(e.page_index), Point(x: e.x, y: e.y), modifiers: mods))
        }
        outHandled?.pointee = handled ? 1 : 0
    }
}

@c @implementation
public func quire_tool_manager_style(_ out: UnsafeMutablePointer<quire_tool_style>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_style") {
        let out = try required(out, "out")
        let box = try toolBox(manager)
        let style = box.manager.style
        let (r, g, b) = rgb(style.color)
        let strings = box.styleStrings()
        let value = quire_tool_style(version: toolStyleVersions.current, red: r, green: g, blue: b,
                                     border_width: style.borderWidth, opacity: style.opacity, font_size: style.fontSize,
                                     tolerance: style.tolerance, author: strings.author, free_text: strings.freeText)
        try toolStyleVersions.write(value, to: out)
    }
}

@c @implementation
public func quire_tool_manager_selection_count(_ out: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_selection_count") {
        let out = try required(out, "out_count")
        out.pointee = Int32(clamping: try toolBox(manager).manager.selectedAnnotations.count)
    }
}

@c @implementation
public func quire_tool_manager_selection_at(_ out: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                            _ index: Int32) -> Int32 {
    guarded("quire_tool_manager_selection_at") {
        let out = try required(out, "out_object")
        let list = try toolBox(manager).manager.selectedAnnotations
        guard index >= 0, Int(index) < list.count else {
            throw CallError(code: QUIRE_ERANGE, message: "index \(index) is out of range (\(list.count) selected)")
        }
        out.pointee = Int32(clamping: list[Int(index)].number)
    }
}

@c @implementation
public func quire_tool_manager_select(_ manager: OpaquePointer?, _ object: Int32, _ mode: quire_selection_mode) -> Int32 {
    guarded("quire_tool_manager_select") {
        let box = try toolBox(manager)
        let m = try selectionMode(mode)
        if object == 0 && m == .replace {
            try box.run { $0.select(nil) }
            return
        }
        guard object > 0 else { throw CallError(code: QUIRE_ENOTFOUND, message: "no annotation is object \(object)") }
        try box.run { try $0.select([ObjectID(Int(object))], mode: m) }
    }
}

@c @implementation
public func quire_tool_manager_select_rect(_ outCount: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                           _ pageIndex: Int32, _ rect: UnsafePointer<quire_rect>?,
                                           _ mode: quire_selection_mode) -> Int32 {
    guarded("quire_tool_manager_select_rect") {
        let box = try toolBox(manager)
        let r = try required(rect, "rect").pointee
        let m = try selectionMode(mode)
        let found = try box.run {
            try $0.select(in: Rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top), pageIndex: Int(pageIndex), mode: m)
        }
        outCount?.pointee = Int32(clamping: found.count)
    }
}

@c @implementation
public func quire_tool_manager_selection_handles(_ buf: UnsafeMutablePointer<Double>?, _ capacity: Int,
                                                 _ outCount: UnsafeMutablePointer<Int>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_selection_handles") {
        _ = try required(outCount, "out_count")
        let handles = try toolBox(manager).manager.selectionHandles()
        try copyOut(numbers: handles.flatMap { [$0.x, $0.y] }, buf, capacity, outCount)
    }
}

@c @implementation
public func quire_tool_preview_init(_ preview: UnsafeMutablePointer<quire_tool_preview>?, _ version: UInt32) -> Int32 {
    guarded("quire_tool_preview_init") {
        try toolPreviewVersions.initialize(preview, version: version, defaults: toolPreviewDefaults)
    }
}

@c @implementation
public func quire_tool_manager_preview(_ out: UnsafeMutablePointer<quire_tool_preview>?, _ manager: OpaquePointer?) -> Int32 {
    guarded("quire_tool_manager_preview") {
        let out = try required(out, "out")
        let box = try toolBox(manager)
        var value = toolPreviewDefaults
        if let p = box.manager.preview {
            value.kind = quire_preview_kind(rawValue: QUIRE_PREVIEW_RECT.rawValue + UInt32(p.kind.rawValue))
            value.tool = cTool(p.tool)
            value.page_index = Int32(clamping: p.pageIndex)
            value.rect = quire_rect(left: p.rect.left, bottom: p.rect.bottom, right: p.rect.right, top: p.rect.top)
            value.dx = p.offset.x
            value.dy = p.offset.y
            value.path_count = Int32(clamping: p.paths.count)
            value.closed = p.closed ? 1 : 0
        }
        try toolPreviewVersions.write(value, to: out)
    }
}

@c @implementation
public func quire_tool_manager_preview_path(_ buf: UnsafeMutablePointer<Double>?, _ capacity: Int,
                                            _ outCount: UnsafeMutablePointer<Int>?, _ manager: OpaquePointer?,
                                            _ path: Int32) -> Int32 {
    guarded("quire_tool_manager_preview_path") {
        _ = try required(outCount, "out_count")
        let paths = try toolBox(manager).manager.preview?.paths ?? []
        guard path >= 0, Int(path) < paths.count else {
            throw CallError(code: QUIRE_ERANGE, message: "path \(path) is out of range (the preview has \(paths.count))")
        }
        try copyOut(numbers: paths[Int(path)], buf, capacity, outCount)
    }
}

@c @implementation
public func quire_tool_manager_history_count(_ out: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                             _ which: quire_history) -> Int32 {
    guarded("quire_tool_manager_history_count") {
        let out = try required(out, "out_count")
        out.pointee = Int32(clamping: try history(which, try toolBox(manager).manager).count)
    }
}

@c @implementation
public func quire_tool_manager_step_description(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int,
                                                _ outLen: UnsafeMutablePointer<Int>?, _ manager: OpaquePointer?,
                                                _ which: quire_history, _ index: Int32) -> Int32 {
    guarded("quire_tool_manager_step_description") {
        _ = try required(outLen, "out_len")
        let steps = try history(which, try toolBox(manager).manager)
        guard index >= 0, Int(index) < steps.count else {
            throw CallError(code: QUIRE_ERANGE, message: "step \(index) is out of range (the history has \(steps.count))")
        }
        try copyOut(steps[Int(index)].description, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_tool_manager_reply(_ outObject: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                     _ contents: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_reply") {
        let box = try toolBox(manager)
        let text = String(cString: try required(contents, "contents"))
        let reply = try box.run { try $0.reply(text) }
        outObject?.pointee = Int32(clamping: reply.id?.number ?? 0)
    }
}

@c @implementation
public func quire_tool_manager_set_state(_ outObject: UnsafeMutablePointer<Int32>?, _ manager: OpaquePointer?,
                                         _ model: UnsafePointer<CChar>?, _ state: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_state") {
        let box = try toolBox(manager)
        let s = String(cString: try required(state, "state"))
        let name = model.map { String(cString: $0) } ?? StateModel.review.rawValue
        guard let m = StateModel(rawValue: name) else {
            throw CallError(code: QUIRE_EINVAL, message: "unknown state model \(name) (Marked or Review)")
        }
        let reply = try box.run { try $0.setReviewState(s, model: m) }
        outObject?.pointee = Int32(clamping: reply.id?.number ?? 0)
    }
}
