import QuireSyntax

// Page operations within one document (docs/pages.md): insert blank pages, delete, move,
// rotate, set page boxes. Each is one batch that either completes or changes nothing
// (``Document/allOrNothing(_:)``): the change log, checkpoints and the tool manager's undo
// see it as one operation. Indexes are of the pages that exist (``Document/pages()``).

extension Document {
    // MARK: Insert

    /// Inserts `count` blank pages at `index` (0 ... the page count; the page count
    /// appends), each with `mediaBox` and `rotation` (a multiple of 90 degrees) and empty
    /// resources and content. Returns the report, whose ``PageEditReport/newPages`` are
    /// the new pages' indexes.
    ///
    /// Throws `.range` for an index outside 0 ... the page count, `.invalidArgument` for a
    /// count below 1 or past the `max_pages` limit, a media box without area or with a
    /// coordinate that is not finite, or a rotation that is not a multiple of 90.
    @discardableResult
    public func insertBlankPages(at index: Int, count: Int = 1, mediaBox: Rect = .letter, rotation: Int = 0) throws -> PageEditReport {
        try checkStructureEditable("pages cannot be inserted")
        guard count >= 1 else { throw PDFError(.invalidArgument, "the number of pages to insert is \(count); it must be at least 1") }
        try Self.checkBox(mediaBox, "the media box")
        guard rotation % 90 == 0 else {
            throw PDFError(.invalidArgument, "the rotation is \(rotation) degrees, not a multiple of 90")
        }
        return try allOrNothing {
            let pages = try editablePages()
            guard index >= 0 && index <= pages.count else {
                throw PDFError(.range, "page index \(index) is out of range for an insertion (0 to \(pages.count))")
            }
            guard pages.count + count <= options.limits.maxPages else {
                throw PDFError(limit: "max_pages", options.limits.maxPages, "the number of pages after the insertion")
            }
            let labels = try pageLabelRanges()
            var made: [ObjectID] = []
            let contents = try addStream(PDFDictionary(), data: [])
            for _ in 0..<count {
                var dict = PDFDictionary()
                dict["Type"] = .name("Page")
                dict["MediaBox"] = Self.boxArray(mediaBox)
                dict["Resources"] = .dictionary(PDFDictionary())
                dict["Contents"] = .reference(contents)
                dict["Rotate"] = .integer(Int64(((rotation % 360) + 360) % 360))
                made.append(try addObject(.dictionary(dict)))
            }
            var order: [(id: ObjectID, page: Page?)] = pages.map { ($0.id ?? ObjectID(0), $0) }
            order.insert(contentsOf: made.map { ($0, nil) }, at: index)
            try writeFlatPageTree(order)
            var origins = pages.map { PageOrigin.existing($0.index) }
            origins.insert(contentsOf: repeatElement(PageOrigin.blank, count: count), at: index)
            try relabel(origins, own: labels)
            try followPagesInBookmarks { $0 < index ? $0 : $0 + count }
            var report = PageEditReport()
            report.newPages = index..<(index + count)
            return report
        }
    }

    // MARK: Delete

    /// Deletes the pages at `indices` (any order), with what hangs on them
    /// (docs/pages.md): their annotations (with their popups and replies) and the form
    /// fields of their widgets; outline items, named destinations and bookmarks that go to
    /// them; page labels renumbered. The structure tree is kept when the deleted pages are
    /// not tagged, else dropped with a warning.
    ///
    /// Throws `.invalidArgument` for an empty list, an index given twice, or deleting every
    /// page (a document keeps one), `.range` for an index out of range; nothing changes then.
    @discardableResult
    public func deletePages(_ indices: [Int]) throws -> PageEditReport {
        try checkStructureEditable("pages cannot be deleted")
        return try allOrNothing {
            let pages = try editablePages()
            let doomed = Set(try checkedPageIndices(indices, count: pages.count))
            guard doomed.count < pages.count else {
                throw PDFError(.invalidArgument, "every page would be deleted; a document keeps at least one page")
            }
            var report = PageEditReport()
            let labels = try pageLabelRanges()
            let kept = pages.filter { !doomed.contains($0.index) }
            let removed = pages.filter { doomed.contains($0.index) }
            let keptNumbers = Set(kept.compactMap { $0.id?.number })
            // The page objects that go: those no kept page is (a page listed twice stays).
            let gonePages = Set(removed.compactMap { $0.id?.number }).subtracting(keptNumbers)
            // Their annotations, but those a kept page lists too.
            var listedByKept: Set<Int> = []
            for page in kept { for (id, _) in try page.annotationDictionaries() { if let id { listedByKept.insert(id.number) } } }
            var goneAnnotations: Set<Int> = []
            var goneArrays: Set<Int> = []
            for page in removed where page.id.map({ gonePages.contains($0.number) }) ?? false {
                for (id, dict) in try page.annotationDictionaries() {
                    guard let id, !listedByKept.contains(id.number) else { continue }
                    goneAnnotations.insert(id.number)
                    if let popup = dict["Popup"]?.reference, !listedByKept.contains(popup.number) { goneAnnotations.insert(popup.number) }
                }
                if let r = page.dictionary["Annots"]?.reference { goneArrays.insert(r.number) }
            }
            let tagged = try pagesAreTagged(removed)
            try loadBookmarksBeforeDeleting()
            // The new index of each old one (nil: deleted).
            var newIndex = [Int?](repeating: nil, count: pages.count)
            for (k, page) in kept.enumerated() { newIndex[page.index] = k }

            try writeFlatPageTree(kept.map { ($0.id ?? ObjectID(0), $0) })
            let fields = try pruneFieldTree(removing: goneAnnotations)
            let outline = try pruneOutline(targeting: gonePages)
            if outline.removed + outline.cleared > 0 {
                warn("the outline had \(outline.removed + outline.cleared) item(s) going to deleted pages: \(outline.removed) removed, \(outline.cleared) kept as headings without a destination", &report)
            }
            let names = try pruneNamedDestinations(targeting: gonePages)
            if names > 0 { warn("\(names) named destination(s) went to deleted pages and were removed", &report) }
            try relabel(kept.map { .existing($0.index) }, own: labels)
            if tagged { try dropStructureTree(because: "it names content of the deleted pages", &report) }
            let doomedObjects = gonePages.union(goneAnnotations).union(fields).union(goneArrays.subtracting(keptArrays(kept)))
            for number in doomedObjects.sorted() where isInUse(number) { try deleteObject(number) }
            // Last: the bookmark manager's own state is not undone by allOrNothing.
            try followPagesInBookmarks { $0 >= 0 && $0 < newIndex.count ? newIndex[$0] : nil }
            return report
        }
    }

    /// The indirect /Annots arrays of `pages`.
    private func keptArrays(_ pages: [Page]) -> Set<Int> {
        Set(pages.compactMap { $0.dictionary["Annots"]?.reference?.number })
    }

    // MARK: Move

    /// Moves the pages at `indices` so that, afterwards, they stand in the order given
    /// from index `to` on; the other pages keep their order. `to` is an index of the
    /// result: 0 ... the page count minus the number of pages moved. Everything that
    /// names the pages follows them (it names the page objects); page labels number the
    /// pages by their new positions; user bookmarks follow their pages.
    ///
    /// Throws `.invalidArgument` for an empty list or an index given twice, `.range` for
    /// an index or a `to` out of range; nothing changes then.
    @discardableResult
    public func movePages(_ indices: [Int], to: Int) throws -> PageEditReport {
        try checkStructureEditable("pages cannot be moved")
        return try allOrNothing {
            let pages = try editablePages()
            let moving = try checkedPageIndices(indices, count: pages.count)
            let limit = pages.count - moving.count
            guard to >= 0 && to <= limit else {
                throw PDFError(.range, "the destination index \(to) is out of range (0 to \(limit) for \(pagesText(moving.count)) of \(pagesText(pages.count)))")
            }
            let movingSet = Set(moving)
            var order = pages.filter { !movingSet.contains($0.index) }
            order.insert(contentsOf: moving.map { pages[$0] }, at: to)
            guard order.map(\.index) != pages.map(\.index) else { return PageEditReport() }
            let labels = try pageLabelRanges()
            try writeFlatPageTree(order.map { ($0.id ?? ObjectID(0), $0) })
            try relabel(order.map { .existing($0.index) }, own: labels)
            var newIndex = [Int](repeating: 0, count: pages.count)
            for (k, page) in order.enumerated() { newIndex[page.index] = k }
            try followPagesInBookmarks { $0 >= 0 && $0 < newIndex.count ? newIndex[$0] : nil }
            return PageEditReport()
        }
    }

    // MARK: Rotate

    /// Turns the pages at `indices` by `quarterTurns` quarter turns clockwise (negative:
    /// counterclockwise), added to each page's own rotation (its /Rotate, inherited or
    /// not): a page at 90 turned by 1 is at 180. Only the pages change.
    ///
    /// Throws as ``deletePages(_:)`` does for the indices; nothing changes then.
    @discardableResult
    public func rotatePages(_ indices: [Int], by quarterTurns: Int) throws -> PageEditReport {
        try checkStructureEditable("pages cannot be rotated")
        return try allOrNothing {
            let pages = try editablePages()
            let chosen = try checkedPageIndices(indices, count: pages.count)
            let turn = ((quarterTurns % 4) + 4) % 4
            guard turn != 0 else { return PageEditReport() }
            for i in chosen {
                let page = pages[i]
                guard let id = page.id else { continue }
                let degrees = (try page.rotation() + 90 * turn) % 360
                try setValue(.integer(Int64(degrees)), forKey: "Rotate", inObject: id.number)
            }
            return PageEditReport()
        }
    }

    // MARK: Boxes

    /// Sets `box` of the pages at `indices` to `rect` (nil removes it: the box then
    /// defaults as ``Page/box(_:)`` says; the media box cannot be removed). Only the pages
    /// change. Throws `.invalidArgument` for a rectangle without area or with a coordinate
    /// that is not finite, or for removing the media box; as ``deletePages(_:)`` does for
    /// the indices.
    @discardableResult
    public func setPageBox(_ box: PageBox, _ rect: Rect?, onPages indices: [Int]) throws -> PageEditReport {
        try checkStructureEditable("page boxes cannot be changed")
        if let rect { try Self.checkBox(rect, "the \(box.name) box") }
        if rect == nil && box == .media { throw PDFError(.invalidArgument, "a page's media box cannot be removed") }
        return try allOrNothing {
            let pages = try editablePages()
            for i in try checkedPageIndices(indices, count: pages.count) {
                guard let id = pages[i].id else { continue }
                if rect == nil && box == .crop, pages[i].dictionary["CropBox"] == nil, pages[i].inheritedCropBox != nil {
                    // An inherited crop box is removed by the page's own copy of its media box.
                    try setValue(Self.boxArray(try pages[i].box(.media)), forKey: "CropBox", inObject: id.number)
                    continue
                }
                try setValue(rect.map(Self.boxArray), forKey: box.key, inObject: id.number)
            }
            return PageEditReport()
        }
    }

    // MARK: Helpers

    static func boxArray(_ r: Rect) -> PDFObject {
        .array([r.left, r.bottom, r.right, r.top].map(Annotation.number))
    }

    static func checkBox(_ r: Rect, _ what: String) throws {
        guard [r.left, r.bottom, r.right, r.top].allSatisfy(\.isFinite), r.width > 0, r.height > 0 else {
            throw PDFError(.invalidArgument, "\(what) \(r) has no area or a coordinate that is not finite")
        }
    }

    /// Reads the user bookmarks before pages are deleted, when the document stores some
    /// and its bookmark manager is not made yet: read after, a bookmark of a deleted page
    /// would no longer name a page, and could not be told apart (see
    /// ``followPagesInBookmarks(_:)``).
    func loadBookmarksBeforeDeleting() throws {
        guard bookmarkManager == nil, try catalog()[BuiltInBookmarkProvider.catalogKey] != nil else { return }
        _ = try bookmarks.bookmarks()
    }

    /// Bookmarks follow their pages (``BookmarkManager/followPages(_:)``), when the
    /// bookmark manager is made: its go-to bookmarks hold page indexes. (The built-in
    /// store names page objects, so that without a manager a move needs nothing more.)
    func followPagesInBookmarks(_ newIndex: (Int) -> Int?) throws {
        guard let manager = bookmarkManager else { return }
        try manager.followPages(newIndex)
    }
}

extension PageBox {
    /// "media", "crop", ...: for messages.
    var name: String {
        switch self {
        case .media: return "media"
        case .crop: return "crop"
        case .bleed: return "bleed"
        case .trim: return "trim"
        case .art: return "art"
        }
    }
}
