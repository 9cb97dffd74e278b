import QuireSyntax

/// A file specification (ISO 32000-2 §7.11): a file name, or a dictionary that holds one.
public struct FileSpecification: Sendable, Equatable {
    /// The file name: a string file specification itself, or the dictionary's /UF (a
    /// text string), else /F, else the old platform entries /Unix, /Mac, /DOS; empty when
    /// there is none.
    public var path: String
    /// The dictionary's /FS is /URL: `path` is a uniform resource locator (§7.11.5).
    public var isURL: Bool
    /// The file specification dictionary, when it is one (for /EF, /Desc, /RF, ...).
    public var dictionary: PDFDictionary?

    public init(path: String, isURL: Bool = false, dictionary: PDFDictionary? = nil) {
        self.path = path
        self.isURL = isURL
        self.dictionary = dictionary
    }
}

/// An action (§12.6): what happens when an outline item or a link is activated.
public struct Action: Sendable, Equatable {
    /// The action types that Quire reads (§12.6.4); any other is kept as its /S name and
    /// dictionary.
    public enum Kind: Sendable, Equatable {
        /// /GoTo (§12.6.4.2): a destination in this document; nil when it is broken.
        case goTo(Destination?)
        /// /GoToR (§12.6.4.3): a destination in another file. `newWindow` is /NewWindow,
        /// nil when absent (the viewer's preference).
        case goToRemote(file: FileSpecification?, destination: RemoteDestination?, newWindow: Bool?)
        /// /URI (§12.6.4.8): a uniform resource identifier, and /IsMap.
        case uri(String, isMap: Bool)
        /// /Named (§12.6.4.12): /N, such as NextPage, PrevPage, FirstPage, LastPage.
        case named(String)
        /// /Launch (§12.6.4.6): the file to open or run: /F, else the /F of /Win.
        case launch(file: FileSpecification?, newWindow: Bool?)
        /// Any other type (/JavaScript, /SubmitForm, /GoToE, ...), or a known type too
        /// malformed to read, kept as its /S name and dictionary.
        case other(type: String, dictionary: PDFDictionary)
    }

    public var kind: Kind
    /// The actions of /Next (§12.6.2), performed after this one, in order; each may have
    /// its own.
    public var next: [Action]

    public init(kind: Kind, next: [Action] = []) {
        self.kind = kind
        self.next = next
    }

    /// The most actions read from one action and its /Next chain; the rest are ignored
    /// with a warning.
    public static let maxChain = 1_000
    /// The deepest /Next nesting read; deeper actions are ignored with a warning.
    public static let maxDepth = 32
}

extension Document {
    /// The action dictionary `value` (§12.6.2), with its /Next chain. Nil, with a
    /// warning, when it is not an action dictionary; an action reached twice in its own
    /// chain (a cycle) is left out with a warning. Only limit errors are thrown.
    public func action(_ value: PDFObject) throws -> Action? {
        try DestinationResolver(document: self).action(value)
    }

    /// A text string (§7.9.2.2) decoded, or nil when `value` is not a string.
    func text(_ value: PDFObject?) throws -> String? {
        guard let value, let s = try resolve(value).string else { return nil }
        return s.text
    }
}

extension DestinationResolver {
    func action(_ value: PDFObject) throws -> Action? {
        var budget = Action.maxChain
        var seen: Set<Int> = []
        return try action(value, depth: 0, budget: &budget, seen: &seen)
    }

    private func action(_ value: PDFObject, depth: Int, budget: inout Int, seen: inout Set<Int>) throws -> Action? {
        if case .reference(let r) = value {
            guard seen.insert(r.number).inserted else {
                document.file.warn("action \(r) is reached twice in its own /Next chain; the repeat is left out")
                return nil
            }
        }
        guard let dict = try document.dictionary(value) else {
            document.file.warn("an action is \(try document.resolve(value).aTypeName), not a dictionary; ignored")
            return nil
        }
        guard budget > 0 else {
            document.file.warn("an action chain has more than \(Action.maxChain) actions; the rest are ignored")
            return nil
        }
        budget -= 1
        guard let type = try dict["S"].map(document.resolve)?.name?.value else {
            document.file.warn("an action has no /S type; ignored")
            return nil
        }
        var result = Action(kind: try kind(type, dict))
        if let nextValue = dict["Next"] {
            if depth >= Action.maxDepth {
                document.file.warn("an action's /Next chain is nested deeper than \(Action.maxDepth); the rest is ignored")
            } else if let items = try document.resolve(nextValue).array {
                for item in items {
                    if let a = try action(item, depth: depth + 1, budget: &budget, seen: &seen) { result.next.append(a) }
                }
            } else if let a = try action(nextValue, depth: depth + 1, budget: &budget, seen: &seen) {
                result.next.append(a)
            }
        }
        return result
    }

    private func bool(_ value: PDFObject?) throws -> Bool? {
        guard let value, case .bool(let b) = try document.resolve(value) else { return nil }
        return b
    }

    private func kind(_ type: String, _ dict: PDFDictionary) throws -> Action.Kind {
        switch type {
        case "GoTo":
            guard let d = dict["D"] else {
                document.file.warn("a GoTo action has no /D destination")
                return .goTo(nil)
            }
            return .goTo(try destination(d))
        case "GoToR":
            let file = try dict["F"].map(fileSpecification) ?? nil
            let target = try dict["D"].map(remote) ?? nil
            return .goToRemote(file: file, destination: target, newWindow: try bool(dict["NewWindow"]))
        case "URI":
            guard let s = try dict["URI"].map(document.resolve)?.string else {
                document.file.warn("a URI action has no /URI string; kept as it is")
                return .other(type: type, dictionary: dict)
            }
            return .uri(DestinationResolver.uriString(s.bytes), isMap: try bool(dict["IsMap"]) ?? false)
        case "Named":
            guard let n = try dict["N"].map(document.resolve)?.name else {
                document.file.warn("a Named action has no /N name; kept as it is")
                return .other(type: type, dictionary: dict)
            }
            return .named(n.value)
        case "Launch":
            var file = try dict["F"].map(fileSpecification) ?? nil
            if file == nil, let win = try document.dictionary(dict["Win"]), let f = try document.text(win["F"]) {
                file = FileSpecification(path: f)
            }
            return .launch(file: file, newWindow: try bool(dict["NewWindow"]))
        default:
            return .other(type: type, dictionary: dict)
        }
    }

    /// A file specification (§7.11.2, §7.11.3): a string or a dictionary.
    func fileSpecification(_ value: PDFObject) throws -> FileSpecification? {
        let resolved = try document.resolve(value)
        if let s = try document.text(resolved) { return FileSpecification(path: s) }
        guard let dict = resolved.dictionary else {
            document.file.warn("a file specification is \(resolved.aTypeName); ignored")
            return nil
        }
        var path = ""
        for key: PDFName in ["UF", "F", "Unix", "Mac", "DOS"] {
            if let s = try document.text(dict[key]) { path = s; break }
        }
        let isURL = try dict["FS"].map(document.resolve)?.name?.value == "URL"
        return FileSpecification(path: path, isURL: isURL, dictionary: dict)
    }

    /// A URI's bytes as a string. The standard wants 7-bit ASCII; files also hold UTF-8,
    /// text strings with a byte order mark, and Latin-1, read here in that order.
    static func uriString(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return TextString.decode(bytes)
        }
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        var scalars = String.UnicodeScalarView()
        for b in bytes { scalars.append(Unicode.Scalar(b)) }
        return String(scalars)
    }
}
