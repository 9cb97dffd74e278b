/// Parses PDF objects (ISO 32000-2 §7.3) from a ``ByteBuffer``, with the nesting limit of
/// ``PDFLimits``.
public struct ObjectParser {
    public var lexer: Lexer
    public let limits: PDFLimits
    /// Resolves an indirect `/Length` of a stream; nil when it cannot.
    public var resolveLength: ((ObjectID) -> Int?)?
    /// Told about damage the parser recovered from.
    public var onWarning: ((String) -> Void)?

    public init(_ buffer: ByteBuffer, at position: Int = 0, limits: PDFLimits = .default) {
        lexer = Lexer(buffer, at: position)
        self.limits = limits
    }

    public var position: Int {
        get { lexer.position }
        set { lexer.position = newValue }
    }

    /// The next object. Throws at end of input or on a token that cannot start one.
    public mutating func parseObject() throws -> PDFObject {
        try parseObject(token: lexer.next(), depth: 0)
    }

    /// The one PDF object that `buffer` holds, read strictly: for a program's input (a
    /// value written in PDF syntax through the C interface, say), where nothing should be
    /// repaired silently. Reading a file repairs what real writers get wrong; here each of
    /// those is a `PDFError(.format)` naming the byte: a stray `)` or `>`, a bad digit or
    /// a missing `>` in a hexadecimal string, an array or dictionary cut short by
    /// `endobj`, `obj` or `stream`, a stray keyword inside one, a dictionary key that is
    /// not a name or has no value, and any text after the object but white space and
    /// comments. Nesting deeper than `limits` allows is a limit error, as in a file.
    public static func parseStrict(_ buffer: ByteBuffer, limits: PDFLimits = .default) throws -> PDFObject {
        var parser = ObjectParser(buffer, limits: limits)
        parser.lexer.strict = true
        let parsed = try parser.parseObject()
        parser.lexer.skipWhitespace()
        guard parser.lexer.position >= buffer.count else {
            throw PDFError(.format, "unexpected text after the value at byte \(parser.lexer.position)")
        }
        return parsed
    }

    /// The object that `token` starts, at `depth` (0 at the top, n inside n containers).
    /// Arrays and dictionaries are parsed with an explicit stack rather than by recursion,
    /// so that the nesting limit, not the caller's thread stack, bounds what any input
    /// costs: a recursive parser took about 2 KB of stack per level in a debug build and
    /// 260 bytes in a release build, more than a 1 MiB thread had at the former 4096 cap.
    mutating func parseObject(token: Token, depth: Int) throws -> PDFObject {
        switch token {
        case .arrayStart, .dictStart: return try parseContainer(token, depth: depth)
        default: return try parseScalar(token: token, depth: depth)
        }
    }

    /// An object that is not an array or a dictionary.
    mutating func parseScalar(token: Token, depth: Int) throws -> PDFObject {
        switch token {
        case .integer(let n):
            // `N G R` is a reference: look two tokens ahead, and step back if it is not.
            // A reference's next byte is a digit: anything else (the next number in an
            // array of reals, a `]`, a `/Key`) ends the look-ahead without lexing a token.
            let save = lexer.position
            lexer.skipWhitespace()
            guard n >= 0, let b = lexer.peek(), CharClass.isDigit(b) else {
                lexer.position = save
                return .integer(n)
            }
            if case .integer(let g) = try lexer.next(), g >= 0,
               case .keyword("R") = try lexer.next() {
                guard n <= limits.maxObjects, g <= 65535 else {
                    return .null  // an impossible reference is a null (§7.3.10)
                }
                return .reference(ObjectID(Int(n), Int(g)))
            }
            lexer.position = save
            return .integer(n)
        case .real(let r): return .real(r)
        case .string(let s): return .string(s)
        case .name(let n): return .name(n)
        case .keyword("true"): return .bool(true)
        case .keyword("false"): return .bool(false)
        case .keyword("null"): return .null
        case .eof: throw PDFError.format("unexpected end of file", at: lexer.tokenStart)
        case .keyword(let k):
            // Inside an array or a dictionary, a stray keyword (`1 0 R 0 R`) reads as null,
            // as in other readers; at the top it is an error.
            if depth > 0 && !lexer.strict && k != "endobj" && k != "stream" && k != "obj" { return .null }
            throw PDFError.format("unexpected keyword '\(k.prefix(32))'", at: lexer.tokenStart)
        case .arrayEnd, .dictEnd, .brace:
            throw PDFError.format("unexpected delimiter", at: lexer.tokenStart)
        case .arrayStart, .dictStart:
            return try parseContainer(token, depth: depth)
        }
    }

    mutating func checkDepth(_ depth: Int) throws {
        if depth > limits.effectiveNestingDepth {
            throw PDFError(limit: "max_nesting_depth", limits.effectiveNestingDepth, "nesting of the object at byte \(lexer.tokenStart)")
        }
    }

    /// An array or dictionary being parsed: its items or entries so far, and for a
    /// dictionary, what the value being parsed is for.
    private struct Open {
        enum Pending { case key, value(PDFName), discard }
        var isArray: Bool
        var items: [PDFObject] = []
        /// A dictionary's entries so far; nil for an entry a later null removed.
        var entries: [(key: PDFName, value: PDFObject?)] = []
        /// Where each key is in `entries`, once there are more than
        /// `PDFDictionary.indexThreshold` of them: below, a scan is cheaper than hashing
        /// (building this index for every dictionary was 22% of reading a large document's
        /// annotations); above, PDFDictionary's own setter searched its entries, and a
        /// dictionary of 100,000 keys (1.4 MB) took 56 s to read that way.
        var index: [PDFName: Int]? = nil
        var pending = Pending.key

        /// As PDFDictionary's setter: a later value of a key replaces the earlier one in
        /// place, and a null removes the entry (§7.3.7).
        mutating func set(_ key: PDFName, _ value: PDFObject) {
            let found: Int?
            if let index {
                found = index[key]
            } else {
                found = entries.firstIndex { $0.key == key && $0.value != nil }
            }
            if let i = found {
                if value == .null {
                    entries[i].value = nil
                    index?[key] = nil
                } else {
                    entries[i].value = value
                }
            } else if value != .null {
                index?[key] = entries.count
                entries.append((key, value))
                if index == nil && entries.count > PDFDictionary.indexThreshold {
                    var map = [PDFName: Int](minimumCapacity: entries.count * 2)
                    for (i, e) in entries.enumerated() where e.value != nil { map[e.key] = i }
                    index = map
                }
            }
        }

        var dictionary: PDFDictionary {
            PDFDictionary(uniqueEntries: entries.compactMap { e in e.value.map { (key: e.key, value: $0) } })
        }
    }

    /// The array or dictionary that `first` (`[` or `<<`) opens, with everything nested in
    /// it. Damage is read as other readers do: an array or dictionary cut short by the
    /// end of its object (`endobj`, `stream`, the next `N G obj`) ends there, a key
    /// without a value is dropped, and a key that is not a name is skipped with its value.
    mutating func parseContainer(_ first: Token, depth start: Int) throws -> PDFObject {
        var stack: [Open] = []
        var depth = start
        var finished: PDFObject? = nil  // a value complete, to go into the innermost container
        var next: Token? = first        // a token that starts a value
        while true {
            if let token = next {
                next = nil
                switch token {
                case .arrayStart, .dictStart:
                    depth += 1
                    try checkDepth(depth)
                    stack.append(Open(isArray: token == .arrayStart))
                default:
                    finished = try parseScalar(token: token, depth: depth)
                }
            }
            if let value = finished {
                finished = nil
                guard !stack.isEmpty else { return value }
                let top = stack.count - 1
                if stack[top].isArray {
                    stack[top].items.append(value)
                } else {
                    if case .value(let key) = stack[top].pending { stack[top].set(key, value) }
                    stack[top].pending = .key
                }
            }
            // The innermost container's next token: the end of it, or the start of a value.
            let top = stack.count - 1
            let t = try lexer.next()
            var ends = false
            if stack[top].isArray {
                switch t {
                case .arrayEnd: ends = true
                case .brace: continue
                case .eof: throw PDFError.format("unterminated array", at: lexer.tokenStart)
                case .keyword("endobj") where !lexer.strict, .keyword("obj") where !lexer.strict,
                     .keyword("stream") where !lexer.strict:
                    // An array cut short by the end of its object: end it here, as PDFium
                    // does. Before `obj`, the last two integers are the next object's `N G`.
                    let items = stack[top].items
                    if case .keyword("obj") = t, items.count >= 2, case .integer = items[items.count - 1],
                       case .integer = items[items.count - 2] {
                        stack[top].items.removeLast(2)
                    }
                    lexer.position = lexer.tokenStart
                    ends = true
                default: next = t
                }
            } else {
                switch t {
                case .dictEnd:
                    ends = true
                case .name(let key):
                    let vt = try lexer.next()
                    if vt == .dictEnd {
                        if lexer.strict { throw PDFError.format("/\(key.value) has no value", at: lexer.tokenStart) }
                        ends = true  // a key without a value: dropped
                    } else {
                        stack[top].pending = .value(key)
                        next = vt
                    }
                case .eof:
                    throw PDFError.format("unterminated dictionary", at: lexer.tokenStart)
                case .keyword("endobj") where !lexer.strict, .keyword("stream") where !lexer.strict,
                     .keyword("obj") where !lexer.strict:
                    // A dictionary missing its `>>` (cut short by the end of its object, or
                    // running into the next `N G obj`): end it here, like other readers do.
                    lexer.position = lexer.tokenStart
                    ends = true
                default:
                    if lexer.strict { throw PDFError.format("a dictionary key that is not a name", at: lexer.tokenStart) }
                    // A key that is not a name: skip the token (and its value, if it has one).
                    stack[top].pending = .discard
                    next = t
                }
            }
            if ends {
                let closed = stack.removeLast()
                depth -= 1
                finished = closed.isArray ? .array(closed.items) : .dictionary(closed.dictionary)
            }
        }
    }

    /// Parses the indirect object at the current position: `N G obj <object> endobj`,
    /// where the object may be a stream. Returns its id and value.
    public mutating func parseIndirectObject() throws -> (ObjectID, PDFObject) {
        let start = lexer.position
        guard case .integer(let n) = try lexer.next(), case .integer(let g) = try lexer.next(),
              case .keyword("obj") = try lexer.next(), n >= 0, g >= 0 else {
            throw PDFError.format("expected 'N G obj'", at: start)
        }
        let id = ObjectID(Int(n), Int(truncatingIfNeeded: g))
        let t = try lexer.next()
        if case .keyword("endobj") = t { return (id, .null) }  // empty object: null
        let value = try parseObject(token: t, depth: 0)
        if case .dictionary(let dict) = value {
            let save = lexer.position
            if case .keyword("stream") = try lexer.next() {
                return (id, .stream(try parseStreamBody(dict)))
            }
            lexer.position = save
        }
        return (id, value)
    }

    /// After the `stream` keyword: finds the data using /Length, and when /Length is wrong
    /// or missing, by scanning for `endstream`.
    mutating func parseStreamBody(_ dict: PDFDictionary) throws -> PDFStream {
        let buffer = lexer.buffer
        var start = lexer.position
        // The keyword is followed by CRLF or LF (§7.3.8.1); tolerate a lone CR or spaces.
        while buffer[checked: start] == 0x20 { start += 1 }
        if buffer[checked: start] == 0x0D { start += 1 }
        if buffer[checked: start] == 0x0A { start += 1 }
        var length: Int? = nil
        switch dict["Length"] {
        case .integer(let l)?: length = Int(exactly: l)
        case .reference(let r)?: length = resolveLength?(r)
        default: break
        }
        let endstream = Array("endstream".utf8)
        if let l = length, l >= 0, l <= buffer.count - start {
            // A lazy buffer reads only what follows the data, not the data itself (and more
            // while white space runs to the end of what it read).
            var window = 1024
            var after = Lexer(buffer, at: start + l)
            while true {
                buffer.ensure((start + l)..<(start + l + window))
                after = Lexer(buffer, at: start + l)
                after.skipWhitespace()
                if after.position + 16 <= start + l + window || start + l + window >= buffer.count || !buffer.isLazy { break }
                window *= 4
            }
            if buffer.matches(endstream, at: after.position) {
                lexer.position = after.position + endstream.count
                return PDFStream(dictionary: dict, data: .file(offset: start, length: l), source: buffer)
            }
        }
        // /Length is wrong or missing: the data ends at the next `endstream`, without the
        // end-of-line marker before it.
        guard let end = buffer.nextOccurrence(of: .endstream, from: start) else {
            // No `endstream` at all: the data ends at `endobj`, or at the end of the file,
            // as PDFium reads it.
            let end = buffer.nextOccurrence(of: .endobj, from: start) ?? buffer.count
            onWarning?("stream at byte \(start) has no 'endstream'; its data ends at byte \(end)")
            lexer.position = end
            return PDFStream(dictionary: dict, data: .file(offset: start, length: end - start), source: buffer)
        }
        onWarning?("stream at byte \(start): /Length is wrong or missing; the data was found by scanning for 'endstream'")
        var dataEnd = end
        if dataEnd > start && buffer[checked: dataEnd - 1] == 0x0A { dataEnd -= 1 }
        if dataEnd > start && buffer[checked: dataEnd - 1] == 0x0D { dataEnd -= 1 }
        lexer.position = end + endstream.count
        return PDFStream(dictionary: dict, data: .file(offset: start, length: dataEnd - start), source: buffer)
    }
}
