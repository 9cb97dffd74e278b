import FoundationEssentials
import QuireSyntax

// MARK: - JSON values

/// A JSON value: the free-form `customData` of Instant JSON, the tree that import reads
/// every record from (so that each error names its field), and what the command-line
/// tool builds its `--json` output from (written with ``text``).
public enum InstantJSONValue: Sendable, Equatable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number that is an integer and fits 64 bits (the parser makes `2.0` one too).
    case integer(Int64)
    /// Any other number. JSON has no infinities or NaN: ``text`` writes them as `null`.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([InstantJSONValue])
    /// An object. Its keys are unordered, as in JSON: writers sort them.
    case object([String: InstantJSONValue])

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object: [String: InstantJSONValue] = [:]
            for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(InstantJSONValue.self, forKey: key) }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [InstantJSONValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(InstantJSONValue.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let b = try? single.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? single.decode(Int64.self) {
            self = .integer(i)
        } else if let d = try? single.decode(Double.self) {
            self = .number(d)
        } else if let s = try? single.decode(String.self) {
            self = .string(s)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "a number out of range"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .integer(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .number(let d):
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for item in a { try c.encode(item) }
        case .object(let o):
            var c = encoder.container(keyedBy: Key.self)
            for (k, v) in o { try c.encode(v, forKey: Key(stringValue: k)) }
        }
    }

    /// Parses JSON text (RFC 8259, UTF-8, an optional byte order mark); errors are
    /// `PDFError(.format)` with the line and column. Integral numbers that fit 64 bits are
    /// `integer` however they are written (`2.0` too), others `number`; numbers beyond
    /// Double's range, nesting deeper than ``InstantJSONParser/maxDepth``, invalid UTF-8
    /// and lone surrogates are errors.
    public init(parsing bytes: [UInt8]) throws {
        var parser = InstantJSONParser(bytes)
        self = try parser.document()
    }

    /// Compact JSON with sorted keys: the form `customData` is stored in.
    public var canonicalText: String {
        // Only non-finite numbers fail to encode, and parsed values have none.
        return (try? JSONTreeWriter.encode(self, prettyPrinted: false)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// A strict JSON parser to ``InstantJSONValue``.
struct InstantJSONParser {
    /// The deepest nesting of arrays and objects accepted. Records need about 8 levels;
    /// the rest is for customData. The parser and the encoder that writes customData back
    /// recurse, about 1.5 KB of stack a level: at 512 levels a 512 KiB thread (macOS's
    /// default for secondary threads) overflowed, at 64 a 128 KiB one does not.
    static let maxDepth = 64

    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    func fail(_ message: String) -> PDFError {
        var line = 1, column = 1
        for b in bytes[..<Swift.min(i, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return PDFError(.format, "annotation JSON: not valid JSON: \(message) at line \(line), column \(column)")
    }

    mutating func document() throws -> InstantJSONValue {
        skipSpace()
        guard i < bytes.count else { throw fail("no value") }
        let v = try value(depth: 0)
        skipSpace()
        guard i == bytes.count else { throw fail("unexpected text after the value") }
        return v
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    mutating func value(depth: Int) throws -> InstantJSONValue {
        guard i < bytes.count else { throw fail("unexpected end of the text") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            guard depth < InstantJSONParser.maxDepth else { throw fail("nesting deeper than \(InstantJSONParser.maxDepth)") }
            i += 1
            var object: [String: InstantJSONValue] = [:]
            skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "}") { i += 1; return .object(object) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
                let key = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                i += 1
                skipSpace()
                object[key] = try value(depth: depth + 1)
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of the text in an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(object) }
                throw fail("expected ',' or '}' in an object")
            }
        case UInt8(ascii: "["):
            guard depth < InstantJSONParser.maxDepth else { throw fail("nesting deeper than \(InstantJSONParser.maxDepth)") }
            i += 1
            var array: [InstantJSONValue] = []
            skipSpace()
            if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1; return .array(array) }
            while true {
                skipSpace()
                array.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unexpected end of the text in an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(array) }
                throw fail("expected ',' or ']' in an array")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw fail("unexpected character")
        }
    }

    mutating func literal(_ word: String) throws {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<(i + w.count)]) == w else { throw fail("unexpected character") }
        i += w.count
    }

    mutating func number() throws -> InstantJSONValue {
        let start = i
        var integral = true
        func digits() -> Int {
            let from = i
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
            return i - from
        }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        let intStart = i
        let n = digits()
        guard n > 0 else { throw fail("a number needs digits") }
        guard !(n > 1 && bytes[intStart] == UInt8(ascii: "0")) else { throw fail("a number cannot start with 0") }
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            guard digits() > 0 else { throw fail("a number needs digits after '.'") }
        }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            integral = false
            i += 1
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            guard digits() > 0 else { throw fail("a number needs digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if integral, let v = Int64(text) { return .integer(v) }
        guard let d = Double(text), d.isFinite else {
            i = start
            throw fail("the number \(text.prefix(40)) is out of range")
        }
        if d == d.rounded(), abs(d) < 9.2e18 { return .integer(Int64(d)) }
        return .number(d)
    }

    mutating func string() throws -> String {
        i += 1  // the opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw fail("a control character in a string (escape it)") }
            if b != UInt8(ascii: "\\") { out.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw fail("unterminated string") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw fail("a lone surrogate in a string")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone surrogate in a string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("a lone surrogate in a string")
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                i -= 1
                throw fail("an unknown escape in a string")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("a string is not valid UTF-8") }
        return s
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("a \\u escape needs four hexadecimal digits") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            guard let d = Hex.value(c) else { throw fail("a \\u escape needs four hexadecimal digits") }
            v = v * 16 + UInt32(d)
            i += 1
        }
        return v
    }
}

// MARK: - Writing

extension InstantJSONValue {
    /// The value as JSON text on one line, for output that people read as well as programs
    /// (the command-line tool's `--json`): `", "` between items and `": "` after each key,
    /// keys in sorted order, integral numbers below 10^15 in magnitude without a fraction,
    /// other numbers in Swift's shortest form that reads back the same (`0.1`, `1e+20`),
    /// non-finite numbers as `null`, and `"`, `\` and control characters escaped.
    /// ``canonicalText`` is the compact form that custom data is stored in.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends ``text`` to `out`.
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d):
            if !d.isFinite {
                out += "null"
            } else if d == d.rounded() && abs(d) < 1e15 {
                out += String(Int64(d))
            } else {
                out += String(d)
            }
        case .string(let s): InstantJSONValue.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (k, item) in items.enumerated() {
                if k > 0 { out += ", " }
                item.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (k, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if k > 0 { out += ", " }
                InstantJSONValue.quote(field.key, into: &out)
                out += ": "
                field.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// `s` as a JSON string: quoted, with `"`, `\`, newline, return and tab escaped by
    /// letter and the other control characters as `\u00XX`.
    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

// MARK: Reading values

/// The one set of accessors for JSON values (issue 32: the sync server, its client and their
/// tests each defined their own, with different names).
extension InstantJSONValue {
    /// Compact JSON with sorted keys, as UTF-8 bytes (``canonicalText``): the form records
    /// are stored, compared and digested in.
    public var canonicalBytes: [UInt8] { Array(canonicalText.utf8) }

    /// The fields of an object; nil for another kind of value.
    public var objectValue: [String: InstantJSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The text of a string; nil for another kind of value.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An integer (a number written without fraction or exponent); nil otherwise.
    public var integerValue: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    /// The items of an array; nil for another kind of value.
    public var arrayValue: [InstantJSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A boolean; nil for another kind of value.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The field `key` of an object; nil when absent or not an object.
    public subscript(key: String) -> InstantJSONValue? { objectValue?[key] }

    /// The item at `index` of an array; nil when out of range or not an array.
    public subscript(index: Int) -> InstantJSONValue? {
        guard let a = arrayValue, index >= 0, index < a.count else { return nil }
        return a[index]
    }
}
