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
    /// entries is as fast and allocates nothing. Annotations often have 17 to 20 keys: at
    /// 16, building an index for each (while parsed, then again here) was 9% of a full save
    /// of the benchmark's large document.
    static let indexThreshold = 32

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

    /// A reference, or a container that may hold one: what a walk over references visits
    /// (numbers, names and strings are most of the values it would otherwise call on).
    @inline(__always)
    var mayHoldReferences: Bool {
        switch self {
        case .reference, .array, .dictionary, .stream: return true
        default: return false
        }
    }

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

/// The names that make up most keys and values of real files, made once: the lexer returns
/// these instead of decoding each name's bytes into a new String (half of the cost of
/// lexing a name). A name's bytes, up to 16, packed into two words, are hashed into an
/// open-addressed table; a name not in it (or with a `#` escape) is made as before.
enum CommonNames {
    static let names: [PDFName] = [
        // Annotations and their appearances
        "Annot", "Annots", "Subtype", "Rect", "Contents", "RC", "T", "Subj", "NM", "CreationDate", "M", "F",
        "C", "IC", "CA", "ca", "BS", "Border", "Popup", "IRT", "RT", "State", "StateModel", "QuadPoints",
        "InkList", "L", "LE", "Vertices", "DA", "DS", "Name", "A", "Dest", "P", "Parent", "Open", "AP", "N",
        "D", "AS", "IT", "RD", "S", "W", "Text", "FreeText", "Line", "Square", "Circle", "Polygon",
        "PolyLine", "Highlight", "Underline", "Squiggly", "StrikeOut", "Ink", "Stamp", "Caret", "Link",
        "Widget", "FileAttachment", "Sound", "Movie", "Screen", "Group", "Comment", "Note", "URI", "GoTo",
        "Launch", "JavaScript", "JS", "Next", "H", "Q", "MK", "FT", "Ff", "V", "DV", "Kids", "Fields",
        "AcroForm", "DR", "NeedAppearances", "Opt", "TU", "TM", "Tx", "Btn", "Ch", "Sig", "Off", "Yes",
        // Document structure
        "Type", "Catalog", "Pages", "Page", "Count", "MediaBox", "CropBox", "BleedBox", "TrimBox", "ArtBox",
        "Rotate", "Resources", "UserUnit", "Metadata", "Outlines", "First", "Last", "Prev", "Title",
        "Names", "Dests", "PageLabels", "PageMode", "PageLayout", "ViewerPreferences", "StructTreeRoot",
        "MarkInfo", "Lang", "OCProperties", "Info", "Root", "Size", "ID", "Encrypt", "XRef", "ObjStm",
        "Index", "Extends", "XRefStm", "Length", "Filter", "DecodeParms", "FlateDecode", "DCTDecode",
        "Predictor", "Columns", "Colors", "BitsPerComponent", "Producer", "Creator", "Author", "ModDate",
        "Subject", "Keywords", "Trapped", "Tabs", "StructParents", "Fit", "XYZ", "FitH", "FitR",
        // Resources, fonts, images
        "Font", "XObject", "ExtGState", "ColorSpace", "Pattern", "Shading", "Properties", "ProcSet", "PDF",
        "ImageB", "ImageC", "ImageI", "Form", "Image", "BBox", "Matrix", "Width", "Height", "Mask", "SMask",
        "DeviceRGB", "DeviceGray", "DeviceCMYK", "ICCBased", "Indexed", "Decode", "Interpolate",
        "BaseFont", "Encoding", "FirstChar", "LastChar", "Widths", "FontDescriptor", "ToUnicode",
        "Type0", "Type1", "Type3", "TrueType", "CIDFontType0", "CIDFontType2", "DescendantFonts",
        "CIDSystemInfo", "Registry", "Ordering", "Supplement", "WinAnsiEncoding", "MacRomanEncoding",
        "Identity-H", "Differences", "FontName", "FontFamily", "Flags", "FontBBox", "ItalicAngle",
        "Ascent", "Descent", "CapHeight", "StemV", "XHeight", "FontFile", "FontFile2", "FontFile3",
        "MissingWidth", "Helv", "ZaDb", "Helvetica", "Times-Roman", "Courier", "Symbol", "ZapfDingbats",
        "GS0", "F1", "F2", "Im1", "Fm1", "LW", "LC", "LJ", "ML", "SA", "BM", "Normal", "OP", "op", "OPM",
    ]

    struct Slot {
        var w0: UInt64 = 0
        var w1: UInt64 = 0
        var length = 0
        var index = -1
    }

    static let size = 1024

    @inline(__always)
    static func slot(_ w0: UInt64, _ w1: UInt64, _ length: Int) -> Int {
        let h = (w0 &* 0x9E37_79B9_7F4A_7C15) ^ (w1 &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: length)
        return Int(truncatingIfNeeded: (h ^ (h >> 29)) & UInt64(size - 1))
    }

    /// Up to 16 bytes packed little-endian into two words, zeros after them.
    @inline(__always)
    static func pack(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> (UInt64, UInt64) {
        // Two loads and masks where 16 bytes from `start` are within the buffer.
        if start >= 0, length <= 16, start + 16 <= bytes.count, let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base + start)
            var w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            var w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if length < 8 {
                w0 &= (1 << UInt64(8 * length)) - 1
                w1 = 0
            } else if length < 16 {
                w1 &= (1 << UInt64(8 * (length - 8))) - 1
            }
            return (w0, w1)
        }
        var w0: UInt64 = 0, w1: UInt64 = 0
        var k = 0
        while k < length && k < 8 {
            w0 |= UInt64(bytes[start + k]) << UInt64(8 * k)
            k += 1
        }
        while k < length {
            w1 |= UInt64(bytes[start + k]) << UInt64(8 * (k - 8))
            k += 1
        }
        return (w0, w1)
    }

    static let table: [Slot] = {
        var table = [Slot](repeating: Slot(), count: size)
        for (i, name) in names.enumerated() {
            let bytes = Array(name.value.utf8)
            guard bytes.count >= 1 && bytes.count <= 16 else { continue }
            let (w0, w1) = bytes.withUnsafeBufferPointer { pack($0, 0, bytes.count) }
            var s = slot(w0, w1, bytes.count)
            while table[s].index >= 0 {
                if table[s].w0 == w0 && table[s].w1 == w1 && table[s].length == bytes.count { break }  // listed twice
                s = (s + 1) & (size - 1)
            }
            if table[s].index < 0 { table[s] = Slot(w0: w0, w1: w1, length: bytes.count, index: i) }
        }
        return table
    }()

    /// The name `bytes[start..<end]` (no `#` escape in it) if it is one of ``names``.
    @inline(__always)
    static func lookup(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> PDFName? {
        let length = end - start
        guard length >= 1 && length <= 16 else { return nil }
        let (w0, w1) = pack(bytes, start, length)
        return table.withUnsafeBufferPointer { table in
            var s = slot(w0, w1, length)
            while true {
                let entry = table[s]
                if entry.index < 0 { return nil }
                if entry.w0 == w0 && entry.w1 == w1 && entry.length == length { return names[entry.index] }
                s = (s + 1) & (size - 1)
            }
        }
    }
}
