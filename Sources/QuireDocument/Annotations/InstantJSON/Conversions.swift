import QuireSyntax
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
    static func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }

    /// The bytes of hexadecimal `text` (either case); nil for an odd length or a non-digit.
    static func bytes(hex text: String) -> [UInt8]? { Hex.bytes(text) }

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

    enum ColorSlot { case color, strokeColor, borderColor, outlineColor }
    enum WidthSlot { case strokeWidth, lineWidth, borderWidth }
    enum Geometry { case none, rects, line, polygon, polyline, ink }
    enum IconSlot { case none, note, stamp, file }

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
        /// A redaction: `overlayText`, `repeatOverlayText`, and `color` as the overlay
        /// text's colour (/DA).
        var redaction = false

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
        Kind(type: "pspdfkit/file", subtype: "FileAttachment", color: .color, icon: .file),
        Kind(type: "pspdfkit/markup/redaction", subtype: "Redact", color: .outlineColor, fill: true, geometry: .rects,
             redaction: true),
    ]

    static func kind(subtype: String) -> Kind {
        kinds.first { $0.subtype == subtype } ?? Kind(type: genericType, subtype: subtype, color: .color)
    }

    /// PSPDFKit's comment marker: a note (Text annotation) that starts a thread of comments.
    static let commentMarkerType = "pspdfkit/comment-marker"
    /// PSPDFKit's image annotation: a Stamp whose appearance is an attached image.
    static let imageType = "pspdfkit/image"
    /// PSPDFKit's file annotation: a FileAttachment whose file is an attachment of the JSON.
    static let fileType = "pspdfkit/file"

    static func kind(type: String) -> Kind? {
        if type == genericType { return Kind(type: genericType, subtype: "", color: .color) }
        if type == commentMarkerType { return kinds.first { $0.subtype == "Text" } }
        if type == imageType { return kinds.first { $0.subtype == "Stamp" } }
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

    /// "#RRGGBB" of a colour (``Annotation/hexColor(_:)``, the model's one writer).
    static func hex(_ c: [Double]?) -> String? { Annotation.hexColor(c) }

    /// The colour of "#RRGGBB" (``Annotation/color(hex:requireHash:)``, the model's one parser).
    static func rgb(hex s: String) -> [Double]? { Annotation.color(hex: s) }

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
        return Annotation.defaultAppearance(fontSize: fontSize, color: fontColor.flatMap(rgb(hex:)))
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
}
