import QuireSyntax

// Copying pages from another open document (merge) and into a new one (extract, split),
// with what hangs on them (docs/pages.md): their resources (each object copied once, so
// resources that pages share stay shared), annotations with their popups and replies,
// form fields (merged into the form, a clash of names renamed), links, outline items,
// named destinations, page labels and user bookmarks.

/// What page imports read of a source document, once per state of it (dropped with the
/// other caches on any change).
struct PageImportIndex {
    /// Every page object, every annotation object that a page lists, every node of the
    /// field tree, every page tree node (and the catalog): references to these are never
    /// followed into objects of their own, only mapped to what the import made of them.
    var pageObjects: Set<Int> = []
    var annotationObjects: Set<Int> = []
    var fieldObjects: Set<Int> = []
    var structuralObjects: Set<Int> = []
    /// The outline, read once (nil: none, or not rewritable).
    var outline: (root: ObjectID, rootDictionary: PDFDictionary, items: [OutlineNode])??
    /// The named destinations, with the page object each names, read once.
    var namedDestinations: [(name: [UInt8], value: PDFObject, page: Int?)]?
}

/// Copies objects of one document into another: each source object at most once, its
/// references translated. References to objects the import decides about (pages,
/// annotations, fields) are mapped to what it made of them, or dropped (a dropped
/// dictionary entry goes; a dropped array element becomes null).
final class ObjectCopier {
    unowned let source: Document
    unowned let target: Document
    /// Source objects that became target objects made by the caller (imported pages).
    var mapped: [Int: ObjectID] = [:]
    /// Source objects copied (or queued to be).
    private(set) var copied: [Int: ObjectID] = [:]
    /// Whether references to a source object are dropped.
    var excluded: (Int) -> Bool = { _ in false }
    /// Makes the value stored for a source object from its value in the source, in place
    /// of ``translate(_:)``: for annotations and fields, which the import adjusts.
    var adjust: (Int, PDFObject) throws -> PDFObject? = { _, _ in nil }
    private var queue: [(Int, ObjectID)] = []
    private let sourceEncrypted: Bool

    init(from source: Document, to target: Document) {
        self.source = source
        self.target = target
        sourceEncrypted = source.file.security != nil
    }

    /// The target object for source object `id`, copied (queued) on first use; nil when
    /// references to it are dropped (excluded, or not in use).
    func reference(_ id: ObjectID) throws -> ObjectID? {
        if let m = mapped[id.number] { return m }
        if let c = copied[id.number] { return c }
        guard !excluded(id.number), source.isInUse(id.number) else { return nil }
        let new = try target.reserveObjectID()
        copied[id.number] = new
        queue.append((id.number, new))
        return new
    }

    /// `value` with its references translated (their objects queued for copying).
    func translate(_ value: PDFObject) throws -> PDFObject {
        switch value {
        case .reference(let id):
            return try reference(id).map { .reference($0) } ?? .null
        case .array(let items):
            guard items.contains(where: \.holdsReferences) else { return value }
            return .array(try items.map(translate))
        case .dictionary(let d):
            return .dictionary(try translate(d))
        case .stream(let s):
            return .stream(try translate(s))
        default:
            return value
        }
    }

    func translate(_ d: PDFDictionary) throws -> PDFDictionary {
        var out = PDFDictionary()
        for (k, v) in d {
            let t = try translate(v)
            if t != .null { out[k] = t }
        }
        return out
    }

    /// A stream of the source as a stream of the target: its dictionary translated, with
    /// /Filter and /DecodeParms written directly (the target reads them without the
    /// source), its data left in the source's bytes (an unencrypted source: nothing is
    /// copied until the target is saved) or decrypted into memory.
    private func translate(_ s: PDFStream) throws -> PDFStream {
        var dict = PDFDictionary()
        var filters: [PDFObject]? = nil
        var parms: [PDFObject]? = nil
        for (k, v) in s.dictionary {
            switch k.value {
            case "Length": continue
            case "Filter":
                let r = try source.resolve(v)
                if let a = r.array { filters = try a.map { try source.resolve($0) } } else { filters = [r] }
            case "DecodeParms":
                let r = try source.resolve(v)
                if let a = r.array { parms = try a.map { try source.resolve($0) } } else { parms = [r] }
            default:
                let t = try translate(v)
                if t != .null { dict[k] = t }
            }
        }
        let data: StreamData
        var bytes: ByteBuffer? = nil
        var length = 0
        switch s.data {
        case .file(let offset, let count):
            if sourceEncrypted && s.objectID != nil {
                let plain = try source.streamData(s, decoded: false)
                data = .bytes(plain)
                length = plain.count
                // Decrypted: a /Crypt filter of its own is undone.
                if let f = filters, let k = f.firstIndex(of: .name("Crypt")) {
                    filters?.remove(at: k)
                    if var p = parms, k < p.count { p.remove(at: k); parms = p }
                }
            } else {
                let buffer = s.source ?? source.file.buffer
                // A lazy source (a host's read callback) is read now: the target must not
                // call it after the source is closed.
                if buffer.isLazy { try buffer.load(offset..<(offset + count)) }
                data = .file(offset: offset, length: count)
                bytes = buffer
                length = count
            }
        case .bytes(let b):
            data = .bytes(b)
            length = b.count
        }
        if let filters, !filters.isEmpty { dict["Filter"] = filters.count == 1 ? try translate(filters[0]) : .array(try filters.map(translate)) }
        if let parms, !parms.isEmpty, parms.contains(where: { $0 != .null }) {
            dict["DecodeParms"] = parms.count == 1 ? try translate(parms[0]) : .array(try parms.map(translate))
        }
        dict["Length"] = .integer(Int64(length))
        return PDFStream(dictionary: dict, data: data, objectID: nil, source: bytes)
    }

    /// Copies every queued object (and what they refer to) into the target.
    func drain() throws {
        while let (number, id) = queue.popLast() {
            let value = try source.object(number)
            let stored = try adjust(number, value) ?? translate(value)
            try target.storeReservedObject(id, stored == .null ? .dictionary(PDFDictionary()) : stored)
        }
    }
}

extension PDFObject {
    /// A reference, or a container that may hold one.
    fileprivate var holdsReferences: Bool {
        switch self {
        case .reference, .array, .dictionary, .stream: return true
        default: return false
        }
    }
}

extension Document {
    /// The objects of this document that page imports decide about (``PageImportIndex``).
    func pageImportIndex() throws -> PageImportIndex {
        if let cached = pageImportIndexCache { return cached }
        var index = PageImportIndex()
        for page in try pages() {
            if let id = page.id { index.pageObjects.insert(id.number) }
            if let r = page.dictionary["Annots"]?.reference { index.structuralObjects.insert(r.number) }
            for (id, _) in try page.annotationDictionaries() { if let id { index.annotationObjects.insert(id.number) } }
        }
        let shape = try pageTreeShape()
        if let root = shape.root { index.structuralObjects.insert(root.id.number) }
        index.structuralObjects.formUnion(shape.innerNodes)
        if let r = trailer["Root"]?.reference { index.structuralObjects.insert(r.number) }
        if let form = try acroForm(), let fields = try form["Fields"].map(resolve)?.array {
            var stack: [(PDFObject, Int)] = fields.map { ($0, 1) }
            var count = 0
            while let (value, depth) = stack.popLast() {
                guard let r = value.reference, depth <= FormLimits.maxFieldDepth, count < FormLimits.maxFieldNodes,
                      index.fieldObjects.insert(r.number).inserted else { continue }
                count += 1
                if let kids = try dictionary(value)?["Kids"].map(resolve)?.array { stack += kids.map { ($0, depth + 1) } }
            }
        }
        pageImportIndexCache = index
        return index
    }

    // MARK: Import

    /// Copies pages of `source` (`indices`, in that order, repeats allowed; nil: every
    /// page) into this document at `index` (0 ... the page count). What comes along, and
    /// how (docs/pages.md, "Import"): each page with its inherited attributes made its own;
    /// the objects it uses, each copied once (resources pages share stay shared); its
    /// annotations with their popups and reply chains (/P and /IRT made to name the
    /// copies; a reply to an annotation left behind becomes a plain annotation); its
    /// links, whose destinations into pages not copied are dropped and named ones made
    /// explicit; its widgets' fields, merged into this document's form, a top-level field
    /// whose name is taken renamed `name_2` (then `_3`, ...) and reported; the form's /DA,
    /// /Q and /DR resources (a resource name that is taken, for another resource, is
    /// renamed and the /DA strings that use it follow); outline items that go to copied
    /// pages (appended to this outline, with their headings); named destinations into
    /// copied pages (unless the name is taken: reported); page labels; user bookmarks of
    /// copied pages. The copied pages are not tagged: their structure is not copied
    /// (reported when the source has a structure tree).
    ///
    /// Throws `.invalidArgument` when `source` is this document or `indices` is empty,
    /// `.range` for an index out of range; nothing changes then.
    @discardableResult
    public func importPages(from source: Document, pages indices: [Int]? = nil, at index: Int) throws -> PageEditReport {
        try checkStructureEditable("pages cannot be imported")
        guard source !== self else {
            throw PDFError(.invalidArgument, "a document cannot import its own pages; import them from another open document")
        }
        return try allOrNothing { try importPagesUnbatched(from: source, pages: indices, at: index) }
    }

    private func importPagesUnbatched(from source: Document, pages indices: [Int]?, at index: Int) throws -> PageEditReport {
        let sourcePages = try source.pages()
        let chosen: [Int]
        if let indices {
            guard !indices.isEmpty else { throw PDFError(.invalidArgument, "no pages were given") }
            for i in indices where i < 0 || i >= sourcePages.count {
                throw PDFError(.range, "page index \(i) is out of range (the source document has \(pagesText(sourcePages.count)))")
            }
            chosen = indices
        } else {
            guard !sourcePages.isEmpty else { throw PDFError(.invalidArgument, "the source document has no pages") }
            chosen = Array(sourcePages.indices)
        }
        let pages = try editablePages()
        guard index >= 0 && index <= pages.count else {
            throw PDFError(.range, "page index \(index) is out of range for an insertion (0 to \(pages.count))")
        }
        guard pages.count + chosen.count <= options.limits.maxPages else {
            throw PDFError(limit: "max_pages", options.limits.maxPages, "the number of pages after the import")
        }
        var report = PageEditReport()
        report.newPages = index..<(index + chosen.count)
        let sourceIndex = try source.pageImportIndex()
        let ownLabels = try pageLabelRanges()
        let sourceLabels = try source.pageLabelRanges()
        let copier = ObjectCopier(from: source, to: self)
        let resolver = DestinationResolver(document: source)

        // The new pages, numbered first so that everything that names them is mapped.
        var newPages: [ObjectID] = []
        var copyOf: [Int: ObjectID] = [:]  // source page object -> its first copy
        for i in chosen {
            let id = try reserveObjectID()
            newPages.append(id)
            if let sid = sourcePages[i].id, copyOf[sid.number] == nil {
                copyOf[sid.number] = id
                copier.mapped[sid.number] = id
            }
        }
        // Their annotations, each with the page it is copied onto (the first copy).
        var annotationPage: [Int: ObjectID] = [:]
        var widgets: [Int] = []
        for (k, i) in chosen.enumerated() {
            for (aid, dict) in try sourcePages[i].annotationDictionaries() {
                guard let aid, annotationPage[aid.number] == nil else { continue }
                annotationPage[aid.number] = newPages[k]
                if dict["Subtype"]?.name?.value == "Widget" { widgets.append(aid.number) }
            }
        }
        // The fields of their widgets: each widget and the fields above it.
        var neededFields: Set<Int> = []
        var fieldParent: [Int: Int] = [:]
        for w in widgets {
            var current = w
            var depth = 0
            while depth < FormLimits.maxFieldDepth, sourceIndex.fieldObjects.contains(current) || current == w {
                neededFields.insert(current)
                guard case .dictionary(let d) = try source.object(current), let parent = d["Parent"]?.reference,
                      sourceIndex.fieldObjects.contains(parent.number) else { break }
                fieldParent[current] = parent.number
                if neededFields.contains(parent.number) { break }
                current = parent.number
                depth += 1
            }
        }
        copier.excluded = { n in
            if annotationPage[n] != nil || neededFields.contains(n) { return false }
            return sourceIndex.pageObjects.contains(n) || sourceIndex.annotationObjects.contains(n)
                || sourceIndex.fieldObjects.contains(n) || sourceIndex.structuralObjects.contains(n)
        }
        var droppedLinks = 0
        /// An annotation's (or outline item's) destinations in source terms: made explicit
        /// when they go to a copied page, removed when they do not.
        func keepingDestinations(_ dict: PDFDictionary) throws -> PDFDictionary {
            var d = dict
            if let dest = d["Dest"] {
                if let a = try source.explicitDestination(dest, resolver), let p = a.first?.reference, copyOf[p.number] != nil {
                    d["Dest"] = .array(a)
                } else {
                    d["Dest"] = nil
                    droppedLinks += 1
                }
            }
            if let a = d["A"], let action = try source.dictionary(a), action["S"]?.name?.value == "GoTo" {
                if let dv = action["D"], let arr = try source.explicitDestination(dv, resolver), let p = arr.first?.reference,
                   copyOf[p.number] != nil {
                    var act = action
                    act["D"] = .array(arr)
                    d["A"] = .dictionary(act)
                } else {
                    d["A"] = nil
                    droppedLinks += 1
                }
            }
            return d
        }
        copier.adjust = { [unowned copier] number, value in
            guard case .dictionary(let dict) = value else { return nil }
            var d = dict
            if let page = annotationPage[number] {
                d = try keepingDestinations(d)
                d["StructParent"] = nil
                var t = try copier.translate(d)
                t["P"] = .reference(page)
                if neededFields.contains(number) { t = try self.keptKids(of: dict, translated: t, copier) }
                return .dictionary(t)
            }
            if neededFields.contains(number) {
                return .dictionary(try self.keptKids(of: dict, translated: try copier.translate(d), copier))
            }
            return nil
        }

        // The pages.
        let inheritable: Set<PDFName> = ["MediaBox", "CropBox", "Rotate", "Resources"]
        // A page copied twice is two pages that list the same annotations (each annotation
        // has one /P: the first copy), as a page listed twice in a page tree does.
        for (k, i) in chosen.enumerated() {
            let page = sourcePages[i]
            var d = PDFDictionary()
            d["Type"] = .name("Page")
            for (key, value) in page.dictionary {
                switch key.value {
                case "Type", "Parent", "Annots", "StructParents", "B": continue
                default:
                    if inheritable.contains(key) { continue }
                    var t = try copier.translate(value)
                    // A /Contents array's dangling references (null once translated) are no
                    // content: qpdf calls a null among a page's streams an error.
                    if key == "Contents", case .array(let streams) = t {
                        let kept = streams.filter { $0 != .null }
                        t = kept.isEmpty ? .null : .array(kept)
                    }
                    if t != .null { d[key] = t }
                }
            }
            d["MediaBox"] = try page.inheritedMediaBox.map { try copier.translate(source.resolve($0)) }
                ?? .array([0, 0, 612, 792].map { PDFObject.integer($0) })
            if let v = page.inheritedCropBox { d["CropBox"] = try copier.translate(source.resolve(v)) }
            if let v = page.inheritedRotate { d["Rotate"] = try copier.translate(source.resolve(v)) }
            d["Resources"] = try page.inheritedResources.map(copier.translate) ?? .dictionary(PDFDictionary())
            if d["Resources"] == .null { d["Resources"] = .dictionary(PDFDictionary()) }
            // /Annots: the copies (a page copied twice lists the first copies).
            var annots: [PDFObject] = []
            if let value = page.dictionary["Annots"], let list = try source.resolve(value).array {
                for entry in list {
                    if let r = entry.reference {
                        if let t = try copier.reference(r) { annots.append(.reference(t)) }
                    } else if case .dictionary(let direct) = entry {
                        var a = try keepingDestinations(direct)
                        a["StructParent"] = nil
                        var t = try copier.translate(a)
                        t["P"] = .reference(newPages[k])
                        annots.append(.dictionary(t))
                    }
                }
            }
            if !annots.isEmpty { d["Annots"] = .array(annots) }
            try storeReservedObject(newPages[k], .dictionary(d))
        }
        try copier.drain()
        if droppedLinks > 0 {
            warn("\(droppedLinks) link(s) or action(s) of the copied pages went to pages that were not copied; their destinations were dropped", &report)
        }

        // The page tree.
        var order: [(id: ObjectID, page: Page?)] = pages.map { ($0.id ?? ObjectID(0), $0) }
        order.insert(contentsOf: newPages.map { ($0, nil) }, at: index)
        try writeFlatPageTree(order)

        try mergeForm(from: source, neededFields: neededFields, fieldParent: fieldParent, copier: copier, &report)
        try copier.drain()
        try importOutline(from: source, index: sourceIndex, copyOf: copyOf, copier: copier, resolver: resolver, &report)
        try importNamedDestinations(from: source, copyOf: copyOf, copier: copier, &report)
        try copier.drain()
        var origins = pages.map { PageOrigin.existing($0.index) }
        origins.insert(contentsOf: chosen.map { PageOrigin.imported($0) }, at: index)
        try relabel(origins, own: ownLabels, imported: sourceLabels)
        if try source.pagesAreTagged(chosen.map { sourcePages[$0] }) {
            warn("the copied pages' structure (tags) was not copied: they are untagged in this document", &report)
        }
        if neededFields.contains(where: { n in
            (try? source.object(n).dictionary?["FT"]?.name?.value) == "Sig" && ((try? source.object(n).dictionary?["V"]) ?? nil) != nil
        }) {
            warn("a signed signature field was copied: its signature covers the document it came from, not this one", &report)
        }
        try copyOptionalContent(from: source, copier: copier)
        try copier.drain()
        // Bookmarks last: the bookmark manager's own state is not undone by allOrNothing.
        try followPagesInBookmarks { $0 < index ? $0 : $0 + chosen.count }
        try importBookmarks(from: source, chosen: chosen, at: index)
        return report
    }

    /// A field dictionary's copy with /Kids holding only the kids that were copied (read
    /// directly from the source's dictionary, so that an indirect /Kids array is not
    /// copied with the kids left behind in it).
    private func keptKids(of source: PDFDictionary, translated: PDFDictionary, _ copier: ObjectCopier) throws -> PDFDictionary {
        guard let kidsValue = source["Kids"], let kids = try copier.source.resolve(kidsValue).array else { return translated }
        var t = translated
        let kept = try kids.compactMap { kid -> PDFObject? in
            guard let r = kid.reference else { return nil }
            return try copier.reference(r).map { .reference($0) }
        }
        t["Kids"] = kept.isEmpty ? nil : .array(kept)
        return t
    }

    // MARK: Forms

    /// Merges the copied fields into this document's form (see ``importPages(from:pages:at:)``).
    private func mergeForm(from source: Document, neededFields: Set<Int>, fieldParent: [Int: Int], copier: ObjectCopier,
                           _ report: inout PageEditReport) throws {
        guard !neededFields.isEmpty, let sourceForm = try source.acroForm() else { return }
        guard let catalogID = trailer["Root"]?.reference else {
            throw PDFError(.unsupported, "the catalog is not an indirect object, so the copied fields cannot join its form")
        }
        let formValue = try catalog()["AcroForm"]
        var form = try dictionary(formValue) ?? PDFDictionary()
        var fields = try form["Fields"].map(resolve)?.array ?? []
        // The top-level fields copied, in the source's order, then any others.
        var tops: [Int] = []
        var isTop: Set<Int> = []
        for entry in try sourceForm["Fields"].map(source.resolve)?.array ?? [] {
            if let r = entry.reference, neededFields.contains(r.number), fieldParent[r.number] == nil, isTop.insert(r.number).inserted {
                tops.append(r.number)
            }
        }
        for n in neededFields.sorted() where fieldParent[n] == nil && !isTop.contains(n) {
            guard case .dictionary(let d) = try source.object(n), d["FT"] != nil || d["T"] != nil else { continue }
            isTop.insert(n)
            tops.append(n)
        }
        // Names taken at the top of this form.
        var used: Set<String> = []
        for entry in fields { if let t = try text(try dictionary(entry)?["T"]) { used.insert(t) } }
        // The name each source name became: top-level fields of the source that share a
        // name are one field (their values are one), and stay one under one new name.
        var chosenNames: [String: String] = [:]
        var copiedTops: [ObjectID] = []
        for n in tops {
            guard let copy = try copier.copied[n] ?? copier.reference(ObjectID(n)) else { continue }
            copiedTops.append(copy)
            guard case .dictionary(var d) = try object(copy.number), let name = try text(d["T"]) else { continue }
            if let chosen = chosenNames[name] {
                if chosen != name {
                    d["T"] = .string(PDFString(text: chosen))
                    try setObject(copy.number, .dictionary(d))
                }
            } else if used.contains(name) {
                var k = 2
                while used.contains("\(name)_\(k)") { k += 1 }
                let renamed = "\(name)_\(k)"
                d["T"] = .string(PDFString(text: renamed))
                try setObject(copy.number, .dictionary(d))
                report.renamedFields.append(.init(from: name, to: renamed))
                used.insert(renamed)
                chosenNames[name] = renamed
            } else {
                used.insert(name)
                chosenNames[name] = name
            }
        }
        fields += copiedTops.map { .reference($0) }
        form["Fields"] = .array(fields)

        // /DR: the source's resources this form lacks; a name taken by another resource is
        // renamed, and the /DA strings of the copied fields follow.
        var fontRenames: [String: String] = [:]
        if let sourceDR = try source.dictionary(sourceForm["DR"]) {
            var dr = try dictionary(form["DR"]) ?? PDFDictionary()
            for (category, value) in sourceDR {
                guard let resources = try source.dictionary(value) else { continue }
                var mine = try dictionary(dr[category]) ?? PDFDictionary()
                var changed = false
                for (name, resource) in resources {
                    if let existing = mine[name] {
                        if try sameResource(existing, resource, in: source) { continue }
                        var k = 2
                        while mine[PDFName("\(name.value)_\(k)")] != nil || resources[PDFName("\(name.value)_\(k)")] != nil { k += 1 }
                        let renamed = PDFName("\(name.value)_\(k)")
                        mine[renamed] = try copier.translate(resource)
                        if category.value == "Font" { fontRenames[name.value] = renamed.value }
                    } else {
                        mine[name] = try copier.translate(resource)
                    }
                    changed = true
                }
                if changed { dr[category] = .dictionary(mine) }
            }
            form["DR"] = .dictionary(dr)
        }
        // /DA and /Q of the source's form: given to the copied top-level fields that
        // inherited them, when this form's differ.
        let sourceDA = try source.text(sourceForm["DA"])
        let sourceQ = try sourceForm["Q"].map(source.resolve)?.integer
        if form["DA"] == nil, let sourceDA { form["DA"] = .string(PDFString(text: Self.renamingFonts(sourceDA, fontRenames))) }
        if form["Q"] == nil, let sourceQ { form["Q"] = .integer(sourceQ) }
        let ownDA = try text(form["DA"]), ownQ = try form["Q"].map(resolve)?.integer
        for copy in copiedTops {
            guard case .dictionary(var d) = try object(copy.number) else { continue }
            var changed = false
            if d["DA"] == nil, let sourceDA, Self.renamingFonts(sourceDA, fontRenames) != ownDA {
                d["DA"] = .string(PDFString(text: Self.renamingFonts(sourceDA, fontRenames)))
                changed = true
            }
            if d["Q"] == nil, let sourceQ, sourceQ != (ownQ ?? 0) {
                d["Q"] = .integer(sourceQ)
                changed = true
            }
            if changed { try setObject(copy.number, .dictionary(d)) }
        }
        if !fontRenames.isEmpty {
            for n in neededFields {
                guard let copy = copier.copied[n], case .dictionary(var d) = try object(copy.number),
                      let da = try text(d["DA"]) else { continue }
                let renamed = Self.renamingFonts(da, fontRenames)
                if renamed != da {
                    d["DA"] = .string(PDFString(text: renamed))
                    try setObject(copy.number, .dictionary(d))
                }
            }
        }
        if case .bool(true)? = try sourceForm["NeedAppearances"].map(source.resolve) { form["NeedAppearances"] = .bool(true) }
        if let co = try sourceForm["CO"].map(source.resolve)?.array {
            let copiedCO = co.compactMap { $0.reference.flatMap { copier.copied[$0.number] }.map { PDFObject.reference($0) } }
            if !copiedCO.isEmpty { form["CO"] = .array((try form["CO"].map(resolve)?.array ?? []) + copiedCO) }
        }
        if try source.resolve(sourceForm["XFA"] ?? .null) != .null {
            warn("the source's XFA form was not copied: the copied fields are AcroForm fields", &report)
        }
        if let r = formValue?.reference, isInUse(r.number), try dictionary(formValue) != nil {
            try setObject(r.number, .dictionary(form))
        } else {
            try setValue(.reference(try addObject(.dictionary(form))), forKey: "AcroForm", inObject: catalogID.number)
        }
    }

    /// Whether two form resources are the same: the same object, or fonts of the same
    /// /Subtype and /BaseFont (the standard fonts every form names /Helv and /ZaDb).
    private func sameResource(_ mine: PDFObject, _ theirs: PDFObject, in source: Document) throws -> Bool {
        guard let a = try dictionary(mine), let b = try source.dictionary(theirs) else { return false }
        if a["Type"]?.name?.value == "Font" || b["Type"]?.name?.value == "Font" || a["BaseFont"] != nil {
            let mineEncoding = try resolve(a["Encoding"] ?? .null), theirEncoding = try source.resolve(b["Encoding"] ?? .null)
            return try resolve(a["Subtype"] ?? .null) == (try source.resolve(b["Subtype"] ?? .null))
                && (try resolve(a["BaseFont"] ?? .null)) == (try source.resolve(b["BaseFont"] ?? .null))
                && (mineEncoding == theirEncoding && (mineEncoding == .null || mineEncoding.name != nil))
        }
        return false
    }

    /// `da` with the font names of `renames` replaced (the name before `Tf`).
    static func renamingFonts(_ da: String, _ renames: [String: String]) -> String {
        guard !renames.isEmpty else { return da }
        return DefaultAppearance.renamingFont(in: da, renames)
    }

    // MARK: Outline, names, optional content, bookmarks

    /// Appends the source's outline items that go to copied pages (with the headings above
    /// them) to this outline.
    private func importOutline(from source: Document, index: PageImportIndex, copyOf: [Int: ObjectID], copier: ObjectCopier,
                               resolver: DestinationResolver, _ report: inout PageEditReport) throws {
        let sourceOutline: (root: ObjectID, rootDictionary: PDFDictionary, items: [OutlineNode])?
        if let cached = index.outline {
            sourceOutline = cached
        } else {
            sourceOutline = try source.outlineTree()
            source.pageImportIndexCache?.outline = .some(sourceOutline)
        }
        guard let sourceOutline else { return }
        func copy(_ nodes: [OutlineNode]) throws -> [OutlineNode] {
            var out: [OutlineNode] = []
            for node in nodes {
                let children = try copy(node.children)
                let goes = node.targetPage.map { copyOf[$0] != nil } ?? false
                guard goes || !children.isEmpty else { continue }
                var d = PDFDictionary()
                for key: PDFName in ["Title", "C", "F"] {
                    if let v = node.dictionary[key] { d[key] = try copier.translate(source.resolve(v)) }
                }
                if goes, let value = try source.destinationValue(of: node.dictionary),
                   let array = try source.explicitDestination(value, resolver) {
                    d["Dest"] = try copier.translate(.array(array))
                } else if !node.hasDestination, let a = node.dictionary["A"] {
                    d["A"] = try copier.translate(a)
                }
                d["Count"] = .integer(node.isOpen ? 1 : -1)
                let id = try addObject(.dictionary(d))
                out.append(OutlineNode(id: id, dictionary: d, children: children))
            }
            return out
        }
        let added = try copy(sourceOutline.items)
        guard !added.isEmpty else { return }
        if let mine = try outlineTree() {
            try writeOutline(root: mine.root, rootDictionary: mine.rootDictionary, items: mine.items + added)
        } else if try catalog()["Outlines"] == nil, let catalogID = trailer["Root"]?.reference {
            let root = PDFDictionary([("Type", .name("Outlines"))])
            let rootID = try addObject(.dictionary(root))
            try setValue(.reference(rootID), forKey: "Outlines", inObject: catalogID.number)
            try writeOutline(root: rootID, rootDictionary: root, items: added)
        } else {
            warn("the copied pages' outline items were not added: this document's outline cannot be rewritten", &report)
        }
    }

    /// Adds the source's named destinations into copied pages, unless the name is taken.
    private func importNamedDestinations(from source: Document, copyOf: [Int: ObjectID], copier: ObjectCopier,
                                         _ report: inout PageEditReport) throws {
        var entries: [(name: [UInt8], value: PDFObject, page: Int?)]
        if let cached = source.pageImportIndexCache?.namedDestinations {
            entries = cached
        } else {
            entries = []
            for e in try source.namedDestinationEntries() {
                var target = try source.resolve(e.value)
                if case .dictionary(let d) = target, let inner = d["D"] { target = try source.resolve(inner) }
                entries.append((e.name, .array(target.array ?? []), target.array?.first?.reference?.number))
            }
            source.pageImportIndexCache?.namedDestinations = entries
        }
        let wanted = entries.filter { $0.page.map { copyOf[$0] != nil } ?? false }
        guard !wanted.isEmpty else { return }
        var mine = try namedDestinationEntries()
        let taken = Set(mine.map(\.name))
        var skipped = 0
        for e in wanted {
            if taken.contains(e.name) { skipped += 1; continue }
            mine.append((e.name, try copier.translate(e.value)))
        }
        if skipped > 0 {
            warn("\(skipped) named destination(s) of the copied pages were not added: this document has destinations of the same names (the copied links go to their pages directly)", &report)
        }
        if mine.count > taken.count { try writeNamedDestinations(mine) }
    }

    /// Adds the source's optional content groups that the copies use to this document's
    /// /OCProperties, so that viewers list them (and hide those the source hides).
    private func copyOptionalContent(from source: Document, copier: ObjectCopier) throws {
        guard let sourceOC = try source.dictionary(try source.catalog()["OCProperties"]),
              let groups = try sourceOC["OCGs"].map(source.resolve)?.array else { return }
        let used = groups.compactMap { $0.reference.flatMap { copier.copied[$0.number] } }
        guard !used.isEmpty, let catalogID = trailer["Root"]?.reference else { return }
        let off = Set((try source.dictionary(sourceOC["D"])?["OFF"].map(source.resolve)?.array ?? []).compactMap {
            $0.reference.flatMap { copier.copied[$0.number]?.number }
        })
        let ocValue = try catalog()["OCProperties"]
        var oc = try dictionary(ocValue) ?? PDFDictionary()
        var mine = try oc["OCGs"].map(resolve)?.array ?? []
        let present = Set(mine.compactMap { $0.reference?.number })
        let added = used.filter { !present.contains($0.number) }
        guard !added.isEmpty else { return }
        mine += added.map { .reference($0) }
        oc["OCGs"] = .array(mine)
        var d = try dictionary(oc["D"]) ?? PDFDictionary()
        let offAdded = added.filter { off.contains($0.number) }
        if !offAdded.isEmpty { d["OFF"] = .array((try d["OFF"].map(resolve)?.array ?? []) + offAdded.map { .reference($0) }) }
        oc["D"] = .dictionary(d)
        if let r = ocValue?.reference, isInUse(r.number) {
            try setObject(r.number, .dictionary(oc))
        } else {
            try setValue(.dictionary(oc), forKey: "OCProperties", inObject: catalogID.number)
        }
    }

    /// Adds the source's user bookmarks of copied pages (the first copy of each page),
    /// their identifiers kept unless this document has them.
    private func importBookmarks(from source: Document, chosen: [Int], at index: Int) throws {
        let stored = try source.catalog()[BuiltInBookmarkProvider.catalogKey] != nil
        guard source.bookmarkManager != nil || stored else { return }
        var newIndex: [Int: Int] = [:]
        for (k, i) in chosen.enumerated() where newIndex[i] == nil { newIndex[i] = index + k }
        // (identifier, name, new page) of each bookmark to copy, gathered first: the
        // filter-then-reread form of this loop crashes the 6.3.1 optimizer (CopyPropagation,
        // "Found outside of lifetime use") in release builds.
        var copies: [(identifier: String, name: String?, page: Int)] = []
        for b in try source.bookmarks.bookmarks(sortedBy: .custom) {
            guard let page = b.pageIndex, let to = newIndex[page] else { continue }
            copies.append((b.identifier, b.name, to))
        }
        guard !copies.isEmpty else { return }
        let manager = bookmarks
        for copy in copies {
            let identifier = try manager.bookmark(identifier: copy.identifier) == nil ? copy.identifier : UUIDString.make()
            try manager.add(Bookmark(identifier: identifier, action: .goTo(pageIndex: copy.page), name: copy.name))
        }
    }

    // MARK: Extract and merge

    /// A new document of the pages at `indices` of this one (in that order), with what
    /// comes along with them as ``importPages(from:pages:at:)`` says, and this document's
    /// information dictionary, language and reading direction. It is in memory and not
    /// encrypted: save it (and set its encryption first, if it should have one).
    public func extractPages(_ indices: [Int]) throws -> Document {
        let version = pdfVersion()
        let extracted = try Document.blank(version: version)
        try extracted.importPages(from: self, pages: indices, at: 0)
        try extracted.copyDocumentInformation(from: self)
        return extracted
    }

    /// A new document of every page of `documents`, one after the other, with what comes
    /// along with them (``importPages(from:pages:at:)``), the first document's information
    /// dictionary, language and reading direction. Throws `.invalidArgument` for an empty
    /// list.
    public static func merged(_ documents: [Document]) throws -> Document {
        guard let first = documents.first else { throw PDFError(.invalidArgument, "no documents were given to merge") }
        let version = documents.map { $0.pdfVersion() }.max { ($0.major, $0.minor) < ($1.major, $1.minor) } ?? (1, 7)
        let merged = try Document.blank(version: version)
        for d in documents { try merged.importPages(from: d, at: try merged.pageCount()) }
        try merged.copyDocumentInformation(from: first)
        return merged
    }

    /// A new empty document in memory: a catalog, a page tree without pages and an empty
    /// information dictionary.
    public static func blank(version: (major: Int, minor: Int) = (1, 7)) throws -> Document {
        var out = Array("%PDF-\(version.major).\(version.minor)\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A]
        var offsets: [Int] = []
        for body in ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", "<< >>"] {
            offsets.append(out.count)
            out += Array("\(offsets.count) 0 obj\n\(body)\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 4\n0000000000 65535 f \n".utf8)
        for o in offsets {
            let digits = String(o)
            out += Array((String(repeating: "0", count: Swift.max(0, 10 - digits.count)) + digits + " 00000 n \n").utf8)
        }
        out += Array("trailer\n<< /Size 4 /Root 1 0 R /Info 3 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return try Document(data: out)
    }

    /// This document's information dictionary (/Info, when it is an object of its own, as
    /// in a ``blank(version:)`` document), language (/Lang) and reading direction
    /// (/ViewerPreferences /Direction) from `source`.
    func copyDocumentInformation(from source: Document) throws {
        guard let catalogID = trailer["Root"]?.reference else { return }
        try batch {
            if let infoID = trailer["Info"]?.reference, isInUse(infoID.number), let info = try source.dictionary(source.trailer["Info"]) {
                var copy = PDFDictionary()
                for (k, v) in info {
                    let r = try source.resolve(v)
                    switch r {
                    case .string, .name, .integer, .real, .bool: copy[k] = r
                    default: continue
                    }
                }
                if !copy.isEmpty { try setObject(infoID.number, .dictionary(copy)) }
            }
            if let lang = try source.catalog()["Lang"].map(source.resolve), case .string = lang {
                try setValue(lang, forKey: "Lang", inObject: catalogID.number)
            }
            // The reading direction, like the language, says how the pages' text reads
            // (PDFium orders a page's extracted text by it: viewer_ref.pdf reads '1Page'
            // right to left); the other viewer preferences are about the whole document
            // (a print range names its page numbers) and stay behind.
            if let preferences = try source.dictionary(source.catalog()["ViewerPreferences"]),
               let direction = try preferences["Direction"].map(source.resolve), case .name = direction {
                try setValue(.dictionary(PDFDictionary([("Direction", direction)])), forKey: "ViewerPreferences",
                             inObject: catalogID.number)
            }
        }
    }
}
