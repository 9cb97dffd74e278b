import QuireSyntax

/// An item of the document outline, the table of contents that viewers show as
/// bookmarks (ISO 32000-2 §12.3.3), with its children.
public struct OutlineItem: Sendable, Equatable {
    /// The style of the title (/F, Table 151).
    public struct Flags: OptionSet, Sendable, Equatable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let italic = Flags(rawValue: 1)
        public static let bold = Flags(rawValue: 2)
    }

    /// A DeviceRGB colour, each component in 0...1 (/C).
    public struct Color: Sendable, Equatable {
        public var red, green, blue: Double
        public init(red: Double, green: Double, blue: Double) {
            self.red = red
            self.green = green
            self.blue = blue
        }
        /// The default.
        public static let black = Color(red: 0, green: 0, blue: 0)
    }

    /// The item's object, when it is an indirect object (it always is in valid files).
    public var id: ObjectID?
    /// /Title, decoded as a text string (PDFDocEncoding, UTF-16BE or UTF-8), exactly (a
    /// viewer may want to replace control characters, as PDFium does); empty when missing.
    public var title: String
    /// /Dest, resolved (named destinations looked up); nil when absent or broken.
    public var destination: Destination?
    /// /A; nil when absent or broken.
    public var action: Action?
    public var children: [OutlineItem]
    /// Whether the item is shown open: /Count is positive.
    public var isOpen: Bool
    /// /C; black when absent or malformed.
    public var color: Color
    /// /F; the bits other than italic and bold are kept as written.
    public var flags: Flags

    public init(id: ObjectID? = nil, title: String, destination: Destination? = nil, action: Action? = nil,
                children: [OutlineItem] = [], isOpen: Bool = false, color: Color = .black, flags: Flags = []) {
        self.id = id
        self.title = title
        self.destination = destination
        self.action = action
        self.children = children
        self.isOpen = isOpen
        self.color = color
        self.flags = flags
    }

    /// Where activating the item goes in this document: its destination, else the
    /// destination of its GoTo action.
    public var target: Destination? {
        if let destination { return destination }
        if case .goTo(let d)? = action?.kind { return d }
        return nil
    }

    /// The most items an outline may have, over all levels. More fails with a
    /// ``PDFErrorKind/limit`` error naming `max_outline_items`.
    public static let maxItems = 100_000
    /// The deepest an outline may nest, the top-level items being at depth 1. Deeper
    /// fails with a ``PDFErrorKind/limit`` error naming `max_outline_depth`.
    ///
    /// 256, the default `max_nesting_depth`, for the same reason: the outline is a tree
    /// of values that Swift destroys and compares recursively, on the caller's thread,
    /// whose stack may be small (128 KiB on musl, 512 KiB for macOS secondary threads).
    /// Measured in a debug build, 1,000 levels took between 256 and 320 KiB of stack to
    /// release; 256 levels fit in 128 KiB. Real outlines nest a few levels.
    public static let maxDepth = 256
}

extension Document {
    /// The document outline (§12.3.3): the top-level items of the catalog's /Outlines,
    /// each with its children, in order. Empty when there is none.
    ///
    /// Items are read through /First and /Next, as PDFium, qpdf and MuPDF read them (/Last,
    /// /Prev, /Parent and /Count are not trusted). An item reached a second time (a cycle
    /// through /First or /Next, or an item shared by two parents) is cut there with a
    /// warning: neither it nor its /Next is read again, which gives the counts of PDFium
    /// and qpdf. An item that is not a dictionary is skipped with a warning. The number
    /// of items and the depth are bounded by ``OutlineItem/maxItems`` and
    /// ``OutlineItem/maxDepth``: past them, the call throws a limit error. Broken
    /// destinations and actions are nil, with a warning.
    public func outline() throws -> [OutlineItem] {
        let resolver = DestinationResolver(document: self)
        var nodes: [OutlineItem] = []
        var parents: [Int] = []
        try walkOutline { id, dict, parent in
            var item = OutlineItem(id: id, title: try text(dict["Title"]) ?? "")
            if let d = dict["Dest"] { item.destination = try resolver.destination(d) }
            if let a = dict["A"] { item.action = try resolver.action(a) }
            if dict["Dest"] != nil && item.destination == nil && item.action == nil {
                // A /Dest that does not resolve is still a go-to, to no page.
                item.action = Action(kind: .goTo(nil))
            }
            if let count = try dict["Count"].map(resolve)?.integer { item.isOpen = count > 0 }
            item.color = try outlineColor(dict["C"])
            if let f = try dict["F"].map(resolve)?.integer { item.flags = OutlineItem.Flags(rawValue: Int(clamping: f)) }
            nodes.append(item)
            parents.append(parent)
        }
        // Items were visited parent first, so every child comes after its parent: build
        // the tree from the last item back, moving each finished item into its parent.
        var children = [[OutlineItem]](repeating: [], count: nodes.count)
        var top: [OutlineItem] = []
        for i in nodes.indices.reversed() {
            var item = nodes[i]
            item.children = children[i].reversed()
            children[i] = []
            if parents[i] >= 0 && parents[i] < i {
                children[parents[i]].append(item)
            } else {
                top.append(item)
            }
        }
        return top.reversed()
    }

    /// The number of outline items, over all levels: what ``outline()`` holds, without
    /// resolving destinations and actions. This is what the corpus manifest's
    /// `outline_items` counts (PDFium, qpdf and MuPDF walk /First and /Next the same way).
    public func outlineItemCount() throws -> Int {
        var count = 0
        try walkOutline { _, _, _ in count += 1 }
        return count
    }

    /// Walks the outline depth first, in order, calling `visit` with each item's id, its
    /// dictionary and the visit index of its parent (-1 at the top).
    func walkOutline(_ visit: (ObjectID?, PDFDictionary, Int) throws -> Void) throws {
        guard let rootValue = try catalog()["Outlines"], let root = try dictionary(rootValue) else { return }
        guard let first = root["First"] else { return }
        var seen: Set<Int> = []
        if let r = rootValue.reference { seen.insert(r.number) }
        var count = 0
        // An explicit stack instead of recursion, so that the depth limit, not the host's
        // thread stack, bounds the walk. Popping an item pushes its /Next, then its
        // /First, so that its children are visited before its next sibling.
        var stack: [(value: PDFObject, parent: Int, depth: Int)] = [(first, -1, 1)]
        while let (value, parent, depth) = stack.popLast() {
            let id = value.reference
            if let id {
                guard seen.insert(id.number).inserted else {
                    file.warn("outline item \(id) is reached a second time (a cycle in /First or /Next); the outline is cut there")
                    continue
                }
            }
            guard let dict = try dictionary(value) else {
                let type = try resolve(value).aTypeName
                file.warn("outline item \(id.map { "\($0)" } ?? "(direct)") is \(type), not a dictionary; skipped")
                continue
            }
            guard depth <= OutlineItem.maxDepth else {
                throw PDFError(limit: "max_outline_depth", OutlineItem.maxDepth, "the depth of the outline")
            }
            guard count < OutlineItem.maxItems else {
                throw PDFError(limit: "max_outline_items", OutlineItem.maxItems, "the number of outline items")
            }
            let index = count
            count += 1
            try visit(id, dict, parent)
            if let next = dict["Next"] { stack.append((next, parent, depth)) }
            if let child = dict["First"] { stack.append((child, index, depth + 1)) }
        }
    }

    /// /C: three numbers in 0...1, else black.
    private func outlineColor(_ value: PDFObject?) throws -> OutlineItem.Color {
        guard let value, let array = try resolve(value).array, array.count == 3 else { return .black }
        var c: [Double] = []
        for v in array {
            guard let n = try resolve(v).number, n.isFinite else { return .black }
            c.append(Swift.min(Swift.max(n, 0), 1))
        }
        return OutlineItem.Color(red: c[0], green: c[1], blue: c[2])
    }
}

/// One outline item in the flat, depth-first form the C interface numbers items by.
public struct FlatOutlineItem: Sendable, Equatable {
    /// What activating the item does.
    public enum Kind: Sendable, Equatable { case none, goTo, goToRemote, uri, named, launch, other }

    public var title: String
    /// 0 for top-level items.
    public var depth: Int
    /// The index of the parent item, -1 for top-level items.
    public var parent: Int
    public var childCount: Int
    public var isOpen: Bool
    public var kind: Kind
    /// The target page (0-based) for goTo and goToRemote, when it resolves to one.
    public var pageIndex: Int?
    /// The URI, the file of a GoToR or Launch action, the name of a named action, or the
    /// type of another action.
    public var target: String?
}

extension FlatOutlineItem {
    init(_ item: OutlineItem, depth: Int, parent: Int) {
        self.init(title: item.title, depth: depth, parent: parent, childCount: 0, isOpen: item.isOpen,
                  kind: .none, pageIndex: nil, target: nil)
        if let destination = item.destination {
            kind = .goTo
            pageIndex = destination.pageIndex
            return
        }
        switch item.action?.kind {
        case .goTo(let destination)?:
            kind = .goTo
            pageIndex = destination?.pageIndex
        case .goToRemote(let file, let destination, _)?:
            kind = .goToRemote
            target = file?.path
            if case .explicit(let d)? = destination { pageIndex = d.pageIndex }
        case .uri(let uri, _)?:
            kind = .uri
            target = uri
        case .named(let name)?:
            kind = .named
            target = name
        case .launch(let file, _)?:
            kind = .launch
            target = file?.path
        case .other(let type, _)?:
            kind = .other
            target = type
        case nil:
            break
        }
    }
}

extension Document {
    /// The outline as a flat list in reading order (depth-first, parents before their
    /// children), computed once and kept until the document changes.
    public func flatOutline() throws -> [FlatOutlineItem] {
        if let cached = outlineCache { return cached }
        var flat: [FlatOutlineItem] = []
        // Walk the tree with an explicit stack: the depth is bounded, but the host's stack
        // may be small.
        var stack: [(item: OutlineItem, depth: Int, parent: Int)] = try outline().reversed().map { ($0, 0, -1) }
        while let (item, depth, parent) = stack.popLast() {
            let index = flat.count
            flat.append(FlatOutlineItem(item, depth: depth, parent: parent))
            flat[index].childCount = item.children.count
            for child in item.children.reversed() { stack.append((child, depth + 1, index)) }
        }
        outlineCache = flat
        return flat
    }
}
