import QuireSyntax

/// Appearance streams of form fields (ISO 32000-2 §12.7.4.3, "variable text"), regenerated
/// when a value changes so that viewers that only draw appearances show it.
///
/// Text comes from the default appearance string (/DA): its font
/// (``Document/appearanceFace(named:what:)``: the form's /DR font of that name, a
/// composite font's embedded TrueType program, a standard font by Acrobat's or its own
/// name, else Helvetica), its size (0 or a size that is not positive: auto size, fitted to
/// the widget) and its colour; then /Q (alignment), the multiline, comb and password flags.
/// Missing /DA: "/Helv 0 Tf 0 g" with a warning, written into the field.
///
/// Encoding and widths: a simple font of /DR is written in its own encoding and measured
/// with its own widths, as the text model reads them (``TextFont``: /ToUnicode, else
/// /Differences over /BaseEncoding over the font's built-in or the standard encoding;
/// /Widths, else the standard 14 font metrics of its /BaseFont, else /MissingWidth, else
/// half an em); characters the encoding does not have are written as "?". The Helvetica
/// that Quire supplies (no /DR font, or one it cannot encode for) is written in
/// WinAnsiEncoding (Latin-1 and the euro sign, curly quotes, dashes and the other
/// characters of 0x80 to 0x9F) and measured with Helvetica's metrics
/// (``StandardFontMetrics``).
struct DefaultAppearance {
    var fontName: String = "Helv"
    /// nil: auto size.
    var size: Double? = nil
    /// The colour operator with its operands ("0 g", "1 0 0 rg"), black when none.
    var colorOperator: String = "0 g"

    init(_ da: String?) {
        guard let da else { return }
        let t = da.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }).map(String.init)
        if let i = t.lastIndex(of: "Tf"), i >= 2, t[i - 2].hasPrefix("/") {
            fontName = String(t[i - 2].dropFirst())
            if let s = Double(t[i - 1]), s.isFinite, s > 0 { size = Swift.min(s, 1000) }
        }
        for (op, count) in [("k", 4), ("rg", 3), ("g", 1)] {
            if let i = t.lastIndex(of: op), i >= count {
                let operands = t[(i - count)..<i]
                if operands.allSatisfy({ Double($0).map(\.isFinite) ?? false }) {
                    colorOperator = operands.joined(separator: " ") + " " + op
                    break
                }
            }
        }
    }
}

extension DefaultAppearance {
    /// `da` with the font resource names of `renames` (old name to new, without slashes)
    /// replaced where they are the font operand of `Tf`; everything else kept as written.
    static func renamingFont(in da: String, _ renames: [String: String]) -> String {
        var tokens: [(range: Range<String.Index>, text: Substring)] = []
        var i = da.startIndex
        while i < da.endIndex {
            if da[i] == " " || da[i] == "\n" || da[i] == "\r" || da[i] == "\t" { i = da.index(after: i); continue }
            var j = i
            while j < da.endIndex, !(da[j] == " " || da[j] == "\n" || da[j] == "\r" || da[j] == "\t") { j = da.index(after: j) }
            tokens.append((i..<j, da[i..<j]))
            i = j
        }
        var out = da
        // From the end, so that earlier ranges stay valid.
        for k in tokens.indices.reversed() where tokens[k].text == "Tf" && k >= 2 {
            let name = tokens[k - 2]
            guard name.text.hasPrefix("/"), let renamed = renames[String(name.text.dropFirst())] else { continue }
            out.replaceSubrange(name.range, with: "/" + renamed)
        }
        return out
    }
}

/// A font for a field appearance: its resource and its widths.
struct FieldFont {
    var resourceName: String
    var resource: PDFObject
    /// Widths in thousandths of an em by character code, from the font's /Widths.
    var widths: [Int: Double] = [:]
    var missingWidth: Double = 500
    /// The standard 14 font it is (or stands for), whose metrics serve when the font has
    /// no /Widths (Text/FontTables.swift).
    var standard: StandardFont? = nil
    /// For a simple font of the form's /DR: the code of each character its encoding has
    /// (/ToUnicode, else /Differences over /BaseEncoding over the font's built-in or the
    /// standard encoding), as the text model (``TextFont``) reads it; and each code's width
    /// in thousandths of an em (/Widths, else the standard 14 font's metrics, else
    /// /MissingWidth, else half an em). Nil: WinAnsiEncoding and the widths above (the
    /// Helvetica that Quire supplies).
    var codes: [UInt32: UInt8]? = nil
    var codeWidths: [Double]? = nil

    /// `text` as the font's codes (a tab as a space, other control characters left out);
    /// characters it has no code for as "?" (or the first code it has, when it has no "?"):
    /// ``AppearanceText`` uses a font only for text it ``covers(_:)``.
    func encode(_ text: String) -> [UInt8] {
        guard let codes else { return winAnsiBytes(text) }
        let unknown = codes[UInt32(UInt8(ascii: "?"))] ?? codes.values.min() ?? UInt8(ascii: "?")
        return text.unicodeScalars.compactMap { s in
            if s == "\t" { return codes[0x20] ?? unknown }
            if s.properties.generalCategory == .control { return nil }
            return codes[s.value] ?? unknown
        }
    }

    /// Whether its encoding has every character of `text` that is drawn (line breaks and
    /// other control characters are not; a tab is drawn as a space).
    func covers(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { s in
            if s.properties.generalCategory == .control && s != "\t" { return true }
            let v = s == "\t" ? 0x20 : s.value
            if let codes { return codes[v] != nil }
            return winAnsiCodes[v] != nil || (0xA0...0xFF).contains(v)
        }
    }

    func width(of bytes: [UInt8], size: Double) -> Double {
        if let codeWidths {
            return bytes.reduce(0) { $0 + codeWidths[Int($1)] } * size / 1000
        }
        return bytes.reduce(0) { total, b in
            total + (widths[Int(b)] ?? winAnsiGlyphs[Int(b)].flatMap { standard?.width(ofGlyph: $0) } ?? missingWidth)
        } * size / 1000
    }
}

/// The WinAnsiEncoding code of each character it has (Annex D: Latin-1 and, at 0x80 to
/// 0x9F, the euro sign, curly quotes, dashes, Œ, Š, Ž and the others).
private let winAnsiCodes: [UInt32: UInt8] = {
    var map: [UInt32: UInt8] = [:]
    for (code, name) in BaseEncoding.winAnsi.glyphNames.enumerated() {
        guard let name, let u = GlyphNames.unicode(for: name)?.unicodeScalars.first, map[u.value] == nil else { continue }
        map[u.value] = UInt8(code)
    }
    return map
}()

/// The glyph name of each WinAnsiEncoding code, for the standard 14 fonts' widths.
private let winAnsiGlyphs = BaseEncoding.winAnsi.glyphNames

/// Text as WinAnsiEncoding bytes (a tab as a space, other control characters left out);
/// characters it does not have as "?" (``AppearanceText`` uses it only for text it has).
func winAnsiBytes(_ text: String) -> [UInt8] {
    text.unicodeScalars.compactMap { s in
        if s == "\t" { return 0x20 }
        if s.properties.generalCategory == .control { return nil }
        if let code = winAnsiCodes[s.value] { return code }
        // No-break space and soft hyphen: WinAnsi's 0xA0 and 0xAD, which Annex D names
        // "space" and "hyphen" again.
        return (0xA0...0xFF).contains(s.value) ? UInt8(s.value) : UInt8(ascii: "?")
    }
}

extension Document {
    /// The simple fonts of the form's /DR other than `name`, in their order there: a font
    /// of the form that has every character of a value the /DA font does not
    /// (``AppearanceText``). At most 64.
    func otherFormFonts(excluding name: String) throws -> [FieldFont] {
        guard let fonts = try formFontResources() else { return [] }
        var out: [FieldFont] = []
        for (key, ref) in fonts where key.value != name && out.count < 64 {
            // Symbolic fonts (ZapfDingbats, Symbol) are not text fonts.
            if ["ZaDb", "Symbol", "ZapfDingbats"].contains(key.value) { continue }
            if let f = try simpleFormFont(key.value, ref), f.standard?.isSymbolic != true { out.append(f) }
        }
        return out
    }

    func formFontResources() throws -> PDFDictionary? {
        guard let form = try acroForm(), let dr = try dictionary(form["DR"]) else { return nil }
        return try dictionary(dr["Font"])
    }

    /// A simple font of /DR (Type1, TrueType, MMType1) with its encoding and widths; nil
    /// for another kind.
    func simpleFormFont(_ resourceName: String, _ ref: PDFObject) throws -> FieldFont? {
        guard let fd = try dictionary(ref), ["Type1", "TrueType", "MMType1"].contains(fd["Subtype"]?.name?.value ?? "") else {
            return nil
        }
        var font = FieldFont(resourceName: resourceName, resource: ref)
        font.standard = (fd["BaseFont"]?.name?.value).flatMap(StandardFontMetrics.font(named:))
            ?? StandardFontMetrics.font(named: resourceName)
        if let first = try fd["FirstChar"].map(resolve)?.integer, let w = try fd["Widths"].map(resolve)?.array,
           first >= 0, first < 256 {
            for (k, item) in w.prefix(256).enumerated() {
                if let v = try resolve(item).number, v.isFinite, v >= 0 { font.widths[Int(first) + k] = Swift.min(v, 10_000) }
            }
            if let desc = try dictionary(fd["FontDescriptor"]), let mw = try desc["MissingWidth"].map(resolve)?.number,
               mw.isFinite, mw > 0 { font.missingWidth = Swift.min(mw, 10_000) }
        }
        // The font's own encoding, through the text model: the codes its characters
        // have, and their widths.
        let model = TextFont.load(fd, document: self)
        var codes: [UInt32: UInt8] = [:]
        var codeWidths = [Double](repeating: 500, count: 256)
        for code in 0..<256 {
            let w = model.advance(UInt32(code), bytes: 1) * 1000
            if w.isFinite, w >= 0 { codeWidths[code] = Swift.min(w, 10_000) }
            // Only codes the encoding names (or /ToUnicode maps): the text model reads
            // the others as Latin-1, which says nothing of the glyph there.
            guard model.toUnicode != nil || model.encoding[code] != nil else { continue }
            let text = model.text(UInt32(code), bytes: 1).unicodeScalars
            guard text.count == 1, let u = text.first, u.value != 0xFFFD, codes[u.value] == nil else { continue }
            codes[u.value] = UInt8(code)
        }
        if !codes.isEmpty {
            font.codes = codes
            font.codeWidths = codeWidths
        }
        return font
    }

    /// The rotation of a widget's appearance (/MK /R), 0, 90, 180 or 270.
    private func widgetRotation(_ mk: PDFDictionary?) throws -> Int {
        guard let r = try mk?["R"].map(resolve)?.integer, r % 90 == 0 else { return 0 }
        return Int(((r % 360) + 360) % 360)
    }

    private func colorOperator(_ value: PDFObject?, stroking: Bool) throws -> String? {
        guard let value, let a = try resolve(value).array else { return nil }
        let c = try a.compactMap { try resolve($0).number }.filter(\.isFinite)
        let v = c.map(Appearance.n).joined(separator: " ")
        switch c.count {
        case 1: return v + (stroking ? " G" : " g")
        case 3: return v + (stroking ? " RG" : " rg")
        case 4: return v + (stroking ? " K" : " k")
        default: return nil
        }
    }

    /// The frame of a widget's appearance: its box, matrix, background and border.
    private struct Frame {
        var width: Double
        var height: Double
        var matrix: [Double]?
        var prologue: [String] = []
        var border: Double = 0
    }

    private func frame(_ widget: PDFDictionary, rect: Rect) throws -> Frame {
        let mk = try dictionary(widget["MK"])
        let rotation = try widgetRotation(mk)
        var f = Frame(width: rect.width, height: rect.height, matrix: nil)
        switch rotation {
        case 90: f = Frame(width: rect.height, height: rect.width, matrix: [0, 1, -1, 0, rect.width, 0])
        case 180: f.matrix = [-1, 0, 0, -1, rect.width, rect.height]
        case 270: f = Frame(width: rect.height, height: rect.width, matrix: [0, -1, 1, 0, 0, rect.height])
        default: break
        }
        let n = Appearance.n
        if let bg = try colorOperator(mk?["BG"], stroking: false) {
            f.prologue.append("\(bg) 0 0 \(n(f.width)) \(n(f.height)) re f")
        }
        if let bc = try colorOperator(mk?["BC"], stroking: true) {
            var w = 1.0
            if let bs = try dictionary(widget["BS"]), let bw = try bs["W"].map(resolve)?.number, bw.isFinite, bw >= 0 { w = Swift.min(bw, 100) }
            if w > 0 {
                f.border = w
                f.prologue.append("\(bc) \(n(w)) w \(n(w / 2)) \(n(w / 2)) \(n(Swift.max(f.width - w, 0))) \(n(Swift.max(f.height - w, 0))) re S")
            }
        }
        return f
    }

    /// Writes `content` as the normal appearance of `widget` (replacing /AP).
    private func installAppearance(widget id: ObjectID, frame f: Frame, content: [UInt8], fonts: [(String, PDFObject)]) throws {
        var dict = PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Form")),
            ("BBox", .array([0, 0, f.width, f.height].map(Annotation.number))),
        ])
        if let m = f.matrix { dict["Matrix"] = .array(m.map(Annotation.number)) }
        if !fonts.isEmpty {
            dict["Resources"] = .dictionary(PDFDictionary([("Font", .dictionary(PDFDictionary(fonts.map { (PDFName($0.0), $0.1) })))]))
        }
        let stream = try addStream(dict, data: content)
        try setValue(.dictionary(PDFDictionary([("N", .reference(stream))])), forKey: "AP", inObject: id.number)
    }

    /// The text of a field's appearance and its font (``AppearanceText``): its /DA font
    /// when that has every character of `text`, else another font of /DR, else the
    /// Unicode fonts. `strict`: a character no font has fails the call (before anything
    /// changed) rather than being left out with a warning.
    func appearanceText(_ text: String, field: FormField, strict: Bool) throws -> (DefaultAppearance, AppearanceText) {
        let da = DefaultAppearance(field.defaultAppearance)
        let face = try appearanceFace(named: da.fontName, what: "field \"\(field.name)\"")
        let name: String? = if case .simple(let f) = face { f.resourceName } else { nil }
        let t = try AppearanceText(text, face: face, alternatives: try otherFormFonts(excluding: name ?? da.fontName),
                                   document: self, strict: strict, what: "the value of field \"\(field.name)\"")
        return (da, t)
    }

    /// Regenerates the appearance of each widget of a text field or combo box to show `text`.
    /// `strict`: see ``appearanceText(_:field:strict:)``.
    func regenerateTextAppearances(_ field: FormField, text: String, strict: Bool = true) throws {
        var display = text
        if field.flags.contains(.password) { display = String(repeating: "*", count: text.count) }
        let (da, font) = try appearanceText(display, field: field, strict: strict)
        try recordFallbackAppearance(field)
        let n = Appearance.n
        var drawn: [(FieldWidget, Frame, [UInt8])] = []
        for w in field.widgets {
            guard let wd = try dictionary(.reference(w.id)) else { continue }
            let f = try frame(wd, rect: w.rect)
            let pad = 2 + f.border
            let innerWidth = Swift.max(f.width - 2 * pad, 1)
            var ops = f.prologue
            ops.append("/Tx BMC q")
            ops.append("\(n(f.border)) \(n(f.border)) \(n(Swift.max(f.width - 2 * f.border, 0))) \(n(Swift.max(f.height - 2 * f.border, 0))) re W n")
            ops.append("BT")
            let multiline = field.flags.contains(.multiline) && field.type == .text
            let comb = field.type == .text && field.flags.contains(.comb) && !multiline && !field.flags.contains(.password)
                && (field.maxLength.map { $0 > 0 && $0 <= FormLimits.maxCombCells } ?? false)
            func setFont(_ size: Double) {
                ops.append([font.fontOperator(size: size), da.colorOperator].compactMap { $0 }.joined(separator: " "))
            }
            if multiline {
                var size = da.size ?? 12
                var lines = wrap(display, font: font, size: size, width: innerWidth)
                if da.size == nil {
                    // Auto size: shrink until the lines fit the height (down to 4 points).
                    while size > 4 && Double(lines.count) * size * 1.15 > f.height - 2 * pad {
                        size -= 1
                        lines = wrap(display, font: font, size: size, width: innerWidth)
                    }
                }
                setFont(size)
                var y = f.height - pad - size * 0.8
                for line in lines {
                    if y < -size { break }
                    let x = aligned(font.width(line, size: size), quadding: field.quadding, pad: pad, width: f.width)
                    ops.append(font.show(line, x: x, y: y, size: size))
                    y -= size * 1.15
                }
            } else {
                let line = String(display.unicodeScalars.filter { $0 != "\n" && $0 != "\r" })
                var size = da.size ?? Swift.max(Swift.min(12, (f.height - 2 * pad) / 1.1), 2)
                if da.size == nil, !comb {
                    let widthAtOne = font.width(line, size: 1)
                    if widthAtOne > 0 { size = Swift.max(Swift.min(size, innerWidth / widthAtOne), 2) }
                }
                setFont(size)
                let y = (f.height - size * 0.7) / 2
                if comb, let cells = field.maxLength {
                    let cell = f.width / Double(cells)
                    for (k, ch) in line.prefix(cells).enumerated() {
                        let cw = font.width(String(ch), size: size)
                        ops.append(font.show(String(ch), x: Double(k) * cell + (cell - cw) / 2, y: y, size: size))
                    }
                } else {
                    let x = aligned(font.width(line, size: size), quadding: field.quadding, pad: pad, width: f.width)
                    ops.append(font.show(line, x: x, y: y, size: size))
                }
            }
            ops.append("ET Q EMC")
            drawn.append((w, f, Array((ops.joined(separator: "\n") + "\n").utf8)))
        }
        // The fonts once for all the widgets (the Unicode fonts as subsets of what they show).
        let fonts = try font.fontResources(self)
        for (w, f, content) in drawn {
            try installAppearance(widget: w.id, frame: f, content: content, fonts: fonts)
        }
    }

    /// A field without /DA (nor the form's) is drawn with "/Helv 0 Tf 0 g", with a
    /// warning; that /DA is written into the field too, so that a viewer that draws the
    /// field itself (poppler under /NeedAppearances) uses it rather than drawing nothing
    /// (poppler 22.12 draws nothing for a text field without /DA: "Missing 'Tf' operator in
    /// field's DA string").
    private func recordFallbackAppearance(_ field: FormField) throws {
        guard field.defaultAppearance == nil else { return }
        file.warn("field \"\(field.name)\" has no /DA (nor the form); \"/Helv 0 Tf 0 g\" is used and written into it")
        for id in [field.id] + field.sameNameIDs {
            try setValue(.string(PDFString(text: "/Helv 0 Tf 0 g")), forKey: "DA", inObject: id.number)
        }
    }

    /// Regenerates a list box's widgets: its options from the top, the selected ones on a
    /// highlight. `strict`: see ``appearanceText(_:field:strict:)``.
    func regenerateListAppearances(_ field: FormField, selected: Set<Int>, strict: Bool = true) throws {
        let (da, font) = try appearanceText(field.options.map(\.displayText).joined(separator: "\n"), field: field, strict: strict)
        try recordFallbackAppearance(field)
        let size = da.size ?? 12
        let n = Appearance.n
        var drawn: [(FieldWidget, Frame, [UInt8])] = []
        for w in field.widgets {
            guard let wd = try dictionary(.reference(w.id)) else { continue }
            let f = try frame(wd, rect: w.rect)
            let pad = 2 + f.border
            var ops = f.prologue
            ops.append("/Tx BMC q")
            ops.append("\(n(f.border)) \(n(f.border)) \(n(Swift.max(f.width - 2 * f.border, 0))) \(n(Swift.max(f.height - 2 * f.border, 0))) re W n")
            let lineHeight = size * 1.15
            var top = f.height - f.border
            for (k, option) in field.options.enumerated() {
                if top < 0 { break }
                if selected.contains(k) {
                    ops.append("0.6 0.75 0.86 rg \(n(f.border)) \(n(top - lineHeight)) \(n(Swift.max(f.width - 2 * f.border, 0))) \(n(lineHeight)) re f")
                }
                let line = String(option.displayText.unicodeScalars.filter { $0 != "\n" && $0 != "\r" })
                let tf = [font.fontOperator(size: size), selected.contains(k) ? "1 g" : da.colorOperator].compactMap { $0 }.joined(separator: " ")
                ops.append("BT \(tf) \(font.show(line, x: pad, y: top - size * 0.95, size: size)) ET")
                top -= lineHeight
            }
            ops.append("Q EMC")
            drawn.append((w, f, Array((ops.joined(separator: "\n") + "\n").utf8)))
        }
        let fonts = try font.fontResources(self)
        for (w, f, content) in drawn {
            try installAppearance(widget: w.id, frame: f, content: content, fonts: fonts)
        }
    }

    /// Gives a check box widget that has no appearance states an on-state `onState` (a
    /// ZapfDingbats check, or /MK /CA's character) and an Off state.
    func generateCheckAppearance(_ field: FormField, widget w: FieldWidget, onState: String) throws {
        guard let wd = try dictionary(.reference(w.id)) else { return }
        let f = try frame(wd, rect: w.rect)
        let da = DefaultAppearance(field.defaultAppearance)
        let mk = try dictionary(wd["MK"])
        let glyph = (try mk?["CA"].map(resolve)?.string?.bytes.first) ?? UInt8(ascii: "4")
        let size = da.size ?? Swift.max(Swift.min(f.width, f.height) * 0.8, 1)
        let n = Appearance.n
        // ZapfDingbats' check ("4") is 0.76 em wide; centred with that width.
        let on = f.prologue + ["q BT /ZaDb \(n(size)) Tf \(da.colorOperator) 1 0 0 1 \(n((f.width - size * 0.76) / 2)) \(n((f.height - size * 0.7) / 2)) Tm \(AppearanceText.stringOperand([glyph])) Tj ET Q"]
        var dict = PDFDictionary([("Type", .name("XObject")), ("Subtype", .name("Form")),
                                  ("BBox", .array([0, 0, f.width, f.height].map(Annotation.number)))])
        if let m = f.matrix { dict["Matrix"] = .array(m.map(Annotation.number)) }
        var onDict = dict
        onDict["Resources"] = .dictionary(PDFDictionary([("Font", .dictionary(PDFDictionary([
            ("ZaDb", .dictionary(PDFDictionary([("Type", .name("Font")), ("Subtype", .name("Type1")), ("BaseFont", .name("ZapfDingbats"))]))),
        ])))]))
        let onRef = try addStream(onDict, data: Array((on.joined(separator: "\n") + "\n").utf8))
        let offRef = try addStream(dict, data: Array((f.prologue.joined(separator: "\n") + "\n").utf8))
        try setValue(.dictionary(PDFDictionary([("N", .dictionary(PDFDictionary([(PDFName(onState), .reference(onRef)), ("Off", .reference(offRef))])))])),
                     forKey: "AP", inObject: w.id.number)
    }

    private func aligned(_ textWidth: Double, quadding: Int, pad: Double, width: Double) -> Double {
        switch quadding {
        case 1: return (width - textWidth) / 2
        case 2: return width - pad - textWidth
        default: return pad
        }
    }

    /// `text` broken into lines at newlines and, by words, at `width`.
    private func wrap(_ text: String, font: AppearanceText, size: Double, width: Double) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            var current = ""
            for word in paragraph.split(separator: " ") {
                let candidate = current.isEmpty ? String(word) : current + " " + word
                if current.isEmpty || font.width(candidate, size: size) <= width {
                    current = candidate
                } else {
                    lines.append(current)
                    current = String(word)
                }
                if lines.count > 10_000 { return lines }
            }
            lines.append(current)
        }
        return lines
    }
}
