import QuireSyntax

/// A destination (ISO 32000-2 §12.3.2): a page and how to show it.
public struct Destination: Sendable, Equatable {
    /// How the page is shown (§12.3.2.2, Table 149). A parameter written as null (or
    /// missing, or not a finite number) is nil, which means "keep the current value".
    /// A zoom of 0 is kept as 0; the standard gives it the same meaning as null.
    public enum Fit: Sendable, Equatable {
        /// /XYZ left top zoom: the point (left, top) at the window's upper-left corner.
        case xyz(left: Double?, top: Double?, zoom: Double?)
        /// /Fit: the whole page in the window.
        case fit
        /// /FitH top: the page's width in the window, `top` at the top.
        case fitH(top: Double?)
        /// /FitV left: the page's height in the window, `left` at the left.
        case fitV(left: Double?)
        /// /FitR left bottom right top: the rectangle in the window.
        case fitR(left: Double?, bottom: Double?, right: Double?, top: Double?)
        /// /FitB: the page's bounding box in the window.
        case fitB
        /// /FitBH top: the bounding box's width in the window.
        case fitBH(top: Double?)
        /// /FitBV left: the bounding box's height in the window.
        case fitBV(left: Double?)

        /// Keep the current position and zoom: what a destination without a valid fit
        /// type gets.
        public static let retain = Fit.xyz(left: nil, top: nil, zoom: nil)
    }

    /// The 0-based page index. In a destination of this document it is the index of the
    /// page the destination names (its page object looked up in the page tree); in a
    /// destination of another document (``RemoteDestination/explicit(_:)``, from a
    /// GoToR action) it is the page number as written, which this document cannot check.
    public var pageIndex: Int
    public var fit: Fit
    /// The name the destination was looked up by, when it was given by name (§12.3.2.4).
    public var name: [UInt8]?

    public init(pageIndex: Int, fit: Fit = .retain, name: [UInt8]? = nil) {
        self.pageIndex = pageIndex
        self.fit = fit
        self.name = name
    }
}

/// The destination of a go-to-remote action (§12.6.4.3): explicit, with a page number in
/// the other document, or a name that only that document can resolve.
public enum RemoteDestination: Sendable, Equatable {
    case explicit(Destination)
    case named([UInt8])
}

extension Document {
    /// The destination that `value` gives in this document: an explicit destination
    /// array, a name or byte string naming a destination (§12.3.2.4), or a dictionary
    /// whose /D is one of those. A broken destination (a page that is not in the page
    /// tree, an undefined name, a value of the wrong type) is nil, with a warning.
    /// Only limit errors are thrown.
    public func destination(_ value: PDFObject) throws -> Destination? {
        try DestinationResolver(document: self).destination(value)
    }

    /// The named destination `name` (§12.3.2.4): looked up in the catalog's /Names /Dests
    /// name tree (PDF 1.2), then in the catalog's /Dests dictionary (PDF 1.1), as PDFium
    /// does. Nil, with a warning, when it is not defined or broken.
    public func resolveNamedDestination(_ name: [UInt8]) throws -> Destination? {
        try DestinationResolver(document: self).named(name)
    }

    /// The named destination `name`, as UTF-8 bytes or, failing that, as a PDF text
    /// string (PDFDocEncoding or UTF-16BE).
    public func resolveNamedDestination(_ name: String) throws -> Destination? {
        let resolver = DestinationResolver(document: self)
        let utf8 = Array(name.utf8), text = TextString.encode(name)
        if text != utf8, try resolver.lookup(utf8) == nil {
            return try resolver.named(text)
        }
        return try resolver.named(utf8)
    }

    /// Every named destination that resolves: those of the /Names /Dests name tree in
    /// tree order, then those of the /Dests dictionary that the tree does not define.
    /// A name defined twice keeps its first definition; broken ones are left out with a
    /// warning.
    public func namedDestinations() throws -> [(name: [UInt8], destination: Destination)] {
        let resolver = DestinationResolver(document: self)
        var out: [(name: [UInt8], destination: Destination)] = []
        for name in try resolver.allNames() {
            if let d = try resolver.named(name) { out.append((name, d)) }
        }
        return out
    }
}

/// Resolves destinations for one call: the page map is built once; the name tree is read
/// once per state of the document.
final class DestinationResolver {
    let document: Document
    private var pageMap: [Int: Int]? = nil
    private var pageCount = 0

    init(document: Document) {
        self.document = document
    }

    /// The index of each page object, by object number (a page reached twice in the page
    /// tree keeps its first index).
    private func pageIndex(of number: Int) throws -> Int? {
        try loadPages()
        return pageMap?[number]
    }

    private func loadPages() throws {
        guard pageMap == nil else { return }
        pageMap = try document.pageIndexByObject()
        pageCount = try document.pages().count  // the pages that exist: a destination cannot show a missing one
    }

    private func warn(_ message: String) { document.file.warn(message) }

    func destination(_ value: PDFObject) throws -> Destination? {
        try destination(value, level: 0)
    }

    private func destination(_ value: PDFObject, level: Int) throws -> Destination? {
        switch try document.resolve(value) {
        case .array(let array):
            return try explicit(array, name: nil)
        case .name(let n):
            return try named(n.bytes)
        case .string(let s):
            return try named(s.bytes)
        case .dictionary(let d) where d["D"] != nil && level == 0:
            // A destination dictionary (§12.3.2.4); read one level only, so that a /D
            // that leads back to its own dictionary ends.
            return try destination(d["D"] ?? .null, level: level + 1)
        case let other:
            warn("a destination is \(other.aTypeName), not an array, a name or a string; ignored")
            return nil
        }
    }

    /// The value that `name` is defined as: the name tree first, then /Dests.
    func lookup(_ name: [UInt8]) throws -> PDFObject? {
        let catalog = try document.catalog()
        if let tree = try document.dictionary(catalog["Names"])?["Dests"], let v = try names(tree).values[name] {
            return v
        }
        if let dests = try document.dictionary(catalog["Dests"]), let v = dests[PDFName(bytes: name)] {
            return v
        }
        return nil
    }

    /// The name tree flattened, the first definition of each name kept: read once per
    /// state of the document (``Document/destinationNamesCache``). Walking the tree per
    /// lookup made N links with named destinations O(N × names).
    private func names(_ tree: PDFObject) throws -> Document.DestinationNames {
        if let cached = document.destinationNamesCache { return cached }
        var values: [[UInt8]: PDFObject] = [:]
        var order: [[UInt8]] = []
        for (key, value) in try NameTree(document: document, root: tree).entries() where values[key] == nil {
            values[key] = value
            order.append(key)
        }
        let names = Document.DestinationNames(values: values, order: order)
        document.destinationNamesCache = names
        return names
    }

    /// Every defined name: the tree's in order, then the /Dests dictionary's.
    func allNames() throws -> [[UInt8]] {
        let catalog = try document.catalog()
        var names: [[UInt8]] = []
        var seen: Set<[UInt8]> = []
        if let tree = try document.dictionary(catalog["Names"])?["Dests"] {
            let tree = try self.names(tree)
            names = tree.order
            seen = Set(tree.order)
        }
        if let dests = try document.dictionary(catalog["Dests"]) {
            for key in dests.keys where seen.insert(key.bytes).inserted { names.append(key.bytes) }
        }
        return names
    }

    func named(_ name: [UInt8]) throws -> Destination? {
        let shown = String(decoding: name.prefix(200), as: UTF8.self)
        guard let value = try lookup(name) else {
            warn("named destination \"\(shown)\" is not defined")
            return nil
        }
        // The value is an explicit destination or a dictionary whose /D is one
        // (§12.3.2.4); a name that names another name is not followed.
        var resolved = try document.resolve(value)
        if let d = resolved.dictionary, let inner = d["D"] {
            resolved = try document.resolve(inner)
        }
        guard let array = resolved.array else {
            warn("named destination \"\(shown)\" is \(resolved.aTypeName), not a destination array; ignored")
            return nil
        }
        return try explicit(array, name: name)
    }

    /// An explicit destination (§12.3.2.2) of this document: [page fit parameters...],
    /// where page is a page object (or, leniently, as PDFium and pdf.js read it, a
    /// 0-based page index).
    func explicit(_ array: [PDFObject], name: [UInt8]?) throws -> Destination? {
        guard let first = array.first else {
            warn("a destination array is empty; ignored")
            return nil
        }
        var index: Int? = nil
        if case .reference(let r) = first {
            index = try pageIndex(of: r.number)
        }
        if index == nil {
            try loadPages()
            if let i = try document.resolve(first).integer, i >= 0, i < Int64(pageCount) {
                index = Int(i)
            }
        }
        guard let index else {
            warn("a destination names \(first.reference.map { "object \($0)" } ?? first.aTypeName), which is not a page of the document; ignored")
            return nil
        }
        return Destination(pageIndex: index, fit: try fit(array), name: name)
    }

    /// A destination of another document (§12.6.4.3): [pageNumber fit parameters...], or
    /// a name or byte string.
    func remote(_ value: PDFObject) throws -> RemoteDestination? {
        switch try document.resolve(value) {
        case .name(let n): return .named(n.bytes)
        case .string(let s): return .named(s.bytes)
        case .array(let array):
            guard let first = array.first, let i = try document.resolve(first).integer, i >= 0 else {
                warn("a remote destination does not start with a page number; ignored")
                return nil
            }
            return .explicit(Destination(pageIndex: Int(clamping: i), fit: try fit(array)))
        case let other:
            warn("a remote destination is \(other.aTypeName); ignored")
            return nil
        }
    }

    /// The fit type and parameters of a destination array.
    func fit(_ array: [PDFObject]) throws -> Destination.Fit {
        func parameter(_ i: Int) throws -> Double? {
            guard i < array.count, let n = try document.resolve(array[i]).number, n.isFinite else { return nil }
            return n
        }
        let type = array.count > 1 ? try document.resolve(array[1]).name?.value : nil
        switch type {
        case "XYZ": return .xyz(left: try parameter(2), top: try parameter(3), zoom: try parameter(4))
        case "Fit": return .fit
        case "FitH": return .fitH(top: try parameter(2))
        case "FitV": return .fitV(left: try parameter(2))
        case "FitR":
            return .fitR(left: try parameter(2), bottom: try parameter(3), right: try parameter(4), top: try parameter(5))
        case "FitB": return .fitB
        case "FitBH": return .fitBH(top: try parameter(2))
        case "FitBV": return .fitBV(left: try parameter(2))
        default:
            warn("a destination has \(type.map { "an unknown fit type /\($0)" } ?? "no fit type"); the current view is kept")
            return .retain
        }
    }
}
