// Bookmarks of include/quire.h: conversions only; the manager and the providers live in
// QuireDocument/Bookmarks.
import CQuire
import QuireDocument
import QuireSyntax

/// What a `quire_bookmark *` points at: a value the caller owns and may change.
final class BookmarkBox {
    var bookmark: Bookmark
    init(_ bookmark: Bookmark) { self.bookmark = bookmark }
}

func bookmarkBox(_ handle: OpaquePointer?) throws -> BookmarkBox {
    let handle = try required(handle, "bookmark")
    return Unmanaged<BookmarkBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

func give(_ bookmark: Bookmark, _ out: UnsafeMutablePointer<OpaquePointer?>) {
    out.pointee = OpaquePointer(Unmanaged.passRetained(BookmarkBox(bookmark)).toOpaque())
}

func sortOrder(_ value: quire_bookmark_sort_order) throws -> BookmarkSortOrder {
    switch value {
    case QUIRE_BOOKMARK_SORT_CUSTOM: return .custom
    case QUIRE_BOOKMARK_SORT_PAGE: return .pageBased
    default: throw CallError(code: QUIRE_EINVAL, message: "sort_order 0x\(String(value.rawValue, radix: 16)) is not a QUIRE_BOOKMARK_SORT_* value")
    }
}

func sortOrder(_ value: BookmarkSortOrder) -> quire_bookmark_sort_order {
    switch value {
    case .custom: return QUIRE_BOOKMARK_SORT_CUSTOM
    case .pageBased: return QUIRE_BOOKMARK_SORT_PAGE
    }
}

func nonEmptyText(_ pointer: UnsafePointer<CChar>?, _ name: StaticString) throws -> String {
    let text = String(cString: try required(pointer, name))
    guard !text.isEmpty else { throw CallError(code: QUIRE_EINVAL, message: "\(name) is empty") }
    return text
}

/// What a `quire_bookmark_sink *` points at: the bookmarks one load call gives. It stays
/// alive as long as its provider, so that a call after the load returned is a state error,
/// not a use of freed memory.
final class BookmarkSink {
    var bookmarks: [Bookmark] = []
    var identifiers: Set<String> = []
    var isOpen = true
}

/// A provider made of the callbacks of a `quire_bookmark_provider`.
final class CBookmarkProvider: BookmarkProvider {
    let callbacks: quire_bookmark_provider
    /// The provider's 1-based place in the chain, for messages.
    let position: Int
    private var sinks: [BookmarkSink] = []
    /// Whether the document took the provider, and so calls its release callback.
    var isTaken = true

    init(_ callbacks: quire_bookmark_provider, position: Int) {
        self.callbacks = callbacks
        self.position = position
    }

    deinit { if isTaken { callbacks.release?(callbacks.payload) } }

    private func check(_ rc: Int32, _ callback: String) throws {
        guard rc == 0 else {
            throw CallError(code: QUIRE_EUSER, message: "bookmark provider \(position)'s \(callback) callback returned \(rc)")
        }
    }

    /// Calls `body` with a borrowed `const quire_bookmark *` for `bookmark`.
    private func lend<R>(_ bookmark: Bookmark, _ body: (OpaquePointer) throws -> R) rethrows -> R {
        let box = BookmarkBox(bookmark)
        return try withExtendedLifetime(box) {
            try body(OpaquePointer(Unmanaged.passUnretained(box).toOpaque()))
        }
    }

    func loadBookmarks() throws -> [Bookmark] {
        guard let load = callbacks.load else { return [] }
        let sink = BookmarkSink()
        sinks.append(sink)
        defer { sink.isOpen = false }
        try check(load(OpaquePointer(Unmanaged.passUnretained(sink).toOpaque()), callbacks.payload), "load")
        return sink.bookmarks
    }

    func add(_ bookmark: Bookmark) throws -> Bool {
        guard let add = callbacks.add else { return false }
        var accepted: Int32 = 0
        try lend(bookmark) { try check(add(&accepted, $0, callbacks.payload), "add") }
        return accepted != 0
    }

    func remove(_ bookmark: Bookmark) throws -> Bool {
        guard let remove = callbacks.remove else { return false }
        var removed: Int32 = 0
        try lend(bookmark) { try check(remove(&removed, $0, callbacks.payload), "remove") }
        return removed != 0
    }

    func save() throws {
        guard let save = callbacks.save else { return }
        try check(save(callbacks.payload), "save")
    }
}

// MARK: Values

@c @implementation
public func quire_bookmark_new(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ kind: quire_action_type, _ pageIndex: Int32,
                               _ text: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_bookmark_new") {
        let out = try required(out, "out")
        let action: Bookmark.Action
        switch kind {
        case QUIRE_ACTION_GOTO:
            guard text == nil else { throw CallError(code: QUIRE_EINVAL, message: "text must be NULL for QUIRE_ACTION_GOTO") }
            guard pageIndex >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "page_index \(pageIndex) is negative") }
            action = .goTo(pageIndex: Int(pageIndex))
        case QUIRE_ACTION_URI:
            action = .uri(try nonEmptyText(text, "text"))
        case QUIRE_ACTION_NAMED:
            action = .named(try nonEmptyText(text, "text"))
        case QUIRE_ACTION_OTHER:
            let syntax = try nonEmptyText(text, "text")
            guard let dict = try ObjectParser.parseStrict(ByteBuffer(copying: Array(syntax.utf8))).dictionary,
                  dict["S"]?.name != nil else {
                throw CallError(code: QUIRE_EFORMAT, message: "text is not an action dictionary with an /S name")
            }
            action = .other(dict)
        default:
            throw CallError(code: QUIRE_EINVAL, message: "kind 0x\(String(kind.rawValue, radix: 16)) is not QUIRE_ACTION_GOTO, _URI, _NAMED or _OTHER")
        }
        give(Bookmark(action: action), out)
    }
}

@c @implementation
public func quire_bookmark_copy(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_copy") {
        let out = try required(out, "out")
        give(try bookmarkBox(bookmark).bookmark, out)
    }
}

@c @implementation
public func quire_bookmark_free(_ bookmark: OpaquePointer?) {
    guard let bookmark else { return }
    Unmanaged<BookmarkBox>.fromOpaque(UnsafeRawPointer(bookmark)).release()
}

@c @implementation
public func quire_bookmark_identifier(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_identifier") {
        try copyOut(try bookmarkBox(bookmark).bookmark.identifier, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_bookmark_set_identifier(_ bookmark: OpaquePointer?, _ identifier: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_bookmark_set_identifier") {
        let box = try bookmarkBox(bookmark)
        let b = box.bookmark
        box.bookmark = Bookmark(identifier: try nonEmptyText(identifier, "identifier"), action: b.action, name: b.name, sortKey: b.sortKey)
    }
}

@c @implementation
public func quire_bookmark_name(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_name") {
        let box = try bookmarkBox(bookmark)
        _ = try required(outLen, "out_len")
        guard let name = box.bookmark.name else { throw CallError(code: QUIRE_ENOTFOUND, message: "the bookmark has no name") }
        try copyOut(name, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_bookmark_set_name(_ bookmark: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_bookmark_set_name") {
        try bookmarkBox(bookmark).bookmark.name = name.map { String(cString: $0) }
    }
}

@c @implementation
public func quire_bookmark_action_type(_ out: UnsafeMutablePointer<quire_action_type>?, _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_action_type") {
        let out = try required(out, "out")
        switch try bookmarkBox(bookmark).bookmark.action {
        case .goTo: out.pointee = QUIRE_ACTION_GOTO
        case .uri: out.pointee = QUIRE_ACTION_URI
        case .named: out.pointee = QUIRE_ACTION_NAMED
        case .other: out.pointee = QUIRE_ACTION_OTHER
        }
    }
}

@c @implementation
public func quire_bookmark_page_index(_ out: UnsafeMutablePointer<Int32>?, _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_page_index") {
        let out = try required(out, "out")
        guard let index = try bookmarkBox(bookmark).bookmark.pageIndex else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the bookmark does not go to a page")
        }
        out.pointee = Int32(clamping: index)
    }
}

@c @implementation
public func quire_bookmark_action_text(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                       _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_action_text") {
        let box = try bookmarkBox(bookmark)
        _ = try required(outLen, "out_len")
        switch box.bookmark.action {
        case .goTo: throw CallError(code: QUIRE_ENOTFOUND, message: "a go-to bookmark has no action text; see quire_bookmark_page_index")
        case .uri(let text), .named(let text): try copyOut(text, buf, bufSize, outLen)
        case .other(let dict): try copyOut(bytes: Serializer.bytes(.dictionary(dict)), buf, bufSize, outLen)
        }
    }
}

@c @implementation
public func quire_bookmark_sort_key(_ out: UnsafeMutablePointer<Int64>?, _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_sort_key") {
        let out = try required(out, "out")
        guard let key = try bookmarkBox(bookmark).bookmark.sortKey else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the bookmark has no sort key")
        }
        out.pointee = Int64(key)
    }
}

@c @implementation
public func quire_bookmark_set_sort_key(_ bookmark: OpaquePointer?, _ sortKey: UnsafePointer<Int64>?) -> Int32 {
    guarded("quire_bookmark_set_sort_key") {
        try bookmarkBox(bookmark).bookmark.sortKey = sortKey.map { Int(truncatingIfNeeded: $0.pointee) }
    }
}

@c @implementation
public func quire_bookmark_sink_add(_ sink: OpaquePointer?, _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_bookmark_sink_add") {
        let sink = Unmanaged<BookmarkSink>.fromOpaque(UnsafeRawPointer(try required(sink, "sink"))).takeUnretainedValue()
        let b = try bookmarkBox(bookmark).bookmark
        guard sink.isOpen else { throw CallError(code: QUIRE_ESTATE, message: "the sink's load call has returned") }
        if sink.identifiers.insert(b.identifier).inserted { sink.bookmarks.append(b) }
    }
}

// MARK: The document's bookmarks

let bookmarkProviderVersions = StructVersions<quire_bookmark_provider>(
    name: "provider", sizes: [MemoryLayout<quire_bookmark_provider>.size])

var bookmarkProviderDefaults: quire_bookmark_provider {
    quire_bookmark_provider(version: bookmarkProviderVersions.current, builtin: 0, load: nil, add: nil, remove: nil,
                            save: nil, release: nil, payload: nil)
}

@c @implementation
public func quire_bookmark_provider_init(_ provider: UnsafeMutablePointer<quire_bookmark_provider>?, _ version: UInt32) -> Int32 {
    guarded("quire_bookmark_provider_init") {
        try bookmarkProviderVersions.initialize(provider, version: version, defaults: bookmarkProviderDefaults)
    }
}

@c @implementation
public func quire_document_set_bookmark_providers(_ doc: OpaquePointer?, _ providers: UnsafePointer<UnsafePointer<quire_bookmark_provider>?>?,
                                                  _ count: Int) -> Int32 {
    guarded("quire_document_set_bookmark_providers") {
        let d = try document(doc)
        guard count >= 0, providers != nil || count == 0 else {
            throw CallError(code: QUIRE_EINVAL, message: "providers is NULL but count is \(count)")
        }
        let pointers = providers.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        var specs: [quire_bookmark_provider] = []
        for (k, pointer) in pointers.enumerated() {
            guard let pointer else { throw CallError(code: QUIRE_EINVAL, message: "providers[\(k)] is NULL") }
            do {
                specs.append(try bookmarkProviderVersions.read(pointer, defaults: bookmarkProviderDefaults).value)
            } catch let e as CallError {
                throw CallError(code: e.code, message: "providers[\(k)]: \(e.message)")
            }
        }
        for (k, p) in specs.enumerated() {
            let callbacks = [p.load != nil, p.add != nil, p.remove != nil, p.save != nil, p.release != nil]
            if p.builtin != 0 {
                guard !callbacks.contains(true) else {
                    throw CallError(code: QUIRE_EINVAL, message: "provider \(k + 1) is the built-in provider but has callbacks")
                }
            } else {
                guard callbacks[0] && callbacks[1] && callbacks[2] else {
                    throw CallError(code: QUIRE_EINVAL, message: "provider \(k + 1) lacks a load, add or remove callback")
                }
            }
        }
        // Built only now, so that an error above releases nothing it was not given.
        let builtIn = try d.bookmarks.builtInProvider()
        let chain: [BookmarkProvider] = specs.enumerated().map { k, p in
            p.builtin != 0 ? builtIn as BookmarkProvider : CBookmarkProvider(p, position: k + 1)
        }
        do {
            try d.bookmarks.setProviders(chain)
        } catch {
            // Refused (called from a provider): the new providers were not taken, so their
            // release must not run.
            for case let p as CBookmarkProvider in chain { p.isTaken = false }
            throw error
        }
    }
}

@c @implementation
public func quire_document_bookmark_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_bookmark_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).bookmarks.bookmarks().count)
    }
}

@c @implementation
public func quire_document_bookmark(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                    _ order: quire_bookmark_sort_order, _ index: Int32) -> Int32 {
    guarded("quire_document_bookmark") {
        let out = try required(out, "out")
        let d = try document(doc)
        let list = try d.bookmarks.bookmarks(sortedBy: try sortOrder(order))
        guard index >= 0 && Int(index) < list.count else {
            throw CallError(code: QUIRE_ERANGE, message: "index \(index) is out of range (there are \(list.count) bookmarks)")
        }
        give(list[Int(index)], out)
    }
}

@c @implementation
public func quire_document_find_bookmark(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                         _ identifier: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_find_bookmark") {
        let out = try required(out, "out")
        let d = try document(doc)
        let id = String(cString: try required(identifier, "identifier"))
        guard let b = try d.bookmarks.bookmark(identifier: id) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "no bookmark has the identifier \(id)")
        }
        give(b, out)
    }
}

@c @implementation
public func quire_document_add_bookmark(_ doc: OpaquePointer?, _ bookmark: OpaquePointer?) -> Int32 {
    guarded("quire_document_add_bookmark") {
        let d = try document(doc)
        try d.bookmarks.add(try bookmarkBox(bookmark).bookmark)
    }
}

@c @implementation
public func quire_document_remove_bookmark(_ doc: OpaquePointer?, _ identifier: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_remove_bookmark") {
        let d = try document(doc)
        try d.bookmarks.remove(identifier: String(cString: try required(identifier, "identifier")))
    }
}

@c @implementation
public func quire_document_move_bookmark(_ doc: OpaquePointer?, _ identifier: UnsafePointer<CChar>?, _ index: Int32) -> Int32 {
    guarded("quire_document_move_bookmark") {
        let d = try document(doc)
        try d.bookmarks.move(identifier: String(cString: try required(identifier, "identifier")), to: Int(index))
    }
}

@c @implementation
public func quire_document_bookmark_sort_order(_ out: UnsafeMutablePointer<quire_bookmark_sort_order>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_bookmark_sort_order") {
        let out = try required(out, "out")
        out.pointee = sortOrder(try document(doc).bookmarks.sortOrder)
    }
}

@c @implementation
public func quire_document_set_bookmark_sort_order(_ doc: OpaquePointer?, _ order: quire_bookmark_sort_order) -> Int32 {
    guarded("quire_document_set_bookmark_sort_order") {
        let d = try document(doc)
        d.bookmarks.sortOrder = try sortOrder(order)
    }
}

@c @implementation
public func quire_document_set_bookmark_change_callback(_ doc: OpaquePointer?, _ callback: quire_bookmark_change_fn?,
                                                        _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_document_set_bookmark_change_callback") {
        let d = try document(doc)
        guard let callback else {
            d.bookmarks.onChange = nil
            return
        }
        let handle = doc
        d.bookmarks.onChange = { _ in callback(handle, payload) }
    }
}

@c @implementation
public func quire_document_export_bookmarks_to_outline(_ outCount: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_export_bookmarks_to_outline") {
        let d = try document(doc)
        let n = try d.exportBookmarksToOutline()
        outCount?.pointee = Int32(clamping: n)
    }
}
