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

/// A face of a family for text of a style, and what Quire draws that the face lacks:
/// bold by stroking the glyphs' outlines too, italic by slanting them.
struct StyledFace {
    var face: AppearanceFace
    var syntheticBold = false
    var syntheticItalic = false
}

/// A PostScript font name read for its family and style: `ABCDEF+Arial,BoldItalic`,
/// `DejaVuSerif-Bold`, `TimesNewRomanPS-BoldMT`.
struct PostScriptName {
    /// The name without its subset prefix.
    var name: String
    /// What comes before the first `-` or `,`.
    var family: String
    var bold: Bool
    var italic: Bool

    init(_ raw: String) {
        var n = Substring(raw)
        if let plus = n.firstIndex(of: "+"), n.distance(from: n.startIndex, to: plus) == 6 {
            n = n[n.index(after: plus)...]
        }
        name = String(n)
        let cut = n.firstIndex(where: { $0 == "-" || $0 == "," }) ?? n.endIndex
        family = String(n[..<cut])
        let style = n[cut...].lowercased()
        bold = ["bold", "black", "heavy", "semibold", "demi"].contains { style.contains($0) }
        italic = style.contains("italic") || style.contains("oblique")
    }
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
        guard let base = try resolve(font["BaseFont"] ?? .null).name?.value else { return nil }
        if let standard = StandardFontMetrics.canonicalName(base) {
            return .simple(Appearance.standardFont(Appearance.standardResourceName(standard), standard))
        }
        // A system font of the family the name gives ("DejaVuSerif-Bold": DejaVu Serif's bold).
        let style = PostScriptName(base)
        return systemFamilyFace(style.family, bold: style.bold, italic: style.italic)?.face
    }

    /// The face of the first of `families` found, for text `bold` and `italic` (rich
    /// text's `font-family`; docs/annotations.md, "Rich text"), each family in turn:
    ///
    /// 1. a font of the form's /DR whose resource name, /BaseFont (subset prefix dropped)
    ///    or /BaseFont's family ("Arial" of "Arial,Bold") is the family (blanks, hyphens
    ///    and case aside), the one whose style is closest;
    /// 2. a standard 14 family (``Appearance/standardFamily(_:)``) in its bold, italic or
    ///    bold italic face;
    /// 3. a system font of the family (``SystemFonts``) in its face closest to the style,
    ///    when it is TrueType and its licence allows embedding; while `systemLookups`
    ///    (counted down by each family looked up there) lasts.
    ///
    /// A /DR font without the bold or the slant asked for serves only when neither of the
    /// others has a face of that style (a form's regular Helvetica does not make bold
    /// runs stroked Helvetica rather than Helvetica-Bold). A face without the bold or the
    /// slant asked for is drawn bold or slanted by Quire (``StyledFace``). Nil when no
    /// family is found.
    func familyFace(_ families: [String], bold: Bool, italic: Bool, systemLookups: inout Int) throws -> StyledFace? {
        for family in families.prefix(RichText.maxFamilies) {
            let form = try formFamilyFace(family, bold: bold, italic: italic)
            if let form, !form.syntheticBold, !form.syntheticItalic { return form }
            if let standard = Appearance.standardFamily(family) {
                let base = Appearance.standardFace(standard, bold: bold, italic: italic)
                let symbolic = standard == "Symbol" || standard == "ZapfDingbats"
                if let form, symbolic { return form }
                return StyledFace(
                    face: .simple(Appearance.standardFont(Appearance.acrobatName(base), base)),
                    syntheticBold: symbolic && bold,
                    syntheticItalic: symbolic && italic
                )
            }
            var system: StyledFace? = nil
            if systemLookups > 0 {
                systemLookups -= 1
                system = systemFamilyFace(family, bold: bold, italic: italic)
            }
            if let system, form == nil || (!system.syntheticBold && !system.syntheticItalic) { return system }
            if let form { return form }
        }
        return nil
    }

    /// The /DR font of `family` (``familyFace(_:bold:italic:systemLookups:)``, 1).
    private func formFamilyFace(_ family: String, bold: Bool, italic: Bool) throws -> StyledFace? {
        guard let fonts = try formFontResources() else { return nil }
        let wanted = SystemFonts.normalized(family)
        var best: (score: Int, key: String, ref: PDFObject, style: PostScriptName)? = nil
        for (key, ref) in fonts.prefix(64) {
            guard let fd = try dictionary(ref) else { continue }
            let style = PostScriptName(try resolve(fd["BaseFont"] ?? .null).name?.value ?? "")
            guard
                SystemFonts.normalized(key.value) == wanted || SystemFonts.normalized(style.name) == wanted
                    || SystemFonts.normalized(style.family) == wanted
            else { continue }
            let score = (style.bold == bold ? 1 : 0) + (style.italic == italic ? 1 : 0)
            if best.map({ score > $0.score }) ?? true { best = (score, key.value, ref, style) }
        }
        guard let best else { return nil }
        let face: AppearanceFace
        if let simple = try simpleFormFont(best.key, best.ref) {
            face = .simple(simple)
        } else if let composite = try compositeFace(best.ref) {
            face = composite
        } else {
            return nil
        }
        return StyledFace(
            face: face,
            syntheticBold: bold && !best.style.bold,
            syntheticItalic: italic && !best.style.italic
        )
    }

    /// A system font of `family` (``familyFace(_:bold:italic:systemLookups:)``, 3).
    func systemFamilyFace(_ family: String, bold: Bool, italic: Bool) -> StyledFace? {
        guard let found = SystemFonts.face(family: family, bold: bold, italic: italic), found.index == 0,
            let font = try? AppearanceFonts.font(found.path)
        else { return nil }
        return StyledFace(
            face: .program(font),
            syntheticBold: bold && !found.bold,
            syntheticItalic: italic && !found.italic
        )
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
    /// The standard 14 family (Helvetica, Times, Courier, Symbol, ZapfDingbats) that a CSS
    /// family stands for: its own name, Arial, Times New Roman, Georgia, Courier New, and
    /// the generic families sans-serif, serif and monospace; nil for another family.
    static func standardFamily(_ family: String) -> String? {
        switch SystemFonts.normalized(family) {
        case "helvetica", "helv", "arial", "sansserif", "sans": return "Helvetica"
        case "times", "timesroman", "timesnewroman", "serif", "georgia": return "Times"
        case "courier", "couriernew", "monospace", "mono": return "Courier"
        case "symbol": return "Symbol"
        case "zapfdingbats", "dingbats": return "ZapfDingbats"
        default:
            // Acrobat's resource names (TiRo, a /DA's) and the standard names' aliases.
            guard let canonical = StandardFontMetrics.canonicalName(family) else { return nil }
            return String(canonical.prefix(while: { $0 != "-" }))
        }
    }

    /// The standard 14 font of a standard family in a style (Symbol and ZapfDingbats have
    /// one face).
    static func standardFace(_ family: String, bold: Bool, italic: Bool) -> String {
        switch family {
        case "Symbol", "ZapfDingbats": return family
        case "Times":
            return ["Times-Roman", "Times-Bold", "Times-Italic", "Times-BoldItalic"][(bold ? 1 : 0) + (italic ? 2 : 0)]
        default: return family + ["", "-Bold", "-Oblique", "-BoldOblique"][(bold ? 1 : 0) + (italic ? 2 : 0)]
        }
    }

    /// Acrobat's resource name of a standard 14 font (`Helv`, `TiBI`), else its own name.
    static func acrobatName(_ base: String) -> String {
        StandardFontMetrics.acrobatNames.first { $0.value == base }?.key ?? base
    }

    /// The resource name of a standard 14 font Quire supplies in place of a font it
    /// cannot draw with: `Quire` and Acrobat's name for it (`QuireHelv`, `QuireTiRo`).
    static func standardResourceName(_ base: String) -> String {
        "Quire" + acrobatName(base)
    }
}
