import QuireSyntax

/// A font as text extraction reads it (ISO 32000-2 §9.5-§9.10): how a string splits into
/// codes, each code's Unicode text and advance width, and the ascent and descent that give
/// a glyph's box. Fonts the file describes badly degrade, never fail:
///
/// - Unicode: /ToUnicode first; else, for a simple font, the glyph name of its encoding
///   (/Differences over /BaseEncoding over the standard font's built-in encoding over
///   StandardEncoding) through the Adobe Glyph List; else, for a composite font with an
///   Identity ordering or a UCS2/UTF16 CMap, the CID itself; else, for one in an Adobe CJK
///   collection with known CIDs, the collection's Unicode (``CIDUnicode``); else the code
///   as Latin-1 for a simple font, and U+FFFD for a composite one.
/// - Widths: /Widths (or /W and /DW), else the standard 14 font's AFM width, else
///   /MissingWidth, else 0.5 em (1 em for a CID font without /DW, as the standard says).
/// - Ascent and descent: the font descriptor's, else its /FontBBox, else 0.8 and -0.2 em.
final class TextFont {
    enum Kind { case simple, type3, composite }
    let kind: Kind
    let name: String
    /// Simple fonts: glyph name of each code.
    var encoding: [String?] = Array(repeating: nil, count: 256)
    /// Simple fonts: width of each code in glyph units (1/1000 em); nil where unknown.
    var widths: [Double?] = Array(repeating: nil, count: 256)
    var missingWidth: Double = 0
    /// Composite fonts.
    var cmap = CMap.identity(vertical: false)
    var cidWidths: [UInt32: Double] = [:]
    var cidWidthRanges: [(low: UInt32, high: UInt32, width: Double)] = []
    var defaultWidth: Double = 1000
    /// Vertical writing (§9.7.4.3): each CID's displacement w1y and position vector
    /// (vx, vy) in glyph units, from /W2; the rest take /DW2 ([vy w1y], default [880
    /// -1000]) and vx half their horizontal width.
    var cidVertical: [UInt32: (w1y: Double, vx: Double, vy: Double)] = [:]
    var cidVerticalRanges: [(low: UInt32, high: UInt32, w1y: Double, vx: Double, vy: Double)] = []
    var defaultVertical: (vy: Double, w1y: Double) = (880, -1000)
    var cidIsUnicode = false
    /// CID to Unicode of the font's Adobe CJK collection, when its CIDs are known (an
    /// Identity or embedded encoding CMap) and it has no /ToUnicode.
    var collection: CIDUnicode.Runs? = nil
    var toUnicode: CMap? = nil
    /// Type3: the font matrix's horizontal scale (glyph units to text space).
    var type3Scale: Double = 0.001
    var type3VScale: Double = 0.001
    /// Ascent and descent in 1/1000 em.
    var ascent: Double = 800
    var descent: Double = -200
    var standard: StandardFont? = nil
    var vertical: Bool { kind == .composite && cmap.vertical }
    /// The embedded font program's outlines (glyph boxes), when it parses.
    var program: FontProgram? = nil
    /// CIDFontType2: the /CIDToGIDMap stream (two bytes a CID); nil for Identity.
    var cidToGID: [UInt8]? = nil
    /// The font descriptor says symbolic (flag 3) and not nonsymbolic (flag 6).
    var symbolic = false
    /// A non-embedded simple font that is not a standard one: the standard font whose AFM
    /// boxes stand in for its glyphs (by the descriptor's flags: fixed pitch, serif, bold,
    /// italic), as viewers substitute a font for it.
    var substitute: StandardFont? = nil
    /// Type 3: the /CharProcs and the document, for the `d1` boxes read on first use.
    private var charProcs: PDFDictionary? = nil
    private weak var document: Document? = nil
    private var fontMatrix: [Double] = [0.001, 0, 0, 0.001, 0, 0]
    private var glyphBoxes: [UInt32: GlyphBox?] = [:]
    /// ``text(_:bytes:)`` by code (and byte count), as ``glyphBoxes``.
    private var texts: [UInt64: String] = [:]

    init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }

    /// A font for a /Font resource that is missing or not a dictionary: Helvetica's widths,
    /// Latin-1 text.
    static func fallback() -> TextFont {
        let f = TextFont(kind: .simple, name: "Helvetica")
        f.standard = StandardFontMetrics.font(named: "Helvetica")
        f.encoding = BaseEncoding.standard.glyphNames
        if let s = f.standard { f.ascent = s.ascent; f.descent = s.descent }
        return f
    }

    /// Reads the font dictionary `dict`.
    static func load(_ dict: PDFDictionary, document: Document) -> TextFont {
        let subtype = (try? document.resolve(dict["Subtype"] ?? .null))?.name?.value ?? "Type1"
        let baseFont = (try? document.resolve(dict["BaseFont"] ?? .null))?.name?.value ?? ""
        let font: TextFont
        switch subtype {
        case "Type0": font = TextFont(kind: .composite, name: baseFont); font.loadComposite(dict, document)
        case "Type3": font = TextFont(kind: .type3, name: baseFont); font.loadSimple(dict, document)
        default: font = TextFont(kind: .simple, name: baseFont); font.loadSimple(dict, document)
        }
        if let tu = try? document.resolve(dict["ToUnicode"] ?? .null), case .stream(let s) = tu,
           let data = try? document.file.decodedData(s) {
            let c = CMap.parse(data)
            if c.hasUnicode { font.toUnicode = c }
        } else if let tu = (try? document.resolve(dict["ToUnicode"] ?? .null))?.name?.value,
                  tu.contains("UCS2") || tu.contains("UTF16") || tu.hasPrefix("Identity") {
            font.cidIsUnicode = true
        }
        return font
    }

    private func descriptor(_ dict: PDFDictionary?, _ document: Document) {
        guard let d = try? document.dictionary(dict?["FontDescriptor"]) else { return }
        func num(_ k: PDFName) -> Double? { (try? document.resolve(d[k] ?? .null))?.number }
        for key in ["FontFile2", "FontFile3", "FontFile"] where program == nil {
            if case .stream(let s)? = try? document.resolve(d[PDFName(key)] ?? .null),
               let data = try? document.file.decodedData(s) {
                program = FontProgram.read(Array(data), key: key)
            }
        }
        if let m = num("MissingWidth") { missingWidth = m }
        var a = num("Ascent") ?? 0, de = num("Descent") ?? 0
        if let bbox = (try? document.resolve(d["FontBBox"] ?? .null))?.array?.compactMap(\.number), bbox.count == 4 {
            if a == 0 { a = bbox[3] }
            if de == 0 { de = bbox[1] }
        }
        if a > 0 && a < 3000 { ascent = a }
        if de < 0 && de > -3000 { descent = de }
        if ascent - descent < 100 { ascent = 800; descent = -200 }
    }

    private func loadSimple(_ dict: PDFDictionary, _ document: Document) {
        standard = StandardFontMetrics.font(named: name)
        if let s = standard { ascent = s.ascent; descent = s.descent }
        descriptor(dict, document)
        // Encoding.
        let flags = (try? document.dictionary(dict["FontDescriptor"]))?["Flags"]?.integer ?? 0
        symbolic = (flags & 4) != 0 && (flags & 32) == 0
        if standard == nil && program == nil && kind == .simple && !symbolic {
            let lower = name.lowercased()
            let bold = (flags & (1 << 18)) != 0 || lower.contains("bold") || lower.contains("black") || lower.contains("heavy")
            let italic = (flags & 64) != 0 || lower.contains("italic") || lower.contains("oblique")
            let slant = (flags & 1) != 0 || (flags & 2) == 0 ? "Oblique" : "Italic"
            let family = (flags & 1) != 0 ? "Courier" : (flags & 2) != 0 ? "Times" : "Helvetica"
            let style = bold && italic ? "-Bold" + slant : bold ? "-Bold" : italic ? "-" + slant : family == "Times" ? "-Roman" : ""
            substitute = StandardFontMetrics.font(named: family + style)
        }
        var base: [String?]
        if let s = standard, s.isSymbolic {
            base = Array(repeating: nil, count: 256)
            for (c, g) in s.builtInEncoding { base[c] = g }
        } else if kind == .simple && symbolic && standard == nil {
            base = Array(repeating: nil, count: 256)  // the font program's own encoding: unknown
        } else {
            base = BaseEncoding.standard.glyphNames
        }
        let encodingValue = try? document.resolve(dict["Encoding"] ?? .null)
        func named(_ n: String) -> [String?]? {
            switch n {
            case "WinAnsiEncoding": return BaseEncoding.winAnsi.glyphNames
            case "MacRomanEncoding": return BaseEncoding.macRoman.glyphNames
            case "StandardEncoding": return BaseEncoding.standard.glyphNames
            case "PDFDocEncoding": return BaseEncoding.pdfDoc.glyphNames
            default: return nil
            }
        }
        if let n = encodingValue?.name?.value, let e = named(n) {
            base = e
        } else if let d = encodingValue?.dictionary {
            if let n = (try? document.resolve(d["BaseEncoding"] ?? .null))?.name?.value, let e = named(n) { base = e }
            if let diffs = (try? document.resolve(d["Differences"] ?? .null))?.array {
                var code = 0
                for item in diffs {
                    switch item {
                    case .integer(let i): code = i >= 0 && i < 256 ? Int(i) : 256  // out of range: ignored
                    case .name(let g):
                        if (0..<256).contains(code) { base[code] = g.value }
                        code = min(code + 1, 256)
                    default: break
                    }
                }
            }
        }
        encoding = base
        // Widths.
        if kind == .type3, let m = (try? document.resolve(dict["FontMatrix"] ?? .null))?.array?.compactMap(\.number), m.count == 6 {
            type3Scale = m[0]
            type3VScale = m[3]
            fontMatrix = m
        }
        if kind == .type3 {
            charProcs = try? document.dictionary(dict["CharProcs"])
            self.document = document
        }
        // Clamped, so that first + k cannot overflow (a hostile /FirstChar of 2^63 - 1).
        let first = Int(max(-1, min(256, (try? document.resolve(dict["FirstChar"] ?? .null))?.integer ?? 0)))
        if let w = (try? document.resolve(dict["Widths"] ?? .null))?.array {
            for (k, value) in w.enumerated() where (0..<256).contains(first + k) {
                widths[first + k] = (try? document.resolve(value))?.number
            }
        } else if let s = standard {
            for c in 0..<256 { if let g = encoding[c] { widths[c] = s.width(ofGlyph: g) } }
            if missingWidth == 0 { missingWidth = s.width(ofGlyph: "space") ?? 0 }
        }
        if kind == .type3 {
            // Ascent and descent in text space come from the glyph units through the matrix.
            ascent = 800; descent = -200
        }
    }

    private func loadComposite(_ dict: PDFDictionary, _ document: Document) {
        let encodingValue = try? document.resolve(dict["Encoding"] ?? .null)
        if let n = encodingValue?.name?.value {
            cmap = CMap.predefined(n) ?? CMap.identity(vertical: false)
            if n.contains("UCS2") || n.contains("UTF16") { cidIsUnicode = true }
        } else if case .stream(let s)? = encodingValue, let data = try? document.file.decodedData(s) {
            cmap = CMap.parse(data)
            if cmap.codespace.isEmpty { cmap.codespace = [CMap.Range(bytes: 2, low: 0, high: 0xFFFF)] }
        }
        guard let descendants = (try? document.resolve(dict["DescendantFonts"] ?? .null))?.array,
              let first = descendants.first, let cidFont = try? document.dictionary(first) else { return }
        descriptor(cidFont, document)
        if case .stream(let s)? = try? document.resolve(cidFont["CIDToGIDMap"] ?? .null),
           let data = try? document.file.decodedData(s) {
            cidToGID = Array(data)
        }
        if let info = try? document.dictionary(cidFont["CIDSystemInfo"]),
           let ordering = (try? document.resolve(info["Ordering"] ?? .null))?.string?.text,
           ordering == "Identity" || ordering == "UCS", cmap.isIdentity {
            cidIsUnicode = false  // Identity ordering: CIDs are glyph ids, not Unicode.
        }
        // An Adobe CJK collection: its CIDs have known Unicode, when the codes' CIDs are
        // known (an Identity CMap or an embedded one; the other predefined CMaps are not
        // built in, and their codes read as two-byte CIDs would be wrong CIDs).
        var encodingKnown = encodingValue?.name?.value.hasPrefix("Identity") ?? false
        if case .stream? = encodingValue { encodingKnown = true }
        if encodingKnown, let info = try? document.dictionary(cidFont["CIDSystemInfo"]),
           (try? document.resolve(info["Registry"] ?? .null))?.string?.text == "Adobe",
           let ordering = (try? document.resolve(info["Ordering"] ?? .null))?.string?.text {
            collection = CIDUnicode.runs(ordering: ordering)
        }
        if let dw = (try? document.resolve(cidFont["DW"] ?? .null))?.number { defaultWidth = dw }
        readVerticalMetrics(cidFont, document: document)
        if let w = (try? document.resolve(cidFont["W"] ?? .null))?.array {
            var i = 0
            var count = 0
            while i < w.count && count < CMap.maxEntries {
                guard let start = (try? document.resolve(w[i]))?.integer, start >= 0, start < Int64(UInt32.max) else { break }
                guard i + 1 < w.count else { break }
                let next = (try? document.resolve(w[i + 1])) ?? .null
                if let list = next.array {
                    for (k, v) in list.enumerated() {
                        if let n = (try? document.resolve(v))?.number { cidWidths[UInt32(start) &+ UInt32(k)] = n }
                        count += 1
                    }
                    i += 2
                } else if let end = next.integer, i + 2 < w.count, let width = (try? document.resolve(w[i + 2]))?.number {
                    if end >= start && end < Int64(UInt32.max) { cidWidthRanges.append((UInt32(start), UInt32(end), width)) }
                    count += 1
                    i += 3
                } else {
                    break
                }
            }
        }
    }

    /// /DW2 and /W2 of a CIDFont (§9.7.4.3), read as /W is.
    private func readVerticalMetrics(_ cidFont: PDFDictionary, document: Document) {
        func number(_ o: PDFObject) -> Double? { (try? document.resolve(o))?.number.flatMap { $0.isFinite ? $0 : nil } }
        if let dw2 = (try? document.resolve(cidFont["DW2"] ?? .null))?.array, dw2.count == 2,
            let vy = number(dw2[0]), let w1y = number(dw2[1])
        {
            defaultVertical = (vy, w1y)
        }
        guard let w = (try? document.resolve(cidFont["W2"] ?? .null))?.array else { return }
        var i = 0
        var count = 0
        while i < w.count && count < CMap.maxEntries {
            guard let start = (try? document.resolve(w[i]))?.integer, start >= 0, start < Int64(UInt32.max) else { break }
            guard i + 1 < w.count else { break }
            let next = (try? document.resolve(w[i + 1])) ?? .null
            if let list = next.array {
                var k = 0
                while k + 2 < list.count, let w1y = number(list[k]), let vx = number(list[k + 1]),
                    let vy = number(list[k + 2])
                {
                    cidVertical[UInt32(start) &+ UInt32(k / 3)] = (w1y, vx, vy)
                    k += 3
                    count += 1
                }
                i += 2
            } else if let end = next.integer, i + 4 < w.count, let w1y = number(w[i + 2]), let vx = number(w[i + 3]),
                let vy = number(w[i + 4])
            {
                if end >= start && end < Int64(UInt32.max) { cidVerticalRanges.append((UInt32(start), UInt32(end), w1y, vx, vy)) }
                count += 1
                i += 5
            } else {
                break
            }
        }
    }

    /// Vertical writing: the displacement w1y of `code` and its position vector (vx, vy),
    /// in text space units per unit of font size (§9.7.4.3).
    func verticalMetrics(_ code: UInt32, bytes: Int) -> (w1y: Double, vx: Double, vy: Double) {
        let cid = cmap.cid(code, bytes: bytes)
        if let m = cidVertical[cid] { return (m.w1y / 1000, m.vx / 1000, m.vy / 1000) }
        for r in cidVerticalRanges where cid >= r.low && cid <= r.high { return (r.w1y / 1000, r.vx / 1000, r.vy / 1000) }
        return (defaultVertical.w1y / 1000, advance(code, bytes: bytes) / 2, defaultVertical.vy / 1000)
    }

    /// The codes of string `bytes`: one byte each for a simple font.
    func codes(_ bytes: [UInt8]) -> [(code: UInt32, bytes: Int)] {
        if kind == .composite { return cmap.codes(bytes) }
        return bytes.map { (UInt32($0), 1) }
    }

    /// The advance of `code` in text space units per unit of font size (horizontal).
    func advance(_ code: UInt32, bytes: Int) -> Double {
        switch kind {
        case .simple:
            return (code < 256 ? widths[Int(code)] ?? fallbackWidth(code) : missingWidth) / 1000
        case .type3:
            return (code < 256 ? widths[Int(code)] ?? 0 : 0) * type3Scale
        case .composite:
            let cid = cmap.cid(code, bytes: bytes)
            if let w = cidWidths[cid] { return w / 1000 }
            for r in cidWidthRanges where cid >= r.low && cid <= r.high { return r.width / 1000 }
            return defaultWidth / 1000
        }
    }

    private func fallbackWidth(_ code: UInt32) -> Double {
        if missingWidth > 0 { return missingWidth }
        if let s = standard, let g = encoding[Int(code)], let w = s.width(ofGlyph: g) { return w }
        return 500
    }

    /// The Unicode text of `code`, found once per code and kept (looking a glyph name up
    /// in the glyph list for every glyph shown was a tenth of a search, issue 41).
    func text(_ code: UInt32, bytes: Int) -> String {
        let key = UInt64(code) | UInt64(truncatingIfNeeded: bytes) << 32
        if let cached = texts[key] { return cached }
        let text = findText(code, bytes: bytes)
        if texts.count < 65_536 { texts[key] = text }
        return text
    }

    private func findText(_ code: UInt32, bytes: Int) -> String {
        if let tu = toUnicode, let s = tu.text(code, bytes: bytes) { return s }
        switch kind {
        case .simple, .type3:
            if code < 256, let g = encoding[Int(code)], let u = GlyphNames.unicode(for: g) { return u }
            if code < 256, let g = encoding[Int(code)], let u = Self.unusualGlyphName(g) { return u }
            if code < 256, let s = Unicode.Scalar(code), code >= 0x20 { return String(Character(s)) }
            return code == 0 ? "" : "\u{FFFD}"
        case .composite:
            let cid = cmap.cid(code, bytes: bytes)
            if cidIsUnicode, let s = Unicode.Scalar(cid), cid >= 0x20 { return String(Character(s)) }
            if let runs = collection, let s = CIDUnicode.text(cid, in: runs) { return s }
            return "\u{FFFD}"
        }
    }

    /// Glyph names outside the Adobe Glyph List that writers use for plain codes:
    /// `gXX`/`GXX` and `cidNNN` (hex or decimal codes), `aNN`, `uniXXXX` in lowercase.
    static func unusualGlyphName(_ g: String) -> String? {
        let u = Array(g.utf8)
        guard u.count >= 2 else { return nil }
        if (u[0] == UInt8(ascii: "g") || u[0] == UInt8(ascii: "G")), u.count <= 4,
           let v = UInt32(String(decoding: u[1...], as: UTF8.self), radix: 16), v >= 0x20, let s = Unicode.Scalar(v) {
            return String(Character(s))
        }
        if g.hasPrefix("uni"), u.count == 7, let v = UInt32(String(decoding: u[3...], as: UTF8.self), radix: 16),
           let s = Unicode.Scalar(v) {
            return String(Character(s))
        }
        return nil
    }

    /// The box of the glyph `code` shows, in 1/1000 em around the glyph origin, from the
    /// glyph's outline in the embedded font program (TrueType `glyf`, CFF or Type 1
    /// charstrings) or, for a non-embedded simple font, from the AFM of the standard 14 font
    /// it is or that stands in for it (``substitute``); nil when none gives one (Type 3
    /// fonts, non-embedded composite and symbolic fonts, glyphs the program lacks): the
    /// caller falls back to the ascent-to-descent box.
    func glyphBox(_ code: UInt32, bytes: Int) -> GlyphBox? {
        let key = code | UInt32(bytes) << 29
        if let cached = glyphBoxes[key] { return cached }
        let box = findGlyphBox(code, bytes: bytes)
        if glyphBoxes.count < 65_536 { glyphBoxes[key] = box }
        return box
    }

    private func findGlyphBox(_ code: UInt32, bytes: Int) -> GlyphBox? {
        if kind == .type3 { return type3Box(code) }
        let name: String? = kind == .simple && code < 256 ? encoding[Int(code)] : nil
        switch program {
        case .trueType(let tt)?:
            return glyph(tt, code, bytes: bytes, name: name).flatMap { tt.box($0) }
        case .cff(let cff)?:
            if kind == .composite { return cff.glyph(cid: Int(cmap.cid(code, bytes: bytes))).flatMap { cff.box($0) } }
            if let n = name, let g = cff.glyph(named: n) { return cff.box(g) }
            if let g = cff.encoding[Int(code)] { return cff.box(g) }
            return nil
        case .type1(let t1)?:
            if let n = name, t1.has(n) { return t1.box(named: n) }
            if let n = t1.encoding[Int(code)] { return t1.box(named: n) }
            return nil
        case nil:
            if let s = standard ?? substitute, kind == .simple, let n = name { return s.box(ofGlyph: n) }
            return nil
        }
    }

    /// A Type 3 glyph's box: the `d1` operator's (the first operator of its /CharProcs
    /// stream), through the font matrix; nil for `d0` glyphs (their box is what they draw,
    /// which Quire does not measure).
    private func type3Box(_ code: UInt32) -> GlyphBox? {
        guard code < 256, let name = encoding[Int(code)], let procs = charProcs, let document,
              case .stream(let s)? = try? document.resolve(procs[PDFName(name)] ?? .null),
              let data = try? document.file.decodedData(s) else { return nil }
        // The numbers before the first `d1` within the stream's first 512 bytes.
        var numbers: [Double] = []
        var token: [UInt8] = []
        for byte in data.prefix(512) + [0x20] {
            if byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 {
                if token == [0x64, 0x31] {  // d1
                    guard numbers.count >= 6 else { return nil }
                    let v = Array(numbers.suffix(4))
                    let m = fontMatrix
                    let xs = [v[0] * m[0] + v[1] * m[2], v[2] * m[0] + v[3] * m[2], v[0] * m[0] + v[3] * m[2], v[2] * m[0] + v[1] * m[2]]
                    let ys = [v[0] * m[1] + v[1] * m[3], v[2] * m[1] + v[3] * m[3], v[0] * m[1] + v[3] * m[3], v[2] * m[1] + v[1] * m[3]]
                    guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(),
                          [x0, x1, y0, y1].allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else { return nil }
                    return GlyphBox(left: x0 * 1000, bottom: y0 * 1000, right: x1 * 1000, top: y1 * 1000)
                }
                if token == [0x64, 0x30] { return nil }  // d0
                if !token.isEmpty {
                    guard let n = Double(String(decoding: token, as: UTF8.self)) else { return nil }
                    numbers.append(n)
                    if numbers.count > 6 { numbers.removeFirst() }
                }
                token.removeAll()
            } else {
                token.append(byte)
                if token.count > 32 { return nil }
            }
        }
        return nil
    }

    /// The glyph of `code` in an embedded TrueType font: for a CIDFontType2 through
    /// /CIDToGIDMap; for a simple font, as viewers look it up: the Unicode of the code's
    /// glyph name in the (3,1) `cmap`, then the code in the (3,0) symbol `cmap` (also at
    /// 0xF000, 0xF100 and 0xF200 + code), then in the (1,0) Macintosh `cmap`, then the code
    /// itself in the (3,1) `cmap`.
    private func glyph(_ tt: TrueTypeProgram, _ code: UInt32, bytes: Int, name: String?) -> Int? {
        if kind == .composite {
            let cid = Int(cmap.cid(code, bytes: bytes))
            if let map = cidToGID {
                guard cid >= 0, cid * 2 + 1 < map.count else { return nil }
                return Int(map[cid * 2]) << 8 | Int(map[cid * 2 + 1])
            }
            return cid
        }
        let c = Int(code)
        if !symbolic, let n = name, let u = GlyphNames.unicode(for: n)?.unicodeScalars.first,
           let g = tt.glyph(Int(u.value), platform: 3, encoding: 1) {
            return g
        }
        for base in [0, 0xF000, 0xF100, 0xF200] {
            if let g = tt.glyph(base + c, platform: 3, encoding: 0) { return g }
        }
        if let g = tt.glyph(c, platform: 1, encoding: 0) { return g }
        if let n = name, let u = GlyphNames.unicode(for: n)?.unicodeScalars.first,
           let g = tt.glyph(Int(u.value), platform: 3, encoding: 1) {
            return g
        }
        if let g = tt.glyph(c, platform: 3, encoding: 1) { return g }
        // No usable cmap: the code is the glyph (as PDFium reads such subsets).
        return !tt.hasCmap(3, 1) && !tt.hasCmap(3, 0) && !tt.hasCmap(1, 0) ? c : nil
    }

    /// Whether code is the single-byte code 32 (word spacing applies, §9.3.3).
    func isWordSpace(_ code: UInt32, bytes: Int) -> Bool { bytes == 1 && code == 32 }
}
