import QuireSyntax
import QuireTestSupport
import Testing

@testable import QuireDocument

/// A one-page form with a text field "t" (/DA Helvetica, auto size), a multi-line field
/// "m", a comb field "c" of 6 cells, and a /DR with Helvetica and `extraFonts`.
private func unicodeForm(
    extraFonts: String = "",
    extraObjects: (inout PDFBuilder) -> Void = { _ in }
) throws -> Document {
    try document { b in
        b.object(
            1,
            "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R 6 0 R] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 10 0 R \(extraFonts) >> >> >> >>"
        )
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R 5 0 R 6 0 R] >>")
        b.object(4, "<< /FT /Tx /T (t) /Subtype /Widget /Rect [10 700 400 730] /P 3 0 R >>")
        b.object(
            5,
            "<< /FT /Tx /T (m) /Ff 4096 /DA (/Helv 12 Tf 0 g) /Subtype /Widget /Rect [10 500 200 650] /P 3 0 R >>"
        )
        b.object(
            6,
            "<< /FT /Tx /T (c) /Ff 16777216 /MaxLen 6 /DA (/Helv 12 Tf 0 g) /Subtype /Widget /Rect [10 400 200 430] /P 3 0 R >>"
        )
        b.object(10, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        extraObjects(&b)
    }
}

/// Whether the system has the fonts these tests draw with (scripts/install-deps.sh
/// installs them: fonts-dejavu-core, fonts-droid-fallback).
private let haveFonts =
    (try? AppearanceFonts.font("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")) != nil
    && (try? AppearanceFonts.font("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf")) != nil

/// The normal appearance of widget `id`: its content and its /Resources /Font.
private func appearance(_ d: Document, _ id: Int) throws -> (content: String, fonts: PDFDictionary) {
    let widget = try d.object(id).dictionary
    guard let n = try d.dictionary(widget?["AP"])?["N"], case .stream(let s) = try d.resolve(n) else {
        Issue.record("no /AP /N stream on \(id)")
        return ("", PDFDictionary())
    }
    let content = String(decoding: try d.streamData(s, decoded: true), as: UTF8.self)
    let fonts = try d.dictionary(try d.dictionary(s.dictionary["Resources"])?["Font"]) ?? PDFDictionary()
    return (content, fonts)
}

/// The characters /ToUnicode gives the glyphs of the composite fonts of `fonts`.
private func toUnicodeText(_ d: Document, _ fonts: PDFDictionary) throws -> String {
    var out = ""
    for (_, ref) in fonts {
        guard let f = try d.dictionary(ref), f["Subtype"]?.name == "Type0",
            let tu = f["ToUnicode"], case .stream(let s) = try d.resolve(tu)
        else { continue }
        let cmap = String(decoding: try d.streamData(s, decoded: true), as: UTF8.self)
        // "<gid> <utf16be>" lines.
        var inBlock = false
        for line in cmap.split(separator: "\n") {
            if line.hasSuffix("beginbfchar") {
                inBlock = true
                continue
            }
            if line == "endbfchar" {
                inBlock = false
                continue
            }
            guard inBlock, line.split(separator: " ").count == 2 else { continue }
            let hex = line.split(separator: " ")[1].dropFirst().dropLast()
            var units: [UInt16] = []
            var i = hex.startIndex
            while i < hex.endIndex, let j = hex.index(i, offsetBy: 4, limitedBy: hex.endIndex) {
                units.append(UInt16(hex[i..<j], radix: 16) ?? 0)
                i = j
            }
            out += String(decoding: units, as: UTF16.self)
        }
    }
    return out
}

@Suite("Text in any script in generated appearances (HarfBuzz, FriBidi, embedded CID fonts)")
struct AppearanceTextTests {
    /// Latin-1 text stays in the /DA font, WinAnsi-encoded, with nothing embedded.
    @Test func latinStaysInTheDAFont() throws {
        let d = try unicodeForm()
        try d.setFieldValue("Ünïcödé café", named: "t")
        let (content, fonts) = try appearance(d, 4)
        #expect(content.contains("(\\334n\\357c\\366d\\351 caf\\351) Tj"))
        #expect(fonts.count == 1 && fonts["Helv"] != nil)
    }

    @Test(
        .enabled(if: haveFonts),
        arguments: [
            ("Cyrillic", "Привет мир"), ("Greek", "Καλημέρα κόσμε"), ("Hebrew", "שלום עולם"),
            ("Arabic", "مرحبا بالعالم"), ("CJK", "你好世界"), ("Symbols", "★☺→✓€"),
            ("Mixed", "Привет 你好 שלום Ünïcödé"),
        ]
    )
    func scriptsAreEmbeddedNotReplaced(_ script: String, _ text: String) throws {
        let d = try unicodeForm()
        try d.setFieldValue(text, named: "t")
        #expect(try d.formField(named: "t").values == [text])
        let (content, fonts) = try appearance(d, 4)
        #expect(!content.contains("?"), "\(script): a '?' was drawn")
        // Type0, Identity-H, a CIDFontType2 with an embedded (subset) TrueType program.
        let composite = try fonts.compactMap { try d.dictionary($0.1) }.filter { $0["Subtype"]?.name == "Type0" }
        #expect(!composite.isEmpty, "\(script): no composite font")
        for f in composite {
            #expect(f["Encoding"]?.name == "Identity-H")
            #expect(f["ToUnicode"] != nil)
            let base = f["BaseFont"]?.name?.value ?? ""
            #expect(base.count > 7 && base.dropFirst(6).hasPrefix("+"), "subset tag: \(base)")
            let cid = try d.dictionary(try d.resolve(f["DescendantFonts"] ?? .null).array?.first)
            #expect(cid?["Subtype"]?.name == "CIDFontType2")
            #expect(cid?["CIDToGIDMap"]?.name == "Identity")
            let descriptor = try d.dictionary(cid?["FontDescriptor"])
            guard let file = descriptor?["FontFile2"], case .stream(let program) = try d.resolve(file) else {
                Issue.record("\(script): no FontFile2")
                continue
            }
            let bytes = try d.streamData(program, decoded: true)
            // A TrueType program (0x00010000), smaller than the whole font: a subset.
            #expect(Array(bytes.prefix(4)) == [0, 1, 0, 0])
            #expect(bytes.count < 400_000, "\(script): \(bytes.count) bytes embedded")
        }
        // /ToUnicode gives back every character drawn.
        let mapped = Set(try toUnicodeText(d, fonts).unicodeScalars.map(\.value))
        let wanted = Set(text.unicodeScalars.filter { $0 != " " }.map(\.value))
        #expect(
            wanted.subtracting(mapped).isEmpty,
            "\(script): not in /ToUnicode: \(wanted.subtracting(mapped).map { String(UnicodeScalar($0)!) })"
        )
        // Quire's own text extraction of the flattened page gives left-to-right text back.
        if !["Hebrew", "Arabic", "Mixed"].contains(script) {
            _ = try d.flatten()
            let page = try reopen(try d.saved(.full(objectStreams: false))).textPage(at: 0)
            #expect(page.text.contains(text), "\(script): extracted \(page.text)")
        }
    }

    /// A character no font has fails the call that sets it, naming it, and changes nothing.
    @Test(.enabled(if: haveFonts)) func uncoveredCharacterIsRefused() throws {
        let d = try unicodeForm()
        try d.setFieldValue("before", named: "t")
        do {
            try d.setFieldValue("ok \u{10FFFD}", named: "t")
            Issue.record("a character no font has was accepted")
        } catch let e as PDFError {
            #expect(e.kind == .unsupported)
            #expect(e.message.contains("U+10FFFD"))
        }
        #expect(try d.formField(named: "t").values == ["before"])
        #expect(try appearance(d, 4).content.contains("(before) Tj"))

        var a = Annotation(subtype: "FreeText", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 300, top: 200))
        a.contents = "\u{10FFFD}"
        a.defaultAppearance = "/Helv 12 Tf 0 g"
        #expect(throws: PDFError.self) { try d.addAnnotation(a) }
    }

    /// Flattening a value already in the file draws what fonts have, and warns of the rest.
    @Test(.enabled(if: haveFonts)) func flatteningWarnsOfUncoveredCharacters() throws {
        let d = try unicodeForm()
        try d.setValue(.string(PDFString(text: "שלום \u{10FFFD}")), forKey: "V", inObject: 4)
        _ = try d.flatten()
        #expect(d.warnings.contains { $0.contains("U+10FFFD") && $0.contains("leaves it out") })
    }

    /// Multi-line text wraps by its shaped width; comb fields put one character per cell.
    @Test(.enabled(if: haveFonts)) func multilineAndComb() throws {
        let d = try unicodeForm()
        try d.setFieldValue("Съешь же ещё этих мягких французских булок, да выпей чаю", named: "m")
        let lines = try appearance(d, 5).content.split(separator: "\n").filter {
            $0.contains("TJ") && $0.hasPrefix("1 0 0 1")
        }
        let ys = Set(lines.compactMap { $0.split(separator: " ").dropFirst(5).first })
        #expect(ys.count >= 3, "the text was not wrapped: \(ys)")
        try d.setFieldValue("你好世界", named: "c")
        let cells = try appearance(d, 6).content.split(separator: "\n").filter { $0.contains("TJ") }
        #expect(cells.count == 4)
    }

    /// Hebrew is drawn right to left: its glyphs in visual order (the last letter first).
    @Test(.enabled(if: haveFonts)) func rightToLeftIsInVisualOrder() throws {
        let chain = AppearanceFonts.defaultFonts()
        let line = FontChain(fonts: chain).shape("abc שלום")
        let texts = line.glyphs.map(\.text).joined()
        #expect(texts == "abc םולש")
        // Arabic is joined: the four letters of مرحبا take contextual forms, not the
        // isolated ones the cmap gives.
        let arabic = FontChain(fonts: chain).shape("مرحبا")
        let font = chain[arabic.glyphs[0].font]
        let isolated = "مرحبا".unicodeScalars.compactMap { font.glyph($0) }
        #expect(Set(arabic.glyphs.map(\.gid)) != Set(isolated))
    }

    /// A font of /DR whose encoding has every character serves before any embedding.
    @Test func aDRFontThatHasTheCharactersIsUsed() throws {
        let d = try unicodeForm(extraFonts: "/Cyr 11 0 R") { b in
            b.object(
                11,
                "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [192 /uni041F /uni0440 /uni0438 /uni0432 /uni0435 /uni0442] >> >>"
            )
        }
        try d.setFieldValue("Привет", named: "t")
        let (content, fonts) = try appearance(d, 4)
        #expect(content.contains("/Cyr "))
        #expect(content.contains("(\\300\\301\\302\\303\\304\\305) Tj"))
        #expect(fonts["Cyr"] != nil && fonts.count == 1)
    }

    /// A font file given to the document is tried first; a file that cannot serve is refused.
    @Test(.enabled(if: haveFonts)) func aGivenFontIsTriedFirst() throws {
        let d = try unicodeForm()
        #expect(throws: PDFError.self) { try d.addAppearanceFont(path: "/nonexistent/font.ttf") }
        #expect(throws: PDFError.self) { try d.addAppearanceFont(path: "/etc/hostname") }
        try d.addAppearanceFont(path: "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf")
        #expect(d.appearanceFontFiles == ["/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"])
        try d.setFieldValue("Привет", named: "t")
        let (_, fonts) = try appearance(d, 4)
        let names = try fonts.compactMap { try d.dictionary($0.1)?["BaseFont"]?.name?.value }
        #expect(names.count == 1 && names[0].hasSuffix("+DejaVuSerif"), "\(names)")
    }

    /// FreeText and stamp names take the same path.
    @Test(.enabled(if: haveFonts)) func freeTextAndStamps() throws {
        let d = try unicodeForm()
        var a = Annotation(subtype: "FreeText", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 300, top: 200))
        a.contents = "مرحبا 你好"
        a.defaultAppearance = "/Helv 12 Tf 0 g"
        let made = try d.addAnnotation(a)
        var s = Annotation(subtype: "Stamp", pageIndex: 0, rect: Rect(left: 100, bottom: 300, right: 300, top: 360))
        s.iconName = "Одобрено"
        let stamp = try d.addAnnotation(s)
        for id in [made.id, stamp.id].compactMap({ $0 }) {
            let (content, fonts) = try appearance(d, id.number)
            #expect(!content.contains("?"))
            #expect(try fonts.contains { try d.dictionary($0.1)?["Subtype"]?.name == "Type0" })
        }
        let text = try toUnicodeText(d, try appearance(d, stamp.id?.number ?? 0).fonts)
        #expect(Set(text) == Set("ОДОБРЕНО"))
    }
}
