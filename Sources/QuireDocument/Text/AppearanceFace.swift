import CHarfBuzz
import QuireSyntax

/// The font a generated appearance draws text in, as a default appearance string (/DA)
/// names it: a simple font (one of the form's /DR, or a standard 14 font Quire supplies
/// in WinAnsiEncoding), or a TrueType font program drawn through the Unicode fonts
/// (``EmbeddedFonts``: a composite font's embedded program, written again as a subset).
enum AppearanceFace {
    case simple(FieldFont)
    case program(UnicodeFont)
}

extension Document {
    /// The font that /DA's font resource `name` stands for (docs/forms.md, "Fonts"):
    ///
    /// 1. the form's /DR font of that name: a simple font (Type1, TrueType) as it is; a
    ///    composite font (Type0) through ``compositeFace(_:)``; another kind, or a
    ///    composite font neither way serves, Helvetica with a warning naming `what`;
    /// 2. Acrobat's resource names (Helv, HeBo, TiRo, Cour, Symb, ZaDb, ...) and the
    ///    standard 14 fonts' names and aliases (Arial, TimesNewRoman): that standard font;
    /// 3. else Helvetica.
    func appearanceFace(named name: String, what: @autoclosure () -> String) throws -> AppearanceFace {
        let fonts = try formFontResources()
        if let ref = fonts?[PDFName(name)] {
            if let font = try simpleFormFont(name, ref) { return .simple(font) }
            if let face = try compositeFace(ref) { return face }
            file.warn(
                "\(what()): font /\(name) of the form is neither a simple font nor a composite font with a TrueType program or a standard font's name; Helvetica or a Unicode font is used for its appearance"
            )
            return .simple(Appearance.standardFont("QuireHelv", "Helvetica"))
        }
        if let base = StandardFontMetrics.canonicalName(name) {
            return .simple(Appearance.standardFont(name, base))
        }
        return .simple(Appearance.standardFont(name, "Helvetica"))
    }

    /// A composite font (Type0) of the form drawn by Quire: its descendant's embedded
    /// TrueType program (FontFile2, or FontFile3 of subtype OpenType with TrueType
    /// outlines) when its cmap maps characters; else the standard font its /BaseFont names
    /// (subset prefix dropped: `ABCDEF+Arial-BoldMT` is Helvetica-Bold). Nil for another
    /// kind of font, or a composite font neither way serves.
    func compositeFace(_ ref: PDFObject) throws -> AppearanceFace? {
        guard let font = try dictionary(ref), font["Subtype"]?.name?.value == "Type0" else { return nil }
        if let program = try compositeProgram(font) { return .program(program) }
        guard let base = try resolve(font["BaseFont"] ?? .null).name?.value,
            let standard = StandardFontMetrics.canonicalName(base)
        else { return nil }
        return .simple(Appearance.standardFont(Appearance.standardResourceName(standard), standard))
    }

    /// The embedded TrueType program of a composite font's descendant, loaded once per
    /// stream, when HarfBuzz reads it, its licence allows embedding and its cmap maps at
    /// least one character.
    private func compositeProgram(_ font: PDFDictionary) throws -> UnicodeFont? {
        guard let descendants = try resolve(font["DescendantFonts"] ?? .null).array, let first = descendants.first,
            let cid = try dictionary(first), let descriptor = try dictionary(cid["FontDescriptor"])
        else { return nil }
        var stream: PDFObject? = descriptor["FontFile2"]
        if stream == nil, let f3 = descriptor["FontFile3"], case .stream(let s) = try resolve(f3),
            s.dictionary["Subtype"]?.name?.value == "OpenType"
        {
            stream = f3
        }
        guard let stream else { return nil }
        let id = stream.reference
        if let id, let cached = programFontCache[id] { return cached }
        var loaded: UnicodeFont? = nil
        if case .stream(let s) = try resolve(stream) {
            let name = try resolve(font["BaseFont"] ?? .null).name?.value ?? "a composite font"
            if let data = try? file.decodedData(s),
                let program = try? UnicodeFont.load(bytes: Array(data), label: "the embedded program of \(name)"),
                program.mapsCharacters
            {
                loaded = program
            }
        }
        if let id { programFontCache[id] = loaded }
        return loaded
    }
}

extension AppearanceText {
    /// Text drawn in `face`: a simple font when it has every character (else one of
    /// `alternatives`, else the Unicode fonts), a program first in the Unicode fonts' chain.
    convenience init(
        _ text: String,
        face: AppearanceFace,
        alternatives: @autoclosure () throws -> [FieldFont] = [],
        document: Document,
        strict: Bool,
        what: @autoclosure () -> String
    ) throws {
        switch face {
        case .simple(let font):
            try self.init(
                text,
                preferred: font,
                alternatives: font.covers(text) ? [] : alternatives(),
                document: document,
                strict: strict,
                what: what()
            )
        case .program(let program):
            try self.init(
                text,
                preferred: nil,
                programs: [program],
                preferredProgram: 0,
                document: document,
                strict: strict,
                what: what()
            )
        }
    }
}

extension UnicodeFont {
    /// Whether the font's cmap maps any character (a program embedded in a PDF often has
    /// none: its glyphs are reached by glyph id only).
    var mapsCharacters: Bool {
        guard let set = hb_set_create() else { return false }
        defer { hb_set_destroy(set) }
        hb_face_collect_unicodes(face, set)
        return hb_set_get_population(set) > 0
    }
}

extension Appearance {
    /// The resource name of a standard 14 font Quire supplies in place of a font it
    /// cannot draw with: `Quire` and Acrobat's name for it (`QuireHelv`, `QuireTiRo`).
    static func standardResourceName(_ base: String) -> String {
        let acrobat = StandardFontMetrics.acrobatNames.first { $0.value == base }?.key
        return "Quire" + (acrobat ?? "Helv")
    }
}
