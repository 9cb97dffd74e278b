/// Character classes of ISO 32000-2 §7.2.3.
@usableFromInline
enum CharClass {
    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 || b == 0x0C || b == 0x00
    }

    @inline(__always)
    static func isDelimiter(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"),
             UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"),
             UInt8(ascii: "/"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    @inline(__always)
    static func isRegular(_ b: UInt8) -> Bool { !isWhitespace(b) && !isDelimiter(b) }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

}

/// A token of the PDF syntax.
public enum Token: Equatable, Sendable {
    case integer(Int64)
    case real(Double)
    case string(PDFString)
    case name(PDFName)
    /// A run of regular characters that is not a number: `true`, `obj`, `R`, ...
    case keyword(String)
    case arrayStart, arrayEnd, dictStart, dictEnd
    /// `{` or `}` (PostScript calculator functions); kept so the parser can skip them.
    case brace(UInt8)
    case eof
}

/// Splits bytes into tokens (ISO 32000-2 §7.2), tolerant of what real writers get wrong:
/// a stray `)` or `>` is skipped, numbers with several signs read as the sign they end with.
public struct Lexer {
    public let buffer: ByteBuffer
    public var position: Int
    /// Where the token last returned by ``next()`` started.
    public private(set) var tokenStart: Int = 0
    /// Reject what the lenient reading of files repairs (for input from a program rather
    /// than a file): hex strings with bad digits or no `>`, stray `)` and `>`.
    public var strict = false

    public init(_ buffer: ByteBuffer, at position: Int = 0) {
        self.buffer = buffer
        self.position = position
    }

    @inline(__always)
    func peek(_ ahead: Int = 0) -> UInt8? { buffer[checked: position + ahead] }

    /// Skips white space and comments.
    public mutating func skipWhitespace() {
        defer { if position > highWater { highWater = position } }
        let bytes = buffer.bytes
        while position < bytes.count {
            let b = bytes[position]
            if CharClass.isWhitespace(b) {
                position += 1
            } else if b == UInt8(ascii: "%") {
                while position < bytes.count && bytes[position] != 0x0A && bytes[position] != 0x0D {
                    position += 1
                }
            } else {
                return
            }
        }
    }

    /// The furthest position a token read so far ended at (a lookahead that is then given
    /// back included): how far a parse read, for a lazy buffer (see
    /// ``ByteBuffer/withLoaded(from:_:)``).
    public private(set) var highWater: Int = 0

    /// The next token.
    public mutating func next() throws -> Token {
        defer { if position > highWater { highWater = position } }
        return try nextToken()
    }

    @inline(__always)
    private mutating func nextToken() throws -> Token {
        let bytes = buffer.bytes
        while true {
            skipWhitespace()
            tokenStart = position
            guard position < bytes.count else { return .eof }
            let b = bytes[position]
            switch b {
            case UInt8(ascii: "["): position += 1; return .arrayStart
            case UInt8(ascii: "]"): position += 1; return .arrayEnd
            case UInt8(ascii: "{"), UInt8(ascii: "}"): position += 1; return .brace(b)
            case UInt8(ascii: "("): return .string(try literalString())
            case UInt8(ascii: "/"): return .name(name())
            case UInt8(ascii: "<"):
                if peek(1) == UInt8(ascii: "<") { position += 2; return .dictStart }
                return .string(try hexString())
            case UInt8(ascii: ">"):
                if peek(1) == UInt8(ascii: ">") { position += 2; return .dictEnd }
                if strict { throw PDFError.format("stray '>'", at: position) }
                position += 1  // a stray '>': skip it
                continue
            case UInt8(ascii: ")"):
                if strict { throw PDFError.format("stray ')'", at: position) }
                position += 1  // a stray ')': skip it
                continue
            default:
                return regularRun()
            }
        }
    }

    /// A run of regular characters: a number or a keyword.
    mutating func regularRun() -> Token {
        let bytes = buffer.bytes
        let start = position
        while position < bytes.count && CharClass.isRegular(bytes[position]) { position += 1 }
        if position == start {
            // Cannot happen for a non-delimiter byte, but never loop without progress.
            position += 1
            return .keyword(String(decoding: [bytes[start]], as: UTF8.self))
        }
        if let number = Lexer.number(bytes, start, position) { return number }
        if let keyword = Lexer.commonKeyword(bytes, start, position) { return .keyword(keyword) }
        return .keyword(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self))
    }

    /// The keywords of object syntax as constant Strings, without decoding the bytes (one in
    /// five tokens of an object stream is `R`).
    @inline(__always)
    static func commonKeyword(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        @inline(__always) func at(_ k: Int) -> UInt8 { bytes[start + k] }
        switch end - start {
        case 1: return at(0) == UInt8(ascii: "R") ? "R" : nil
        case 3: return at(0) == UInt8(ascii: "o") && at(1) == UInt8(ascii: "b") && at(2) == UInt8(ascii: "j") ? "obj" : nil
        case 4:
            if at(0) == UInt8(ascii: "t") && at(1) == UInt8(ascii: "r") && at(2) == UInt8(ascii: "u") && at(3) == UInt8(ascii: "e") { return "true" }
            if at(0) == UInt8(ascii: "n") && at(1) == UInt8(ascii: "u") && at(2) == UInt8(ascii: "l") && at(3) == UInt8(ascii: "l") { return "null" }
            return nil
        case 5:
            return at(0) == UInt8(ascii: "f") && at(1) == UInt8(ascii: "a") && at(2) == UInt8(ascii: "l")
                && at(3) == UInt8(ascii: "s") && at(4) == UInt8(ascii: "e") ? "false" : nil
        case 6:
            if at(0) == UInt8(ascii: "e") && at(1) == UInt8(ascii: "n") && at(2) == UInt8(ascii: "d") && at(3) == UInt8(ascii: "o")
                && at(4) == UInt8(ascii: "b") && at(5) == UInt8(ascii: "j") { return "endobj" }
            if at(0) == UInt8(ascii: "s") && at(1) == UInt8(ascii: "t") && at(2) == UInt8(ascii: "r") && at(3) == UInt8(ascii: "e")
                && at(4) == UInt8(ascii: "a") && at(5) == UInt8(ascii: "m") { return "stream" }
            return nil
        default: return nil
        }
    }

    /// After white space and comments, a lone `R` (the end of a reference `N G R`): skipped,
    /// as ``next()`` would read it, and true; false, with nothing read, if something else
    /// is next.
    mutating func skipReferenceKeyword() -> Bool {
        skipWhitespace()
        let bytes = buffer.bytes
        guard position < bytes.count, bytes[position] == UInt8(ascii: "R"),
              position + 1 >= bytes.count || !CharClass.isRegular(bytes[position + 1]) else { return false }
        tokenStart = position
        position += 1
        if position > highWater { highWater = position }
        return true
    }

    /// Parses `bytes[start..<end]` as a number (§7.3.3), or nil if it is not one.
    ///
    /// One pass over the digits for the numbers of nearly every file: an integer of up to 18
    /// digits (no overflow possible), or a real of up to 15 digits in all (below 2^53, so
    /// the one correctly rounded division of ``numberInFull(_:_:_:)`` applies); the rest
    /// (and anything odd) goes to ``numberInFull(_:_:_:)``, which gives the same token for
    /// these too. Lexing numbers was 5% of reading a large document's annotations.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Token? {
        var i = start
        var negative = false
        if i < end && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var mantissa: UInt64 = 0
        /// Reads digits into `mantissa`; returns how many.
        @inline(__always) func digits() -> Int {
            let from = i
            while i < end {
                let d = bytes[i] &- 0x30
                guard d < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            return i - from
        }
        let intDigits = digits()
        if i == end {
            guard intDigits > 0 && intDigits <= 18 else { return numberInFull(bytes, start, end) }
            let v = Int64(mantissa)
            return .integer(negative ? -v : v)
        }
        guard bytes[i] == UInt8(ascii: ".") else { return numberInFull(bytes, start, end) }
        i += 1
        let fractionDigits = digits()
        guard i == end, intDigits + fractionDigits > 0, intDigits + fractionDigits <= 15 else {
            return numberInFull(bytes, start, end)
        }
        let v = Double(mantissa) / Lexer.powersOfTen[fractionDigits]
        return .real(negative ? -v : v)
    }

    /// ``number(_:_:_:)`` for every form: several signs, integers that overflow, reals of
    /// many digits.
    static func numberInFull(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Token? {
        var i = start
        var negative = false
        var sawSign = false
        while i < end && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
            negative = bytes[i] == UInt8(ascii: "-")
            sawSign = true
            i += 1
        }
        var intPart: Int64 = 0
        var overflow = false
        var digits = 0
        var value = 0.0
        while i < end && CharClass.isDigit(bytes[i]) {
            let d = Int64(bytes[i] - 0x30)
            let (m, o1) = intPart.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(d)
            if o1 || o2 { overflow = true }
            intPart = s
            value = value * 10 + Double(d)
            digits += 1
            i += 1
        }
        if i == end {
            if digits == 0 { return sawSign && end > start ? .integer(0) : nil }
            // -9223372036854775808 overflows as a magnitude but is an Int64. With 19 digits
            // the sum wraps to exactly Int64.min only for 2^63.
            if overflow && negative && digits == 19 && intPart == Int64.min { return .integer(.min) }
            if overflow { return .real(negative ? -value : value) }
            return .integer(negative ? -intPart : intPart)
        }
        guard bytes[i] == UInt8(ascii: ".") else { return nil }
        let digitsStart = i - (digits > 0 ? digits : 0)
        i += 1
        while i < end && CharClass.isDigit(bytes[i]) {
            digits += 1
            i += 1
        }
        guard digits > 0, i == end else { return nil }
        // Digits that make an integer below 2^53 and up to 22 decimals (nearly every real
        // in a PDF file):
        // the digits as an integer and the power of ten are both exact doubles, so one
        // division is correctly rounded, the same double strtod gives (Clinger's fast
        // path), without making a string.
        var mantissa: UInt64 = 0
        var fraction = 0
        var afterPoint = false
        var exact = true
        for k in digitsStart..<end {
            let c = bytes[k]
            if c == UInt8(ascii: ".") { afterPoint = true; continue }
            mantissa = mantissa &* 10 &+ UInt64(c - 0x30)
            if afterPoint { fraction += 1 }
            if mantissa >= (1 << 53) || fraction > 22 { exact = false; break }
        }
        if exact {
            let v = Double(mantissa) / Lexer.powersOfTen[fraction]
            return .real(negative ? -v : v)
        }
        // Parse the digits as text: summing scaled digits is not exact (0.3 would read as
        // 0.30000000000000004), and writing a number must give back the same number.
        var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[digitsStart..<end]), as: UTF8.self)
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasSuffix(".") { text += "0" }
        guard let v = Double(text) else { return nil }
        return .real(negative ? -v : v)
    }

    /// 10^0 ... 10^22, each exact in a Double.
    static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

    /// A name after its `/` (§7.3.5), with `#xx` decoded.
    mutating func name() -> PDFName {
        let bytes = buffer.bytes
        position += 1
        // Most names have no `#` escape: made straight from the file's bytes, no copy.
        let start = position
        var end = start
        while end < bytes.count && CharClass.isRegular(bytes[end]) && bytes[end] != UInt8(ascii: "#") { end += 1 }
        if end == bytes.count || !CharClass.isRegular(bytes[end]) {
            position = end
            if let known = CommonNames.lookup(bytes, start, end) { return known }
            return PDFName(bytes: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
        var out: [UInt8] = []
        while position < bytes.count && CharClass.isRegular(bytes[position]) {
            let b = bytes[position]
            if b == UInt8(ascii: "#"), let h = peek(1).flatMap(Hex.value),
               let l = peek(2).flatMap(Hex.value) {
                out.append(h << 4 | l)
                position += 3
            } else {
                out.append(b)
                position += 1
            }
        }
        return PDFName(bytes: out)
    }

    /// A hexadecimal string `<...>` (§7.3.4.3); an odd final digit counts as followed by 0,
    /// bytes that are not hex digits are skipped.
    mutating func hexString() throws -> PDFString {
        let bytes = buffer.bytes
        let start = position
        position += 1
        var out: [UInt8] = []
        var high: UInt8? = nil
        var closed = false
        while position < bytes.count {
            let b = bytes[position]
            position += 1
            if b == UInt8(ascii: ">") { closed = true; break }
            guard let v = Hex.value(b) else {
                if strict && !CharClass.isWhitespace(b) { throw PDFError.format("'\(Character(Unicode.Scalar(b)))' in a hexadecimal string", at: position - 1) }
                continue
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        if strict && !closed { throw PDFError.format("unterminated hexadecimal string", at: start) }
        if let h = high { out.append(h << 4) }
        return PDFString(bytes: out, isHex: true)
    }

    /// A literal string `(...)` (§7.3.4.2): balanced parentheses, escapes, end-of-line
    /// markers normalised to LF.
    mutating func literalString() throws -> PDFString {
        let bytes = buffer.bytes
        let start = position
        position += 1
        // Most strings have no escape, no nested parenthesis and no CR: copied at once.
        var end = position
        while end < bytes.count {
            let b = bytes[end]
            if b == UInt8(ascii: ")") || b == UInt8(ascii: "(") || b == UInt8(ascii: "\\") || b == 0x0D { break }
            end += 1
        }
        if end < bytes.count && bytes[end] == UInt8(ascii: ")") {
            let string = PDFString(bytes: Array(UnsafeBufferPointer(rebasing: bytes[position..<end])))
            position = end + 1
            return string
        }
        var out: [UInt8] = []
        var depth = 1
        while position < bytes.count {
            let b = bytes[position]
            position += 1
            switch b {
            case UInt8(ascii: "("):
                depth += 1
                out.append(b)
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return PDFString(bytes: out) }
                out.append(b)
            case 0x0D:
                if peek() == 0x0A { position += 1 }
                out.append(0x0A)
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { break }
                let e = bytes[position]
                position += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case 0x0D: if peek() == 0x0A { position += 1 }  // line continuation
                case 0x0A: break
                case 0x30...0x37:
                    var v = Int(e - 0x30)
                    for _ in 0..<2 {
                        guard let d = peek(), d >= 0x30 && d <= 0x37 else { break }
                        v = v * 8 + Int(d - 0x30)
                        position += 1
                    }
                    out.append(UInt8(truncatingIfNeeded: v))
                default: out.append(e)  // \( \) \\ and unknown escapes: the character itself
                }
            default:
                out.append(b)
            }
        }
        throw PDFError.format("unterminated string", at: start)
    }
}
