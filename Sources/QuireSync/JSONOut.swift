import QuireDocument

/// JSON to write: the answers of the API. Keys keep the order they are given in, and
/// `raw` splices JSON text that is already valid (a stored record) without parsing it again.
indirect enum JSONOut {
    case null
    case bool(Bool)
    case integer(Int64)
    case string(String)
    case array([JSONOut])
    case object([(String, JSONOut)])
    case raw([UInt8])

    static func int(_ v: Int) -> JSONOut { .integer(Int64(v)) }
    static func optional(_ s: String?) -> JSONOut { s.map(JSONOut.string) ?? .null }
    static func optionalRaw(_ b: [UInt8]?) -> JSONOut { b.map(JSONOut.raw) ?? .null }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .string(let s): JSONOut.writeString(s, into: &out)
        case .raw(let b): out.append(contentsOf: b)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONOut.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `s` as a JSON string, escaped as the model escapes it (``InstantJSONValue``).
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(contentsOf: InstantJSONValue.string(s).text.utf8)
    }
}
