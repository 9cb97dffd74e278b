/// The number and generation of an indirect object (ISO 32000-2 §7.3.10).
public struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let number: Int
    public let generation: Int

    public init(_ number: Int, _ generation: Int = 0) {
        self.number = number
        self.generation = generation
    }

    public var description: String { "\(number) \(generation) R" }

    public static func < (a: ObjectID, b: ObjectID) -> Bool {
        (a.number, a.generation) < (b.number, b.generation)
    }
}

/// A PDF name (§7.3.5), without its slash and with `#xx` escapes decoded.
///
/// Names are byte sequences; each byte is kept as the Unicode scalar of the same value
/// (Latin-1), so that every name round-trips exactly and ASCII names read as themselves.
public struct PDFName: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let value: String

    public init(_ value: String) { self.value = value }
    public init(stringLiteral value: String) { self.value = value }

    /// Decodes raw name bytes (after `#xx` unescaping).
    public init(bytes: [UInt8]) {
        self.init(bytes: bytes[...])
    }

    /// Decodes raw name bytes (after `#xx` unescaping).
    public init<C: Collection>(bytes: C) where C.Element == UInt8 {
        // ASCII, nearly every name: Latin-1 and UTF-8 agree, and a name of up to 15 bytes
        // becomes a small string without an allocation.
        if bytes.allSatisfy({ $0 < 0x80 }) {
            value = String(decoding: bytes, as: UTF8.self)
            return
        }
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(bytes.count)
        for b in bytes { scalars.append(Unicode.Scalar(b)) }
        value = String(scalars)
    }

    /// The raw bytes of the name.
    public var bytes: [UInt8] {
        value.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : UInt8(ascii: "?") }
    }

    public var description: String { "/" + value }

    /// Names are byte sequences: equal when their bytes are. Lengths are compared first,
    /// which rejects most keys of a dictionary lookup without a string comparison (that
    /// comparison was 5% of the instructions of reading annotations). Stricter than
    /// String's canonical equivalence, so the synthesized hash stays consistent.
    @inlinable
    public static func == (a: PDFName, b: PDFName) -> Bool {
        a.value.utf8.count == b.value.utf8.count && a.value == b.value
    }
}

/// A PDF string (§7.3.4): bytes, with the form it was written in.
public struct PDFString: Hashable, Sendable {
    public var bytes: [UInt8]
    /// Written as `<...>` rather than `(...)`.
    public var isHex: Bool

    public init(bytes: [UInt8], isHex: Bool = false) {
        self.bytes = bytes
        self.isHex = isHex
    }

    /// A string holding `text` as a PDF text string (§7.9.2.2): PDFDocEncoding when it
    /// can, else UTF-16BE with a byte order mark.
    public init(text: String) {
        bytes = TextString.encode(text)
        isHex = false
    }

    /// The string decoded as a PDF text string.
    public var text: String { TextString.decode(bytes) }
}

/// A dictionary (§7.3.7) that keeps its entries in file order.
///
/// Order matters for faithful output. A key written twice keeps its last value. Lookup
/// scans the entries of a small dictionary (nearly all of them); past `indexThreshold`
/// entries a hash index from key to position is kept as well, so that a hostile
/// dictionary of 40,000 keys, copied key by key, costs O(K) and not O(K²).
public struct PDFDictionary: Sendable, Equatable, Sequence {
    public private(set) var entries: [(key: PDFName, value: PDFObject)] = []
    /// Position of each key in `entries`; nil while `entries.count <= indexThreshold`.
    private var index: [PDFName: Int]?

    /// The size past which a dictionary keeps a hash index: below it, a scan of the
    /// entries is as fast and allocates nothing.
    static let indexThreshold = 16

    public init() {}

    public init(_ entries: [(PDFName, PDFObject)]) {
        for (k, v) in entries { self[k] = v }
    }

    /// A dictionary of entries whose keys are distinct and whose values are not null (the
    /// parser checks both as it reads, in constant time per entry).
    init(uniqueEntries: [(key: PDFName, value: PDFObject)]) {
        entries = uniqueEntries
        if entries.count > Self.indexThreshold { rebuildIndex() }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [PDFName] { entries.map(\.key) }

    private func position(of key: PDFName) -> Int? {
        if let index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    private mutating func rebuildIndex() {
        var map = [PDFName: Int](minimumCapacity: entries.count)
        for (i, e) in entries.enumerated() { map[e.key] = i }
        index = map
    }

    /// The value for `key`; nil when absent. Setting nil or `.null` removes the entry
    /// (a null value and an absent key mean the same, §7.3.7).
    public subscript(key: PDFName) -> PDFObject? {
        get {
            position(of: key).map { entries[$0].value }
        }
        set {
            switch (position(of: key), newValue) {
            case (let i?, .some(let v)) where v != .null:
                entries[i].value = v
            case (let i?, _):
                entries.remove(at: i)
                if entries.count <= Self.indexThreshold {
                    index = nil
                } else if var map = index {
                    index = nil  // the map's only reference: updated without a copy
                    // The entries after i moved down by one.
                    map[key] = nil
                    for j in i..<entries.count { map[entries[j].key] = j }
                    index = map
                }
            case (nil, .some(let v)) where v != .null:
                entries.append((key, v))
                if var map = index {
                    index = nil
                    map[key] = entries.count - 1
                    index = map
                } else if entries.count > Self.indexThreshold {
                    rebuildIndex()
                }
            default: break
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: PDFName, value: PDFObject)]> {
        entries.makeIterator()
    }

    /// Equal when the entries are equal, in the same order (the index is derived from them).
    public static func == (a: PDFDictionary, b: PDFDictionary) -> Bool {
        a.entries.count == b.entries.count
            && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

/// Where a stream's encoded bytes are.
public enum StreamData: Sendable, Equatable {
    /// `length` bytes at `offset` of the file's bytes.
    case file(offset: Int, length: Int)
    /// Bytes held in memory (a stream created or changed by Quire).
    case bytes([UInt8])
}

/// A stream (§7.3.8): its dictionary and where its encoded data is.
public struct PDFStream: Sendable, Equatable {
    public var dictionary: PDFDictionary
    public var data: StreamData
    /// The indirect object the stream was parsed from; nil for a stream made in memory.
    /// The data of an encrypted document's stream is decrypted with this id.
    public var objectID: ObjectID?
    /// The bytes that `.file` data points into. A stream keeps them alive, so its data
    /// stays right even after its document has been saved and continues from other bytes.
    public var source: ByteBuffer?

    public init(dictionary: PDFDictionary, data: StreamData, objectID: ObjectID? = nil, source: ByteBuffer? = nil) {
        self.dictionary = dictionary
        self.data = data
        self.objectID = objectID
        self.source = source
    }

    public static func == (a: PDFStream, b: PDFStream) -> Bool {
        a.dictionary == b.dictionary && a.data == b.data && a.objectID == b.objectID && a.source === b.source
    }
}

/// A PDF object (§7.3).
///
/// Only streams are boxed (`indirect`): every other case is held inline (arrays and
/// dictionaries are already references to their storage), so that parsing a number, a
/// name or a reference allocates nothing (a fully `indirect` enum allocated one box per
/// value: 7% of the instructions of reading a large document's annotations).
public enum PDFObject: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(PDFString)
    case name(PDFName)
    case array([PDFObject])
    case dictionary(PDFDictionary)
    indirect case stream(PDFStream)
    case reference(ObjectID)

    public var dictionary: PDFDictionary? {
        switch self {
        case .dictionary(let d): return d
        case .stream(let s): return s.dictionary
        default: return nil
        }
    }

    public var array: [PDFObject]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var name: PDFName? {
        if case .name(let n) = self { return n }
        return nil
    }

    public var string: PDFString? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var reference: ObjectID? {
        if case .reference(let r) = self { return r }
        return nil
    }

    /// An integer, or a real with an integral value that fits.
    public var integer: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let r) where r.rounded() == r && abs(r) < 9.0e15: return Int64(r)
        default: return nil
        }
    }

    /// An integer or a real, as a Double.
    public var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let r): return r
        default: return nil
        }
    }

    public var isNull: Bool { self == .null }

    /// A short name of the type, for messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .real: return "real"
        case .string: return "string"
        case .name: return "name"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .stream: return "stream"
        case .reference: return "reference"
        }
    }
}
