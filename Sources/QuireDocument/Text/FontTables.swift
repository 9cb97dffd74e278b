import Synchronization
/// The standard 14 fonts' metrics, the Adobe Glyph List and the Latin encodings, read from
/// the generated tables (FontTables.generated.swift, made by scripts/gen_font_tables.py
/// from Adobe's AFM files, fontTools and pdfminer.six) once, on first use. Immutable after
/// that, so safe to use from any thread.

/// Metrics of one of the standard 14 fonts (ISO 32000-2 §9.6.2.2), from Adobe's AFM file.
/// Widths are in thousandths of the font size (glyph space units).
public struct StandardFont: Sendable {
    /// The PostScript name: `Helvetica`, `Times-Bold`, `ZapfDingbats`, ...
    public let name: String
    /// The font bounding box: left, bottom, right, top.
    public let boundingBox: (left: Double, bottom: Double, right: Double, top: Double)
    public let ascent: Double
    public let descent: Double
    public let capHeight: Double
    public let isFixedPitch: Bool
    /// Whether the font is symbolic (Symbol, ZapfDingbats): its built-in encoding is its own.
    public let isSymbolic: Bool
    /// Advance width of each glyph, by glyph name.
    public let widths: [String: Double]
    /// The font's built-in encoding: the glyph name of each code (StandardEncoding for
    /// the Latin fonts).
    public let builtInEncoding: [Int: String]
    /// Width of each Unicode scalar the font has a glyph for (through the glyph list).
    let widthsByScalar: [UInt32: Double]
    /// The bounding box of each glyph, by glyph name (the AFM's `B llx lly urx ury`).
    let glyphBoxes: [String: GlyphBox]

    /// The advance width of the glyph named `glyph`, or nil when the font has none.
    public func width(ofGlyph glyph: String) -> Double? { widths[glyph] }

    /// The bounding box of the glyph named `glyph` (glyph space units), or nil.
    public func box(ofGlyph glyph: String) -> GlyphBox? { glyphBoxes[glyph] }

    /// The advance width of the glyph for `scalar` (through the Adobe Glyph List), or nil.
    public func width(of scalar: Unicode.Scalar) -> Double? { widthsByScalar[scalar.value] }
}

/// Widths of the standard 14 fonts, for text extraction and for generated appearances
/// (form fields, free text). Font names are matched as viewers do: a subset tag
/// (`ABCDEF+`) is ignored, and the usual aliases (`Arial`, `TimesNewRoman,Bold`,
/// `CourierNew`, `Helv`, `ZaDb`, ...) map to the font they stand for.
public enum StandardFontMetrics {
    /// The standard font that `name` is or stands for, or nil.
    public static func font(named name: String) -> StandardFont? {
        guard let canonical = canonicalName(name) else { return nil }
        return Tables.font(canonical)
    }

    /// The width of `character` in `font` at size 1000 (glyph space units), or nil when the
    /// font is not a standard one or has no glyph for it. A character of several scalars
    /// is measured by its first.
    public static func width(of character: Character, font: String) -> Double? {
        guard let scalar = character.unicodeScalars.first else { return nil }
        return self.font(named: font)?.width(of: scalar)
    }

    /// The width of `text` set in `font` at `size`, in text space units; characters the
    /// font lacks count as the font's width of `space` (a form field's appearance must be
    /// laid out even then). Nil when `font` is not a standard font.
    public static func width(of text: String, font: String, size: Double) -> Double? {
        guard let f = self.font(named: font) else { return nil }
        let fallback = f.width(ofGlyph: "space") ?? 500
        var total = 0.0
        for scalar in text.unicodeScalars { total += f.width(of: scalar) ?? fallback }
        return total * size / 1000
    }

    /// The names of the standard 14 fonts.
    public static var names: [String] { Tables.fontOrder }

    /// Acrobat's resource names for the standard 14 fonts in forms' /DR and /DA, and the
    /// font each stands for.
    static let acrobatNames: [String: String] = [
        "Helv": "Helvetica", "HeBo": "Helvetica-Bold", "HeOb": "Helvetica-Oblique", "HeBO": "Helvetica-BoldOblique",
        "TiRo": "Times-Roman", "TiBo": "Times-Bold", "TiIt": "Times-Italic", "TiBI": "Times-BoldItalic",
        "Cour": "Courier", "CoBo": "Courier-Bold", "CoOb": "Courier-Oblique", "CoBO": "Courier-BoldOblique",
        "Symb": "Symbol", "ZaDb": "ZapfDingbats",
    ]

    /// The canonical standard-14 name for `name` (a standard name, an Acrobat resource
    /// name such as `TiRo`, or an alias such as `Arial,Bold` or `TimesNewRoman`), or nil.
    static func canonicalName(_ name: String) -> String? {
        var n = Substring(name)
        if let plus = n.firstIndex(of: "+"), n.distance(from: n.startIndex, to: plus) == 6 {
            n = n[n.index(after: plus)...]
        }
        let s = String(n)
        if Tables.afm[s] != nil { return s }
        // Acrobat's resource names for the standard fonts (HeBo and HeBO differ by case).
        if let base = acrobatNames[s] { return base }
        let lower = s.lowercased().replacingAll(" ", with: "")
        let bold = lower.contains("bold")
        let italic = lower.contains("italic") || lower.contains("oblique")
        let family: String
        if lower.hasPrefix("helv") || lower.hasPrefix("arial") {
            family = "Helvetica"
        } else if lower.hasPrefix("courier") || lower == "cour" {
            family = "Courier"
        } else if lower.hasPrefix("times") || lower == "tiro" {
            family = "Times"
        } else if lower.hasPrefix("symbol") || lower == "symb" {
            return "Symbol"
        } else if lower.hasPrefix("zapfdingbats") || lower == "zadb" || lower.hasPrefix("itcz") {
            return "ZapfDingbats"
        } else {
            return nil
        }
        switch (family, bold, italic) {
        case ("Times", false, false): return "Times-Roman"
        case ("Times", true, false): return "Times-Bold"
        case ("Times", false, true): return "Times-Italic"
        case ("Times", true, true): return "Times-BoldItalic"
        case (_, false, false): return family
        case (_, true, false): return family + "-Bold"
        case (_, false, true): return family + "-Oblique"
        default: return family + "-BoldOblique"
        }
    }
}

/// Glyph names to Unicode (Adobe Glyph List Specification, "Mapping glyph names to
/// Unicode": drop what follows a period, split ligatures at underscores, each component
/// through the list, `uniXXXX...` and `uXXXX[XX]`).
public enum GlyphNames {
    /// The Unicode text of glyph `name`, or nil when the rules give none.
    public static func unicode(for name: String) -> String? {
        if let s = Tables.glyphList[name] { return s }
        var base = Substring(name)
        if let dot = base.firstIndex(of: ".") { base = base[..<dot] }
        if base.isEmpty { return nil }
        var out = ""
        for piece in base.split(separator: "_", omittingEmptySubsequences: true) {
            guard let part = component(String(piece)) else { return out.isEmpty ? nil : out }
            out += part
        }
        return out.isEmpty ? nil : out
    }

    private static func component(_ c: String) -> String? {
        if let s = Tables.glyphList[c] { return s }
        let u = Array(c.utf8)
        if u.count >= 7, c.hasPrefix("uni"), (u.count - 3) % 4 == 0 {
            var out = ""
            var i = 3
            while i < u.count {
                guard let v = hexValue(u[i..<(i + 4)]), !(0xD800...0xDFFF).contains(v),
                      let scalar = Unicode.Scalar(v) else { return nil }
                out.unicodeScalars.append(scalar)
                i += 4
            }
            return out
        }
        if (5...7).contains(u.count), c.hasPrefix("u"), let v = hexValue(u[1...]),
           !(0xD800...0xDFFF).contains(v), let scalar = Unicode.Scalar(v) {
            return String(Character(scalar))
        }
        return nil
    }

    /// Uppercase hex digits only, as the specification asks.
    private static func hexValue(_ digits: ArraySlice<UInt8>) -> UInt32? {
        var v: UInt32 = 0
        for d in digits {
            switch d {
            case 0x30...0x39: v = v << 4 | UInt32(d - 0x30)
            case 0x41...0x46: v = v << 4 | UInt32(d - 0x41 + 10)
            default: return nil
            }
        }
        return v
    }
}

/// The simple fonts' base encodings (ISO 32000-2 §9.6.5, Annex D).
public enum BaseEncoding: Sendable {
    case standard, macRoman, winAnsi, pdfDoc

    /// The glyph name of each code (256 entries; nil where the encoding has none).
    public var glyphNames: [String?] {
        switch self {
        case .standard: return Tables.latin.standard
        case .macRoman: return Tables.latin.mac
        case .winAnsi: return Tables.latin.win
        case .pdfDoc: return Tables.latin.pdf
        }
    }
}

/// The parsed tables.
enum Tables {
    static let glyphList: [String: String] = {
        // Lines of "name HEX [HEX...]", read on the bytes of the text (splitting it into
        // Substrings and parsing each with UInt32(_:radix:) was 70 million instructions, a
        // fifth of the text of a 15-page file, issue 41).
        var map = [String: String](minimumCapacity: 4400)
        var text = FontTableData.glyphList
        text.withUTF8 { bytes in
            var i = 0
            let n = bytes.count
            while i < n {
                let lineStart = i
                while i < n && bytes[i] != UInt8(ascii: "\n") { i += 1 }
                let lineEnd = i
                i += 1
                var k = lineStart
                while k < lineEnd && bytes[k] != UInt8(ascii: " ") { k += 1 }
                let nameEnd = k
                guard nameEnd > lineStart, nameEnd < lineEnd else { continue }
                var value = String.UnicodeScalarView()
                var hasCode = false
                while k < lineEnd {
                    while k < lineEnd && bytes[k] == UInt8(ascii: " ") { k += 1 }
                    guard k < lineEnd else { break }
                    var v: UInt32 = 0
                    var valid = true
                    var digits = 0
                    while k < lineEnd && bytes[k] != UInt8(ascii: " ") {
                        let b = bytes[k]
                        let d: UInt8
                        switch b {
                        case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
                        case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
                        case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
                        default: d = 0; valid = false
                        }
                        digits += 1
                        if digits <= 8 { v = v << 4 | UInt32(d) } else { valid = false }
                        k += 1
                    }
                    hasCode = true
                    if valid, let scalar = Unicode.Scalar(v) { value.append(scalar) }
                }
                guard hasCode else { continue }
                map[String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<nameEnd]), as: UTF8.self)] = String(value)
            }
        }
        return map
    }()

    struct Latin {
        var standard = [String?](repeating: nil, count: 256)
        var mac = [String?](repeating: nil, count: 256)
        var win = [String?](repeating: nil, count: 256)
        var pdf = [String?](repeating: nil, count: 256)
    }

    static let latin: Latin = {
        var t = Latin()
        for line in FontTableData.latinEncodings.split(separator: "\n") {
            let p = line.split(separator: " ").map(String.init)
            guard p.count == 5 else { continue }
            if let c = Int(p[1]), (0..<256).contains(c) { t.standard[c] = p[0] }
            if let c = Int(p[2]), (0..<256).contains(c) { t.mac[c] = p[0] }
            if let c = Int(p[3]), (0..<256).contains(c) { t.win[c] = p[0] }
            if let c = Int(p[4]), (0..<256).contains(c) { t.pdf[c] = p[0] }
        }
        // Annex D, note: WinAnsi maps the unused codes 0x7F..0xA0 of its "bullet"
        // positions and 0xA0 (nbsp) to space and bullet as viewers do.
        if t.win[0xA0] == nil { t.win[0xA0] = "space" }
        if t.win[0xAD] == nil { t.win[0xAD] = "hyphen" }
        return t
    }()

    static let fontOrder: [String] = FontTableData.standardFonts.map(\.name)

    /// The CFF standard strings: the glyph name of SIDs 0 to 390.
    static let cffStandardStrings: [String] = FontTableData.cffStandardStrings.split(separator: "\n").map(String.init)

    /// Each standard font's AFM data, by name.
    static let afm: [String: String] = {
        var out: [String: String] = [:]
        for (name, data) in FontTableData.standardFonts { out[name] = data }
        return out
    }()

    /// The standard fonts read so far: each is read from its AFM data when first asked
    /// for. Reading all 14 at once, on the first use of any, was 215 M instructions
    /// (about 50 ms) of the first page of text a process extracted.
    private static let parsed = Mutex<[String: StandardFont]>([:])

    /// Standard font `name` (a canonical name), read on first use; nil if there is none.
    static func font(_ name: String) -> StandardFont? {
        if let known = parsed.withLock({ $0[name] }) { return known }
        guard let data = afm[name] else { return nil }
        let font = parseFont(name, data)
        parsed.withLock { $0[name] = font }
        return font
    }

    private static func parseFont(_ name: String, _ afm: String) -> StandardFont {
        var bbox = (left: 0.0, bottom: 0.0, right: 0.0, top: 0.0)
        var ascent = 0.0, descent = 0.0, capHeight = 0.0
        var fixed = false
        var widths: [String: Double] = [:]
        var codes: [Int: String] = [:]
        var byScalar: [UInt32: Double] = [:]
        var boxes: [String: GlyphBox] = [:]
        // Lines and fields split on bytes (the tables are ASCII): splitting Strings on
        // Characters ran grapheme breaking over every byte, 100 million instructions for
        // the 14 fonts (issue 41).
        for line in afm.utf8.split(separator: UInt8(ascii: "\n")) {
            let p = line.split(separator: UInt8(ascii: " ")).map { Substring($0) }
            guard let key = p.first else { continue }
            switch key {
            case "C" where p.count == 4 || p.count == 8:
                let glyph = String(p[2])
                let w = Double(p[3]) ?? 0
                widths[glyph] = w
                if p.count == 8 {
                    let b = p[4...].map { Double($0) ?? 0 }
                    boxes[glyph] = GlyphBox(left: b[0], bottom: b[1], right: b[2], top: b[3])
                }
                if let c = Int(p[1]), (0..<256).contains(c) { codes[c] = glyph }
                if let u = GlyphNames.unicode(for: glyph)?.unicodeScalars.first, byScalar[u.value] == nil {
                    byScalar[u.value] = w
                }
            case "FontBBox" where p.count == 5:
                let v = p.dropFirst().map { Double($0) ?? 0 }
                bbox = (v[0], v[1], v[2], v[3])
            case "Ascender": ascent = p.count > 1 ? Double(p[1]) ?? 0 : 0
            case "Descender": descent = p.count > 1 ? Double(p[1]) ?? 0 : 0
            case "CapHeight": capHeight = p.count > 1 ? Double(p[1]) ?? 0 : 0
            case "IsFixedPitch": fixed = p.count > 1 && p[1] == "true"
            default: break
            }
        }
        let symbolic = name == "Symbol" || name == "ZapfDingbats"
        if symbolic { ascent = bbox.top; descent = bbox.bottom }
        return StandardFont(name: name, boundingBox: bbox, ascent: ascent, descent: descent,
                            capHeight: capHeight, isFixedPitch: fixed, isSymbolic: symbolic,
                            widths: widths, builtInEncoding: codes, widthsByScalar: byScalar,
                            glyphBoxes: boxes)
    }
}

extension String {
    /// This string with every `target` replaced (FoundationEssentials-free).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
