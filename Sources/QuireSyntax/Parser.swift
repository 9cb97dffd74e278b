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
            if case .integer(let g) = try lexer.next(), g >= 0, lexer.skipReferenceKeyword() {
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

    /// An array or dictionary being parsed. Its items (an array's) or values (a
    /// dictionary's) are on `scratchValues` from `valueStart` on, a dictionary's keys on
    /// `scratchKeys` from `keyStart` on, entry j being key j with value j.
    private struct Frame {
        enum Pending { case key, value(PDFName), discard }
        var isArray: Bool
        var valueStart: Int
        var keyStart: Int
        var pending = Pending.key
        /// Entries a later null removed: their value slot holds `.null` (no entry of a
        /// parsed dictionary is null otherwise).
        var removed = 0
        /// Where each live key is (relative to `keyStart`), once a dictionary has more than
        /// `PDFDictionary.indexThreshold` entries: below, a scan is cheaper than hashing
        /// (building this index for every dictionary was 22% of reading a large document's
        /// annotations); above, a scan per key made a dictionary of 100,000 keys (1.4 MB)
        /// take 56 s to read.
        var index: [PDFName: Int]? = nil
    }

    /// The items and entries of the containers being parsed, on two stacks kept from one
    /// container, and one object, to the next: building an array per container as it was
    /// read (grown as it filled, then copied into the dictionary) was 20% of reading a
    /// large document's annotations.
    private var scratchValues: [PDFObject] = []
    private var scratchKeys: [PDFName] = []
    /// Each key's length in UTF-8, beside it: a key is compared only with keys of its length
    /// (the search for an earlier value of each key was 5% of reading a large document's
    /// annotations).
    private var scratchKeyLengths: [Int] = []
    private var scratchFrames: [Frame] = []

    /// As PDFDictionary's setter, for the innermost open dictionary `frame`: a later value
    /// of a key replaces the earlier one in place, and a null removes the entry (§7.3.7); a
    /// key set again after its removal is a new entry at the end.
    private mutating func set(_ key: PDFName, _ value: PDFObject, frame: inout Frame) {
        let keyStart = frame.keyStart
        let valueStart = frame.valueStart
        let count = scratchKeys.count - keyStart
        let length = key.value.utf8.count
        var found = -1
        if let index = frame.index {
            found = index[key] ?? -1
        } else {
            scratchKeyLengths.withUnsafeBufferPointer { lengths in
                var j = 0
                while j < count {
                    if lengths[keyStart + j] == length && scratchKeys[keyStart + j] == key {
                        if case .null = scratchValues[valueStart + j] {} else { found = j; break }
                    }
                    j += 1
                }
            }
        }
        let isNull: Bool
        if case .null = value { isNull = true } else { isNull = false }
        if found >= 0 {
            scratchValues[valueStart + found] = value
            if isNull {
                frame.removed += 1
                frame.index?[key] = nil
            }
        } else if !isNull {
            frame.index?[key] = count
            scratchKeys.append(key)
            scratchKeyLengths.append(length)
            scratchValues.append(value)
            if frame.index == nil && count + 1 - frame.removed > PDFDictionary.indexThreshold {
                var map = [PDFName: Int](minimumCapacity: 2 * (count + 1))
                for j in 0...count {
                    if case .null = scratchValues[valueStart + j] { continue }
                    map[scratchKeys[keyStart + j]] = j
                }
                frame.index = map
            }
        }
    }

    /// The container of `frame`, closed: its items or entries leave the stacks.
    private mutating func close(_ frame: Frame) -> PDFObject {
        let count = scratchValues.count - frame.valueStart
        if frame.isArray {
            let items = Array(scratchValues[frame.valueStart...])
            scratchValues.removeLast(count)
            return .array(items)
        }
        var entries: [(key: PDFName, value: PDFObject)] = []
        entries.reserveCapacity(count - frame.removed)
        for j in 0..<count {
            let v = scratchValues[frame.valueStart + j]
            if case .null = v { continue }
            entries.append((scratchKeys[frame.keyStart + j], v))
        }
        scratchValues.removeLast(count)
        scratchKeys.removeLast(count)
        scratchKeyLengths.removeLast(count)
        return .dictionary(PDFDictionary(uniqueEntries: entries))
    }

    /// The array or dictionary that `first` (`[` or `<<`) opens, with everything nested in
    /// it. Damage is read as other readers do: an array or dictionary cut short by the
    /// end of its object (`endobj`, `stream`, the next `N G obj`) ends there, a key
    /// without a value is dropped, and a key that is not a name is skipped with its value.
    mutating func parseContainer(_ first: Token, depth start: Int) throws -> PDFObject {
        // Not re-entered (nested containers are frames of this loop), but leave the stacks
        // as found when a parse throws half-way.
        let frameBase = scratchFrames.count, valueBase = scratchValues.count, keyBase = scratchKeys.count
        defer {
            if scratchFrames.count > frameBase { scratchFrames.removeLast(scratchFrames.count - frameBase) }
            if scratchValues.count > valueBase { scratchValues.removeLast(scratchValues.count - valueBase) }
            if scratchKeys.count > keyBase { scratchKeys.removeLast(scratchKeys.count - keyBase) }
            if scratchKeyLengths.count > keyBase { scratchKeyLengths.removeLast(scratchKeyLengths.count - keyBase) }
        }
        // A parser is often made for one object: room for a typical one at once, rather
        // than growing each stack from one element.
        if scratchValues.capacity == 0 {
            scratchValues.reserveCapacity(64)
            scratchKeys.reserveCapacity(32)
            scratchKeyLengths.reserveCapacity(32)
        }
        guard first == .arrayStart || first == .dictStart else {
            return try parseScalar(token: first, depth: start)
        }
        var depth = start + 1
        try checkDepth(depth)
        // The innermost open container; the ones around it are on `scratchFrames`.
        var frame = Frame(isArray: first == .arrayStart, valueStart: scratchValues.count, keyStart: scratchKeys.count)
        var finished: PDFObject? = nil  // a value complete, to go into the innermost container
        var next: Token? = nil          // a token that starts a value
        while true {
            if let token = next {
                next = nil
                switch token {
                case .arrayStart, .dictStart:
                    depth += 1
                    try checkDepth(depth)
                    scratchFrames.append(frame)
                    frame = Frame(isArray: token == .arrayStart, valueStart: scratchValues.count, keyStart: scratchKeys.count)
                default:
                    finished = try parseScalar(token: token, depth: depth)
                }
            }
            if let value = finished {
                finished = nil
                if frame.isArray {
                    scratchValues.append(value)
                } else {
                    if case .value(let key) = frame.pending { set(key, value, frame: &frame) }
                    frame.pending = .key
                }
            }
            // The innermost container's next token: the end of it, or the start of a value.
            let t = try lexer.next()
            var ends = false
            if frame.isArray {
                switch t {
                case .arrayEnd: ends = true
                case .brace: continue
                case .eof: throw PDFError.format("unterminated array", at: lexer.tokenStart)
                case .keyword("endobj") where !lexer.strict, .keyword("obj") where !lexer.strict,
                     .keyword("stream") where !lexer.strict:
                    // An array cut short by the end of its object: end it here, as PDFium
                    // does. Before `obj`, the last two integers are the next object's `N G`.
                    let n = scratchValues.count
                    if case .keyword("obj") = t, n - frame.valueStart >= 2,
                       case .integer = scratchValues[n - 1], case .integer = scratchValues[n - 2] {
                        scratchValues.removeLast(2)
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
                        frame.pending = .value(key)
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
                    frame.pending = .discard
                    next = t
                }
            }
            if ends {
                depth -= 1
                let value = close(frame)
                guard scratchFrames.count > frameBase else { return value }
                frame = scratchFrames.removeLast()
                finished = value
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
        /// Whether /Length from `from` lands on `endstream` (the lexer then after it).
        func lengthHolds(from: Int) -> PDFStream? {
            guard let l = length, l >= 0, l <= buffer.count - from else { return nil }
            // A lazy buffer reads only what follows the data, not the data itself (and more
            // while white space runs to the end of what it read).
            var window = 1024
            var after = Lexer(buffer, at: from + l)
            while true {
                buffer.ensure((from + l)..<(from + l + window))
                after = Lexer(buffer, at: from + l)
                after.skipWhitespace()
                if after.position + 16 <= from + l + window || from + l + window >= buffer.count || !buffer.isLazy { break }
                window *= 4
            }
            guard buffer.matches(endstream, at: after.position) else { return nil }
            lexer.position = after.position + endstream.count
            return PDFStream(dictionary: dict, data: .file(offset: from, length: l), source: buffer)
        }
        if let stream = lengthHolds(from: start) { return stream }
        // Other bytes after the keyword on its line: PDFium skips them, the data starting
        // after the end of the line, and so does Quire when /Length holds from there.
        var lineEnd = start
        while lineEnd < start + 256, lineEnd < buffer.count, buffer[checked: lineEnd] != 0x0A,
            buffer[checked: lineEnd] != 0x0D
        {
            lineEnd += 1
        }
        if lineEnd > start, lineEnd < start + 256 {
            var next = lineEnd
            if buffer[checked: next] == 0x0D { next += 1 }
            if buffer[checked: next] == 0x0A { next += 1 }
            if let stream = lengthHolds(from: next) {
                onWarning?("stream at byte \(start): bytes after the 'stream' keyword on its line were skipped")
                return stream
            }
        }
        // /Length is wrong or missing: the data ends at the next `endstream` or `endobj`,
        // whichever comes first (a stream that lacks its `endstream` does not run into the
        // next object's), or at the end of the file, without the end-of-line marker before
        // it, as PDFium reads it.
        let endstreamAt = buffer.nextOccurrence(of: .endstream, from: start)
        let endobjAt = buffer.nextOccurrence(of: .endobj, from: start)
        let end: Int
        if let e = endstreamAt, endobjAt.map({ e < $0 }) ?? true {
            end = e
            onWarning?("stream at byte \(start): /Length is wrong or missing; the data was found by scanning for 'endstream'")
            lexer.position = e + endstream.count
        } else {
            end = endobjAt ?? buffer.count
            onWarning?("stream at byte \(start) has no 'endstream'; its data ends at byte \(end)")
            lexer.position = end
        }
        var dataEnd = end
        if dataEnd > start && buffer[checked: dataEnd - 1] == 0x0A { dataEnd -= 1 }
        if dataEnd > start && buffer[checked: dataEnd - 1] == 0x0D { dataEnd -= 1 }
        return PDFStream(dictionary: dict, data: .file(offset: start, length: dataEnd - start), source: buffer)
    }
}
