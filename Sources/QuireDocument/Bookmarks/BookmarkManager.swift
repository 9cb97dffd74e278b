import QuireSyntax

/// The bookmarks of one document, kept by a chain of providers (see ``BookmarkProvider``).
///
/// By default the chain holds the built-in provider, which stores bookmarks inside the PDF
/// (``BuiltInBookmarkProvider``). Not thread-safe, like its document.
public final class BookmarkManager {
    /// The manager's view of one provider: the provider and the bookmarks it holds, in the
    /// order it gave or accepted them.
    private struct Slot {
        let provider: BookmarkProvider
        var bookmarks: [Bookmark]
    }

    private weak var document: Document?
    private var chain: [BookmarkProvider]
    /// The providers' bookmarks, read on first use; nil until then.
    private var slots: [Slot]? = nil {
        didSet { sorted = [:]; all = nil }
    }
    /// Every bookmark, once listed (dropped with every change of `slots`).
    private var all: [Bookmark]? = nil
    /// The bookmarks in each order, once sorted (dropped with every change of `slots`):
    /// the C API lists bookmarks by index, one call per bookmark, and sorting on each call
    /// made listing B bookmarks O(B² log B).
    private var sorted: [BookmarkSortOrder: [Bookmark]] = [:]
    /// Set while a provider is being called: a provider that calls back into the manager
    /// gets a state error instead of corrupting what the manager is in the middle of.
    private var busy = false

    /// The order a user interface should show bookmarks in: a configuration value of the
    /// document (not stored in the file). The manager's own listings take an order of
    /// their own; this one is for the application to read.
    public var sortOrder: BookmarkSortOrder = .custom

    /// Called after every change the manager makes (add, replace, remove, move, a new
    /// provider chain), with the manager.
    public var onChange: ((BookmarkManager) -> Void)? = nil

    init(document: Document) {
        self.document = document
        chain = [BuiltInBookmarkProvider(document: document)]
    }

    /// The chain of providers, in order.
    public var providers: [BookmarkProvider] { chain }

    /// Replaces the chain of providers. What the manager had read is dropped: the new
    /// providers are asked for their bookmarks on next use. Throws a state error when
    /// called from inside a provider.
    public func setProviders(_ providers: [BookmarkProvider]) throws {
        try guardReentry {
            chain = providers
            slots = nil
        }
        onChange?(self)
    }

    /// The built-in provider of this document, to put in a chain of providers.
    public func builtInProvider() throws -> BuiltInBookmarkProvider {
        if let existing = chain.lazy.compactMap({ $0 as? BuiltInBookmarkProvider }).first { return existing }
        guard let document else { throw PDFError(.state, "the document of these bookmarks is closed") }
        return BuiltInBookmarkProvider(document: document)
    }

    // MARK: Reading

    /// Every bookmark of every provider, in no particular order (the order may change
    /// with any change). A bookmark that two providers hold is listed once, from the first.
    public func bookmarks() throws -> [Bookmark] {
        let slots = try loaded()
        if let all { return all }
        let list = slots.flatMap(\.bookmarks)
        all = list
        return list
    }

    /// The bookmarks in `order`, without changing the manager's state.
    public func bookmarks(sortedBy order: BookmarkSortOrder) throws -> [Bookmark] {
        let all = try bookmarks()
        if let cached = sorted[order] { return cached }
        let custom = sorted[.custom] ?? Self.customOrder(all)
        sorted[.custom] = custom
        switch order {
        case .custom:
            return custom
        case .pageBased:
            // Stable: equal keys keep the custom order (the index breaks ties).
            let pageBased = custom.enumerated().sorted { a, b in
                let pa = a.element.pageIndex ?? Int.max, pb = b.element.pageIndex ?? Int.max
                return pa != pb ? pa < pb : a.offset < b.offset
            }.map(\.element)
            sorted[.pageBased] = pageBased
            return pageBased
        }
    }

    /// The bookmark with `identifier`, if any provider holds it.
    public func bookmark(identifier: String) throws -> Bookmark? {
        try bookmarks().first { $0.identifier == identifier }
    }

    /// By sort key, bookmarks without one last; ties keep the given order.
    private static func customOrder(_ list: [Bookmark]) -> [Bookmark] {
        list.enumerated().sorted { a, b in
            switch (a.element.sortKey, b.element.sortKey) {
            case let (x?, y?) where x != y: return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a.offset < b.offset
            }
        }.map(\.element)
    }

    // MARK: Changing

    /// Adds `bookmark`, or replaces the bookmark with its identifier in place (it keeps
    /// that bookmark's position in the custom order).
    ///
    /// A new bookmark without a sort key gets one after every other bookmark; it is
    /// offered to each provider in order until one accepts it. A replacement goes to the
    /// provider that holds the bookmark first; if that one declines, to the chain in
    /// order (and the old one is removed from its provider).
    /// Throws: a range error for a go-to bookmark past the last page or to a page that
    /// the page tree's /Count counts but the tree does not hold; an unsupported
    /// error when no provider accepts it; what a provider throws.
    public func add(_ bookmark: Bookmark) throws {
        try withProviders { slots in
            if case .goTo(let index) = bookmark.action {
                guard let document else { throw PDFError(.state, "the document of these bookmarks is closed") }
                let count = try document.pageCount()
                guard index >= 0 && index < count else {
                    throw PDFError(.range, "the bookmark points at page index \(index), but the document has \(count) pages")
                }
                // A page that the root's /Count counts but the tree does not hold has no
                // page object to point at: refused like one past the last page.
                let existing = try document.pages().count
                guard index < existing else {
                    throw PDFError(.range, "the bookmark points at page index \(index), which is counted by the page tree's /Count (\(count)) but the tree holds only \(document.pagesText(existing))")
                }
            }
            var bookmark = bookmark
            if let (s, i) = Self.find(bookmark.identifier, in: slots) {
                let old = slots[s].bookmarks[i]
                bookmark.sortKey = old.sortKey
                if try slots[s].provider.add(bookmark) {
                    slots[s].bookmarks[i] = bookmark
                    return
                }
                guard let t = try Self.offer(bookmark, to: slots, skipping: s) else {
                    throw PDFError(.unsupported, "no bookmark provider accepts the changed bookmark \(bookmark.identifier); it is unchanged")
                }
                _ = try slots[s].provider.remove(old)
                slots[s].bookmarks.remove(at: i)
                slots[t].bookmarks.append(bookmark)
            } else {
                if bookmark.sortKey == nil {
                    let keys = slots.flatMap(\.bookmarks).compactMap(\.sortKey)
                    bookmark.sortKey = (keys.max() ?? -1) &+ 1
                }
                guard let t = try Self.offer(bookmark, to: slots, skipping: nil) else {
                    throw PDFError(.unsupported, "no bookmark provider accepts the bookmark \(bookmark.identifier)")
                }
                slots[t].bookmarks.append(bookmark)
            }
        }
    }

    /// Removes the bookmark with `identifier`: the providers are asked in order until the
    /// one that holds it removes it. Throws a not-found error when none does.
    public func remove(identifier: String) throws {
        try withProviders { slots in
            guard let (s, i) = Self.find(identifier, in: slots) else {
                throw PDFError(.notFound, "no bookmark has the identifier \(identifier)")
            }
            let bookmark = slots[s].bookmarks[i]
            for t in slots.indices where try slots[t].provider.remove(bookmark) {
                if let j = slots[t].bookmarks.firstIndex(where: { $0.identifier == identifier }) {
                    slots[t].bookmarks.remove(at: j)
                }
                return
            }
            throw PDFError(.notFound, "no bookmark provider removed the bookmark \(identifier)")
        }
    }

    /// Moves the bookmark with `identifier` to `index` of the custom order. The sort keys
    /// of the bookmarks whose place changes are rewritten (through their providers).
    public func move(identifier: String, to index: Int) throws {
        try withProviders { slots in
            var order = Self.customOrder(slots.flatMap(\.bookmarks))
            guard let from = order.firstIndex(where: { $0.identifier == identifier }) else {
                throw PDFError(.notFound, "no bookmark has the identifier \(identifier)")
            }
            guard index >= 0 && index < order.count else {
                throw PDFError(.range, "index \(index) is out of range (there are \(order.count) bookmarks)")
            }
            order.insert(order.remove(at: from), at: index)
            // The built-in provider gets its changed bookmarks in one call: one write of
            // its store, not one per bookmark (O(B²) time for B bookmarks). Other providers
            // get them one at a time, so that the manager knows which each one took.
            var place: [String: (slot: Int, index: Int)] = [:]
            for (s, slot) in slots.enumerated() {
                for (i, b) in slot.bookmarks.enumerated() where place[b.identifier] == nil { place[b.identifier] = (s, i) }
            }
            var changed = Array(repeating: [(index: Int, bookmark: Bookmark)](), count: slots.count)
            for (key, var bookmark) in order.enumerated() where bookmark.sortKey != key {
                bookmark.sortKey = key
                guard let (s, i) = place[bookmark.identifier] else { continue }
                changed[s].append((i, bookmark))
            }
            for s in slots.indices where !changed[s].isEmpty {
                if let builtIn = slots[s].provider as? BuiltInBookmarkProvider {
                    try builtIn.update(changed[s].map(\.bookmark))
                    for (i, bookmark) in changed[s] { slots[s].bookmarks[i] = bookmark }
                    continue
                }
                for (i, bookmark) in changed[s] {
                    guard try slots[s].provider.add(bookmark) else {
                        throw PDFError(.unsupported, "the provider of bookmark \(bookmark.identifier) refused its new sort key")
                    }
                    slots[s].bookmarks[i] = bookmark
                }
            }
        }
    }

    /// After a page operation: every go-to bookmark follows its page to `newIndex(old)`
    /// (its provider told through ``BookmarkProvider/add(_:)``, which replaces it), and one
    /// whose page is gone (nil) is removed through its provider. The built-in provider gets
    /// its changes in one write of its store.
    func followPages(_ newIndex: (Int) -> Int?) throws {
        try withProviders { slots in
            for s in slots.indices {
                var changed: [(index: Int, bookmark: Bookmark)] = []
                var gone: [Int] = []
                for (i, b) in slots[s].bookmarks.enumerated() {
                    guard case .goTo(let page) = b.action else { continue }
                    guard let moved = newIndex(page) else {
                        gone.append(i)
                        continue
                    }
                    if moved != page {
                        var c = b
                        c.action = .goTo(pageIndex: moved)
                        changed.append((i, c))
                    }
                }
                if changed.isEmpty && gone.isEmpty { continue }
                if let builtIn = slots[s].provider as? BuiltInBookmarkProvider {
                    try builtIn.update(changed.map(\.bookmark), removing: Set(gone.map { slots[s].bookmarks[$0].identifier }))
                } else {
                    for (_, bookmark) in changed {
                        guard try slots[s].provider.add(bookmark) else {
                            throw PDFError(.unsupported, "the provider of bookmark \(bookmark.identifier) refused its page's new index")
                        }
                    }
                    for i in gone { _ = try slots[s].provider.remove(slots[s].bookmarks[i]) }
                }
                for (i, bookmark) in changed { slots[s].bookmarks[i] = bookmark }
                for i in gone.reversed() { slots[s].bookmarks.remove(at: i) }
            }
        }
    }

    /// Asks every provider to persist its bookmarks; the document calls this when it is
    /// saved, before it writes the file (so a provider that fails stops the save). Providers
    /// of a chain that was never used since it was set are not asked: they have nothing new.
    public func save() throws {
        guard slots != nil else { return }
        try guardReentry {
            for provider in chain { try provider.save() }
        }
    }

    // MARK: Plumbing

    private func loaded() throws -> [Slot] {
        guard !busy else {
            throw PDFError(.state, "the bookmark manager was called from inside a bookmark provider")
        }
        if let slots { return slots }
        var result: [Slot] = []
        var seen: Set<String> = []
        try guardReentry {
            for provider in chain {
                // A bookmark listed twice (by one provider or two) counts once, from the first.
                let list = try provider.loadBookmarks().filter { seen.insert($0.identifier).inserted }
                result.append(Slot(provider: provider, bookmarks: list))
            }
        }
        slots = result
        return result
    }

    /// Runs a change against the loaded providers; on success, keeps the new state and
    /// calls ``onChange``. On an error, what the providers already did stays done (their
    /// state is theirs), and the manager's view is kept in step with it.
    private func withProviders(_ body: (inout [Slot]) throws -> Void) throws {
        var working = try loaded()
        do {
            // One batch: the built-in provider's writes reach the checkpoint as one group.
            // The document's change observers run when the batch ends: by then the
            // providers are done (an observer may read the bookmarks, as the sync client
            // does) and the manager's view is the new one.
            if let document {
                try document.batch {
                    try guardReentry { try body(&working) }
                    slots = working
                }
            } else {
                try guardReentry { try body(&working) }
            }
        } catch {
            slots = working
            throw error
        }
        slots = working  // before the callback, which may read the bookmarks
        onChange?(self)
    }

    private func guardReentry(_ body: () throws -> Void) throws {
        guard !busy else {
            throw PDFError(.state, "the bookmark manager was called from inside a bookmark provider")
        }
        busy = true
        defer { busy = false }
        try body()
    }

    private static func find(_ identifier: String, in slots: [Slot]) -> (Int, Int)? {
        for (s, slot) in slots.enumerated() {
            if let i = slot.bookmarks.firstIndex(where: { $0.identifier == identifier }) { return (s, i) }
        }
        return nil
    }

    private static func offer(_ bookmark: Bookmark, to slots: [Slot], skipping: Int?) throws -> Int? {
        for s in slots.indices where s != skipping {
            if try slots[s].provider.add(bookmark) { return s }
        }
        return nil
    }
}

extension Document {
    /// The bookmark manager of this document, made on first use with the built-in
    /// provider as its only provider.
    public var bookmarks: BookmarkManager {
        if let bookmarkManager { return bookmarkManager }
        let manager = BookmarkManager(document: self)
        bookmarkManager = manager
        return manager
    }
}
