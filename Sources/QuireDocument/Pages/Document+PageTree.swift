import QuireSyntax

// The page tree as page operations rewrite it (docs/pages.md, "The page tree"): one node,
// the root, whose /Kids are the pages in order, as qpdf writes every tree. Pages under the
// root already, that inherit nothing from a node in between, are left alone: on a flat
// tree, deleting or moving pages rewrites the root and nothing else.

/// The nodes of a page tree that are not pages.
struct PageTreeShape {
    /// The root, when it is an indirect page tree node (with /Kids).
    var root: (id: ObjectID, dictionary: PDFDictionary)?
    /// The nodes below the root (each once), by object number.
    var innerNodes: [Int] = []
    /// Indirect /Kids arrays of those nodes and the root.
    var kidsArrays: [Int] = []
}

extension Document {
    /// The existing pages (``pages()``), each an indirect object: a page written directly in
    /// a /Kids array (invalid, but read) is made an object of its own first, so that the
    /// operations can name it.
    func editablePages() throws -> [Page] {
        let list = try pages()
        guard list.contains(where: { $0.id == nil }) else { return list }
        // The tree is rewritten by the operation, with these objects in place of the
        // direct dictionaries.
        var out: [Page] = []
        for page in list {
            if page.id != nil { out.append(page); continue }
            let id = try addObject(.dictionary(page.dictionary))
            out.append(Page(document: self, index: page.index, id: id, dictionary: page.dictionary,
                            inheritedMediaBox: page.inheritedMediaBox, inheritedCropBox: page.inheritedCropBox,
                            inheritedRotate: page.inheritedRotate, inheritedResources: page.inheritedResources))
        }
        return out
    }

    /// The root node and the nodes below it, walked from the catalog's /Pages (cycles and
    /// nodes reached twice visited once; the depth bounded by `max_page_tree_depth`).
    func pageTreeShape() throws -> PageTreeShape {
        var shape = PageTreeShape()
        guard let top = try catalog()["Pages"] else { return shape }
        var seen: Set<Int> = []
        var stack: [(PDFObject, Int)] = [(top, 0)]
        while let (value, depth) = stack.popLast() {
            guard depth <= options.limits.maxPageTreeDepth else { continue }
            if let r = value.reference {
                guard seen.insert(r.number).inserted else { continue }
            }
            guard let dict = try dictionary(value), dict["Type"]?.name?.value != "Page",
                  let kidsValue = dict["Kids"], let kids = try resolve(kidsValue).array else { continue }
            if let r = kidsValue.reference { shape.kidsArrays.append(r.number) }
            if depth == 0 {
                if let r = value.reference { shape.root = (r, dict) }
            } else if let r = value.reference {
                shape.innerNodes.append(r.number)
            }
            for kid in kids.reversed() { stack.append((kid, depth + 1)) }
        }
        return shape
    }

    /// Rewrites the page tree as one root node whose /Kids are `order`, each an existing
    /// page (with what it inherits, to keep) or a new page object (whose inheritable
    /// entries are all its own). The root keeps its object and its inheritable entries; a
    /// page that moves under it from another node gets what it inherited there as entries
    /// of its own (§7.7.3.4), and its /Parent. The nodes in between are deleted. A catalog
    /// without a page tree node gets a new one.
    func writeFlatPageTree(_ order: [(id: ObjectID, page: Page?)]) throws {
        let shape = try pageTreeShape()
        let rootID: ObjectID
        var rootDict: PDFDictionary
        if let root = shape.root, isInUse(root.id.number) {
            rootID = root.id
            rootDict = root.dictionary
        } else {
            guard let catalogID = trailer["Root"]?.reference else {
                throw PDFError(.unsupported, "the catalog is not an indirect object, so its page tree cannot be rewritten")
            }
            rootDict = PDFDictionary([("Type", .name("Pages"))])
            rootID = try addObject(.dictionary(rootDict))
            try setValue(.reference(rootID), forKey: "Pages", inObject: catalogID.number)
        }
        let inheritable: [PDFName] = ["MediaBox", "CropBox", "Rotate", "Resources"]
        var written: Set<Int> = []
        for (id, page) in order {
            guard let page, written.insert(id.number).inserted else { continue }
            guard case .dictionary(var dict) = try object(id.number) else { continue }
            var changed = false
            if dict["Parent"]?.reference?.number != rootID.number {
                dict["Parent"] = .reference(rootID)
                changed = true
            }
            if dict["Type"]?.name?.value != "Page" {
                dict["Type"] = .name("Page")
                changed = true
            }
            let inherited: [PDFName: PDFObject?] = ["MediaBox": page.inheritedMediaBox, "CropBox": page.inheritedCropBox,
                                                    "Rotate": page.inheritedRotate, "Resources": page.inheritedResources]
            for key in inheritable where dict[key] == nil {
                let had = inherited[key] ?? nil
                guard had != rootDict[key] else { continue }
                if let had {
                    dict[key] = had
                } else {
                    // It inherited nothing, and would now inherit the root's entry: the
                    // default it was read with becomes its own.
                    switch key.value {
                    case "MediaBox": dict[key] = .array([0, 0, 612, 792].map { PDFObject.integer($0) })
                    case "CropBox": dict[key] = dict["MediaBox"] ?? page.inheritedMediaBox
                    case "Rotate": dict[key] = .integer(0)
                    default: dict[key] = .dictionary(PDFDictionary())
                    }
                }
                changed = true
            }
            if changed { try setObject(id.number, .dictionary(dict)) }
        }
        rootDict["Type"] = .name("Pages")
        rootDict["Parent"] = nil
        rootDict["Kids"] = .array(order.map { .reference($0.id) })
        rootDict["Count"] = .integer(Int64(order.count))
        try setObject(rootID.number, .dictionary(rootDict))
        let kept = Set(order.map(\.id.number))
        for number in shape.innerNodes + shape.kidsArrays where number != rootID.number && !kept.contains(number) && isInUse(number) {
            try deleteObject(number)
        }
    }

    /// `indices` checked against a document of `count` pages: none missing, each in range,
    /// none twice. Throws `.invalidArgument` for an empty or repeated list and `.range` for
    /// an index out of range.
    func checkedPageIndices(_ indices: [Int], count: Int) throws -> [Int] {
        guard !indices.isEmpty else { throw PDFError(.invalidArgument, "no pages were given") }
        var seen: Set<Int> = []
        for i in indices {
            guard i >= 0 && i < count else {
                throw PDFError(.range, "page index \(i) is out of range (the document has \(pagesText(count)))")
            }
            guard seen.insert(i).inserted else {
                throw PDFError(.invalidArgument, "page index \(i) is given twice")
            }
        }
        return indices
    }
}
