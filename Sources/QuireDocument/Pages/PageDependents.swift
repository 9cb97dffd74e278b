import QuireSyntax

// What hangs on pages besides their annotations, kept right by page operations
// (docs/pages.md): the outline, named destinations, page labels, the form's field tree,
// user bookmarks and the structure tree. Each rule lives here once; the operations
// (Document+PageOperations.swift, PageImport.swift) call them.

/// An outline item with its children, as page operations rewrite the outline: the item's
/// object and its dictionary (which the rewrite may have changed).
struct OutlineNode {
    var id: ObjectID
    var dictionary: PDFDictionary
    var children: [OutlineNode] = []
    /// The object number of the page its destination names, when it names one.
    var targetPage: Int? = nil
    /// Whether it has a destination (/Dest, or a /GoTo action) at all.
    var hasDestination = false

    var isOpen: Bool { (dictionary["Count"]?.integer ?? 0) > 0 }
}

/// Where a page of a rewritten document comes from, for its page label.
enum PageOrigin: Equatable {
    /// The page at this index of the document before the operation.
    case existing(Int)
    /// A new blank page.
    case blank
    /// The page at this index of the document its pages are imported from.
    case imported(Int)
}

extension Document {
    // MARK: Destinations

    /// The page object that a destination names: an explicit destination's first element,
    /// or the page of the named destination it names (§12.3.2.4); nil when it names none.
    func destinationPageObject(_ value: PDFObject, _ resolver: DestinationResolver) throws -> Int? {
        var resolved = try resolve(value)
        if case .dictionary(let d) = resolved, let inner = d["D"] { resolved = try resolve(inner) }
        var name: [UInt8]? = nil
        switch resolved {
        case .array(let a): return a.first?.reference?.number
        case .name(let n): name = n.bytes
        case .string(let s): name = s.bytes
        default: return nil
        }
        guard let name, let defined = try resolver.lookup(name) else { return nil }
        var target = try resolve(defined)
        if case .dictionary(let d) = target, let inner = d["D"] { target = try resolve(inner) }
        return target.array?.first?.reference?.number
    }

    /// The explicit destination array that a destination value comes to (a name looked up,
    /// a destination dictionary's /D read); nil when it comes to none.
    func explicitDestination(_ value: PDFObject, _ resolver: DestinationResolver) throws -> [PDFObject]? {
        var resolved = try resolve(value)
        if case .dictionary(let d) = resolved, let inner = d["D"] { resolved = try resolve(inner) }
        switch resolved {
        case .array(let a): return a
        case .name, .string:
            let name = resolved.name?.bytes ?? resolved.string?.bytes ?? []
            guard let defined = try resolver.lookup(name) else { return nil }
            var target = try resolve(defined)
            if case .dictionary(let d) = target, let inner = d["D"] { target = try resolve(inner) }
            return target.array
        default: return nil
        }
    }

    /// The destination of an item or link dictionary: its /Dest, else the /D of a /GoTo
    /// action in /A. Nil when it has neither.
    func destinationValue(of dict: PDFDictionary) throws -> PDFObject? {
        if let d = dict["Dest"] { return d }
        guard let a = dict["A"], let action = try dictionary(a), action["S"]?.name?.value == "GoTo" else { return nil }
        return action["D"] ?? .null
    }

    // MARK: Outline

    /// The outline as a tree of nodes, with the root's object and dictionary; nil when the
    /// document has no outline, or an item is not an indirect object (the outline is then
    /// left as it is).
    func outlineTree() throws -> (root: ObjectID, rootDictionary: PDFDictionary, items: [OutlineNode])? {
        guard let rootValue = try catalog()["Outlines"], let rootID = rootValue.reference,
              let root = try dictionary(rootValue) else { return nil }
        let resolver = DestinationResolver(document: self)
        var flat: [OutlineNode] = []
        var parents: [Int] = []
        var direct = false
        try walkOutline { id, dict, parent in
            guard let id else { direct = true; return }
            var node = OutlineNode(id: id, dictionary: dict)
            if let destination = try destinationValue(of: dict) {
                node.hasDestination = true
                node.targetPage = try destinationPageObject(destination, resolver)
            }
            flat.append(node)
            parents.append(parent)
        }
        if direct {
            file.warn("the outline has an item that is not an indirect object; it is left as it is")
            return nil
        }
        // Parents come before their children: build from the end.
        var children = [[OutlineNode]](repeating: [], count: flat.count)
        var top: [OutlineNode] = []
        for i in flat.indices.reversed() {
            var node = flat[i]
            node.children = children[i].reversed()
            children[i] = []
            if parents[i] >= 0 && parents[i] < i { children[parents[i]].append(node) } else { top.append(node) }
        }
        return (rootID, root, top.reversed())
    }

    /// Writes the outline as `items`: each item's /Parent, /Prev, /Next, /First, /Last and
    /// /Count set for its place (and the root's /First, /Last and /Count); an item is
    /// written only when one of them, or its dictionary, changed. New items (objects added
    /// by the caller) are written like the others.
    func writeOutline(root: ObjectID, rootDictionary: PDFDictionary, items: [OutlineNode]) throws {
        /// Descendants that show when `node` is open.
        func shown(_ node: OutlineNode) -> Int {
            node.children.reduce(0) { $0 + 1 + ($1.isOpen ? shown($1) : 0) }
        }
        func write(_ siblings: [OutlineNode], parent: ObjectID) throws {
            for (k, node) in siblings.enumerated() {
                var d = node.dictionary
                d["Parent"] = .reference(parent)
                d["Prev"] = k > 0 ? .reference(siblings[k - 1].id) : nil
                d["Next"] = k + 1 < siblings.count ? .reference(siblings[k + 1].id) : nil
                d["First"] = node.children.first.map { .reference($0.id) }
                d["Last"] = node.children.last.map { .reference($0.id) }
                if node.children.isEmpty {
                    d["Count"] = nil
                } else {
                    let n = Int64(shown(node))
                    d["Count"] = .integer(node.isOpen ? n : -n)
                }
                if case .dictionary(let current) = try object(node.id.number), current == d { } else {
                    try setObject(node.id.number, .dictionary(d))
                }
                try write(node.children, parent: node.id)
            }
        }
        try write(items, parent: root)
        var r = rootDictionary
        r["First"] = items.first.map { .reference($0.id) }
        r["Last"] = items.last.map { .reference($0.id) }
        let total = items.reduce(0) { $0 + 1 + ($1.isOpen ? shown($1) : 0) }
        r["Count"] = items.isEmpty ? nil : .integer(Int64(total))
        if r != rootDictionary { try setObject(root.number, .dictionary(r)) }
    }

    /// The outline without destinations into `gone` pages: such an item loses its
    /// destination, and is removed when it has no children left (its children, when it
    /// has some, keep it as a heading). Returns how many items were removed and how many
    /// lost their destination; the outline is unchanged when no item targets those pages.
    @discardableResult
    func pruneOutline(targeting gone: Set<Int>) throws -> (removed: Int, cleared: Int) {
        guard !gone.isEmpty, let tree = try outlineTree() else { return (0, 0) }
        var removed = 0, cleared = 0
        func prune(_ nodes: [OutlineNode]) -> [OutlineNode] {
            var out: [OutlineNode] = []
            for var node in nodes {
                node.children = prune(node.children)
                if let target = node.targetPage, gone.contains(target) {
                    if node.children.isEmpty {
                        removed += 1
                        continue
                    }
                    node.dictionary["Dest"] = nil
                    node.dictionary["A"] = nil
                    node.targetPage = nil
                    node.hasDestination = false
                    cleared += 1
                }
                out.append(node)
            }
            return out
        }
        let items = prune(tree.items)
        guard removed + cleared > 0 else { return (0, 0) }
        try writeOutline(root: tree.root, rootDictionary: tree.rootDictionary, items: items)
        return (removed, cleared)
    }

    // MARK: Named destinations

    /// Every named destination as written: the /Names /Dests tree's entries in order, then
    /// the /Dests dictionary's names the tree does not define; the first definition of a
    /// name kept.
    func namedDestinationEntries() throws -> [(name: [UInt8], value: PDFObject)] {
        let catalog = try catalog()
        var out: [(name: [UInt8], value: PDFObject)] = []
        var seen: Set<[UInt8]> = []
        if let tree = try dictionary(catalog["Names"])?["Dests"] {
            for (k, v) in try NameTree(document: self, root: tree).entries() where seen.insert(k).inserted { out.append((k, v)) }
        }
        if let dests = try dictionary(catalog["Dests"]) {
            for (k, v) in dests where seen.insert(k.bytes).inserted { out.append((k.bytes, v)) }
        }
        return out
    }

    /// Writes the named destinations as one name tree node, /Names /Dests, sorted by name
    /// (§7.9.6), and removes the older /Dests dictionary, whose names it holds.
    func writeNamedDestinations(_ entries: [(name: [UInt8], value: PDFObject)]) throws {
        guard let catalogID = trailer["Root"]?.reference else {
            throw PDFError(.unsupported, "the catalog is not an indirect object, so its named destinations cannot be rewritten")
        }
        let sorted = entries.sorted { $0.name.lexicographicallyPrecedes($1.name) }
        var names: [PDFObject] = []
        names.reserveCapacity(2 * sorted.count)
        for e in sorted { names += [.string(PDFString(bytes: e.name)), e.value] }
        // The root of a name tree has no /Limits (§7.9.6).
        let tree = PDFDictionary([("Names", .array(names))])
        let catalog = try catalog()
        if catalog["Dests"] != nil { try setValue(nil, forKey: "Dests", inObject: catalogID.number) }
        let treeID = try addObject(.dictionary(tree))
        var namesDict = try dictionary(catalog["Names"]) ?? PDFDictionary()
        namesDict["Dests"] = .reference(treeID)
        if case .reference(let r)? = catalog["Names"], isInUse(r.number), try dictionary(catalog["Names"]) != nil {
            try setObject(r.number, .dictionary(namesDict))
        } else {
            try setValue(.dictionary(namesDict), forKey: "Names", inObject: catalogID.number)
        }
    }

    /// Removes the named destinations that name `gone` pages; returns how many.
    @discardableResult
    func pruneNamedDestinations(targeting gone: Set<Int>) throws -> Int {
        guard !gone.isEmpty else { return 0 }
        let entries = try namedDestinationEntries()
        guard !entries.isEmpty else { return 0 }
        var kept: [(name: [UInt8], value: PDFObject)] = []
        for e in entries {
            var target = try resolve(e.value)
            if case .dictionary(let d) = target, let inner = d["D"] { target = try resolve(inner) }
            if let page = target.array?.first?.reference?.number, gone.contains(page) { continue }
            kept.append(e)
        }
        guard kept.count < entries.count else { return 0 }
        try writeNamedDestinations(kept)
        return entries.count - kept.count
    }

    // MARK: Page labels

    /// Rewrites /PageLabels for pages that now come from `sequence` (docs/pages.md, "Page
    /// labels"): a page keeps the label range it was in (a blank page takes the range of
    /// the page before it, or after it at the start), and pages are numbered by their
    /// position among the pages of their range, from the range's first number. A range
    /// begins wherever the range changes from one page to the next. `own` is this
    /// document's ranges before the operation, `imported` those of the document pages
    /// were imported from. Nothing is written when neither has labels or the ranges come
    /// out as they were.
    func relabel(_ sequence: [PageOrigin], own: [PageLabelRange]?, imported: [PageLabelRange]? = nil) throws {
        guard own != nil || imported != nil else { return }
        struct Key: Hashable { var imported: Bool; var range: Int }
        func key(in ranges: [PageLabelRange]?, at index: Int, imported: Bool) -> Key {
            var found = -1
            for (k, r) in (ranges ?? []).enumerated() where r.startIndex <= index { found = k }
            return Key(imported: imported, range: found)
        }
        var keys: [Key?] = sequence.map {
            switch $0 {
            case .existing(let i): return key(in: own, at: i, imported: false)
            case .imported(let i): return key(in: imported, at: i, imported: true)
            case .blank: return nil
            }
        }
        for j in keys.indices where keys[j] == nil { keys[j] = j > 0 ? keys[j - 1] : nil }
        for j in keys.indices.reversed() where keys[j] == nil { keys[j] = j + 1 < keys.count ? keys[j + 1] : Key(imported: false, range: -1) }
        var counts: [Key: Int] = [:]
        var ranges: [PageLabelRange] = []
        for (j, k) in keys.enumerated() {
            guard let k else { continue }
            let seen = counts[k, default: 0]
            counts[k] = seen + 1
            if j > 0 && keys[j - 1] == k { continue }
            let list = (k.imported ? imported : own) ?? []
            if k.range >= 0 && k.range < list.count {
                let r = list[k.range]
                let (start, overflow) = r.start.addingReportingOverflow(seen)
                ranges.append(PageLabelRange(startIndex: j, style: r.style, prefix: r.prefix, start: overflow ? r.start : start))
            } else {
                ranges.append(PageLabelRange(startIndex: j, style: .decimal, prefix: "", start: 1 + seen))
            }
        }
        if let own, own == ranges { return }
        try writePageLabels(ranges)
    }

    /// Writes `ranges` as the catalog's /PageLabels: one number tree node (§7.9.7).
    func writePageLabels(_ ranges: [PageLabelRange]) throws {
        guard let catalogID = trailer["Root"]?.reference else {
            throw PDFError(.unsupported, "the catalog is not an indirect object, so its page labels cannot be rewritten")
        }
        var nums: [PDFObject] = []
        for r in ranges {
            var d = PDFDictionary()
            if let style = r.style { d["S"] = .name(PDFName(style.rawValue)) }
            if !r.prefix.isEmpty { d["P"] = .string(PDFString(text: r.prefix)) }
            if r.start != 1 { d["St"] = .integer(Int64(r.start)) }
            nums += [.integer(Int64(r.startIndex)), .dictionary(d)]
        }
        let tree = PDFObject.dictionary(PDFDictionary([("Nums", .array(nums))]))
        if case .reference(let r)? = try catalog()["PageLabels"], isInUse(r.number) {
            try setObject(r.number, tree)
        } else {
            try setValue(.reference(try addObject(tree)), forKey: "PageLabels", inObject: catalogID.number)
        }
    }

    // MARK: Form fields

    /// Takes `gone` widget annotations out of the field tree: out of their field's /Kids,
    /// and a field left without kids out of its parent's /Kids (or the form's /Fields), up
    /// the tree; a field merged with a widget that goes leaves too. Returns the objects of
    /// the fields removed (which the caller deletes).
    func pruneFieldTree(removing gone: Set<Int>) throws -> Set<Int> {
        guard !gone.isEmpty, let catalogID = trailer["Root"]?.reference,
              let formValue = try catalog()["AcroForm"], var form = try dictionary(formValue),
              let fieldsValue = form["Fields"], let fields = try resolve(fieldsValue).array else { return [] }
        var removedFields: Set<Int> = []
        var seen: Set<Int> = []
        /// The kids of `list` that stay, with each kid field pruned first.
        func prune(_ list: [PDFObject], depth: Int) throws -> [PDFObject] {
            var out: [PDFObject] = []
            for kid in list {
                guard let r = kid.reference else { out.append(kid); continue }
                if gone.contains(r.number) { continue }
                guard depth < FormLimits.maxFieldDepth, seen.insert(r.number).inserted,
                      case .dictionary(var d) = try object(r.number), let kidsValue = d["Kids"],
                      let kids = try resolve(kidsValue).array else {
                    out.append(kid)
                    continue
                }
                let kept = try prune(kids, depth: depth + 1)
                if kept.isEmpty && !kids.isEmpty {
                    removedFields.insert(r.number)
                    continue
                }
                if kept.count != kids.count {
                    if case .reference(let arrayID) = kidsValue, isInUse(arrayID.number) {
                        try setObject(arrayID.number, .array(kept))
                    } else {
                        d["Kids"] = .array(kept)
                        try setObject(r.number, .dictionary(d))
                    }
                }
                out.append(kid)
            }
            return out
        }
        let kept = try prune(fields, depth: 0)
        let leaving = removedFields.union(gone)
        var formChanged = false
        if kept.count != fields.count {
            if case .reference(let arrayID) = fieldsValue, isInUse(arrayID.number) {
                try setObject(arrayID.number, .array(kept))
            } else {
                form["Fields"] = .array(kept)
                formChanged = true
            }
        }
        if let co = try form["CO"].map(resolve)?.array {
            let keptCO = co.filter { !($0.reference.map { leaving.contains($0.number) } ?? false) }
            if keptCO.count != co.count {
                form["CO"] = .array(keptCO)
                formChanged = true
            }
        }
        if formChanged {
            if let r = formValue.reference, isInUse(r.number) {
                try setObject(r.number, .dictionary(form))
            } else {
                try setValue(.dictionary(form), forKey: "AcroForm", inObject: catalogID.number)
            }
        }
        return removedFields
    }

    // MARK: Structure tree

    /// Whether the structure tree may name any of `pages` (a page with /StructParents, or
    /// an annotation of it with /StructParent): their content and annotations are tagged.
    func pagesAreTagged(_ pages: [Page]) throws -> Bool {
        guard try catalog()["StructTreeRoot"] != nil else { return false }
        for page in pages {
            if page.dictionary["StructParents"] != nil { return true }
            for (_, annotation) in try page.annotationDictionaries() where annotation["StructParent"] != nil { return true }
        }
        return false
    }

    /// Drops the structure tree (/StructTreeRoot) and the catalog's claim to be tagged
    /// (/MarkInfo /Marked), with a warning in `report` saying why.
    func dropStructureTree(because why: String, _ report: inout PageEditReport) throws {
        guard let catalogID = trailer["Root"]?.reference else { return }
        var catalog = try catalog()
        guard catalog["StructTreeRoot"] != nil else { return }
        catalog["StructTreeRoot"] = nil
        if var mark = try dictionary(catalog["MarkInfo"]), mark["Marked"] != nil {
            mark["Marked"] = .bool(false)
            if let r = catalog["MarkInfo"]?.reference, isInUse(r.number) {
                try setObject(r.number, .dictionary(mark))
            } else {
                catalog["MarkInfo"] = .dictionary(mark)
            }
        }
        try setObject(catalogID.number, .dictionary(catalog))
        warn("the structure tree (tags) was dropped: \(why)", &report)
    }

    /// Adds `message` to the report and to the document's warnings.
    func warn(_ message: String, _ report: inout PageEditReport) {
        report.warnings.append(message)
        file.warn(message)
    }
}
