import QuireSyntax

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
/// moved); the entries of bookmarks that a change leaves alone are written back as they
/// were stored. Changes are written into the document's unsaved changes as they are made, so
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
    /// `list` as stored: one dictionary per bookmark, kept in step with `list`, so that a
    /// change encodes only the bookmarks it changes (N additions encoded every bookmark
    /// N times).
    private var encoded: [PDFObject] = []
    /// The document's ``Document/fileRevision`` when `encoded` was made: after the document
    /// continues from a full save, whose object numbers differ, every entry is made again
    /// from `list`.
    private var encodedRevision = 0
    /// The position of each bookmark in `list`, by identifier.
    private var position: [String: Int] = [:]
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
            let read = try read()
            list = read.map(\.bookmark)
            encoded = read.map(\.entry)
            encodedRevision = try owner().fileRevision
            position = Dictionary(list.enumerated().map { ($1.identifier, $0) }, uniquingKeysWith: { a, _ in a })
            isLoaded = true
        }
        return list
    }

    public func add(_ bookmark: Bookmark) throws -> Bool {
        try update([bookmark])
        return true
    }

    /// Takes every one of `bookmarks` (replacing those it holds, adding the others) and
    /// drops those whose identifier is in `removing`, with one write of the store.
    func update(_ bookmarks: [Bookmark], removing: Set<String> = []) throws {
        _ = try loadBookmarks()
        let document = try owner()
        var updatedList = list, updatedEntries = try entries(document), updatedPosition = position
        if !removing.isEmpty {
            let keep = updatedList.indices.filter { !removing.contains(updatedList[$0].identifier) }
            updatedList = keep.map { updatedList[$0] }
            updatedEntries = keep.map { updatedEntries[$0] }
            updatedPosition = Dictionary(updatedList.enumerated().map { ($1.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        }
        for bookmark in bookmarks {
            let entry = try Self.entry(bookmark, document)
            if let i = updatedPosition[bookmark.identifier] {
                updatedList[i] = bookmark
                updatedEntries[i] = entry
            } else {
                updatedPosition[bookmark.identifier] = updatedList.count
                updatedList.append(bookmark)
                updatedEntries.append(entry)
            }
        }
        try write(updatedEntries)
        (list, encoded, position) = (updatedList, updatedEntries, updatedPosition)
        encodedRevision = document.fileRevision
    }

    /// `encoded`, made again when the document has continued from saved bytes since.
    private func entries(_ document: Document) throws -> [PDFObject] {
        guard encodedRevision != document.fileRevision else { return encoded }
        return try list.map { try Self.entry($0, document) }
    }

    public func remove(_ bookmark: Bookmark) throws -> Bool {
        _ = try loadBookmarks()
        guard let i = position[bookmark.identifier] else { return false }
        let document = try owner()
        var updatedList = list, updatedEntries = try entries(document)
        updatedList.remove(at: i)
        updatedEntries.remove(at: i)
        try write(updatedEntries)
        (list, encoded) = (updatedList, updatedEntries)
        encodedRevision = document.fileRevision
        position[bookmark.identifier] = nil
        for j in i..<list.count { position[list[j].identifier] = j }
        return true
    }

    public func save() throws {}

    // MARK: The catalog entry

    /// The stored bookmarks, each with its entry as stored (written back as it is until
    /// the bookmark changes).
    private func read() throws -> [(bookmark: Bookmark, entry: PDFObject)] {
        let document = try owner()
        guard let value = try document.catalog()[Self.catalogKey], let store = try document.dictionary(value) else { return [] }
        if let version = try store["Version"].map(document.resolve)?.integer, version > Int64(Self.formatVersion) {
            throw PDFError(.unsupported, "the document's bookmarks are in format version \(version); this library reads version \(Self.formatVersion)")
        }
        guard let entries = try store["Bookmarks"].map(document.resolve)?.array else { return [] }
        var result: [(bookmark: Bookmark, entry: PDFObject)] = []
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
            result.append((Bookmark(identifier: identifier, action: action, name: try document.text(dict["Name"]), sortKey: sortKey), entry))
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

    /// The stored dictionary of bookmark `b`.
    private static func entry(_ b: Bookmark, _ document: Document) throws -> PDFObject {
        var dict = PDFDictionary()
        dict["ID"] = .string(PDFString(text: b.identifier))
        if let name = b.name { dict["Name"] = .string(PDFString(text: name)) }
        if let key = b.sortKey { dict["SortKey"] = .integer(Int64(key)) }
        dict["A"] = .dictionary(try actionDictionary(b.action, document))
        return .dictionary(dict)
    }

    private func write(_ entries: [PDFObject]) throws {
        let document = try owner()
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
