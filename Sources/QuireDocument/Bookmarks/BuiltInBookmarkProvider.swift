/// The provider that stores bookmarks inside the PDF: in a private entry of the catalog,
/// `/QUIR_Bookmarks`, which other viewers ignore (a second-class name, ISO 32000-2
/// Annex E). It accepts every bookmark.
///
/// The entry is an indirect dictionary:
///
///     << /Version 1
///        /Bookmarks [ << /ID (identifier) /Name (text) /SortKey 3
///                        /A << /S /GoTo /D [12 0 R /XYZ null null null] >> >> ... ] >>
///
/// Every property is kept: the identifier, the name (a text string), the sort key and the
/// action (a go-to action references the page object, so it follows the page if pages are
/// moved). Changes are written into the document's unsaved changes as they are made, so
/// they are part of the document's journal and are written by its next save (incremental
/// or full); ``save()`` has nothing left to do.
public final class BuiltInBookmarkProvider: BookmarkProvider {
    /// The catalog entry.
    public static let catalogKey: PDFName = "QUIR_Bookmarks"
    /// The format version this library writes; a newer one is refused rather than
    /// overwritten with less.
    public static let formatVersion = 1

    private weak var document: Document?
    private var list: [Bookmark] = []
    private var isLoaded = false

    /// The built-in provider of `document`.
    public init(document: Document) {
        self.document = document
    }

    private func owner() throws -> Document {
        guard let document else { throw PDFError(.state, "the document of this bookmark provider is closed") }
        return document
    }

    public func loadBookmarks() throws -> [Bookmark] {
        if !isLoaded {
            list = try read()
            isLoaded = true
        }
        return list
    }

    public func add(_ bookmark: Bookmark) throws -> Bool {
        _ = try loadBookmarks()
        var updated = list
        if let i = updated.firstIndex(where: { $0.identifier == bookmark.identifier }) {
            updated[i] = bookmark
        } else {
            updated.append(bookmark)
        }
        try write(updated)
        list = updated
        return true
    }

    public func remove(_ bookmark: Bookmark) throws -> Bool {
        _ = try loadBookmarks()
        guard let i = list.firstIndex(where: { $0.identifier == bookmark.identifier }) else { return false }
        var updated = list
        updated.remove(at: i)
        try write(updated)
        list = updated
        return true
    }

    public func save() throws {}

    // MARK: The catalog entry

    private func read() throws -> [Bookmark] {
        let document = try owner()
        guard let value = try document.catalog()[Self.catalogKey], let store = try document.dictionary(value) else { return [] }
        if let version = try store["Version"].map(document.resolve)?.integer, version > Int64(Self.formatVersion) {
            throw PDFError(.unsupported, "the document's bookmarks are in format version \(version); this library reads version \(Self.formatVersion)")
        }
        guard let entries = try store["Bookmarks"].map(document.resolve)?.array else { return [] }
        var result: [Bookmark] = []
        var seen: Set<String> = []
        for entry in entries.prefix(OutlineItem.maxItems) {
            guard let dict = try document.dictionary(entry),
                  let identifier = try document.text(dict["ID"]), !identifier.isEmpty else {
                document.file.warn("a stored bookmark has no /ID; skipped")
                continue
            }
            guard seen.insert(identifier).inserted else {
                document.file.warn("the bookmark \(identifier) is stored twice; the first is used")
                continue
            }
            guard let actionValue = dict["A"], let action = try action(actionValue, document) else {
                document.file.warn("the bookmark \(identifier) has no usable /A action; skipped")
                continue
            }
            let sortKey = try dict["SortKey"].map(document.resolve)?.integer.map { Int(clamping: $0) }
            result.append(Bookmark(identifier: identifier, action: action, name: try document.text(dict["Name"]), sortKey: sortKey))
        }
        return result
    }

    private func action(_ value: PDFObject, _ document: Document) throws -> Bookmark.Action? {
        guard let dict = try document.dictionary(value), let parsed = try document.action(value) else { return nil }
        switch parsed.kind {
        case .goTo(let destination?): return .goTo(pageIndex: destination.pageIndex)
        case .uri(let uri, _): return .uri(uri)
        case .named(let name): return .named(name)
        default: return .other(dict)  // kept as it is, a go-to to a lost page included
        }
    }

    private func write(_ bookmarks: [Bookmark]) throws {
        let document = try owner()
        var entries: [PDFObject] = []
        for b in bookmarks {
            var dict = PDFDictionary()
            dict["ID"] = .string(PDFString(text: b.identifier))
            if let name = b.name { dict["Name"] = .string(PDFString(text: name)) }
            if let key = b.sortKey { dict["SortKey"] = .integer(Int64(key)) }
            dict["A"] = .dictionary(try Self.actionDictionary(b.action, document))
            entries.append(.dictionary(dict))
        }
        let store = PDFObject.dictionary(PDFDictionary([
            ("Version", .integer(Int64(Self.formatVersion))), ("Bookmarks", .array(entries)),
        ]))
        guard let rootID = document.trailer["Root"]?.reference else {
            throw PDFError(.unsupported, "the catalog is not an indirect object, so bookmarks cannot be stored in it")
        }
        if case .reference(let id)? = try document.catalog()[Self.catalogKey], document.isInUse(id.number) {
            try document.setObject(id.number, store)
        } else {
            let id = try document.addObject(store)
            try document.setValue(.reference(id), forKey: Self.catalogKey, inObject: rootID.number)
        }
    }

    /// The action dictionary of a bookmark's action, in `document`.
    static func actionDictionary(_ action: Bookmark.Action, _ document: Document) throws -> PDFDictionary {
        switch action {
        case .goTo(let index):
            guard let page = try document.page(at: index).id else {
                throw PDFError(.unsupported, "page index \(index) is not an indirect object, so no destination can point at it")
            }
            return PDFDictionary([("S", .name("GoTo")), ("D", .array([.reference(page), .name("XYZ"), .null, .null, .null]))])
        case .uri(let uri):
            return PDFDictionary([("S", .name("URI")), ("URI", .string(PDFString(bytes: Array(uri.utf8))))])
        case .named(let name):
            return PDFDictionary([("S", .name("Named")), ("N", .name(PDFName(name)))])
        case .other(let dict):
            return dict
        }
    }
}
