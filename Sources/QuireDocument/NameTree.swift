import QuireSyntax

/// Name trees (ISO 32000-2 §7.9.6) and number trees (§7.9.7): sorted maps from keys to
/// objects, stored as a tree of dictionaries. The root and intermediate nodes have /Kids
/// (with /Limits [least greatest] on each kid); the leaves have /Names [key value ...]
/// (byte string keys) or /Nums [key value ...] (integer keys).
///
/// Trees from files are not trusted: a node reached twice (a cycle, or a node shared by
/// two parents) is read once and then skipped with a warning, the depth is bounded by
/// ``maxDepth`` (PDFium's bound), a malformed node or pair is skipped with a warning, and
/// keys out of order or /Limits that lie do not hide entries (a lookup that the /Limits
/// lead astray falls back to a full walk, as pdf.js does).
public struct NameTree {
    public unowned let document: Document
    /// The root node (usually a reference).
    public let root: PDFObject

    /// The deepest node read, the root being at depth 0 (PDFium's bound).
    public static let maxDepth = 32

    public init(document: Document, root: PDFObject) {
        self.document = document
        self.root = root
    }

    /// Every entry, in tree order. When a key occurs twice, both entries are listed.
    /// Values are as written (references are not resolved).
    public func entries() throws -> [(key: [UInt8], value: PDFObject)] {
        var out: [(key: [UInt8], value: PDFObject)] = []
        _ = try TreeWalker(document: document, kind: .names, warn: true).walk(root, prune: nil) { key, value in
            if case .bytes(let k) = key { out.append((k, value)) }
            return false
        }
        return out
    }

    /// The value of the first entry with `key` (compared byte for byte), or nil.
    public func value(for key: [UInt8]) throws -> PDFObject? {
        try TreeWalker(document: document, kind: .names, warn: true).lookup(root, .bytes(key))
    }
}

/// A number tree (§7.9.7): a ``NameTree`` whose keys are integers, in /Nums.
public struct NumberTree {
    public unowned let document: Document
    /// The root node (usually a reference).
    public let root: PDFObject

    /// The deepest node read, the root being at depth 0 (PDFium's bound).
    public static let maxDepth = NameTree.maxDepth

    public init(document: Document, root: PDFObject) {
        self.document = document
        self.root = root
    }

    /// Every entry, in tree order. When a key occurs twice, both entries are listed.
    /// Values are as written (references are not resolved).
    public func entries() throws -> [(key: Int, value: PDFObject)] {
        var out: [(key: Int, value: PDFObject)] = []
        _ = try TreeWalker(document: document, kind: .numbers, warn: true).walk(root, prune: nil) { key, value in
            if case .number(let k) = key { out.append((k, value)) }
            return false
        }
        return out
    }

    /// The value of the first entry with `key`, or nil.
    public func value(for key: Int) throws -> PDFObject? {
        try TreeWalker(document: document, kind: .numbers, warn: true).lookup(root, .number(key))
    }
}

/// A key of either kind of tree. Byte strings compare byte by byte (§7.9.6: "lexical
/// order"), numbers numerically; a name tree never compares with a number tree's keys.
enum TreeKey: Comparable {
    case bytes([UInt8])
    case number(Int)

    static func < (a: TreeKey, b: TreeKey) -> Bool {
        switch (a, b) {
        case (.bytes(let x), .bytes(let y)): return x.lexicographicallyPrecedes(y)
        case (.number(let x), .number(let y)): return x < y
        case (.number, .bytes): return true
        case (.bytes, .number): return false
        }
    }
}

/// The walk shared by name and number trees.
struct TreeWalker {
    enum Kind {
        case names, numbers
        var key: PDFName { self == .names ? "Names" : "Nums" }
        var what: String { self == .names ? "name tree" : "number tree" }
    }

    let document: Document
    let kind: Kind
    let warn: Bool

    private func warning(_ message: @autoclosure () -> String) {
        if warn { document.file.warn(message()) }
    }

    /// The key of a leaf entry: a string (or, leniently, a name) in a name tree, an
    /// integer in a number tree; nil for anything else.
    func key(_ value: PDFObject) throws -> TreeKey? {
        switch (kind, try document.resolve(value)) {
        case (.names, .string(let s)): return .bytes(s.bytes)
        case (.names, .name(let n)): return .bytes(n.bytes)
        case (.numbers, let v):
            guard let i = v.integer else { return nil }
            return .number(Int(clamping: i))
        default: return nil
        }
    }

    /// A node's /Limits, if it is a well-formed pair.
    func limits(_ node: PDFDictionary) throws -> (TreeKey, TreeKey)? {
        guard let array = try node["Limits"].map(document.resolve)?.array, array.count == 2,
              let low = try key(array[0]), let high = try key(array[1]) else { return nil }
        return (low, high)
    }

    /// Walks the tree depth first, in order, calling `body` with each entry until it
    /// returns true. A kid whose well-formed /Limits exclude `prune` is not entered.
    /// Returns whether some kid was skipped that way.
    func walk(_ root: PDFObject, prune: TreeKey?, _ body: (TreeKey, PDFObject) throws -> Bool) throws -> Bool {
        var pruned = false
        var seen: Set<Int> = []
        var stack: [(node: PDFObject, depth: Int)] = [(root, 0)]
        while let (node, depth) = stack.popLast() {
            if case .reference(let r) = node {
                guard seen.insert(r.number).inserted else {
                    warning("\(kind.what) node \(r) is reached twice (a cycle or a shared node); skipped")
                    continue
                }
            }
            guard depth <= NameTree.maxDepth else {
                warning("\(kind.what) is deeper than \(NameTree.maxDepth) levels; the nodes below are skipped")
                continue
            }
            guard let dict = try document.dictionary(node) else {
                warning("\(kind.what) node \(node.reference.map { "\($0)" } ?? "(direct)") is not a dictionary; skipped")
                continue
            }
            if depth > 0, let prune, let (low, high) = try limits(dict), prune < low || high < prune {
                pruned = true
                continue
            }
            // A leaf's entries come first; a node with both /Nums or /Names and /Kids is
            // malformed, and both are read.
            if let value = dict[kind.key] {
                guard let entries = try document.resolve(value).array else {
                    warning("\(kind.what) node's /\(kind.key.value) is not an array; skipped")
                    continue
                }
                if entries.count % 2 != 0 {
                    warning("\(kind.what) node's /\(kind.key.value) has an odd number of elements; the last is ignored")
                }
                var i = 0
                while i + 1 < entries.count {
                    if let k = try key(entries[i]) {
                        if try body(k, entries[i + 1]) { return pruned }
                    } else {
                        let type = try document.resolve(entries[i]).aTypeName
                        warning("\(kind.what) has a key that is \(type); the entry is skipped")
                    }
                    i += 2
                }
            }
            if let value = dict["Kids"] {
                guard let kids = try document.resolve(value).array else {
                    warning("\(kind.what) node's /Kids is not an array; skipped")
                    continue
                }
                for kid in kids.reversed() { stack.append((kid, depth + 1)) }
            }
        }
        return pruned
    }

    /// The first value with `key`: a walk guided by /Limits, then, if the /Limits kept
    /// some kids out and the key was not found, a full walk (trees out of order).
    func lookup(_ root: PDFObject, _ key: TreeKey) throws -> PDFObject? {
        var found: PDFObject? = nil
        let pruned = try walk(root, prune: key) { k, v in
            if k == key { found = v; return true }
            return false
        }
        if found != nil || !pruned { return found }
        // Second pass, silent: its warnings would repeat the first's.
        let quiet = TreeWalker(document: document, kind: kind, warn: false)
        _ = try quiet.walk(root, prune: nil) { k, v in
            if k == key { found = v; return true }
            return false
        }
        return found
    }
}

extension PDFObject {
    /// The type name with its article, for messages: "an integer", "a dictionary".
    var aTypeName: String {
        let name = typeName
        return (name.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + name
    }
}
