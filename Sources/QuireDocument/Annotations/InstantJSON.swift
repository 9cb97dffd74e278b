import FoundationEssentials
import QuireSyntax

// Annotations as JSON, shaped after PSPDFKit's (Nutrient's) Instant JSON and extended with
// what Instant JSON lacks (replies, review states, exact PDF values). The schema, field by
// field, is docs/annotation-json.md; the summary:
//
// - The top level is `{"format": "https://pspdfkit.com/instant-json/v1", "quire": {"version":
//   1, ...}, "annotations": [...]}`; every annotation record has `v: 1`.
// - Records follow Instant JSON: `type` (`pspdfkit/shape/rectangle`, ...), `pageIndex`,
//   `bbox` as [left, top, width, height] in points from the top left of the page's crop box
//   (the media box when there is none), y downwards, the page's /Rotate not applied; point
//   lists flipped the same way; colours as "#RRGGBB"; ISO 8601 dates; flags by name.
// - Everything else the model reads goes in the record's `quire` object. Where an Instant
//   JSON field cannot hold a value exactly (a CMYK colour, a date without a zone, quads that
//   are not rectangles, coordinates that do not survive the flip bit for bit), the exact
//   value is written there too and wins on import as long as it still agrees with the
//   Instant JSON field; a client that changes the Instant JSON field therefore wins.
// - `id` is the annotation's /NM (else its object number, as PSPDFKit does). Import matches
//   a record to the annotation it came from by object (`pdfObjectId`) and then by /NM on the
//   same page, updates it, and creates the others with the NM `name ?? id`: a document's own
//   export imports as a no-op (docs/annotation-json.md, "Identity, updates and replies").

// MARK: - JSON values

/// A JSON value: the free-form `customData` of Instant JSON, and the tree that import
/// reads every record from (so that each error names its field).
public enum InstantJSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([InstantJSONValue])
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only non-finite numbers fail to encode, and parsed values have none.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
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
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - 0x41 + 10)
            default: throw fail("a \\u escape needs four hexadecimal digits")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }
}

// MARK: - The schema

/// A JSON export of annotations: Instant JSON's document shape with a Quire marker.
public struct InstantJSONDocument: Codable, Sendable, Equatable {
    /// Instant JSON's format marker.
    public static let instantJSONFormat = "https://pspdfkit.com/instant-json/v1"

    /// Instant JSON's `format` (optional on import; when present it must be the v1 marker).
    public var format: String? = InstantJSONDocument.instantJSONFormat
    /// Quire's marker: the version of Quire's extensions (absent in plain Instant JSON).
    public var quire: InstantJSONQuireInfo? = InstantJSONQuireInfo()
    public var annotations: [InstantJSONAnnotation] = []

    public init(annotations: [InstantJSONAnnotation] = []) { self.annotations = annotations }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    /// Reads the JSON text of a document.
    public init(jsonBytes bytes: [UInt8]) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(parsing: bytes), path: ""))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        format = try o.string("format")
        if let f = format, f != InstantJSONDocument.instantJSONFormat {
            throw o.node("format")!.fail("\"\(f)\" is not Instant JSON (\"\(InstantJSONDocument.instantJSONFormat)\")")
        }
        quire = try o.node("quire").map(InstantJSONQuireInfo.init(json:))
        annotations = try o.required("annotations").array().map(InstantJSONAnnotation.init(json:))
    }
}

/// The top-level `quire` object.
public struct InstantJSONQuireInfo: Codable, Sendable, Equatable {
    /// The version of Quire's extensions: 1.
    public var version: Int = 1
    /// The number of pages of the exported document.
    public var pageCount: Int?
    /// For the export of one page: its index (absent for a whole document).
    public var pageIndex: Int?

    public init(version: Int = 1, pageCount: Int? = nil, pageIndex: Int? = nil) {
        self.version = version
        self.pageCount = pageCount
        self.pageIndex = pageIndex
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let v = try o.required("version")
        version = try v.integer()
        guard version == 1 else { throw v.fail("Quire annotation JSON version \(version) is not supported (this Quire reads version 1)") }
        pageCount = try o.node("pageCount")?.integer()
        pageIndex = try o.node("pageIndex")?.integer()
    }
}

/// One annotation record: Instant JSON's fields, and Quire's in `quire`.
public struct InstantJSONAnnotation: Codable, Sendable, Equatable {
    /// The record version: 1 (import also reads 2, whose `text` is `{format, value}`).
    public var v: Int = 1
    /// `pspdfkit/...`, or `quire/generic` for the other PDF subtypes.
    public var type: String
    /// The annotation's /NM; else its object number as a string.
    public var id: String?
    /// The annotation's /NM.
    public var name: String?
    /// The annotation's object number in the exporting document (ignored on import).
    public var pdfObjectId: Int?
    public var pageIndex: Int
    /// [left, top, width, height] in points from the top left of the crop box.
    public var bbox: [Double]
    public var opacity: Double?
    /// noPrint, invisible, hidden, noZoom, noRotate, noView, readOnly, locked,
    /// toggleNoView, lockedContents.
    public var flags: [String]?
    public var createdAt: String?
    public var updatedAt: String?
    public var creatorName: String?
    /// A JSON object for the application.
    public var customData: InstantJSONValue?
    /// The contents, for every type but notes and free text.
    public var note: String?
    /// The contents of notes (`pspdfkit/note`) and free text (`pspdfkit/text`).
    public var text: String?
    /// A note's icon: comment, help, note, ... (the /Name with a lowercase first letter).
    public var icon: String?
    /// A stamp's /Name: Approved, Draft, ...
    public var stampType: String?
    public var color: String?
    public var strokeColor: String?
    public var fillColor: String?
    public var borderColor: String?
    public var fontColor: String?
    public var strokeWidth: Double?
    public var lineWidth: Double?
    public var borderWidth: Double?
    public var fontSize: Double?
    /// Text markup: one bbox-like rectangle per quadrilateral.
    public var rects: [[Double]]?
    /// Ink: the strokes.
    public var lines: InstantJSONLines?
    /// Lines.
    public var startPoint: [Double]?
    public var endPoint: [Double]?
    public var lineCaps: InstantJSONLineCaps?
    /// Polygons and polylines: the vertices.
    public var points: [[Double]]?
    public var action: InstantJSONAction?
    /// Quire's extensions.
    public var quire: InstantJSONQuireFields?

    public init(type: String, pageIndex: Int, bbox: [Double]) {
        self.type = type
        self.pageIndex = pageIndex
        self.bbox = bbox
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        let vNode = try o.required("v")
        v = try vNode.integer()
        guard v == 1 || v == 2 else { throw vNode.fail("record version \(v) is not supported (Quire reads 1 and 2)") }
        type = try o.required("type").string()
        id = try o.string("id")
        name = try o.string("name")
        pdfObjectId = try o.node("pdfObjectId")?.integer()
        pageIndex = try o.required("pageIndex").integer()
        bbox = try o.required("bbox").numbers(count: 4)
        opacity = try o.node("opacity")?.number()
        flags = try o.node("flags")?.array().map { try $0.string() }
        createdAt = try o.string("createdAt")
        updatedAt = try o.string("updatedAt")
        creatorName = try o.string("creatorName")
        if let c = o.node("customData") {
            _ = try c.object()
            customData = c.value
        }
        note = try o.string("note")
        if let t = o.node("text") {
            if case .string(let s) = t.value {
                text = s
            } else {
                let to = try t.object()
                let format = try to.string("format") ?? "plain"
                guard format == "plain" else {
                    throw to.node("format")!.fail("text in the \"\(format)\" format is not supported (plain only)")
                }
                text = try to.string("value") ?? ""
            }
        }
        icon = try o.string("icon")
        stampType = try o.string("stampType")
        color = try o.string("color")
        strokeColor = try o.string("strokeColor")
        fillColor = try o.string("fillColor")
        borderColor = try o.string("borderColor")
        fontColor = try o.string("fontColor")
        strokeWidth = try o.node("strokeWidth")?.number()
        lineWidth = try o.node("lineWidth")?.number()
        borderWidth = try o.node("borderWidth")?.number()
        fontSize = try o.node("fontSize")?.number()
        rects = try o.node("rects")?.array().map { try $0.numbers(count: 4) }
        lines = try o.node("lines").map(InstantJSONLines.init(json:))
        startPoint = try o.node("startPoint")?.numbers(count: 2)
        endPoint = try o.node("endPoint")?.numbers(count: 2)
        lineCaps = try o.node("lineCaps").map(InstantJSONLineCaps.init(json:))
        points = try o.node("points")?.array().map { try $0.numbers(count: 2) }
        action = try o.node("action").map(InstantJSONAction.init(json:))
        quire = try o.node("quire").map(InstantJSONQuireFields.init(json:))
    }
}

/// Instant JSON's ink lines: the points of each stroke and their pressure (Quire writes
/// 0.5, Instant JSON's default, and ignores them on import).
public struct InstantJSONLines: Codable, Sendable, Equatable {
    public var points: [[[Double]]]
    public var intensities: [[Double]]?

    public init(points: [[[Double]]], intensities: [[Double]]? = nil) {
        self.points = points
        self.intensities = intensities
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        points = try o.required("points").array().map { try $0.array().map { try $0.numbers(count: 2) } }
        intensities = try o.node("intensities")?.array().map { try $0.array().map { try $0.number() } }
    }
}

/// Instant JSON's line caps: the ending at each end (absent: none).
public struct InstantJSONLineCaps: Codable, Sendable, Equatable {
    public var start: String?
    public var end: String?

    public init(start: String? = nil, end: String? = nil) {
        self.start = start
        self.end = end
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        start = try o.string("start")
        end = try o.string("end")
    }
}

/// Quire's fields of a record (the `quire` object). Values here are PDF values: names as
/// in the file, coordinates in PDF user space (not flipped), dates in PDF form.
public struct InstantJSONQuireFields: Codable, Sendable, Equatable {
    /// The PDF /Subtype, for `quire/generic` records.
    public var subtype: String?
    /// /Subj.
    public var subject: String?
    /// The `id` of the annotation this one replies to (/IRT): a record of the same JSON,
    /// or an annotation of the importing document with that /NM.
    public var inReplyTo: String?
    /// /RT: "reply" or "group".
    public var replyType: String?
    /// /State and /StateModel of a state reply (Marked: Marked, Unmarked; Review:
    /// Accepted, Rejected, Cancelled, Completed, None).
    public var state: String?
    public var stateModel: String?
    /// The `id` of this annotation's popup annotation (/Popup).
    public var popup: String?
    /// The dates in PDF form, when ISO 8601 in `createdAt`/`updatedAt` loses something
    /// (a date without a time zone).
    public var creationDate: String?
    public var modificationDate: String?
    /// Bits of /F that have no Instant JSON name (bits 11 and up).
    public var otherFlags: Int?
    /// /C and /IC exactly (0, 1, 3 or 4 components), when "#RRGGBB" cannot hold them or
    /// the type has no field for them.
    public var color: [Double]?
    public var interiorColor: [Double]?
    /// The border width, for types without a width field.
    public var borderWidth: Double?
    /// Exact PDF geometry, when the flipped Instant JSON form does not reproduce it bit for
    /// bit, or the type has no Instant JSON form for it: /Rect [l b r t], /QuadPoints,
    /// /InkList, /L, /Vertices.
    public var pdfRect: [Double]?
    public var pdfQuadPoints: [Double]?
    public var pdfInkList: [[Double]]?
    public var pdfLinePoints: [Double]?
    public var pdfVertices: [Double]?
    /// /LE as PDF names, when `lineCaps` cannot hold them.
    public var lineEndings: [String]?
    /// /DA of free text, when `fontSize` and `fontColor` do not rebuild it.
    public var defaultAppearance: String?
    /// /Name, when `icon`/`stampType` cannot hold it.
    public var iconName: String?
    /// The exact text of the custom data, when it is not the canonical text of
    /// `customData` (or not a JSON object at all).
    public var customDataText: String?
    /// `action` (a goTo) is the link's /Dest rather than an /A action.
    public var actionIsDestination: Bool?

    public init() {}

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        subtype = try o.node("subtype")?.pdfName()
        subject = try o.string("subject")
        inReplyTo = try o.string("inReplyTo")
        replyType = try o.string("replyType")
        state = try o.string("state")
        stateModel = try o.string("stateModel")
        popup = try o.string("popup")
        creationDate = try o.string("creationDate")
        modificationDate = try o.string("modificationDate")
        otherFlags = try o.node("otherFlags")?.integer(in: Int64.min...Int64.max)
        color = try o.node("color")?.numbers(maxCount: 4)
        interiorColor = try o.node("interiorColor")?.numbers(maxCount: 4)
        borderWidth = try o.node("borderWidth")?.number()
        pdfRect = try o.node("pdfRect")?.numbers(count: 4)
        pdfQuadPoints = try o.node("pdfQuadPoints")?.numbers()
        pdfInkList = try o.node("pdfInkList")?.array().map { try $0.numbers() }
        pdfLinePoints = try o.node("pdfLinePoints")?.numbers()
        pdfVertices = try o.node("pdfVertices")?.numbers()
        lineEndings = try o.node("lineEndings")?.array().map { try $0.pdfName() }
        defaultAppearance = try o.string("defaultAppearance")
        iconName = try o.node("iconName")?.pdfName()
        customDataText = try o.string("customDataText")
        actionIsDestination = try o.node("actionIsDestination")?.bool()
    }

    var isEmpty: Bool { self == InstantJSONQuireFields() }
}

/// An action: Instant JSON's action objects (goTo, goToRemote, uri, named, launch,
/// javascript) with `subAction`, and Quire's details in `quire`.
public struct InstantJSONAction: Codable, Sendable, Equatable {
    public var type: String
    /// goTo: the target page.
    public var pageIndex: Int?
    /// uri.
    public var uri: String?
    /// named: nextPage, prevPage, firstPage, lastPage, ... (the /N name, first letter
    /// lowercase).
    public var action: String?
    /// launch: the file.
    public var filePath: String?
    /// goToRemote: the file, and a named destination in it.
    public var relativePath: String?
    public var namedDestination: String?
    public var newWindow: Bool?
    /// javascript.
    public var script: String?
    /// /Next: the actions after this one (`subAction` when there is one, `quire.next`
    /// when there are more).
    public var next: [InstantJSONAction] = []
    /// uri: /IsMap.
    public var isMap: Bool?
    /// goTo and goToRemote: the view (fit and its parameters, in PDF user space), the
    /// destination's name, and for goToRemote the page of an explicit destination.
    public var destination: InstantJSONDestination?
    /// named: the exact /N when lowercasing its first letter loses it.
    public var pdfName: String?

    public init(type: String) { self.type = type }

    private enum Keys: String, CodingKey {
        case type, pageIndex, uri, action, filePath, relativePath, namedDestination, newWindow, script, subAction, quire
    }

    private struct Extension: Codable {
        var isMap: Bool?
        var destination: InstantJSONDestination?
        var pdfName: String?
        var next: [InstantJSONAction]?
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(pageIndex, forKey: .pageIndex)
        try c.encodeIfPresent(uri, forKey: .uri)
        try c.encodeIfPresent(action, forKey: .action)
        try c.encodeIfPresent(filePath, forKey: .filePath)
        try c.encodeIfPresent(relativePath, forKey: .relativePath)
        try c.encodeIfPresent(namedDestination, forKey: .namedDestination)
        try c.encodeIfPresent(newWindow, forKey: .newWindow)
        try c.encodeIfPresent(script, forKey: .script)
        if let first = next.first { try c.encode(first, forKey: .subAction) }
        let ext = Extension(isMap: isMap, destination: destination, pdfName: pdfName, next: next.count > 1 ? next : nil)
        if ext.isMap != nil || ext.destination != nil || ext.pdfName != nil || ext.next != nil {
            try c.encode(ext, forKey: .quire)
        }
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        type = try o.required("type").string()
        pageIndex = try o.node("pageIndex")?.integer()
        uri = try o.string("uri")
        action = try o.string("action")
        filePath = try o.string("filePath")
        relativePath = try o.string("relativePath")
        namedDestination = try o.string("namedDestination")
        newWindow = try o.node("newWindow")?.bool()
        script = try o.string("script")
        let sub = try o.node("subAction").map(InstantJSONAction.init(json:))
        if let q = try o.node("quire")?.object() {
            isMap = try q.node("isMap")?.bool()
            destination = try q.node("destination").map(InstantJSONDestination.init(json:))
            pdfName = try q.node("pdfName")?.pdfName()
            if let more = try q.node("next")?.array().map(InstantJSONAction.init(json:)), more.first == sub {
                next = more
            }
        }
        if next.isEmpty, let sub { next = [sub] }
    }
}

/// A destination's view (ISO 32000-2 Table 149), in PDF user space.
public struct InstantJSONDestination: Codable, Sendable, Equatable {
    /// goToRemote with an explicit destination: the page in the other document.
    public var pageIndex: Int?
    /// XYZ, Fit, FitH, FitV, FitR, FitB, FitBH, FitBV.
    public var fit: String
    public var left: Double?
    public var top: Double?
    public var right: Double?
    public var bottom: Double?
    public var zoom: Double?
    /// The named destination it was given by (UTF-8).
    public var name: String?
    /// The named destination's bytes in hexadecimal, for a name that is not UTF-8 (`name`
    /// is then absent): names are byte strings, and a lossy `name` would not find it again.
    public var nameHex: String?

    public init(fit: String) { self.fit = fit }

    /// The name's bytes: `nameHex` decoded, else `name` as UTF-8.
    func nameBytes() -> [UInt8]? {
        if let hex = nameHex { return InstantJSON.bytes(hex: hex) }
        return name.map { Array($0.utf8) }
    }

    public init(from decoder: Decoder) throws {
        try self.init(json: JSONNode(value: try InstantJSONValue(from: decoder), path: InstantJSON.path(decoder.codingPath)))
    }

    init(json node: JSONNode) throws {
        let o = try node.object()
        pageIndex = try o.node("pageIndex")?.integer()
        let f = try o.required("fit")
        fit = try f.string()
        guard ["XYZ", "Fit", "FitH", "FitV", "FitR", "FitB", "FitBH", "FitBV"].contains(fit) else {
            throw f.fail("unknown fit \"\(fit)\" (XYZ, Fit, FitH, FitV, FitR, FitB, FitBH or FitBV)")
        }
        left = try o.node("left")?.number()
        top = try o.node("top")?.number()
        right = try o.node("right")?.number()
        bottom = try o.node("bottom")?.number()
        zoom = try o.node("zoom")?.number()
        name = try o.string("name")
        if let h = o.node("nameHex") {
            let hex = try h.string()
            guard InstantJSON.bytes(hex: hex) != nil else { throw h.fail("not an even number of hexadecimal digits") }
            nameHex = hex
        }
    }
}

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

// MARK: - Conversions

/// The conversions between the model and the records.
enum InstantJSON {
    /// The object number a record names: its `pdfObjectId`, or (a record without `name`
    /// whose `id` is all digits: Quire's id for an annotation without /NM) its id.
    static func objectNumber(of r: InstantJSONAnnotation) -> Int? {
        if let n = r.pdfObjectId { return n > 0 ? n : nil }
        guard r.name == nil, let id = r.id else { return nil }
        return digits(id)
    }

    /// Lowercase hexadecimal of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The bytes of hexadecimal `text` (either case); nil for an odd length or a non-digit.
    static func bytes(hex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: return c - 48
            case 97...102: return c - 87
            case 65...70: return c - 55
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var i = 0
        while i < utf8.count {
            guard let hi = value(utf8[i]), let lo = value(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// The number `text` spells in decimal digits alone (1 to 10 of them), else nil.
    static func digits(_ text: String) -> Int? {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count <= 10, utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), utf8.first != 48 else { return nil }
        return utf8.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// The largest magnitude of any number import accepts (coordinates, widths, sizes).
    static let maxMagnitude: Double = 1e9

    static func path(_ codingPath: [CodingKey]) -> String {
        var out = ""
        for key in codingPath {
            if let i = key.intValue { out += "[\(i)]" } else { out += out.isEmpty ? key.stringValue : "." + key.stringValue }
        }
        return out
    }

    // MARK: Kinds

    enum ColorSlot { case color, strokeColor, borderColor }
    enum WidthSlot { case strokeWidth, lineWidth, borderWidth }
    enum Geometry { case none, rects, line, polygon, polyline, ink }
    enum IconSlot { case none, note, stamp }

    /// How a PDF subtype maps to an Instant JSON type and its fields.
    struct Kind {
        let type: String
        let subtype: String
        var usesText = false
        var color: ColorSlot? = nil
        var fill = false
        var width: WidthSlot? = nil
        var geometry: Geometry = .none
        var icon: IconSlot = .none
        var font = false

        var isGeneric: Bool { type == InstantJSON.genericType }
    }

    static let genericType = "quire/generic"

    static let kinds: [Kind] = [
        Kind(type: "pspdfkit/note", subtype: "Text", usesText: true, color: .color, icon: .note),
        Kind(type: "pspdfkit/text", subtype: "FreeText", usesText: true, color: .borderColor, width: .borderWidth, font: true),
        Kind(type: "pspdfkit/shape/line", subtype: "Line", color: .strokeColor, fill: true, width: .strokeWidth, geometry: .line),
        Kind(type: "pspdfkit/shape/rectangle", subtype: "Square", color: .strokeColor, fill: true, width: .strokeWidth),
        Kind(type: "pspdfkit/shape/ellipse", subtype: "Circle", color: .strokeColor, fill: true, width: .strokeWidth),
        Kind(type: "pspdfkit/shape/polygon", subtype: "Polygon", color: .strokeColor, fill: true, width: .strokeWidth, geometry: .polygon),
        Kind(type: "pspdfkit/shape/polyline", subtype: "PolyLine", color: .strokeColor, fill: true, width: .strokeWidth, geometry: .polyline),
        Kind(type: "pspdfkit/markup/highlight", subtype: "Highlight", color: .color, geometry: .rects),
        Kind(type: "pspdfkit/markup/underline", subtype: "Underline", color: .color, geometry: .rects),
        Kind(type: "pspdfkit/markup/squiggly", subtype: "Squiggly", color: .color, geometry: .rects),
        Kind(type: "pspdfkit/markup/strikeout", subtype: "StrikeOut", color: .color, geometry: .rects),
        Kind(type: "pspdfkit/ink", subtype: "Ink", color: .strokeColor, width: .lineWidth, geometry: .ink),
        Kind(type: "pspdfkit/stamp", subtype: "Stamp", color: .color, icon: .stamp),
        Kind(type: "pspdfkit/link", subtype: "Link", color: .borderColor, width: .borderWidth),
    ]

    static func kind(subtype: String) -> Kind {
        kinds.first { $0.subtype == subtype } ?? Kind(type: genericType, subtype: subtype, color: .color)
    }

    static func kind(type: String) -> Kind? {
        if type == genericType { return Kind(type: genericType, subtype: "", color: .color) }
        return kinds.first { $0.type == type }
    }

    // MARK: Flags

    /// Instant JSON's flag names and their /F bits; the print bit (3) is `noPrint` when clear.
    static let flagNames: [(String, Int)] = [
        ("invisible", 1), ("hidden", 2), ("noZoom", 8), ("noRotate", 16), ("noView", 32),
        ("readOnly", 64), ("locked", 128), ("toggleNoView", 256), ("lockedContents", 512),
    ]
    static let namedFlagBits = 0x3FF

    static func flagList(_ flags: Int) -> [String] {
        var out: [String] = []
        for (name, bit) in flagNames {
            if bit == 8 && flags & Annotation.Flag.print == 0 { out.append("noPrint") }
            if flags & bit != 0 { out.append(name) }
        }
        return out
    }

    // MARK: Colours

    /// "#RRGGBB" of a gray, RGB or CMYK colour; nil for none (transparent) or another count.
    static func hex(_ c: [Double]?) -> String? {
        guard let c else { return nil }
        let rgb: [Double]
        switch c.count {
        case 1: rgb = [c[0], c[0], c[0]]
        case 3: rgb = c
        case 4: rgb = [(1 - c[0]) * (1 - c[3]), (1 - c[1]) * (1 - c[3]), (1 - c[2]) * (1 - c[3])]
        default: return nil
        }
        let digits = Array("0123456789ABCDEF")
        var s = "#"
        for v in rgb {
            let b = Int((Swift.min(Swift.max(v.isFinite ? v : 0, 0), 1) * 255).rounded())
            s.append(digits[b / 16])
            s.append(digits[b % 16])
        }
        return s
    }

    static func rgb(hex s: String) -> [Double]? {
        let chars = Array(s.utf8)
        guard chars.count == 7, chars[0] == UInt8(ascii: "#") else { return nil }
        var out: [Double] = []
        for i in stride(from: 1, to: 7, by: 2) {
            guard let hi = hexDigit(chars[i]), let lo = hexDigit(chars[i + 1]) else { return nil }
            out.append(Double(hi * 16 + lo) / 255)
        }
        return out
    }

    private static func hexDigit(_ c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(c - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(c - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }

    // MARK: Line endings and icons

    static let lineCapNames: [(pdf: String, json: String)] = [
        ("Square", "square"), ("Circle", "circle"), ("Diamond", "diamond"), ("OpenArrow", "openArrow"),
        ("ClosedArrow", "closedArrow"), ("Butt", "butt"), ("ROpenArrow", "reverseOpenArrow"),
        ("RClosedArrow", "reverseClosedArrow"), ("Slash", "slash"),
    ]

    /// The Instant JSON line caps of /LE (nil for none; unknown names give nil caps).
    static func lineCaps(_ endings: [String]) -> InstantJSONLineCaps? {
        guard !endings.isEmpty else { return nil }
        func cap(_ i: Int) -> String? {
            guard i < endings.count else { return nil }
            return lineCapNames.first { $0.pdf == endings[i] }?.json
        }
        return InstantJSONLineCaps(start: cap(0), end: cap(1))
    }

    static func lowerFirst(_ s: String) -> String { s.isEmpty ? s : s.prefix(1).lowercased() + s.dropFirst() }
    static func upperFirst(_ s: String) -> String { s.isEmpty ? s : s.prefix(1).uppercased() + s.dropFirst() }

    // MARK: Free text

    /// The fill colour set in a default appearance string (`r g b rg` or `g g`), as "#RRGGBB".
    static func fontColor(_ da: String?) -> String? {
        guard let da else { return nil }
        let t = da.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).map(String.init)
        let rg = t.lastIndex(of: "rg"), g = t.lastIndex(of: "g")
        if let i = rg, i >= 3, g.map({ $0 < i }) ?? true {
            let c = t[(i - 3)..<i].compactMap(Double.init)
            return c.count == 3 ? hex(c) : nil
        }
        if let i = g, i >= 1, let v = Double(t[i - 1]) { return hex([v]) }
        return nil
    }

    /// The font size of a default appearance string, when JSON can hold it.
    static func fontSize(_ da: String) -> Double? {
        Annotation.fontSize(in: da).flatMap { $0.isFinite && abs($0) <= maxMagnitude ? $0 : nil }
    }

    static func numberText(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// The default appearance import writes from `fontSize` and `fontColor`.
    static func defaultAppearance(fontSize: Double?, fontColor: String?) -> String? {
        guard let fontSize else { return nil }
        var da = "/Helv \(numberText(fontSize)) Tf"
        if let c = fontColor.flatMap(rgb(hex:)) {
            da += " " + c.map(numberText).joined(separator: " ") + " rg"
        } else {
            da += " 0 g"
        }
        return da
    }

    // MARK: Geometry

    /// The page's frame: Instant JSON coordinates are points from the top left of the crop
    /// box, y downwards.
    struct Frame {
        let left: Double
        let top: Double

        init(left: Double, top: Double) {
            self.left = left
            self.top = top
        }

        init(_ page: Page) throws {
            let crop = try page.box(.crop)
            self.init(left: crop.left, top: crop.top)
        }

        func bbox(_ r: Rect) -> [Double] { [r.left - left, top - r.top, r.width, r.height] }

        func rect(_ b: [Double]) -> Rect {
            let l = b[0] + left, t = top - b[1]
            return Rect(left: l, bottom: t - b[3], right: l + b[2], top: t)
        }

        func point(_ x: Double, _ y: Double) -> [Double] { [x - left, top - y] }

        /// x, y pairs flipped (a trailing odd number is left out).
        func points(_ flat: [Double]) -> [[Double]] {
            stride(from: 0, to: flat.count - 1, by: 2).map { point(flat[$0], flat[$0 + 1]) }
        }

        func pdf(_ points: [[Double]]) -> [Double] {
            points.flatMap { [$0[0] + left, top - $0[1]] }
        }

        /// The bounding rectangle of each whole quadrilateral, as a bbox.
        func rects(_ quads: [Double]) -> [[Double]] {
            stride(from: 0, to: quads.count - 7, by: 8).map { i in
                let xs = [quads[i], quads[i + 2], quads[i + 4], quads[i + 6]]
                let ys = [quads[i + 1], quads[i + 3], quads[i + 5], quads[i + 7]]
                let r = Rect(left: xs.min()!, bottom: ys.min()!, right: xs.max()!, top: ys.max()!)
                return bbox(r)
            }
        }

        /// The quadrilateral of each rectangle, in the order viewers write:
        /// upper left, upper right, lower left, lower right.
        func quads(_ rects: [[Double]]) -> [Double] {
            rects.flatMap { b -> [Double] in
                let r = rect(b)
                return [r.left, r.top, r.right, r.top, r.left, r.bottom, r.right, r.bottom]
            }
        }
    }

    /// Whether two lists of numbers agree to within rounding (1e-6 relative).
    static func close(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 1e-6 * Swift.max(1, abs($0), abs($1)) }
    }

    static func close(_ a: [[Double]], _ b: [[Double]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { close($0, $1) }
    }

    static func close(_ a: [[[Double]]], _ b: [[[Double]]]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { close($0, $1) }
    }

    // MARK: Record from annotation (the Instant JSON fields)

    /// The Instant JSON fields of `a`, without Quire's exactness fields (see ``record``).
    static func visibleRecord(_ a: Annotation, kind: Kind, frame: Frame) -> InstantJSONAnnotation {
        var r = InstantJSONAnnotation(type: kind.type, pageIndex: a.pageIndex, bbox: frame.bbox(a.rect))
        r.name = a.name
        r.pdfObjectId = a.id?.number
        r.opacity = a.opacity == 1 ? nil : a.opacity
        let flags = flagList(a.flags)
        r.flags = flags.isEmpty ? nil : flags
        r.createdAt = a.creationDate?.iso8601
        r.updatedAt = a.modificationDate?.iso8601
        r.creatorName = a.author
        if let text = a.customData, let value = try? InstantJSONValue(parsing: Array(text.utf8)), case .object = value {
            r.customData = value
        }
        if kind.usesText { r.text = a.contents } else { r.note = a.contents }
        switch kind.color {
        case .color?: r.color = hex(a.color)
        case .strokeColor?: r.strokeColor = hex(a.color)
        case .borderColor?: r.borderColor = hex(a.color)
        case nil: break
        }
        if kind.fill { r.fillColor = hex(a.interiorColor) }
        let width = a.borderWidth.flatMap { $0.isFinite ? $0 : nil }
        switch kind.width {
        case .strokeWidth?: r.strokeWidth = width
        case .lineWidth?: r.lineWidth = width
        case .borderWidth?: r.borderWidth = width
        case nil: break
        }
        switch kind.geometry {
        case .rects:
            if !a.quadPoints.isEmpty { r.rects = frame.rects(a.quadPoints) }
        case .line:
            if a.linePoints.count == 4 {
                r.startPoint = frame.point(a.linePoints[0], a.linePoints[1])
                r.endPoint = frame.point(a.linePoints[2], a.linePoints[3])
            }
            r.lineCaps = lineCaps(a.lineEndings)
        case .polygon, .polyline:
            if !a.vertices.isEmpty { r.points = frame.points(a.vertices) }
            if kind.geometry == .polyline { r.lineCaps = lineCaps(a.lineEndings) }
        case .ink:
            if !a.inkList.isEmpty {
                let strokes = a.inkList.map { frame.points($0.filter(\.isFinite)) }
                r.lines = InstantJSONLines(points: strokes, intensities: strokes.map { Array(repeating: 0.5, count: $0.count) })
            }
        case .none:
            break
        }
        if kind.font, let da = a.defaultAppearance {
            r.fontSize = fontSize(da)
            r.fontColor = fontColor(da)
        }
        switch kind.icon {
        case .note: r.icon = a.iconName.map(lowerFirst)
        case .stamp: r.stampType = a.iconName
        case .none: break
        }
        var q = InstantJSONQuireFields()
        if kind.isGeneric { q.subtype = a.subtype }
        q.subject = a.subject
        q.replyType = a.inReplyTo == nil ? nil : a.replyType.map { $0 == .reply ? "reply" : "group" }
        q.state = a.state
        q.stateModel = a.stateModel
        let other = a.flags & ~namedFlagBits
        q.otherFlags = other == 0 ? nil : other
        r.quire = q
        return r
    }

    /// Adds to `r` the exact values that its Instant JSON fields do not reproduce: import
    /// of the record then gives back `a` field for field.
    static func addExactValues(_ r: inout InstantJSONAnnotation, _ a: Annotation, kind: Kind, frame: Frame) throws {
        var q = r.quire ?? InstantJSONQuireFields()
        guard let back = try? fields(of: r, kind: kind, frame: frame, pageCount: Int.max) else {
            // The record breaks one of Quire's rules (a state without a reply, say): it will
            // not import, but it keeps every value.
            q.pdfRect = [a.rect.left, a.rect.bottom, a.rect.right, a.rect.top]
            q.creationDate = a.creationDate?.description
            q.modificationDate = a.modificationDate?.description
            q.color = a.color
            q.interiorColor = a.interiorColor
            q.borderWidth = a.borderWidth.flatMap { $0.isFinite ? $0 : nil }
            q.pdfQuadPoints = a.quadPoints.isEmpty ? nil : a.quadPoints
            q.pdfInkList = a.inkList.isEmpty ? nil : a.inkList.map { $0.filter(\.isFinite) }
            q.pdfLinePoints = a.linePoints.isEmpty ? nil : a.linePoints
            q.pdfVertices = a.vertices.isEmpty ? nil : a.vertices
            q.lineEndings = a.lineEndings.isEmpty ? nil : a.lineEndings
            q.defaultAppearance = a.defaultAppearance
            q.iconName = a.iconName
            q.customDataText = a.customData
            r.quire = q
            return
        }
        if back.rect != a.rect { q.pdfRect = [a.rect.left, a.rect.bottom, a.rect.right, a.rect.top] }
        if back.creationDate != a.creationDate { q.creationDate = a.creationDate?.description }
        if back.modificationDate != a.modificationDate { q.modificationDate = a.modificationDate?.description }
        if back.color != a.color { q.color = a.color }
        if back.interiorColor != a.interiorColor { q.interiorColor = a.interiorColor }
        if back.borderWidth != a.borderWidth, a.borderWidth?.isFinite ?? true { q.borderWidth = a.borderWidth }
        if back.quadPoints != a.quadPoints { q.pdfQuadPoints = a.quadPoints }
        if back.inkList != a.inkList { q.pdfInkList = a.inkList.map { $0.filter(\.isFinite) } }
        if back.linePoints != a.linePoints { q.pdfLinePoints = a.linePoints }
        if back.vertices != a.vertices { q.pdfVertices = a.vertices }
        if back.lineEndings != a.lineEndings { q.lineEndings = a.lineEndings }
        if back.defaultAppearance != a.defaultAppearance { q.defaultAppearance = a.defaultAppearance }
        if back.iconName != a.iconName { q.iconName = a.iconName }
        if back.customData != a.customData { q.customDataText = a.customData }
        r.quire = q.isEmpty ? nil : q
    }

    // MARK: Annotation from record

    /// The annotation a record describes, on page `record.pageIndex` of a document with
    /// `pageCount` pages: everything but the references (/IRT, /Popup), which the
    /// importer resolves. Errors name the field.
    static func fields(of r: InstantJSONAnnotation, kind: Kind, frame: Frame, pageCount: Int,
                       path: String = "annotation") throws -> Annotation {
        func fail(_ field: String, _ message: String) -> PDFError {
            PDFError(.format, "annotation JSON: \(path).\(field): \(message)")
        }
        try validate(r, path: path)
        let q = r.quire ?? InstantJSONQuireFields()
        var subtype = kind.subtype
        if kind.isGeneric {
            guard let s = q.subtype else { throw fail("quire.subtype", "a \(genericType) record needs the PDF subtype") }
            subtype = s
        }
        guard r.pageIndex < pageCount else {
            throw fail("pageIndex", "page \(r.pageIndex) does not exist (the page tree holds \(pageCount) pages)")
        }
        guard r.bbox.count == 4, r.bbox[2] >= 0, r.bbox[3] >= 0 else {
            throw fail("bbox", "the width and height must not be negative")
        }
        var a = Annotation(subtype: subtype, pageIndex: r.pageIndex, rect: frame.rect(r.bbox))
        if let p = q.pdfRect, p.count == 4 {
            let exact = Rect(left: p[0], bottom: p[1], right: p[2], top: p[3])
            if close(frame.bbox(exact), r.bbox) { a.rect = exact }
        }
        a.contents = kind.usesText ? r.text : r.note
        a.author = r.creatorName
        a.subject = q.subject
        a.name = r.name ?? r.id
        func date(_ iso: String?, _ pdf: String?, _ field: String) throws -> PDFDate? {
            guard let iso else { return nil }
            guard let d = PDFDate(iso8601: iso) else { throw fail(field, "\"\(iso.prefix(40))\" is not an ISO 8601 date (YYYY-MM-DDTHH:MM:SS with Z or ±HH:MM)") }
            if let pdf, let exact = PDFDate(pdf), exact.secondsSinceEpoch == d.secondsSinceEpoch { return exact }
            return d
        }
        a.creationDate = try date(r.createdAt, q.creationDate, "createdAt")
        a.modificationDate = try date(r.updatedAt, q.modificationDate, "updatedAt")
        var flags = Annotation.Flag.print
        for (i, name) in (r.flags ?? []).enumerated() {
            if name == "noPrint" {
                flags &= ~Annotation.Flag.print
            } else if let bit = flagNames.first(where: { $0.0 == name })?.1 {
                flags |= bit
            } else {
                throw fail("flags[\(i)]", "unknown flag \"\(name.prefix(40))\" (noPrint, \(flagNames.map(\.0).joined(separator: ", ")))")
            }
        }
        a.flags = flags | ((q.otherFlags ?? 0) & ~namedFlagBits)
        func color(_ visible: String?, _ exact: [Double]?, _ field: String) throws -> [Double]? {
            if let exact, hex(exact) == visible.map({ $0.uppercased() }) { return exact }
            guard let visible else { return nil }
            guard let c = rgb(hex: visible) else { throw fail(field, "\"\(visible.prefix(40))\" is not a colour (#RRGGBB)") }
            return c
        }
        switch kind.color {
        case .color?: a.color = try color(r.color, q.color, "color")
        case .strokeColor?: a.color = try color(r.strokeColor, q.color, "strokeColor")
        case .borderColor?: a.color = try color(r.borderColor, q.color, "borderColor")
        case nil: a.color = q.color
        }
        a.interiorColor = kind.fill ? try color(r.fillColor, q.interiorColor, "fillColor") : q.interiorColor
        if let opacity = r.opacity {
            guard (0...1).contains(opacity) else { throw fail("opacity", "\(opacity) is not in 0...1") }
            a.opacity = opacity
        }
        switch kind.width {
        case .strokeWidth?: a.borderWidth = r.strokeWidth
        case .lineWidth?: a.borderWidth = r.lineWidth
        case .borderWidth?: a.borderWidth = r.borderWidth
        case nil: a.borderWidth = q.borderWidth
        }
        // Geometry: the Instant JSON form, refined by the exact PDF values when they agree.
        switch kind.geometry {
        case .rects:
            a.quadPoints = frame.quads(r.rects ?? [])
            if let exact = q.pdfQuadPoints, close(frame.rects(exact), r.rects ?? []) { a.quadPoints = exact }
        case .line:
            let visible = (r.startPoint ?? []) + (r.endPoint ?? [])
            guard visible.isEmpty || visible.count == 4 else { throw fail("endPoint", "a line needs both startPoint and endPoint") }
            a.linePoints = visible.isEmpty ? [] : frame.pdf([r.startPoint!, r.endPoint!])
            if let exact = q.pdfLinePoints {
                let exactVisible = exact.count == 4 ? frame.points(exact).flatMap { $0 } : []
                if close(exactVisible, visible) { a.linePoints = exact }
            }
        case .polygon, .polyline:
            a.vertices = frame.pdf(r.points ?? [])
            if let exact = q.pdfVertices, close(frame.points(exact), r.points ?? []) { a.vertices = exact }
        case .ink:
            let strokes = r.lines?.points ?? []
            a.inkList = strokes.map(frame.pdf)
            if let exact = q.pdfInkList, close(exact.map(frame.points), strokes) { a.inkList = exact }
        case .none:
            break
        }
        if kind.geometry != .rects { a.quadPoints = q.pdfQuadPoints ?? [] }
        if kind.geometry != .line { a.linePoints = q.pdfLinePoints ?? [] }
        if kind.geometry != .polygon && kind.geometry != .polyline { a.vertices = q.pdfVertices ?? [] }
        if kind.geometry != .ink { a.inkList = q.pdfInkList ?? [] }
        if kind.geometry == .line || kind.geometry == .polyline {
            var endings: [String] = []
            if let caps = r.lineCaps {
                func pdf(_ cap: String?, _ field: String) throws -> String {
                    guard let cap else { return "None" }
                    guard let name = lineCapNames.first(where: { $0.json == cap })?.pdf else {
                        throw fail("lineCaps.\(field)", "unknown line cap \"\(cap.prefix(40))\" (\(lineCapNames.map(\.json).joined(separator: ", ")))")
                    }
                    return name
                }
                endings = [try pdf(caps.start, "start"), try pdf(caps.end, "end")]
            }
            if let exact = q.lineEndings, lineCaps(exact) == r.lineCaps { endings = exact }
            a.lineEndings = endings
        } else {
            a.lineEndings = q.lineEndings ?? []
        }
        if kind.font {
            if let size = r.fontSize, size <= 0 { throw fail("fontSize", "\(size) is not a font size") }
            if let c = r.fontColor, rgb(hex: c) == nil { throw fail("fontColor", "\"\(c.prefix(40))\" is not a colour (#RRGGBB)") }
            a.defaultAppearance = defaultAppearance(fontSize: r.fontSize, fontColor: r.fontColor)
            if let exact = q.defaultAppearance,
               fontSize(exact) == r.fontSize, fontColor(exact) == r.fontColor?.uppercased() {
                a.defaultAppearance = exact
            }
        } else {
            a.defaultAppearance = q.defaultAppearance
        }
        a.fontSize = a.defaultAppearance.flatMap(Annotation.fontSize(in:))
        func checkName(_ s: String, _ field: String) throws -> String {
            try JSONNode(value: .string(s), path: "\(path).\(field)").pdfName()
        }
        switch kind.icon {
        case .note:
            a.iconName = try r.icon.map { try checkName(upperFirst($0), "icon") }
            if let exact = q.iconName, lowerFirst(exact) == r.icon { a.iconName = exact }
        case .stamp:
            a.iconName = try r.stampType.map { try checkName($0, "stampType") }
            if let exact = q.iconName, exact == r.stampType { a.iconName = exact }
        case .none:
            a.iconName = q.iconName
        }
        if let value = r.customData {
            a.customData = value.canonicalText
            if let exact = q.customDataText, (try? InstantJSONValue(parsing: Array(exact.utf8))) == value { a.customData = exact }
        } else if let exact = q.customDataText {
            // Kept only when it never was a JSON object (else the client removed it).
            if case .object? = try? InstantJSONValue(parsing: Array(exact.utf8)) {} else { a.customData = exact }
        }
        // Replies and states (the target itself is resolved by the importer).
        switch q.replyType {
        case nil: a.replyType = nil
        case "reply"?: a.replyType = .reply
        case "group"?: a.replyType = .group
        case let other?: throw fail("quire.replyType", "unknown reply type \"\(other.prefix(40))\" (reply or group)")
        }
        if q.replyType != nil && q.inReplyTo == nil { throw fail("quire.replyType", "a reply type needs quire.inReplyTo") }
        a.state = q.state
        a.stateModel = q.stateModel
        switch (q.state, q.stateModel) {
        case (nil, nil): break
        case (nil, _?): throw fail("quire.state", "a state model needs a state")
        case (_?, nil): throw fail("quire.stateModel", "a state needs a state model (Marked or Review)")
        case (let s?, let m?):
            guard let model = StateModel(rawValue: m) else { throw fail("quire.stateModel", "unknown state model \"\(m.prefix(40))\" (Marked or Review)") }
            guard model.states.contains(s) else {
                throw fail("quire.state", "\"\(s.prefix(40))\" is not a state of the \(m) model (\(model.states.joined(separator: ", ")))")
            }
            // A state without a reply target is unusual but real (iText writes it): the
            // model reads it, so it must round-trip (Annotation.validateState).
        }
        // Actions: /A, or a goTo stored as the link's /Dest.
        if let action = r.action {
            let converted = try self.action(action, pageCount: pageCount, path: "\(path).action")
            if q.actionIsDestination == true, case .goTo(let d?) = converted.kind, converted.next.isEmpty {
                a.destination = d
            } else {
                a.action = converted
            }
        }
        return a
    }

    /// The checks that reading JSON makes, for records built in code: every number finite
    /// and in range, points of two numbers, rectangles of four, colours of at most four.
    static func validate(_ r: InstantJSONAnnotation, path: String) throws {
        func fail(_ field: String, _ message: String) -> PDFError {
            PDFError(.format, "annotation JSON: \(path).\(field): \(message)")
        }
        func check(_ v: Double?, _ field: String) throws {
            guard let v else { return }
            guard v.isFinite, abs(v) <= maxMagnitude else {
                throw fail(field, "the number \(v) is out of range (at most \(Int(maxMagnitude)) in magnitude)")
            }
        }
        func check(_ values: [Double]?, _ field: String, count: Int? = nil, maxCount: Int? = nil) throws {
            guard let values else { return }
            if let count, values.count != count { throw fail(field, "expected \(count) numbers, found \(values.count)") }
            if let maxCount, values.count > maxCount { throw fail(field, "expected at most \(maxCount) numbers, found \(values.count)") }
            for (i, v) in values.enumerated() { try check(v, "\(field)[\(i)]") }
        }
        guard r.pageIndex >= 0 else { throw fail("pageIndex", "the integer \(r.pageIndex) is out of range") }
        try check(r.bbox, "bbox", count: 4)
        try check(r.opacity, "opacity")
        try check(r.strokeWidth, "strokeWidth")
        try check(r.lineWidth, "lineWidth")
        try check(r.borderWidth, "borderWidth")
        try check(r.fontSize, "fontSize")
        for (i, rect) in (r.rects ?? []).enumerated() { try check(rect, "rects[\(i)]", count: 4) }
        try check(r.startPoint, "startPoint", count: 2)
        try check(r.endPoint, "endPoint", count: 2)
        for (i, p) in (r.points ?? []).enumerated() { try check(p, "points[\(i)]", count: 2) }
        for (i, stroke) in (r.lines?.points ?? []).enumerated() {
            for (k, p) in stroke.enumerated() { try check(p, "lines.points[\(i)][\(k)]", count: 2) }
        }
        if let q = r.quire {
            try check(q.color, "quire.color", maxCount: 4)
            try check(q.interiorColor, "quire.interiorColor", maxCount: 4)
            try check(q.borderWidth, "quire.borderWidth")
            try check(q.pdfRect, "quire.pdfRect", count: 4)
            try check(q.pdfQuadPoints, "quire.pdfQuadPoints")
            for (i, stroke) in (q.pdfInkList ?? []).enumerated() { try check(stroke, "quire.pdfInkList[\(i)]") }
            try check(q.pdfLinePoints, "quire.pdfLinePoints")
            try check(q.pdfVertices, "quire.pdfVertices")
        }
        func check(_ a: InstantJSONAction, _ field: String) throws {
            if let page = a.pageIndex, page < 0 { throw fail("\(field).pageIndex", "the integer \(page) is out of range") }
            if let d = a.destination {
                if let page = d.pageIndex, page < 0 { throw fail("\(field).quire.destination.pageIndex", "the integer \(page) is out of range") }
                try check([d.left, d.top, d.right, d.bottom, d.zoom].compactMap { $0 }, "\(field).quire.destination")
            }
            for (i, n) in a.next.enumerated() { try check(n, "\(field).next[\(i)]") }
        }
        if let a = r.action { try check(a, "action") }
    }

    // MARK: Actions

    static func jsonAction(_ action: Action, warn: (String) -> Void) -> InstantJSONAction? {
        var j: InstantJSONAction
        switch action.kind {
        case .goTo(let d?):
            j = InstantJSONAction(type: "goTo")
            j.pageIndex = d.pageIndex
            if d.fit != .retain || d.name != nil { j.destination = jsonDestination(d, withPage: false) }
        case .goTo(nil):
            warn("a GoTo action without a valid destination is left out of the annotation JSON")
            return nil
        case .goToRemote(let file, let destination, let newWindow):
            j = InstantJSONAction(type: "goToRemote")
            j.relativePath = file?.path
            j.newWindow = newWindow
            switch destination {
            case .named(let bytes)?: j.namedDestination = String(decoding: bytes, as: UTF8.self)
            case .explicit(let d)?: j.destination = jsonDestination(d, withPage: true)
            case nil: break
            }
        case .uri(let uri, let isMap):
            j = InstantJSONAction(type: "uri")
            j.uri = uri
            j.isMap = isMap ? true : nil
        case .named(let name):
            j = InstantJSONAction(type: "named")
            j.action = lowerFirst(name)
            if upperFirst(lowerFirst(name)) != name { j.pdfName = name }
        case .launch(let file, let newWindow):
            j = InstantJSONAction(type: "launch")
            j.filePath = file?.path
            j.newWindow = newWindow
        case .other(let type, let dict):
            guard type == "JavaScript", case .string(let s)? = dict["JS"] else {
                warn("a /\(type) action cannot be written as annotation JSON; it is left out")
                return nil
            }
            j = InstantJSONAction(type: "javascript")
            j.script = s.text
        }
        j.next = action.next.compactMap { jsonAction($0, warn: warn) }
        return j
    }

    static func jsonDestination(_ d: Destination, withPage: Bool) -> InstantJSONDestination {
        var j: InstantJSONDestination
        switch d.fit {
        case .xyz(let l, let t, let z): j = InstantJSONDestination(fit: "XYZ"); j.left = l; j.top = t; j.zoom = z
        case .fit: j = InstantJSONDestination(fit: "Fit")
        case .fitH(let t): j = InstantJSONDestination(fit: "FitH"); j.top = t
        case .fitV(let l): j = InstantJSONDestination(fit: "FitV"); j.left = l
        case .fitR(let l, let b, let r, let t):
            j = InstantJSONDestination(fit: "FitR"); j.left = l; j.bottom = b; j.right = r; j.top = t
        case .fitB: j = InstantJSONDestination(fit: "FitB")
        case .fitBH(let t): j = InstantJSONDestination(fit: "FitBH"); j.top = t
        case .fitBV(let l): j = InstantJSONDestination(fit: "FitBV"); j.left = l
        }
        if withPage { j.pageIndex = d.pageIndex }
        if let bytes = d.name {
            if let text = String(validating: bytes, as: UTF8.self) { j.name = text } else { j.nameHex = InstantJSON.hex(bytes) }
        }
        return j
    }

    static func fit(_ j: InstantJSONDestination?) -> Destination.Fit {
        guard let j else { return .retain }
        switch j.fit {
        case "Fit": return .fit
        case "FitH": return .fitH(top: j.top)
        case "FitV": return .fitV(left: j.left)
        case "FitR": return .fitR(left: j.left, bottom: j.bottom, right: j.right, top: j.top)
        case "FitB": return .fitB
        case "FitBH": return .fitBH(top: j.top)
        case "FitBV": return .fitBV(left: j.left)
        default: return .xyz(left: j.left, top: j.top, zoom: j.zoom)
        }
    }

    static func action(_ j: InstantJSONAction, pageCount: Int, path: String) throws -> Action {
        func fail(_ field: String, _ message: String) -> PDFError {
            PDFError(.format, "annotation JSON: \(path)\(field.isEmpty ? "" : "." + field): \(message)")
        }
        func required<T>(_ v: T?, _ field: String) throws -> T {
            guard let v else { throw fail(field, "missing field \"\(field)\" for a \(j.type) action") }
            return v
        }
        let kind: Action.Kind
        switch j.type {
        case "goTo":
            let page = try required(j.pageIndex, "pageIndex")
            guard page < pageCount else { throw fail("pageIndex", "page \(page) does not exist (the page tree holds \(pageCount) pages)") }
            kind = .goTo(Destination(pageIndex: page, fit: fit(j.destination), name: j.destination?.nameBytes()))
        case "goToRemote":
            var target: RemoteDestination? = nil
            if let name = j.namedDestination {
                target = .named(Array(name.utf8))
            } else if let d = j.destination {
                let page = try required(d.pageIndex, "quire.destination.pageIndex")
                target = .explicit(Destination(pageIndex: page, fit: fit(d)))
            }
            kind = .goToRemote(file: j.relativePath.map { FileSpecification(path: $0) }, destination: target, newWindow: j.newWindow)
        case "uri":
            kind = .uri(try required(j.uri, "uri"), isMap: j.isMap ?? false)
        case "named":
            let name = try required(j.action, "action")
            let pdf = j.pdfName.flatMap { lowerFirst($0) == name ? $0 : nil } ?? upperFirst(name)
            _ = try JSONNode(value: .string(pdf), path: path + ".action").pdfName()
            kind = .named(pdf)
        case "launch":
            kind = .launch(file: j.filePath.map { FileSpecification(path: $0) }, newWindow: j.newWindow)
        case "javascript":
            let script = try required(j.script, "script")
            kind = .other(type: "JavaScript", dictionary: PDFDictionary([("S", .name("JavaScript")), ("JS", .string(PDFString(text: script)))]))
        default:
            throw fail("type", "unsupported action type \"\(j.type.prefix(40))\" (goTo, goToRemote, uri, named, launch or javascript)")
        }
        let next = try j.next.enumerated().map { i, n in
            try action(n, pageCount: pageCount, path: "\(path)\(i == 0 && j.next.count == 1 ? ".subAction" : ".quire.next[\(i)]")")
        }
        return Action(kind: kind, next: next)
    }
}

// MARK: - Document API

extension Document {
    /// The annotations of page `page` (nil: of the whole document) as Instant JSON with
    /// Quire's extensions (docs/annotation-json.md): UTF-8, pretty-printed with two-space
    /// indentation and keys in sorted order, so the same annotations always give the same
    /// bytes. Annotations appear page by page in /Annots order.
    public func exportAnnotationsJSON(page: Int?) throws -> [UInt8] {
        try exportAnnotationsJSON(page: page, prettyPrinted: true)
    }

    /// As ``exportAnnotationsJSON(page:)``; `prettyPrinted: false` gives the compact form
    /// (no whitespace), keys still sorted.
    public func exportAnnotationsJSON(page: Int?, prettyPrinted: Bool) throws -> [UInt8] {
        let json = try annotationsInstantJSON(page: page)
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(json))
        } catch {
            throw PDFError(.format, "the annotations cannot be written as JSON: \(error)")
        }
    }

    /// The records ``exportAnnotationsJSON(page:)`` writes.
    public func annotationsInstantJSON(page: Int?) throws -> InstantJSONDocument {
        let count = try pageCount()
        let indices: [Int]
        if let page {
            _ = try self.page(at: page)  // range check
            indices = [page]
        } else {
            indices = Array(try pages().indices)  // the pages that exist
        }
        // Ids first: NM, else the object number (PSPDFKit's convention), made unique.
        var entries: [(annotation: Annotation, id: String, frame: InstantJSON.Frame)] = []
        var used: Set<String> = []
        var idOfObject: [Int: String] = [:]
        for index in indices {
            let frame = try InstantJSON.Frame(self.page(at: index))
            for (position, a) in try annotations(onPage: index).enumerated() {
                // A /NM that an earlier annotation has already: the object number (the record
                // keeps the /NM in `name`, and its pdfObjectId matches it back on import).
                var id = a.name ?? a.id.map { String($0.number) } ?? "direct-\(index)-\(position)"
                if used.contains(id), let object = a.id { id = String(object.number) }
                if used.contains(id) { id += "#\(index).\(position)" }
                used.insert(id)
                if let object = a.id, idOfObject[object.number] == nil { idOfObject[object.number] = id }
                entries.append((a, id, frame))
            }
        }
        func reference(_ target: ObjectID, _ what: String, from a: Annotation) throws -> String? {
            if let id = idOfObject[target.number] { return id }
            if let t = try annotation(target) { return t.name ?? String(target.number) }
            file.warn("annotation \(a.name ?? a.id?.description ?? "") on page \(a.pageIndex + 1): its \(what) \(target) is not an annotation of the document; left out of the JSON")
            return nil
        }
        var records: [InstantJSONAnnotation] = []
        for (a, id, frame) in entries {
            let kind = InstantJSON.kind(subtype: a.subtype)
            var r = InstantJSON.visibleRecord(a, kind: kind, frame: frame)
            r.id = id
            var q = r.quire ?? InstantJSONQuireFields()
            if let target = a.inReplyTo {
                q.inReplyTo = try reference(target, "/IRT", from: a)
                if q.inReplyTo == nil { q.replyType = nil; q.state = nil; q.stateModel = nil }
            }
            if let popup = a.popup { q.popup = try reference(popup, "/Popup", from: a) }
            let warn: (String) -> Void = { [file] in file.warn($0) }
            if let action = a.action {
                r.action = InstantJSON.jsonAction(action, warn: warn)
                if a.destination != nil { warn("a link has both /A and /Dest; its /Dest is left out of the JSON") }
            } else if let d = a.destination {
                r.action = InstantJSON.jsonAction(Action(kind: .goTo(d)), warn: warn)
                q.actionIsDestination = true
            }
            r.quire = q
            try InstantJSON.addExactValues(&r, a, kind: kind, frame: frame)
            records.append(r)
        }
        var json = InstantJSONDocument(annotations: records)
        json.quire = InstantJSONQuireInfo(version: 1, pageCount: count, pageIndex: page)
        return json
    }

    /// Imports annotation JSON (Instant JSON, with or without Quire's extensions) and returns
    /// the annotations as stored, in the order of the records.
    ///
    /// - Each record is matched to an annotation of its page: by object (`pdfObjectId`, or
    ///   an id of digits, for an annotation of the same subtype without another /NM), then
    ///   by /NM `name ?? id`; a matched annotation is updated (its object is kept, and one
    ///   without /NM stays so), so a document's own export imports as a no-op. A record of a
    ///   widget the document lacks is skipped with a warning. Else the annotation is
    ///   created, with the /NM `name ?? id`: subtypes Quire creates through
    ///   ``addAnnotation(_:)`` (with an appearance), others as generic annotations (the
    ///   modelled entries only, no appearance). An annotation of that /NM on another page is
    ///   an error: annotations do not move between pages.
    /// - Dates, flags and every other modelled entry are written as the record says
    ///   (`updatedAt` included: import restores a state, it does not edit it).
    /// - `quire.inReplyTo` and `quire.popup` name another record's `id` (or `name`), or an
    ///   annotation of the document by /NM; a target found nowhere is an error.
    /// - Everything is checked before the document changes: malformed JSON, wrong types,
    ///   numbers out of range, missing fields, unknown types, flags, colours and states,
    ///   missing reply targets, replies across pages and cycles all throw
    ///   `PDFError(.format)` naming the field, and leave the document as it was.
    public func importAnnotationsJSON(_ data: [UInt8]) throws -> [Annotation] {
        try importAnnotations(try InstantJSONDocument(jsonBytes: data))
    }

    /// Imports parsed records (see ``importAnnotationsJSON(_:)``).
    func importAnnotationsUnbatched(_ json: InstantJSONDocument) throws -> [Annotation] {
        let count = try pageCount()
        // Pages that the root's /Count counts but the tree does not hold take no annotations.
        let existing = try pages().count
        let records = json.annotations
        // 1. Every record to an annotation, checked.
        var wanted: [Annotation] = []
        var frames: [Int: InstantJSON.Frame] = [:]
        for (i, r) in records.enumerated() {
            let path = "annotations[\(i)]"
            guard let kind = InstantJSON.kind(type: r.type) else {
                throw PDFError(.format, "annotation JSON: \(path).type: unsupported annotation type \"\(r.type.prefix(60))\" (Quire reads \(InstantJSON.kinds.map(\.type).joined(separator: ", ")) and \(InstantJSON.genericType))")
            }
            guard r.pageIndex >= 0 && r.pageIndex < count else {
                throw PDFError(.format, "annotation JSON: \(path).pageIndex: page \(r.pageIndex) does not exist (the document has \(count) pages)")
            }
            guard r.pageIndex < existing else {
                throw PDFError(.format, "annotation JSON: \(path).pageIndex: page \(r.pageIndex) does not exist (it is counted by the page tree's /Count (\(count)) but the tree holds only \(pagesText(existing)))")
            }
            let frame: InstantJSON.Frame
            if let f = frames[r.pageIndex] {
                frame = f
            } else {
                let page = try self.page(at: r.pageIndex)
                guard page.id != nil else {
                    throw PDFError(.unsupported, "page \(r.pageIndex + 1) is a direct object; its annotations cannot be changed")
                }
                frame = try InstantJSON.Frame(page)
                frames[r.pageIndex] = frame
            }
            if let name = r.name ?? r.id, name.isEmpty {
                throw PDFError(.format, "annotation JSON: \(path).\(r.name != nil ? "name" : "id"): must not be empty")
            }
            wanted.append(try InstantJSON.fields(of: r, kind: kind, frame: frame, pageCount: existing, path: path))
        }
        // 2. References: record ids and names, then the document's /NM.
        var recordOf: [String: Int] = [:]
        for (i, r) in records.enumerated() {
            guard let id = r.id else { continue }
            if recordOf[id] != nil { throw PDFError(.format, "annotation JSON: annotations[\(i)].id: \"\(id.prefix(60))\" is the id of an earlier record too") }
            recordOf[id] = i
        }
        for (i, r) in records.enumerated() {
            if let name = r.name, recordOf[name] == nil { recordOf[name] = i }
        }
        var existingByName: [String: [Annotation]] = [:]
        var existingByNumber: [Int: Annotation] = [:]
        for a in try allAnnotations() {
            guard let id = a.id else { continue }
            existingByNumber[id.number] = a
            if let name = a.name { existingByName[name, default: []].append(a) }
        }
        // Which existing annotation each record updates: first by object number (the
        // record's pdfObjectId, or the id of digits that Quire gives an annotation without
        // /NM), for an annotation of the same page and subtype whose /NM is absent or the
        // record's; then by /NM on the same page. So a document's own export matches every
        // annotation it came from, with or without /NM, and importing it changes nothing.
        var target: [ObjectID?] = Array(repeating: nil, count: records.count)
        var claimed: Set<Int> = []
        var recordOfObject: [Int: Int] = [:]
        func claim(_ i: Int, _ id: ObjectID) {
            target[i] = id
            claimed.insert(id.number)
            recordOfObject[id.number] = i
        }
        // The objects in each record page's /Annots (an object that a damaged file lists on
        // two pages is on both).
        var onPage: [Int: [Int: Annotation]] = [:]
        for page in Set(wanted.map(\.pageIndex)) {
            var here: [Int: Annotation] = [:]
            for a in try annotations(onPage: page) { if let id = a.id, here[id.number] == nil { here[id.number] = a } }
            onPage[page] = here
        }
        // A record of an object that an earlier record already stands for (the same object
        // listed on two pages): an alias, which changes nothing.
        var alias: [Int?] = Array(repeating: nil, count: records.count)
        for (i, r) in records.enumerated() {
            guard let number = InstantJSON.objectNumber(of: r), let e = onPage[wanted[i].pageIndex]?[number], let eid = e.id,
                  e.subtype == wanted[i].subtype,
                  e.name == nil || e.name == (r.name ?? r.id) else { continue }
            if let first = recordOfObject[number] {
                alias[i] = first
                continue
            }
            claim(i, eid)
            existingByNumber[number] = e  // as listed on the record's page
            if e.name == nil { wanted[i].name = nil }  // it stays without /NM, as it was
        }
        for (i, a) in wanted.enumerated() where target[i] == nil && alias[i] == nil {
            guard let name = a.name, let candidates = existingByName[name] else { continue }
            let free = candidates.filter { $0.id.map { !claimed.contains($0.number) } ?? false }
            if let same = free.first(where: { $0.pageIndex == a.pageIndex }), let sameID = same.id {
                claim(i, sameID)
            } else if let other = free.first {
                throw PDFError(.invalidArgument, "annotation JSON: annotations[\(i)].pageIndex: the annotation \"\(name.prefix(60))\" is on page \(other.pageIndex + 1) of the document, not page \(a.pageIndex + 1); annotations do not move between pages (delete it first)")
            }
        }
        // A record of an annotation that the page holds as a direct dictionary in /Annots
        // (id "direct-PAGE-POSITION", as the export names it): such an annotation has no
        // object to update. A record the same as its export is the same annotation and
        // changes nothing; one that differs is refused.
        var directRecords: [Int: [String: (record: InstantJSONAnnotation, annotation: Annotation)]] = [:]
        var direct: [Int: Annotation] = [:]
        for (i, r) in records.enumerated() where target[i] == nil && alias[i] == nil {
            guard let id = r.id, r.pdfObjectId == nil else { continue }
            let page = wanted[i].pageIndex
            if directRecords[page] == nil {
                var byID: [String: (record: InstantJSONAnnotation, annotation: Annotation)] = [:]
                // The export lists a page's annotations in the order annotations(onPage:) does.
                let exported = try annotationsInstantJSON(page: page).annotations
                for (record, a) in zip(exported, try annotations(onPage: page)) where a.id == nil {
                    if let rid = record.id { byID[rid] = (record, a) }
                }
                directRecords[page] = byID
            }
            guard let current = directRecords[page]?[id] else { continue }
            guard current.record == r else {
                throw PDFError(.unsupported, "annotation JSON: annotations[\(i)]: the annotation \"\(id.prefix(60))\" is a direct dictionary in the page's /Annots, which Quire cannot update (save the document in full first, which makes it an object)")
            }
            alias[i] = i  // the same annotation, left as it is
            direct[i] = current.annotation
        }
        // Widgets are form fields: a record of one updates nothing (the forms model owns
        // them) and one that matches no widget of the document is skipped with a warning,
        // never made into an annotation without a field.
        var skipped = alias.map { $0 != nil }
        for i in records.indices where wanted[i].subtype == "Widget" && alias[i] == nil {
            if target[i] == nil {
                skipped[i] = true
                file.warn("annotation JSON: annotations[\(i)] is a form widget that the document does not have; skipped (the annotation JSON does not create form fields)")
            }
        }
        // What a reference in the JSON points at: another record, or an annotation already
        // in the document (just what the checks below need of it).
        struct Existing: Equatable { let id: ObjectID; let page: Int; let inReplyTo: ObjectID? }
        enum Ref: Equatable { case record(Int), existing(Existing) }
        func existingRef(_ a: Annotation) -> Ref? {
            a.id.map { .existing(Existing(id: $0, page: a.pageIndex, inReplyTo: a.inReplyTo)) }
        }
        func resolve(_ ref: String, _ field: String, _ i: Int) throws -> Ref {
            if let j = recordOf[ref] { return .record(j) }
            if let e = existingByName[ref]?.first, let eid = e.id, let r = recordOfObject[eid.number].map(Ref.record) ?? existingRef(e) {
                return r
            }
            // An annotation without /NM, named by its object number as the export names it.
            if let number = InstantJSON.digits(ref), let e = existingByNumber[number],
               let r = recordOfObject[number].map(Ref.record) ?? existingRef(e) {
                return r
            }
            throw PDFError(.format, "annotation JSON: annotations[\(i)].quire.\(field): no annotation \"\(ref.prefix(60))\" in the JSON or the document")
        }
        var parent: [Ref?] = Array(repeating: nil, count: records.count)
        var popup: [Ref?] = Array(repeating: nil, count: records.count)
        for (i, r) in records.enumerated() {
            if let ref = r.quire?.inReplyTo {
                let p = try resolve(ref, "inReplyTo", i)
                let page: Int
                switch p {
                case .record(let j):
                    guard j != i else { throw PDFError(.format, "annotation JSON: annotations[\(i)].quire.inReplyTo: an annotation cannot reply to itself") }
                    page = wanted[j].pageIndex
                case .existing(let e): page = e.page
                }
                guard page == wanted[i].pageIndex else {
                    throw PDFError(.format, "annotation JSON: annotations[\(i)].quire.inReplyTo: \"\(ref.prefix(60))\" is on page \(page), not page \(wanted[i].pageIndex); a reply is on the page of the annotation it answers")
                }
                parent[i] = p
            }
            if let ref = r.quire?.popup { popup[i] = try resolve(ref, "popup", i) }
        }
        if !repliesEnabled, let i = parent.firstIndex(where: { $0 != nil }) {
            throw PDFError(.disabled, "annotation JSON: annotations[\(i)] is a reply, and replies and review states are turned off for this document")
        }
        // No cycles, through records and the document's own replies. Each record and each
        // existing annotation is walked once in all (a chain already known to end is not
        // walked again): checking every record's whole chain took quadratic time on a long
        // chain of replies.
        var state = Array(repeating: 0, count: records.count)  // 0 new, 1 on this walk, 2 done
        var doneObjects: Set<Int> = []
        for start in records.indices where parent[start] != nil && state[start] == 0 {
            var walked: [Int] = [start]
            state[start] = 1
            var walkedObjects: [Int] = []
            var seenObjects: Set<Int> = []
            var cursor = parent[start]
            walk: while let c = cursor {
                switch c {
                case .record(let j):
                    if state[j] == 1 {
                        throw PDFError(.format, "annotation JSON: annotations[\(start)].quire.inReplyTo: the replies make a cycle")
                    }
                    if state[j] == 2 { break walk }
                    state[j] = 1
                    walked.append(j)
                    cursor = parent[j]
                case .existing(let e):
                    // A cycle among the document's own replies is the file's, cut when read.
                    guard !doneObjects.contains(e.id.number), seenObjects.insert(e.id.number).inserted else { break walk }
                    walkedObjects.append(e.id.number)
                    if let next = e.inReplyTo {
                        if let j = recordOfObject[next.number] { cursor = .record(j) }
                        else { cursor = try annotation(next).flatMap(existingRef) }
                    } else {
                        cursor = nil
                    }
                }
            }
            for r in walked { state[r] = 2 }
            doneObjects.formUnion(walkedObjects)
        }
        // 3. Apply: parents before replies.
        var order: [Int] = []
        var placed = Array(repeating: false, count: records.count)
        // Each record after the records it replies to, without recursion (a chain of replies
        // in the JSON is as long as the JSON makes it).
        for i in records.indices where !placed[i] {
            var chain: [Int] = []
            var next: Int? = i
            while let k = next, !placed[k] {
                placed[k] = true
                chain.append(k)
                if case .record(let j)? = parent[k] { next = j } else { next = nil }
            }
            order.append(contentsOf: chain.reversed())
        }
        var objectOf: [ObjectID?] = target
        func objectID(_ ref: Ref?) -> ObjectID? {
            switch ref {
            case .record(let j)?: return objectOf[alias[j] ?? j]
            case .existing(let e)?: return e.id
            case nil: return nil
            }
        }
        for i in order where !skipped[i] {
            var a = wanted[i]
            a.inReplyTo = objectID(parent[i])
            if let existing = target[i] {
                if a.subtype == "Widget" { continue }  // the forms model's, left as it is
                a.id = existing
                try updateAnnotationUnbatched(a, importedOver: existingByNumber[existing.number])
            } else if Annotation.creatableSubtypes.contains(a.subtype) {
                objectOf[i] = try addAnnotationUnbatched(a, imported: true).id
            } else {
                let page = try self.page(at: a.pageIndex)
                let id = try addObject(.dictionary(a.written(into: PDFDictionary(), pageObject: page.id)))
                try appendToAnnots(pageIndex: a.pageIndex, id)
                objectOf[i] = id
            }
        }
        // 4. Every entry exactly as the record says (addAnnotation's defaults undone), and
        // the popups linked both ways.
        for i in order where !skipped[i] && wanted[i].subtype != "Widget" {
            guard let id = objectOf[i] else { continue }
            var a = wanted[i]
            a.id = id
            a.inReplyTo = objectID(parent[i])
            a.popup = objectID(popup[i])
            guard case .dictionary(let current) = try object(id.number) else { continue }
            // A record with neither name nor id keeps the UUID addAnnotation gave it.
            if a.name == nil, case .string(let nm)? = current["NM"] { a.name = nm.text }
            var d = a.written(into: current, pageObject: try page(at: a.pageIndex).id)
            if a.color == [] { d["C"] = .array([]) }
            if a.interiorColor == [] { d["IC"] = .array([]) }
            if a.borderWidth == nil {
                if var bs = d["BS"]?.dictionary, bs["W"] != nil {
                    bs["W"] = nil
                    d["BS"] = bs.isEmpty ? nil : .dictionary(bs)
                }
                if let border = d["Border"]?.array, border.count >= 3 { d["Border"] = nil }
            }
            d["A"] = try a.action.map(actionObject)
            d["Dest"] = try a.destination.map(destinationObject)
            try setObject(id.number, .dictionary(d))
            if let p = a.popup, isInUse(p.number), case .dictionary(var pd) = try object(p.number) {
                pd["Parent"] = .reference(id)
                try setObject(p.number, .dictionary(pd))
            }
        }
        return try records.indices.filter { !skipped[$0] || alias[$0] != nil }.map { i in
            if let a = direct[i] { return a }
            guard let id = objectOf[alias[i] ?? i], let stored = try annotation(id) else {
                throw PDFError(.notFound, "annotation JSON: annotations[\(i)] was not stored")
            }
            return stored
        }
    }

    /// Appends annotation `id` to the /Annots of page `pageIndex`, in place when /Annots is
    /// an indirect array.
    private func appendToAnnots(pageIndex: Int, _ id: ObjectID) throws {
        let page = try self.page(at: pageIndex)
        guard let pageID = page.id else {
            throw PDFError(.unsupported, "page \(pageIndex + 1) is a direct object; its annotations cannot be changed")
        }
        var annots = try page.dictionary["Annots"].map(resolve)?.array ?? []
        annots.append(.reference(id))
        if case .reference(let arrayID)? = page.dictionary["Annots"], isInUse(arrayID.number) {
            try setObject(arrayID.number, .array(annots))
        } else {
            try setValue(.array(annots), forKey: "Annots", inObject: pageID.number)
        }
    }

    /// An action dictionary (§12.6) for `action` and its /Next chain.
    private func actionObject(_ action: Action) throws -> PDFObject {
        var d = PDFDictionary()
        switch action.kind {
        case .goTo(let dest):
            d["S"] = .name("GoTo")
            d["D"] = try dest.map(destinationObject) ?? .null
        case .goToRemote(let file, let destination, let newWindow):
            d["S"] = .name("GoToR")
            d["F"] = file.map { .string(PDFString(text: $0.path)) }
            switch destination {
            case .named(let bytes)?: d["D"] = .string(PDFString(bytes: bytes))
            case .explicit(let dest)?: d["D"] = .array([.integer(Int64(dest.pageIndex))] + fitObjects(dest.fit))
            case nil: break
            }
            d["NewWindow"] = newWindow.map { .bool($0) }
        case .uri(let uri, let isMap):
            d["S"] = .name("URI")
            d["URI"] = .string(PDFString(bytes: Array(uri.utf8)))
            if isMap { d["IsMap"] = .bool(true) }
        case .named(let name):
            d["S"] = .name("Named")
            d["N"] = .name(PDFName(name))
        case .launch(let file, let newWindow):
            d["S"] = .name("Launch")
            d["F"] = file.map { .string(PDFString(text: $0.path)) }
            d["NewWindow"] = newWindow.map { .bool($0) }
        case .other(let type, let dict):
            d = dict
            d["S"] = .name(PDFName(type))
        }
        if action.next.count == 1 {
            d["Next"] = try actionObject(action.next[0])
        } else if action.next.count > 1 {
            d["Next"] = .array(try action.next.map(actionObject))
        } else {
            d["Next"] = nil
        }
        return .dictionary(d)
    }

    /// A destination of this document: by its name when this document defines the name,
    /// else explicit ([page /Fit ...]).
    private func destinationObject(_ dest: Destination) throws -> PDFObject {
        if let name = dest.name, try resolveNamedDestination(name) != nil {
            return .string(PDFString(bytes: name))
        }
        let page = try self.page(at: dest.pageIndex)
        let first: PDFObject = page.id.map { .reference($0) } ?? .integer(Int64(dest.pageIndex))
        return .array([first] + fitObjects(dest.fit))
    }

    private func fitObjects(_ fit: Destination.Fit) -> [PDFObject] {
        func n(_ v: Double?) -> PDFObject { v.map(Annotation.number) ?? .null }
        switch fit {
        case .xyz(let l, let t, let z): return [.name("XYZ"), n(l), n(t), n(z)]
        case .fit: return [.name("Fit")]
        case .fitH(let t): return [.name("FitH"), n(t)]
        case .fitV(let l): return [.name("FitV"), n(l)]
        case .fitR(let l, let b, let r, let t): return [.name("FitR"), n(l), n(b), n(r), n(t)]
        case .fitB: return [.name("FitB")]
        case .fitBH(let t): return [.name("FitBH"), n(t)]
        case .fitBV(let l): return [.name("FitBV"), n(l)]
        }
    }
}
