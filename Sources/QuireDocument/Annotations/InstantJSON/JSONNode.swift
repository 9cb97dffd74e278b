import QuireSyntax

// MARK: - Reading the JSON tree

/// A value of the parsed tree and where it is, for error messages.
struct JSONNode {
    let value: InstantJSONValue
    let path: String

    func fail(_ message: String) -> PDFError {
        PDFError(.format, "annotation JSON: \(path.isEmpty ? "the top level" : path): \(message)")
    }

    var found: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    func object() throws -> JSONObject {
        guard case .object(let fields) = value else { throw fail("expected an object, found \(found)") }
        return JSONObject(fields: fields, path: path)
    }

    func array() throws -> [JSONNode] {
        guard case .array(let items) = value else { throw fail("expected an array, found \(found)") }
        return items.enumerated().map { JSONNode(value: $1, path: "\(path)[\($0)]") }
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw fail("expected a string, found \(found)") }
        return s
    }

    func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw fail("expected true or false, found \(found)") }
        return b
    }

    /// A finite number no larger in magnitude than ``InstantJSON/maxMagnitude``.
    func number() throws -> Double {
        let d: Double
        switch value {
        case .integer(let i): d = Double(i)
        case .number(let x): d = x
        default: throw fail("expected a number, found \(found)")
        }
        guard d.isFinite, abs(d) <= InstantJSON.maxMagnitude else {
            throw fail("the number \(d) is out of range (at most \(Int(InstantJSON.maxMagnitude)) in magnitude)")
        }
        return d
    }

    /// An integer, by default in 0...Int32.max (page indices, versions, object numbers).
    func integer(in range: ClosedRange<Int64> = 0...Int64(Int32.max)) throws -> Int {
        let i: Int64
        switch value {
        case .integer(let n):
            i = n
        case .number(let x) where x == x.rounded(.towardZero) && abs(x) < 9.2e18:
            i = Int64(x)
        case .number(let x):
            throw fail("expected an integer, found \(x)")
        default:
            throw fail("expected an integer, found \(found)")
        }
        guard range.contains(i) else { throw fail("the integer \(i) is out of range (\(range.lowerBound)...\(range.upperBound))") }
        return Int(i)
    }

    func numbers(count: Int? = nil, maxCount: Int? = nil) throws -> [Double] {
        let items = try array()
        if let count, items.count != count { throw fail("expected \(count) numbers, found \(items.count) items") }
        if let maxCount, items.count > maxCount { throw fail("expected at most \(maxCount) numbers, found \(items.count)") }
        return try items.map { try $0.number() }
    }

    /// A PDF name's value: 1 to 127 characters U+0001...U+00FF (a name's bytes).
    func pdfName() throws -> String {
        let s = try string()
        guard !s.isEmpty, s.unicodeScalars.count <= 127,
              s.unicodeScalars.allSatisfy({ $0.value >= 1 && $0.value <= 0xFF }) else {
            throw fail("\"\(s.prefix(40))\" is not a PDF name (1 to 127 characters, U+0001 to U+00FF)")
        }
        return s
    }
}

struct JSONObject {
    let fields: [String: InstantJSONValue]
    let path: String

    /// The field, nil when it is absent or null (Instant JSON leaves out undefined keys).
    func node(_ key: String) -> JSONNode? {
        guard let v = fields[key], v != .null else { return nil }
        return JSONNode(value: v, path: path.isEmpty ? key : "\(path).\(key)")
    }

    func required(_ key: String) throws -> JSONNode {
        guard let n = node(key) else {
            throw PDFError(.format, "annotation JSON: \(path.isEmpty ? "the top level" : path): missing field \"\(key)\"")
        }
        return n
    }

    func string(_ key: String) throws -> String? { try node(key)?.string() }
}
