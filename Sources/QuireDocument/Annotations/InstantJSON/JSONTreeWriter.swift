import FoundationEssentials

// MARK: - Writing Encodable values as JSON, fast

/// Writes an `Encodable` value as JSON with sorted keys, byte for byte as `JSONEncoder` with
/// `[.sortedKeys, .withoutEscapingSlashes]` (and `.prettyPrinted` when asked) writes it:
/// the same key order, the same number forms (a Double's shortest form without `.0`,
/// `1e-07`, `1e+16`), the same escapes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// `\u00xx` for the other control characters, nothing else), the same pretty layout
/// (two-space indent, `"key" : value`, an empty container as `[` newline newline `]`).
///
/// Why not `JSONEncoder`: the export of 36,000 annotations spent a third of its time and
/// most of its memory there (a tree of boxed values with coding paths, then the text),
/// for a format with no strategies. This encoder keeps a plain tree (no coding paths, no
/// strategies: the records use none), and ``JSONTreeWriterTests`` compares the two on
/// every kind of value the records hold.
enum JSONTreeWriter {
    /// `value` as JSON text.
    static func encode<T: Encodable>(_ value: T, prettyPrinted: Bool) throws -> [UInt8] {
        let tree = try tree(of: value)
        var out: [UInt8] = []
        try write(tree, prettyPrinted: prettyPrinted, depth: 0, to: &out)
        return out
    }

    /// The tree of `value`: what its `encode(to:)` made (an empty object when it made
    /// nothing, as `JSONEncoder` writes it).
    static func tree<T: Encodable>(of value: T) throws -> JSONTree {
        if let scalar = JSONTree.scalar(value) { return scalar }
        let slot = JSONSlot()
        try value.encode(to: JSONTreeEncoder(slot: slot))
        return slot.value ?? .object(JSONObjectBox())
    }

    /// Appends `tree` to `out`; `depth` is the nesting level of the value (for the pretty
    /// layout's indentation).
    static func write(_ tree: JSONTree, prettyPrinted: Bool, depth: Int, to out: inout [UInt8]) throws {
        switch tree {
        case .null: out += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let b): out += b ? Array("true".utf8) : Array("false".utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .uint(let u): out += Array(String(u).utf8)
        case .double(let d): try writeNumber(d, to: &out)
        case .float(let f): try writeNumber(f, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .deferred(let slot):
            try write(slot.value ?? .object(JSONObjectBox()), prettyPrinted: prettyPrinted, depth: depth, to: &out)
        case .array(let box):
            out.append(UInt8(ascii: "["))
            if prettyPrinted {
                out.append(0x0A)
                for (k, item) in box.items.enumerated() {
                    if k > 0 { out += [UInt8(ascii: ","), 0x0A] }
                    indent(depth + 1, &out)
                    try write(item, prettyPrinted: true, depth: depth + 1, to: &out)
                }
                out.append(0x0A)
                indent(depth, &out)
            } else {
                for (k, item) in box.items.enumerated() {
                    if k > 0 { out.append(UInt8(ascii: ",")) }
                    try write(item, prettyPrinted: false, depth: depth + 1, to: &out)
                }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let box):
            out.append(UInt8(ascii: "{"))
            let keys = box.values.keys.sorted()
            if prettyPrinted { out.append(0x0A) }
            for (k, key) in keys.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                if prettyPrinted {
                    if k > 0 { out.append(0x0A) }
                    indent(depth + 1, &out)
                }
                writeString(key, to: &out)
                out += prettyPrinted ? [0x20, UInt8(ascii: ":"), 0x20] : [UInt8(ascii: ":")]
                // The key came from the dictionary: its value is there.
                try write(box.values[key] ?? .null, prettyPrinted: prettyPrinted, depth: depth + 1, to: &out)
            }
            if prettyPrinted {
                out.append(0x0A)
                indent(depth, &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A floating-point number as `JSONEncoder` writes it: its shortest form without `.0`;
    /// JSON has no infinities or NaN, which throw.
    private static func writeNumber<F: BinaryFloatingPoint & CustomStringConvertible>(
        _ v: F,
        to out: inout [UInt8]
    ) throws {
        guard v.isFinite else {
            throw EncodingError.invalidValue(v, .init(codingPath: [], debugDescription: "JSON has no \(v)"))
        }
        var text = v.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out += Array(text.utf8)
    }

    private static func indent(_ depth: Int, _ out: inout [UInt8]) {
        out.append(contentsOf: repeatElement(0x20, count: 2 * depth))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0..<0x20:
                out += [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)],
                ]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A JSON value as an encoder builds it: containers are boxes, filled after they are
/// handed out (a nested container is written to after its parent holds it).
enum JSONTree {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case float(Float)
    case string(String)
    case array(JSONArrayBox)
    case object(JSONObjectBox)

    /// What a super encoder makes, read when the tree is written.
    case deferred(JSONSlot)

    /// The tree of a scalar value (the types `JSONEncoder` writes as scalars), or nil. The
    /// type is compared first: a failing dynamic cast for every record would cost more than
    /// the encoding.
    static func scalar<T: Encodable>(_ value: T) -> JSONTree? {
        if T.self == String.self, let v = value as? String { return .string(v) }
        if T.self == Double.self, let v = value as? Double { return .double(v) }
        if T.self == Int.self, let v = value as? Int { return .int(Int64(v)) }
        if T.self == Bool.self, let v = value as? Bool { return .bool(v) }
        if T.self == Float.self, let v = value as? Float { return .float(v) }
        if T.self == Int64.self, let v = value as? Int64 { return .int(v) }
        if T.self == Int32.self, let v = value as? Int32 { return .int(Int64(v)) }
        if T.self == Int16.self, let v = value as? Int16 { return .int(Int64(v)) }
        if T.self == Int8.self, let v = value as? Int8 { return .int(Int64(v)) }
        if T.self == UInt.self, let v = value as? UInt { return .uint(UInt64(v)) }
        if T.self == UInt64.self, let v = value as? UInt64 { return .uint(v) }
        if T.self == UInt32.self, let v = value as? UInt32 { return .uint(UInt64(v)) }
        if T.self == UInt16.self, let v = value as? UInt16 { return .uint(UInt64(v)) }
        if T.self == UInt8.self, let v = value as? UInt8 { return .uint(UInt64(v)) }
        return nil
    }
}

final class JSONArrayBox {
    var items: [JSONTree] = []
}

final class JSONObjectBox {
    var values: [String: JSONTree] = [:]
}

/// Where an encoder puts the value it makes.
final class JSONSlot {
    var value: JSONTree?

    func object() -> JSONObjectBox {
        if case .object(let box)? = value { return box }
        let box = JSONObjectBox()
        value = .object(box)
        return box
    }

    func array() -> JSONArrayBox {
        if case .array(let box)? = value { return box }
        let box = JSONArrayBox()
        value = .array(box)
        return box
    }
}

struct JSONTreeEncoder: Encoder {
    let slot: JSONSlot
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(JSONTreeKeyed<Key>(box: slot.object()))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        JSONTreeUnkeyed(box: slot.array())
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        JSONTreeSingle(slot: slot)
    }
}

private struct JSONTreeKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONObjectBox
    var codingPath: [CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { box.values[key.stringValue] = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.values[key.stringValue] = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { box.values[key.stringValue] = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { box.values[key.stringValue] = .double(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { box.values[key.stringValue] = .float(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { box.values[key.stringValue] = .int(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { box.values[key.stringValue] = .int(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.values[key.stringValue] = try JSONTreeWriter.tree(of: value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        box.values[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(JSONTreeKeyed<NestedKey>(box: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        box.values[key.stringValue] = .array(nested)
        return JSONTreeUnkeyed(box: nested)
    }

    mutating func superEncoder() -> Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> Encoder {
        let slot = JSONSlot()
        box.values[name] = .deferred(slot)
        return JSONTreeEncoder(slot: slot)
    }
}

private struct JSONTreeUnkeyed: UnkeyedEncodingContainer {
    let box: JSONArrayBox
    var codingPath: [CodingKey] { [] }
    var count: Int { box.items.count }

    mutating func encodeNil() throws { box.items.append(.null) }
    mutating func encode(_ value: Bool) throws { box.items.append(.bool(value)) }
    mutating func encode(_ value: String) throws { box.items.append(.string(value)) }
    mutating func encode(_ value: Double) throws { box.items.append(.double(value)) }
    mutating func encode(_ value: Float) throws { box.items.append(.float(value)) }
    mutating func encode(_ value: Int) throws { box.items.append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { box.items.append(.int(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { box.items.append(try JSONTreeWriter.tree(of: value)) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBox()
        box.items.append(.object(nested))
        return KeyedEncodingContainer(JSONTreeKeyed<NestedKey>(box: nested))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let nested = JSONArrayBox()
        box.items.append(.array(nested))
        return JSONTreeUnkeyed(box: nested)
    }

    mutating func superEncoder() -> Encoder {
        let slot = JSONSlot()
        box.items.append(.deferred(slot))
        return JSONTreeEncoder(slot: slot)
    }
}

private struct JSONTreeSingle: SingleValueEncodingContainer {
    let slot: JSONSlot
    var codingPath: [CodingKey] { [] }

    mutating func encodeNil() throws { slot.value = .null }
    mutating func encode(_ value: Bool) throws { slot.value = .bool(value) }
    mutating func encode(_ value: String) throws { slot.value = .string(value) }
    mutating func encode(_ value: Double) throws { slot.value = .double(value) }
    mutating func encode(_ value: Float) throws { slot.value = .float(value) }
    mutating func encode(_ value: Int) throws { slot.value = .int(Int64(value)) }
    mutating func encode(_ value: Int64) throws { slot.value = .int(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { slot.value = try JSONTreeWriter.tree(of: value) }
}
