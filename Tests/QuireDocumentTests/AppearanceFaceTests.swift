import QuireSyntax
import QuireTestSupport
import Testing

@testable import QuireDocument

#if canImport(Glibc)
import Glibc
#endif

// The fonts generated appearances draw in, as /DA names them (issue 39): the form's /DR
// font of that name, a composite font's embedded TrueType program, a standard font by
// Acrobat's name or its own.

private let dejaVu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
private let haveDejaVu = (try? AppearanceFonts.font(dejaVu)) != nil

/// The bytes of a file (empty when it cannot be read).
private func fileBytes(_ path: String) -> [UInt8] {
    guard let f = fopen(path, "rb") else { return [] }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        out += chunk.prefix(n)
    }
    return out
}

/// A one-page document whose form's /DR holds `/Comp`, a composite font (Type0,
/// Identity-H) whose descendant embeds `program` as FontFile2 (none when empty) under
/// the /BaseFont `base`, and `/Tr`, a simple TrueType font without a program.
private func formWithFonts(program: [UInt8], base: String) throws -> Document {
    try document { b in
        b.object(
            1,
            "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [] /DR << /Font << /Comp 10 0 R /Tr 14 0 R >> >> >> >>"
        )
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
        b.object(
            10,
            "<< /Type /Font /Subtype /Type0 /BaseFont /\(base) /Encoding /Identity-H /DescendantFonts [11 0 R] >>"
        )
        b.object(
            11,
            "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /\(base) /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 12 0 R /CIDToGIDMap /Identity >>"
        )
        let file = program.isEmpty ? "" : "/FontFile2 13 0 R"
        b.object(
            12,
            "<< /Type /FontDescriptor /FontName /\(base) /Flags 4 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 \(file) >>"
        )
        if !program.isEmpty { b.stream(13, "/Length1 \(program.count)", program) }
        b.object(
            14,
            "<< /Type /Font /Subtype /TrueType /BaseFont /Georgia /FirstChar 32 /LastChar 126 /Widths [\(Array(repeating: "600", count: 95).joined(separator: " "))] /Encoding /WinAnsiEncoding >>"
        )
    }
}

/// The fonts of the appearance of a FreeText with `da` and `text` added to `d`: each
/// resource name and its /BaseFont.
private func freeTextFonts(_ d: Document, da: String, text: String) throws -> [String: String] {
    var a = Annotation(subtype: "FreeText", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 400, top: 200))
    a.contents = text
    a.defaultAppearance = da
    let made = try d.addAnnotation(a)
    let id = try #require(made.id)
    let dict = try #require(try d.object(id.number).dictionary)
    let n = try #require(try d.dictionary(dict["AP"])?["N"])
    guard case .stream(let s) = try d.resolve(n) else { throw PDFError(.format, "no appearance stream") }
    let fonts = try d.dictionary(try d.dictionary(s.dictionary["Resources"])?["Font"]) ?? PDFDictionary()
    var out: [String: String] = [:]
    for (name, ref) in fonts { out[name.value] = try d.dictionary(ref)?["BaseFont"]?.name?.value ?? "" }
    return out
}

@Suite("Fonts by name in generated appearances")
struct AppearanceFaceTests {
    @Test func acrobatNamesAreTheStandardFonts() {
        let cases = [
            ("Helv", "Helvetica"), ("HeBo", "Helvetica-Bold"), ("HeOb", "Helvetica-Oblique"),
            ("HeBO", "Helvetica-BoldOblique"), ("TiRo", "Times-Roman"), ("TiBo", "Times-Bold"),
            ("TiIt", "Times-Italic"), ("TiBI", "Times-BoldItalic"), ("Cour", "Courier"), ("CoBo", "Courier-Bold"),
            ("CoOb", "Courier-Oblique"), ("CoBO", "Courier-BoldOblique"), ("Symb", "Symbol"),
            ("ZaDb", "ZapfDingbats"), ("Times-Italic", "Times-Italic"), ("ABCDEF+Arial,Bold", "Helvetica-Bold"),
        ]
        for (name, base) in cases {
            #expect(StandardFontMetrics.canonicalName(name) == base, "\(name)")
        }
        #expect(StandardFontMetrics.canonicalName("DejaVuSans") == nil)
    }

    /// /DA's name, not always Helvetica: Acrobat's names and a /DR simple font.
    @Test func plainFreeTextIsDrawnInItsDAFont() throws {
        let d = try formWithFonts(program: [], base: "NoSuchFont")
        #expect(try freeTextFonts(d, da: "/TiRo 14 Tf 0 g", text: "Serif") == ["TiRo": "Times-Roman"])
        #expect(try freeTextFonts(d, da: "/CoBO 9 Tf 0 g", text: "Mono") == ["CoBO": "Courier-BoldOblique"])
        #expect(try freeTextFonts(d, da: "/Times-Bold 9 Tf 0 g", text: "x") == ["Times-Bold": "Times-Bold"])
        #expect(try freeTextFonts(d, da: "/Tr 12 Tf 0 g", text: "Georgia") == ["Tr": "Georgia"])
        #expect(try freeTextFonts(d, da: "/Unknown 12 Tf 0 g", text: "x") == ["Unknown": "Helvetica"])
        // A composite font without a program and a /BaseFont no standard font stands for.
        #expect(try freeTextFonts(d, da: "/Comp 12 Tf 0 g", text: "x") == ["QuireHelv": "Helvetica"])
        #expect(d.warnings.contains { $0.contains("font /Comp") })
    }

    /// A composite font without a program: the standard font its /BaseFont names.
    @Test func compositeFontWithoutProgramByItsBaseFont() throws {
        let d = try formWithFonts(program: [], base: "ABCDEF+TimesNewRomanPS-BoldMT")
        #expect(try freeTextFonts(d, da: "/Comp 12 Tf 0 g", text: "x") == ["QuireTiBo": "Times-Bold"])
    }

    /// A composite font with an embedded TrueType program draws with that program, written
    /// again as a subset; characters it lacks fall to the Unicode fonts.
    @Test(.enabled(if: haveDejaVu)) func compositeFontWithProgramDrawsWithIt() throws {
        let d = try formWithFonts(program: fileBytes(dejaVu), base: "DejaVuSans")
        let fonts = try freeTextFonts(d, da: "/Comp 12 Tf 0 g", text: "Привет hello")
        #expect(fonts.count == 1)
        #expect(fonts["QuireU0"].map { $0.count == 17 && $0.hasSuffix("+DejaVuSans") } == true, "\(fonts)")
        // Shaped with the program preferred: a field too.
        let face = try d.appearanceFace(named: "Comp", what: "a test")
        guard case .program(let program) = face else {
            Issue.record("not the program: \(face)")
            return
        }
        #expect(program.postScriptName == "DejaVuSans")
        #expect(try d.appearanceFace(named: "Comp", what: "a test").program === program, "loaded once")
    }

    /// A program that is not a font: the /BaseFont's standard font, else Helvetica.
    @Test func compositeFontWithABrokenProgram() throws {
        let d = try formWithFonts(program: Array("not a font".utf8), base: "CourierNewPSMT")
        #expect(try freeTextFonts(d, da: "/Comp 12 Tf 0 g", text: "x") == ["QuireCour": "Courier"])
    }
}

/// Whether fontconfig finds DejaVu Serif with its bold face (fonts-dejavu-core).
private let haveDejaVuSerif = SystemFonts.face(family: "DejaVu Serif", bold: true, italic: false)?.bold == true

@Suite("Rich text families by name")
struct FamilyFaceTests {
    @Test func postScriptNamesGiveFamilyAndStyle() {
        let a = PostScriptName("ABCDEF+Arial,BoldItalic")
        #expect(a.name == "Arial,BoldItalic" && a.family == "Arial" && a.bold && a.italic)
        let b = PostScriptName("DejaVuSerif")
        #expect(b.family == "DejaVuSerif" && !b.bold && !b.italic)
        #expect(PostScriptName("TimesNewRomanPS-BoldMT").bold)
    }

    @Test func standardFamiliesInTheirFaces() throws {
        let d = try formWithFonts(program: [], base: "NoSuchFont")
        func base(_ families: [String], _ bold: Bool, _ italic: Bool) throws -> String? {
            guard case .simple(let f)? = try d.familyFace(families, bold: bold, italic: italic)?.face else {
                return nil
            }
            return f.standard?.name
        }
        #expect(try base(["Arial"], false, false) == "Helvetica")
        #expect(try base(["sans-serif"], true, true) == "Helvetica-BoldOblique")
        #expect(try base(["'Times New Roman'", "serif"], true, true) == "Times-BoldItalic")
        #expect(try base(["No Such Family", "monospace"], false, true) == "Courier-Oblique")
        #expect(try base(["Symbol"], false, false) == "Symbol")
        #expect(try d.familyFace(["No Such Family", "Nor This"], bold: false, italic: false) == nil)
    }

    /// A /DR font of the family comes before the standard families' mapping (Georgia is
    /// Times only when the form has no Georgia), in its style; a style it lacks comes from
    /// the standard family's face rather than the form's font stroked.
    @Test func aFormFontOfTheFamilyFirst() throws {
        let d = try formWithFonts(program: [], base: "NoSuchFont")
        let regular = try #require(try d.familyFace(["Georgia"], bold: false, italic: false))
        guard case .simple(let f) = regular.face else {
            Issue.record("not the form's font")
            return
        }
        #expect(f.resourceName == "Tr" && !regular.syntheticBold && !regular.syntheticItalic)
        let bold = try #require(try d.familyFace(["Georgia"], bold: true, italic: false))
        guard case .simple(let b) = bold.face else {
            Issue.record("not a simple font")
            return
        }
        #expect(b.standard?.name == "Times-Bold" && !bold.syntheticBold)
    }

    /// A system family in its own bold face (no synthetic bold), through fontconfig.
    @Test(.enabled(if: haveDejaVuSerif)) func systemFamilyInItsFaces() throws {
        let d = try formWithFonts(program: [], base: "NoSuchFont")
        let bold = try #require(try d.familyFace(["No Such Family", "DejaVu Serif"], bold: true, italic: false))
        #expect(bold.face.program?.postScriptName == "DejaVuSerif-Bold" && !bold.syntheticBold)
        let regular = try #require(try d.familyFace(["dejavu serif"], bold: false, italic: false))
        #expect(regular.face.program?.postScriptName == "DejaVuSerif")
        // A family fontconfig answers with another family's font is not found.
        #expect(SystemFonts.face(family: "Quire No Such Family", bold: false, italic: false) == nil)
        // Nor one past the appearance's budget of system lookups.
        var none = 0
        #expect(try d.familyFace(["DejaVu Serif"], bold: false, italic: false, systemLookups: &none) == nil)
    }

    /// A composite font of /DR without a program, whose /BaseFont names a system family.
    @Test(.enabled(if: haveDejaVuSerif)) func compositeFontWithoutProgramBySystemFamily() throws {
        let d = try formWithFonts(program: [], base: "DejaVuSerif-Bold")
        #expect(try d.appearanceFace(named: "Comp", what: "a test").program?.postScriptName == "DejaVuSerif-Bold")
    }

    /// Rich text runs in their families: the appearance's fonts name them.
    @Test(.enabled(if: haveDejaVuSerif)) func richTextRunsInTheirFamilies() throws {
        let d = try formWithFonts(program: [], base: "NoSuchFont")
        var a = Annotation(subtype: "FreeText", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 500, top: 200))
        a.defaultAppearance = "/Helv 12 Tf 0 g"
        try a.setRichText(
            #"<p><span style="font-family:'DejaVu Serif',serif">serif</span> <b style="font-family:DejaVu Serif">bold</b> <span style="font-family:Georgia">form</span> <span style="font-family:Nothing,Courier">mono</span></p>"#
        )
        let made = try d.addAnnotation(a)
        let id = try #require(made.id)
        let dict = try #require(try d.object(id.number).dictionary)
        let n = try #require(try d.dictionary(dict["AP"])?["N"])
        guard case .stream(let s) = try d.resolve(n) else { throw PDFError(.format, "no appearance stream") }
        let fonts = try d.dictionary(try d.dictionary(s.dictionary["Resources"])?["Font"]) ?? PDFDictionary()
        let bases = Set(
            try fonts.compactMap { try d.dictionary($0.1)?["BaseFont"]?.name?.value }.map { PostScriptName($0).name }
        )
        #expect(bases == ["DejaVuSerif", "DejaVuSerif-Bold", "Georgia", "Courier", "Helvetica"], "\(bases)")
        // The bold face is DejaVu's own: nothing is stroked.
        let content = String(decoding: try d.streamData(s, decoded: true), as: UTF8.self)
        #expect(!content.contains("2 Tr"))
    }
}

extension Document {
    /// ``familyFace(_:bold:italic:systemLookups:)`` with an appearance's budget.
    fileprivate func familyFace(_ families: [String], bold: Bool, italic: Bool) throws -> StyledFace? {
        var lookups = SystemFonts.maxLookupsPerAppearance
        return try familyFace(families, bold: bold, italic: italic, systemLookups: &lookups)
    }
}

extension AppearanceFace {
    fileprivate var program: UnicodeFont? {
        if case .program(let p) = self { return p }
        return nil
    }
}
