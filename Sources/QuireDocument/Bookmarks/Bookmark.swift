import QuireSyntax

/// A user bookmark: the reader's own mark, not the document's outline.
///
/// A bookmark is a value. To change one, copy it, change the copy and add it to the
/// manager: adding a bookmark whose identifier is already there replaces that bookmark in
/// place (it keeps its position in the custom order). A bookmark with a new identifier is
/// a new bookmark, even if it points at the same page. PSPDFKit's `Bookmark` is the model.
public struct Bookmark: Sendable, Equatable, CustomStringConvertible {
    /// What activating the bookmark does.
    public enum Action: Sendable, Equatable {
        /// Go to the page at this 0-based index.
        case goTo(pageIndex: Int)
        /// Open a uniform resource identifier.
        case uri(String)
        /// A named action (§12.6.4.12), such as NextPage or LastPage.
        case named(String)
        /// Any other action, kept as its action dictionary (§12.6.2).
        case other(PDFDictionary)
    }

    /// Generated for new bookmarks (a random UUID), stable, opaque: the key by which the
    /// manager and its providers know a bookmark.
    public let identifier: String
    /// The name the reader gave it, if any.
    public var name: String?
    public var action: Action
    /// An opaque key that records the bookmark's place in the custom order. The manager
    /// assigns it when a bookmark without one is added and when bookmarks are moved;
    /// providers store it as it is.
    public var sortKey: Int?

    /// A bookmark with a new identifier.
    public init(action: Action, name: String? = nil, sortKey: Int? = nil) {
        self.init(identifier: UUIDString.make(), action: action, name: name, sortKey: sortKey)
    }

    /// A bookmark with the given identifier: for providers that load stored bookmarks.
    public init(identifier: String, action: Action, name: String? = nil, sortKey: Int? = nil) {
        self.identifier = identifier
        self.action = action
        self.name = name
        self.sortKey = sortKey
    }

    /// A new bookmark of the page at `pageIndex`.
    public init(pageIndex: Int, name: String? = nil) {
        self.init(action: .goTo(pageIndex: pageIndex), name: name)
    }

    /// The page a go-to bookmark points at; nil for every other action.
    public var pageIndex: Int? {
        if case .goTo(let index) = action { return index }
        return nil
    }

    public var description: String {
        "Bookmark(\(identifier), \(name.map { "\"\($0)\"" } ?? "no name"), \(action), sortKey: \(sortKey.map(String.init) ?? "none"))"
    }
}

/// The orders in which the manager lists bookmarks.
public enum BookmarkSortOrder: Int, Sendable, CaseIterable {
    /// The custom order: the order in which bookmarks were added, as rearranged by moves
    /// (by sort key; bookmarks without one last, in the providers' order).
    case custom = 0
    /// By page index; bookmarks that do not point at a page come last. Stable: bookmarks
    /// of the same page, and those without a page, keep their custom order.
    case pageBased = 1
}

/// Where bookmarks are stored. The manager holds an ordered chain of providers: it offers
/// a new bookmark to each in order until one accepts it, asks each in order to remove a
/// bookmark until the one that owns it does, lists the union of their bookmarks, and asks
/// every provider to persist when the document is saved.
///
/// A provider is asked for its bookmarks once, on first use; after that the manager keeps
/// track of what each provider accepted and removed. Errors a provider throws become the
/// manager's errors (statuses in C, exceptions in Python); they never crash.
public protocol BookmarkProvider: AnyObject {
    /// The bookmarks this provider holds, read from its storage. Called once, on first use.
    func loadBookmarks() throws -> [Bookmark]
    /// Offers `bookmark`: return true to take it (a bookmark with the same identifier that
    /// the provider holds is replaced), false to let the next provider have it.
    func add(_ bookmark: Bookmark) throws -> Bool
    /// Return true if the provider held `bookmark` (by identifier) and removed it.
    func remove(_ bookmark: Bookmark) throws -> Bool
    /// Persist the bookmarks: called when the document is saved.
    func save() throws
}
