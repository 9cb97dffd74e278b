import QuireSyntax

/// How to open a document.
public struct OpenOptions: Sendable {
    /// The user or owner password; nil is the empty password.
    public var password: String?
    /// The limits that bound what any input can cost.
    public var limits: PDFLimits

    public init(password: String? = nil, limits: PDFLimits = .default) {
        self.password = password
        self.limits = limits
    }
}

/// A rectangle in user space units, normalised so that left <= right and bottom <= top.
public struct Rect: Sendable, Equatable, CustomStringConvertible {
    public var left, bottom, right, top: Double

    public init(left: Double, bottom: Double, right: Double, top: Double) {
        self.left = Swift.min(left, right)
        self.right = Swift.max(left, right)
        self.bottom = Swift.min(bottom, top)
        self.top = Swift.max(bottom, top)
    }

    public var width: Double { right - left }
    public var height: Double { top - bottom }
    public var description: String { "[\(left) \(bottom) \(right) \(top)]" }

    /// US Letter, the default when a page has no usable /MediaBox.
    public static let letter = Rect(left: 0, bottom: 0, right: 612, top: 792)
}

/// The page boxes of ISO 32000-2 §14.11.2.
public enum PageBox: Int, Sendable, CaseIterable {
    case media = 0, crop, bleed, trim, art

    var key: PDFName {
        switch self {
        case .media: return "MediaBox"
        case .crop: return "CropBox"
        case .bleed: return "BleedBox"
        case .trim: return "TrimBox"
        case .art: return "ArtBox"
        }
    }
}

/// A PDF document: the file and the model built on it.
///
/// Not thread-safe: use one document from one thread at a time. Different documents are
/// independent.
public final class Document {
    /// The file underneath, for object-level access. Replaced when the document is saved
    /// (the document continues from the saved bytes).
    public internal(set) var file: PDFFile
    /// How many times the document continued from saved bytes: a full save renumbers the
    /// objects, so what holds object numbers from before must be made again.
    var fileRevision = 0
    /// How many times the document continued from a full save, which renumbers objects:
    /// the tool manager's undo steps name objects by number, and are dropped then.
    var renumberings = 0
    /// How the document was opened. A save that changes the encryption sets the password
    /// to the new one (see ``setEncryption(_:ownerPassword:)``).
    public internal(set) var options: OpenOptions
    /// The encryption the next full save writes, when it changes (Document+Encryption.swift).
    var pendingEncryption: EncryptionChange? = nil
    /// Why page operations and encryption changes are refused, when they are: a synced
    /// document's PDF is the server's (the sync client sets this; a changed PDF is
    /// uploaded as a new document).
    public var structureLockReason: String? = nil
    /// What page imports read of this document as a source, once per state (Pages/).
    var pageImportIndexCache: PageImportIndex? = nil
    /// Unsaved changes (see Editing.swift).
    var changes: ChangeSet
    /// The page tree, once read, or the error reading it gave (see ``pageTree()``): a tree
    /// that fails at a limit fails fast the next time.
    private var pageTreeCache: Result<PageTree, any Error>? = nil
    /// Each page object's index (the first, for a page listed twice), once computed (see
    /// ``pageIndexByObject()``).
    private var pageIndexCache: [Int: Int]? = nil
    /// The page tree nodes and pages that lookups by /Count (``lookUpPage(at:)``) read, in
    /// all: past a budget that grows with the document, ``page(at:)`` walks the tree once
    /// instead, so that reading every page one lookup at a time stays linear.
    private var pageLookupVisits = 0
    /// Where the last lookup by /Count found its page (see ``lookUpPage(at:)``), so that
    /// the next page of the same parent is found without reading the kids before it again.
    private var lookupCursor: LookupCursor? = nil
    /// The page label ranges, once read (see PageLabels.swift): nil before, .some(nil)
    /// for a document without /PageLabels.
    var pageLabelRangesCache: [PageLabelRange]?? = nil
    /// The flat outline, once computed (see Outline.swift).
    var outlineCache: [FlatOutlineItem]? = nil
    /// The /Names /Dests name tree, flattened once read (see Destinations.swift).
    struct DestinationNames {
        var values: [[UInt8]: PDFObject]
        var order: [[UInt8]]
    }
    var destinationNamesCache: DestinationNames? = nil
    /// The form's fields, once read, or the error reading them gave (see Forms/Forms.swift).
    var formFieldsCache: Result<FormFieldTable, any Error>? = nil
    /// Annotations read so far and the reverse index of replies (see Annotations).
    var annotationIndex = AnnotationIndex()
    /// The fonts text extraction loaded, by their object (a font program parsed once per
    /// document, not once per page); dropped with the other caches on any change.
    var textFontCache: [ObjectID: TextFont] = [:]
    /// The embedded font programs of the form's composite fonts that generated appearances
    /// draw with (``Document/compositeFace(_:)``), by their stream; nil for one that
    /// cannot serve. Dropped with the other caches.
    var programFontCache: [ObjectID: UnicodeFont?] = [:]
    /// Whether replies and review states may be created and changed (PSPDFKit's features
    /// switch). Reading annotations and whether they are replies works either way.
    public var repliesEnabled = true
    /// The bookmark manager, once made (see ``bookmarks``).
    var bookmarkManager: BookmarkManager? = nil
    /// The path the document was opened from, from which the default checkpoint UID is
    /// derived; nil for a document opened from memory.
    public var sourcePath: String? = nil
    /// Font files tried first when generated appearances draw text the font of their /DA
    /// cannot (``addAppearanceFont(path:)``; ``AppearanceFonts`` gives the whole order).
    public internal(set) var appearanceFontFiles: [String] = []
    var appearanceFontsLoaded: [UnicodeFont] = []
    /// How the last ``save(to:mode:progress:)`` copied the original bytes: for tests.
    var lastSavePrefixCopy: AtomicFile.PrefixCopy? = nil
    /// The checkpointer, once checkpointing has started (see Checkpoints): one of the
    /// change observers while it is set.
    var checkpointer: Checkpointer? = nil {
        didSet {
            if let oldValue, oldValue !== checkpointer { removeChangeObserver(oldValue) }
            if let checkpointer { addChangeObserver(checkpointer) }
        }
    }
    /// The readers of the change log (``ChangeObserver``), held weakly, in order: the
    /// checkpointer, the sync client's descriptor.
    var changeObservers: [WeakChangeObserver] = []
    /// The lock of a document used from several threads (a synced document: see
    /// ``DocumentLock``); the C layer holds it for the duration of each call on it.
    public var sharedLock: DocumentLock? = nil
    /// How many ``batch(_:)`` calls are running.
    var batchDepth = 0
    /// What the annotation and form APIs do with a change that the certification
    /// signature's DocMDP permissions forbid (see Signatures/SignaturePermissions.swift).
    public var signatureGuard: SignatureGuard = .refuse
    /// The widest kind of change made through the annotation and form APIs since the last
    /// save (see ``certificationBrokenByUnsavedChanges()``).
    var unsavedModificationKind: ModificationKind? = nil
    /// Why the next save must be a full one (redactions applied: an incremental save would
    /// keep the original bytes); nil when it may be incremental.
    var fullSaveRequired: String? = nil

    /// Opens the file at `path`.
    public convenience init(path: String, options: OpenOptions = OpenOptions()) throws {
        try self.init(buffer: ByteBuffer.read(path: path), options: options)
        sourcePath = path
    }

    /// Opens a PDF from bytes in memory (copied).
    public convenience init<C: Collection>(data: C, options: OpenOptions = OpenOptions()) throws where C.Element == UInt8 {
        try self.init(buffer: ByteBuffer(copying: data), options: options)
    }

    public init(buffer: ByteBuffer, options: OpenOptions = OpenOptions()) throws {
        guard buffer.count > 0 else { throw PDFError(.format, "not a PDF file: no data") }
        self.options = options
        file = try PDFFile(buffer: buffer, limits: options.limits, password: options.password.map { Array($0.utf8) })
        changes = ChangeSet(nextNumber: file.nextObjectNumber)
    }

    /// Drops what the model derived from the objects (the page list), after a change.
    func invalidateModel() {
        dropPageTree()
        dropCachesOfAnyObject()
    }

    private func dropPageTree() {
        pageTreeCache = nil
        pageIndexCache = nil
        lookupCursor = nil
    }

    /// Drops what may depend on any object: the page labels, the outline, the named
    /// destinations, the form's fields and the annotations read.
    private func dropCachesOfAnyObject() {
        pageLabelRangesCache = nil
        pageImportIndexCache = nil
        outlineCache = nil
        destinationNamesCache = nil
        formFieldsCache = nil
        annotationIndex = AnnotationIndex()
        textFontCache = [:]
        programFontCache = [:]
    }

    /// Drops what the model derived from the objects after object `number` became `value`
    /// (nil: deleted). The page tree is kept unless the walk read that object: every
    /// change re-walked the tree, so N edits of a document of P pages cost N × P (and
    /// importing annotations one record at a time did). A page whose dictionary changed
    /// outside what the walk reads (its /Annots, say) is updated in place.
    func invalidateModel(after number: Int, _ value: PDFObject?) {
        dropCachesOfAnyObject()
        guard var tree = try? pageTreeCache?.get(), tree.complete, !tree.dependencies.contains(number) else {
            dropPageTree()
            return
        }
        guard let positions = tree.leafPositions[number] else { return }
        guard case .dictionary(let dict)? = value,
              PageTree.structuralKeys.allSatisfy({ dict[$0] == tree.pages[positions[0]].dictionary[$0] }) else {
            dropPageTree()
            return
        }
        pageTreeCache = nil  // `tree` holds the only reference: its pages change without a copy
        for i in positions { tree.pages[i] = tree.pages[i].with(dictionary: dict) }
        pageTreeCache = .success(tree)
    }

    /// The document catalog (§7.7.2).
    public func catalog() throws -> PDFDictionary {
        guard let root = try dictionary(trailer["Root"]) else {
            throw PDFError(.format, "the trailer's /Root is not a dictionary")
        }
        return root
    }

    /// Resolves `value` if it is a reference. Model code resolves through the document,
    /// not the file, so that it sees unsaved changes.
    public func resolve(_ value: PDFObject) throws -> PDFObject {
        try resolve(value, visiting: { _ in })
    }

    /// `value` resolved, with `visit` called with the number of each object on the way.
    func resolve(_ value: PDFObject, visiting visit: (Int) -> Void) throws -> PDFObject {
        var value = value
        var hops = 0
        while case .reference(let id) = value {
            visit(id.number)
            hops += 1
            if hops > 32 {
                file.warn("a chain of more than 32 references starting at \(id); resolved as null")
                return .null
            }
            value = try object(id.number)
        }
        return value
    }

    /// `value` resolved, as a dictionary (a stream's dictionary counts), or nil.
    public func dictionary(_ value: PDFObject?) throws -> PDFDictionary? {
        guard let value else { return nil }
        return try resolve(value).dictionary
    }

    public var isEncrypted: Bool { file.isEncrypted }
    public var isRepaired: Bool { file.isRepaired }
    public var warnings: [String] { file.warnings }

    /// The version declared by the header, raised by the catalog's /Version (§7.2.2).
    public func pdfVersion() -> (major: Int, minor: Int) {
        var version = file.headerVersion ?? (1, 0)
        if let name = (try? catalog())?["Version"]?.name?.value {
            let parts = name.split(separator: ".").compactMap { Int($0) }
            if parts.count == 2, (parts[0], parts[1]) > version, parts[0] < 100, parts[1] < 100 {
                version = (parts[0], parts[1])
            }
        }
        return version
    }

    // MARK: Pages

    /// The page tree, read once: the page count and the pages that can be loaded.
    struct PageTree {
        /// The page count (see ``Document/pageCount()``).
        var count: Int
        /// The pages that can be loaded, in order: the first `count` of those found.
        var pages: [Page]
        /// How many pages the walk found (more than `pages.count` when the root's /Count
        /// is smaller).
        var found: Int
        /// The objects the walk read, other than the pages in `pages`: the catalog, the
        /// nodes, indirect /Kids and /Count, references that led nowhere. A change to one
        /// of them drops the tree.
        var dependencies: Set<Int> = []
        /// Where each page object of `pages` stands (more than once through shared nodes).
        var leafPositions: [Int: [Int]] = [:]
        /// False when the walk stopped at the visit budget, which grows with the number of
        /// objects: then any change drops the tree.
        var complete = true

        /// The entries of a page that the walk reads: a change to any other entry of a
        /// page updates the page in place.
        static let structuralKeys: [PDFName] = ["Type", "Kids", "MediaBox", "CropBox", "Rotate", "Resources"]
    }

    /// The number of pages, counted as PDFium and MuPDF count them: the root page tree
    /// node's /Count when it is an integer with 0 < /Count <= the `maxPages` limit (and the
    /// root is a page tree node, with /Kids); otherwise (missing, 0, negative, too large,
    /// not an integer) the number of pages found by walking the tree.
    ///
    /// When the root's /Count is trusted but the tree holds fewer pages, the pages past
    /// those found are counted yet cannot be loaded: ``page(at:)`` throws `.notFound` for
    /// them. When the tree holds more, the pages past /Count are not reachable, as in
    /// PDFium. Either way the document warns. See ``pages()``.
    ///
    /// A trusted root /Count is the answer without a walk (as PDFium's CountPages and
    /// MuPDF's fz_count_pages take it): opening a document of 3,000 pages and asking its
    /// page count reads the root node, not the pages. What the walk checks (cycles, the
    /// depth limit, lies in /Count) is then checked when a page is looked up
    /// (``page(at:)``) or the pages are listed (``pages()``), and warned about or thrown
    /// there.
    public func pageCount() throws -> Int {
        if pageTreeCache == nil, let declared = try pageTreeRoot(resolve)?.declared { return declared }
        return try pageTree().count
    }

    /// The page at `index`, for 0 <= `index` < ``pageCount()``.
    ///
    /// Throws `PDFError(.range)` when `index` is not below the page count, and
    /// `PDFError(.notFound)` when the root's /Count counts the page but the tree does not
    /// hold it (index >= `pages().count`).
    ///
    /// Before the tree has been walked (by ``pages()`` or ``pageCount()``), the page is
    /// found by its /Count values instead (see ``lookUpPage(at:)``): page 1 of a document
    /// of 3,000 pages reads the nodes on its path, not the 3,000 pages.
    public func page(at index: Int) throws -> Page {
        if pageTreeCache == nil, let page = try lookUpPage(at: index) { return page }
        let tree = try pageTree()
        guard index >= 0 && index < tree.count else {
            throw PDFError(.range, "page index \(index) is out of range (the document has \(tree.count) pages)")
        }
        guard index < tree.pages.count else {
            throw PDFError(.notFound, "page index \(index) is counted by the page tree's /Count (\(tree.count)) but the tree holds only \(pagesText(tree.found))")
        }
        return tree.pages[index]
    }

    /// The pages that exist, in order: the page tree flattened once, with inherited
    /// attributes resolved (§7.7.3.4), cycles skipped and the depth bounded; `pages()[i]`
    /// is `page(at: i)`.
    ///
    /// Never more than ``pageCount()``: when the root's /Count is smaller than the number
    /// of pages in the tree, only the first /Count pages are listed (the others cannot be
    /// reached, as in PDFium); when it is larger, the list is shorter than the page count
    /// and the missing pages are at the end.
    public func pages() throws -> [Page] { try pageTree().pages }

    /// The index of each page object by object number (a page reached twice in the page
    /// tree keeps its first index). Cached like the page tree: every link's destination
    /// looks its page up here, and building the map per link cost O(links x pages).
    func pageIndexByObject() throws -> [Int: Int] {
        if let pageIndexCache { return pageIndexCache }
        var map: [Int: Int] = [:]
        for page in try pages() {
            if let id = page.id, map[id.number] == nil { map[id.number] = page.index }
        }
        pageIndexCache = map
        return map
    }

    /// Whether the page tree has been walked (and the walk kept): for tests of the lookup.
    var pageTreeWalked: Bool { pageTreeCache != nil }

    func pageTree() throws -> PageTree {
        if let pageTreeCache { return try pageTreeCache.get() }
        let result = Result { try readPageTree() }
        // A read that failed (a host's read callback) is tried again next time, not kept.
        if case .failure(let e as PDFError) = result, e.kind == .io { return try result.get() }
        pageTreeCache = result
        return try result.get()
    }

    private struct Inherited {
        var mediaBox: PDFObject?
        var cropBox: PDFObject?
        var rotate: PDFObject?
        var resources: PDFObject?

        /// These, with the inheritable entries `dict` has of its own (§7.7.3.4).
        func applying(_ dict: PDFDictionary) -> Inherited {
            var out = self
            if let v = dict["MediaBox"] { out.mediaBox = v }
            if let v = dict["CropBox"] { out.cropBox = v }
            if let v = dict["Rotate"] { out.rotate = v }
            if let v = dict["Resources"] { out.resources = v }
            return out
        }
    }

    /// The page a lookup found, as a kid of its parent: the parent's kids and /Count, the
    /// pages of its kids up to and including this one, this kid's position, what the
    /// parent passes on (the page's own entries not applied), and the nodes above it.
    private struct LookupCursor {
        var index: Int
        var kids: [PDFObject]
        var parentCount: Int
        var passed: Int
        var position: Int
        var inherited: Inherited
        var onPath: Set<Int>
    }

    /// "1 page", "2 pages": for messages.
    func pagesText(_ n: Int) -> String { n == 1 ? "1 page" : "\(n) pages" }

    private func readPageTree() throws -> PageTree {
        var dependencies: Set<Int> = []
        var leafPositions: [Int: [Int]] = [:]
        /// `value` resolved, with every object on the way noted as a dependency.
        func resolveNoting(_ value: PDFObject) throws -> PDFObject {
            try resolve(value) { dependencies.insert($0) }
        }
        if case .reference(let r)? = trailer["Root"] { _ = try resolveNoting(.reference(r)) }
        guard let root = try pageTreeRoot(resolveNoting) else {
            file.warn("the catalog has no /Pages; the document has no pages")
            return PageTree(count: 0, pages: [], found: 0, dependencies: dependencies)
        }
        let (top, rootIsNode, rawCount, declared) = (root.top, root.isNode, root.rawCount, root.declared)
        let maxPages = options.limits.maxPages
        var result: [Page] = []
        var found = 0
        var pastLimit = false
        var sharedPastLimit = false
        // An explicit stack instead of recursion, so that the depth limit, not the host's
        // thread stack, bounds the walk. `.leave` pops a node off the ancestor path.
        enum Step { case visit(PDFObject, Inherited, Int), leave }
        var stack: [Step] = [.visit(top, Inherited(), 0)]
        var path: [Int] = []  // object numbers of the nodes from the root to the current one
        var onPath: Set<Int> = []  // the same, for lookup (a path may be 1,024 nodes long)
        // Shared nodes are walked once per branch, so a chain of nodes whose /Kids name the
        // next node twice expands to 2^depth visits before it reaches a single page. A tree
        // visits each object once, so more visits than twice the objects (plus 1,000 for a
        // page listed a few times over) can only come from such sharing: past that, the
        // walk stops like the pages limit. (With the pages limit as the bound, a 3.5 KB file
        // listed one page with 100 annotations 40,000 times: 54 s and 6.8 GB to read them.)
        let maxVisits = Swift.min(2 * file.objectCount + 1_000, file.objectCount + maxPages)
        var visits = 0
        walk: while let step = stack.popLast() {
            guard case .visit(let node, let parent, let depth) = step else {
                onPath.remove(path.removeLast())
                continue
            }
            visits += 1
            if visits > maxVisits {
                guard declared != nil else {
                    throw PDFError(limit: "max_pages", maxPages, "the number of nodes the page tree expands to (shared nodes counted once per branch)")
                }
                file.warn("the page tree's shared nodes expand to more than \(maxVisits) nodes; the walk stops there")
                sharedPastLimit = true
                break walk
            }
            if depth > options.limits.maxPageTreeDepth {
                throw PDFError(limit: "max_page_tree_depth", options.limits.maxPageTreeDepth, "the depth of the page tree")
            }
            var id: ObjectID? = nil
            if case .reference(let r) = node {
                // A node on its own ancestor path is a cycle. A node reached again in
                // another branch is not: viewers show it once per branch.
                if onPath.contains(r.number) {
                    file.warn("page tree cycle through \(r); the repeated node is skipped")
                    continue
                }
                id = r
            }
            // A page's own object is not a dependency (see PageTree.leafPositions), but
            // the references it leads through are.
            let resolved = try id.map { try resolveNoting(try object($0.number)) } ?? resolveNoting(node)
            guard let dict = resolved.dictionary else {
                if let id { dependencies.insert(id.number) }
                file.warn("page tree node \(id.map { "\($0)" } ?? "(direct)") is not a dictionary; skipped")
                continue
            }
            let inherited = parent.applying(dict)
            let type = dict["Type"]?.name?.value
            let kids = try dict["Kids"].map(resolveNoting)?.array
            if let kids, type != "Page" {
                if let id {
                    dependencies.insert(id.number)
                    path.append(id.number)
                    onPath.insert(id.number)
                    stack.append(.leave)
                }
                for kid in kids.reversed() { stack.append(.visit(kid, inherited, depth + 1)) }
            } else {
                if type == "Pages" {
                    // qpdf's rule, which the peers' majority follows: a node without /Kids
                    // is a page, whatever its /Type says.
                    file.warn("page tree node \(id.map { "\($0)" } ?? "(direct)") has no /Kids array; read as a page")
                }
                guard found < maxPages else {
                    // With a trusted /Count the pages past it are unreachable anyway: stop
                    // counting them. Without one, the tree is too large to list.
                    guard declared != nil else {
                        throw PDFError(limit: "max_pages", maxPages, "the number of pages the page tree expands to")
                    }
                    pastLimit = true
                    break walk
                }
                found += 1
                // Pages past a trusted /Count are counted for the warning, not kept.
                if result.count < (declared ?? maxPages) {
                    if let id { leafPositions[id.number, default: []].append(result.count) }
                    result.append(Page(document: self, index: result.count, id: id, dictionary: dict,
                                       inheritedMediaBox: inherited.mediaBox, inheritedCropBox: inherited.cropBox,
                                       inheritedRotate: inherited.rotate, inheritedResources: inherited.resources))
                } else if let id {
                    dependencies.insert(id.number)
                }
            }
        }
        let foundText = pastLimit ? "more than \(maxPages) pages"
            : sharedPastLimit ? "\(pagesText(found)) before its walk stopped" : pagesText(found)
        if let declared {
            if found < declared {
                let missing = found + 1 == declared ? "page \(declared) cannot be loaded" : "pages \(found + 1) to \(declared) cannot be loaded"
                file.warn("the page tree's /Count says \(declared) pages, but the tree holds only \(foundText); the page count is \(declared), as PDFium and MuPDF report it, but \(missing)")
            } else if found > declared {
                file.warn("the page tree's /Count says \(declared) pages, but the tree holds \(foundText); the page count is \(declared), as PDFium and MuPDF report it, and the pages after page \(declared) are not reachable")
            }
            return PageTree(count: declared, pages: result, found: found, dependencies: dependencies,
                            leafPositions: leafPositions, complete: !sharedPastLimit)
        }
        if let rawCount, rawCount.integer != Int64(found) {
            let why: String
            if !rootIsNode {
                why = "belongs to a root that is a page, not a page tree node"
            } else if let n = rawCount.integer {
                why = n > 0 ? "exceeds the max_pages limit (\(maxPages))" : "is not positive"
            } else {
                why = "is not an integer"
            }
            let shown = rawCount.integer.map { String($0) } ?? rawCount.aTypeName
            file.warn("the page tree's /Count (\(shown)) \(why); the pages found in the tree (\(found)) are counted")
        }
        return PageTree(count: found, pages: result, found: found, dependencies: dependencies, leafPositions: leafPositions)
    }

    /// The root of the page tree (the catalog's /Pages) and its /Count; nil when the
    /// catalog has no /Pages. `resolve` resolves (and may note) what is read.
    private func pageTreeRoot(_ resolve: (PDFObject) throws -> PDFObject)
        throws -> (top: PDFObject, isNode: Bool, rawCount: PDFObject?, declared: Int?)? {
        guard let top = try catalog()["Pages"] else { return nil }
        // The root's /Count, and whether to trust it: PDFium's rule (CPDF_Document's
        // CountPages), which MuPDF follows for any positive count. A root without /Kids
        // is itself a page (PDFium counts 1), whatever its /Count says.
        let topDict = try resolve(top).dictionary
        var isNode = false
        if let topDict, topDict["Type"]?.name?.value != "Page" {
            isNode = try topDict["Kids"].map(resolve)?.array != nil
        }
        let rawCount = try topDict?["Count"].map(resolve)
        var declared: Int? = nil
        if isNode, let n = rawCount?.integer, n > 0, n <= Int64(options.limits.maxPages) {
            declared = Int(n)
        }
        return (top, isNode, rawCount, declared)
    }

    /// Page `index` found by the /Count values of the page tree, without walking it: from
    /// the root down, each node's kids are read in order up to the one whose pages hold
    /// the index, a kid that is a page counting 1 and a node its /Count (MuPDF's lookup).
    /// Page 1 of a tree of depth D reads about D objects; page N of a flat tree reads the N
    /// pages before it.
    ///
    /// The answer must be the page the walk (``pages()``) puts at `index`. So nil (the
    /// caller walks the tree) whenever the /Count values cannot be trusted to say that:
    /// the root's /Count is not trusted (the page count is then the walk's), a node on the
    /// way repeats (a cycle: the walk skips it), a kid is not a dictionary (the walk skips
    /// it), a /Count is missing, negative, or 0 over kids, the kids read so far hold more
    /// pages than their node's /Count, a node does not hold the page its /Count promised,
    /// a node passed over does not hold what its /Count says one level down (its kids'
    /// pages and /Counts), the depth passes `max_page_tree_depth`, or the lookups have
    /// read more than their budget. What is left unseen is a /Count that lies two levels
    /// or more below a node passed over; the page is then the one the /Count values name,
    /// as in MuPDF, and a later walk may put another page at that index.
    ///
    /// Throws `.range` for an index outside the trusted /Count, as ``page(at:)`` does.
    func lookUpPage(at index: Int) throws -> Page? {
        let limits = options.limits
        guard let root = try pageTreeRoot(resolve), let declared = root.declared else { return nil }
        // Lookups that have read twice as many nodes as there are pages have cost more than
        // the walk, which reads each once: reading a flat tree of 3,000 pages one page at a
        // time read 79,000 kids (twice the objects) before it walked.
        let budget = Swift.max(4_096, Swift.min(2 * file.objectCount, 2 * declared))
        guard pageLookupVisits <= budget else { return nil }
        guard index >= 0 && index < declared else {
            throw PDFError(.range, "page index \(index) is out of range (the document has \(declared) pages)")
        }
        /// A page tree node: its dictionary, its kids and its /Count.
        struct Node {
            var dictionary: PDFDictionary
            var kids: [PDFObject]?
            var count: Int
        }
        enum Lookup: Error { case walk }
        var visits = 0
        /// `value` resolved as a page tree node or page; throws `.walk` when the /Count
        /// values cannot be trusted here.
        func read(_ value: PDFObject, onPath: Set<Int>) throws -> Node {
            visits += 1
            if pageLookupVisits + visits > budget { throw Lookup.walk }
            if let r = value.reference, onPath.contains(r.number) { throw Lookup.walk }
            guard let dict = try resolve(value).dictionary else { throw Lookup.walk }
            let type = dict["Type"]?.name?.value
            guard let kids = try dict["Kids"].map(resolve)?.array, type != "Page" else {
                if type == "Pages" { throw Lookup.walk }  // the walk warns about it
                return Node(dictionary: dict, kids: nil, count: 1)
            }
            guard let count = try dict["Count"].map(resolve)?.integer, count >= 0, count <= Int64(limits.maxPages),
                  count > 0 || kids.isEmpty else { throw Lookup.walk }
            return Node(dictionary: dict, kids: kids, count: Int(count))
        }
        defer { pageLookupVisits += visits }
        /// The page `node` (at `value`) with `inherited` and its own entries.
        func page(_ value: PDFObject, _ node: Node, _ parent: Inherited) -> Page {
            let inherited = parent.applying(node.dictionary)
            return Page(document: self, index: index, id: value.reference, dictionary: node.dictionary,
                        inheritedMediaBox: inherited.mediaBox, inheritedCropBox: inherited.cropBox,
                        inheritedRotate: inherited.rotate, inheritedResources: inherited.resources)
        }
        // The page last found again, or the one after it when that is the next kid of the
        // same parent and a page (a document read page after page): one kid read, as the
        // loop below would read it after the kids it already checked for the page before.
        if let c = lookupCursor, index == c.index || index == c.index + 1 {
            let step = index - c.index
            if c.position + step < c.kids.count, c.passed + step <= c.parentCount {
                let kid = c.kids[c.position + step]
                let child = try? read(kid, onPath: c.onPath)
                visits = 0  // one read a call: not what the budget bounds (lookups from the root)
                if let child, child.kids == nil {
                    lookupCursor = LookupCursor(index: index, kids: c.kids, parentCount: c.parentCount, passed: c.passed + step,
                                                position: c.position + step, inherited: c.inherited, onPath: c.onPath)
                    return page(kid, child, c.inherited)
                }
            }
        }
        lookupCursor = nil
        do {
            var value = root.top
            var node = try read(value, onPath: [])
            var inherited = Inherited()
            var onPath: Set<Int> = []
            var remaining = index
            var depth = 0
            var cursor: LookupCursor? = nil
            while true {
                guard let kids = node.kids else {
                    guard remaining == 0 else { throw Lookup.walk }
                    lookupCursor = cursor
                    return page(value, node, inherited)
                }
                inherited = inherited.applying(node.dictionary)
                if let r = value.reference { onPath.insert(r.number) }
                depth += 1
                if depth > limits.maxPageTreeDepth { throw Lookup.walk }
                var passed = 0
                var next: (PDFObject, Node)? = nil
                for (position, kid) in kids.enumerated() {
                    let child = try read(kid, onPath: onPath)
                    passed += child.count
                    if passed > node.count { throw Lookup.walk }
                    if remaining < child.count {
                        next = (kid, child)
                        cursor = LookupCursor(index: index, kids: kids, parentCount: node.count, passed: passed,
                                              position: position, inherited: inherited, onPath: onPath)
                        break
                    }
                    remaining -= child.count
                    // A node passed over: its /Count must be what its kids hold, one level down.
                    if let grandkids = child.kids {
                        var inside = 0
                        var below = onPath
                        if let r = kid.reference { below.insert(r.number) }
                        for grandkid in grandkids { inside += try read(grandkid, onPath: below).count }
                        if inside != child.count { throw Lookup.walk }
                    }
                }
                guard let (kid, child) = next else { throw Lookup.walk }
                value = kid
                node = child
            }
        } catch Lookup.walk {
            return nil
        }
    }

    /// A rectangle from a PDF array of four numbers (references resolved); nil if it is not one.
    func rect(_ value: PDFObject?) throws -> Rect? {
        guard let value, let array = try resolve(value).array, array.count == 4 else { return nil }
        var numbers: [Double] = []
        for item in array {
            guard let n = try resolve(item).number, n.isFinite else { return nil }
            numbers.append(n)
        }
        return Rect(left: numbers[0], bottom: numbers[1], right: numbers[2], top: numbers[3])
    }

    // MARK: Metadata

    /// The entries of the document information dictionary (§14.3.3) that are text
    /// strings, names, numbers or booleans, in file order, with text decoded.
    public func metadata() throws -> [(key: String, value: String)] {
        guard let info = try dictionary(trailer["Info"]) else { return [] }
        var out: [(key: String, value: String)] = []
        for (key, raw) in info {
            let value: String
            switch try resolve(raw) {
            case .string(let s):
                value = s.text
            case .name(let n): value = n.value
            case .integer(let i): value = String(i)
            case .real(let r): value = String(r)
            case .bool(let b): value = b ? "true" : "false"
            default: continue
            }
            out.append((key.value, value))
        }
        return out
    }
}

/// A page of a document. A value: it refers to its document, which must stay open.
public struct Page {
    public unowned let document: Document
    /// The 0-based index in the document.
    public let index: Int
    /// The page object's id, if it is an indirect object (it always is in valid files).
    public let id: ObjectID?
    /// The page dictionary.
    public let dictionary: PDFDictionary
    let inheritedMediaBox: PDFObject?
    let inheritedCropBox: PDFObject?
    let inheritedRotate: PDFObject?
    let inheritedResources: PDFObject?

    /// This page with `dictionary` in place of its own (what it inherits unchanged).
    func with(dictionary: PDFDictionary) -> Page {
        Page(document: document, index: index, id: id, dictionary: dictionary,
             inheritedMediaBox: inheritedMediaBox, inheritedCropBox: inheritedCropBox,
             inheritedRotate: inheritedRotate, inheritedResources: inheritedResources)
    }

    /// A page box with inheritance and defaults applied: a missing or malformed media box
    /// is US Letter (with a warning), a missing crop box is the media box, and a missing
    /// bleed, trim or art box is the crop box.
    public func box(_ box: PageBox) throws -> Rect {
        switch box {
        case .media:
            if let r = try document.rect(inheritedMediaBox) { return r }
            document.file.warn("page \(index + 1) has no valid /MediaBox; US Letter assumed")
            return .letter
        case .crop:
            if let r = try document.rect(inheritedCropBox) { return r }
            return try self.box(.media)
        case .bleed, .trim, .art:
            if let r = try document.rect(dictionary[box.key]) { return r }
            return try self.box(.crop)
        }
    }

    /// The rotation in degrees clockwise: 0, 90, 180 or 270.
    public func rotation() throws -> Int {
        guard let value = try inheritedRotate.map(document.resolve) else { return 0 }
        guard let r = value.integer, r % 90 == 0 else {
            document.file.warn("page \(index + 1) has an invalid /Rotate; 0 assumed")
            return 0
        }
        return Int(((r % 360) + 360) % 360)
    }

    /// The annotation dictionaries of the page, as (reference if indirect, dictionary).
    public func annotationDictionaries() throws -> [(ObjectID?, PDFDictionary)] {
        guard let value = dictionary["Annots"], let array = try document.resolve(value).array else {
            return []
        }
        var out: [(ObjectID?, PDFDictionary)] = []
        for item in array {
            if let d = try document.dictionary(item) { out.append((item.reference, d)) }
        }
        return out
    }

    /// The number of annotation dictionaries in /Annots.
    public func annotationCount() throws -> Int { try annotationDictionaries().count }
}
