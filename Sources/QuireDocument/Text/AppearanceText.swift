import QuireSyntax

/// Text drawn in a generated appearance (a field's value, a free text annotation's
/// contents, a stamp's name), in any script.
///
/// The font of the default appearance (/DA: a simple font of the form's /DR, or the
/// Helvetica Quire supplies) draws the text when its encoding has every character, as it
/// always did; else another simple font of /DR that has them all; else the Unicode fonts
/// (``AppearanceFonts``: the document's font files, `QUIRE_FONTS`, the system's), the text
/// shaped by HarfBuzz, ordered by FriBidi, and the fonts embedded as subsets
/// (``EmbeddedFonts``).
///
/// Characters no font has: with `strict` (text a call is setting) the call fails with
/// ``PDFErrorKind/unsupported`` naming them, before anything changed; without (text already
/// in the file, as flattening draws it) they are left out and the document gets a warning.
/// No character is ever drawn as a substitute ("?") without a word.
final class AppearanceText {
    /// The simple font that draws the text, or nil when the Unicode fonts do.
    let simple: FieldFont?
    /// The Unicode fonts and the glyphs used, when they draw the text.
    let embedded: EmbeddedFonts?
    /// The font of the chain lines are shaped in by default (``FontChain/shape(_:prefer:)``).
    let preferred: Int?
    private var shaped: [ShapeKey: ShapedLine] = [:]
    private struct ShapeKey: Hashable {
        var line: String
        var prefer: Int?
    }

    /// Chooses the font for `text` (every line the appearance will draw): `preferred`, else
    /// one of `alternatives`, else the document's Unicode fonts. With `programs` (font
    /// programs chosen by name: a /DA font's, rich text families'), the Unicode fonts draw
    /// the text with them first in the chain (``FontChain/leading``), lines shaped in
    /// `preferredProgram` unless a call says otherwise; `preferred` is not used then.
    init(
        _ text: String,
        preferred: FieldFont?,
        alternatives: [FieldFont] = [],
        programs: [UnicodeFont] = [],
        preferredProgram: Int? = nil,
        document: Document,
        strict: Bool,
        what: @autoclosure () -> String
    ) throws {
        self.preferred = programs.isEmpty ? nil : preferredProgram
        if programs.isEmpty, let preferred, preferred.covers(text) {
            simple = preferred
            embedded = nil
            return
        }
        if programs.isEmpty, let other = alternatives.first(where: { $0.covers(text) }) {
            simple = other
            embedded = nil
            return
        }
        let chain = document.appearanceFontChain(leading: programs)
        let missing = chain.uncovered(text)
        if !missing.isEmpty {
            let list = missing.prefix(8).map { s in
                let h = String(s.value, radix: 16, uppercase: true)
                return "U+" + String(repeating: "0", count: Swift.max(0, 4 - h.count)) + h + " (\(String(s)))"
            }.joined(separator: ", ")
            let fonts =
                chain.fonts.isEmpty
                ? "no Unicode font was found"
                : "the fonts tried were " + chain.fonts.prefix(6).map { $0.path }.joined(separator: ", ")
                    + (chain.fonts.count > 6 ? ", ..." : "")
            let message =
                "no font has \(list) to draw \(what()); \(fonts). Add a font file that has "
                + (missing.count == 1 ? "it" : "them")
                + " (Document.addAppearanceFont, quire_document_add_font, quire fill --font) or install one of the fonts of docs/forms.md"
            if strict { throw PDFError(.unsupported, message) }
            document.file.warn(message + "; the appearance leaves " + (missing.count == 1 ? "it" : "them") + " out")
        }
        simple = nil
        embedded = EmbeddedFonts(chain: chain)
    }

    /// `line` shaped (cached), in the chain's font `prefer` where it has the characters
    /// (nil: ``preferred``).
    private func shape(_ line: String, prefer: Int?) -> ShapedLine {
        let key = ShapeKey(line: line, prefer: prefer ?? preferred)
        if let s = shaped[key] { return s }
        let s = embedded?.chain.shape(line, prefer: key.prefer) ?? ShapedLine()
        if shaped.count < 4096 { shaped[key] = s }
        return s
    }

    /// The width of `line` at `size`; `prefer`: see ``shape(_:prefer:)``.
    func width(_ line: String, size: Double, prefer: Int? = nil) -> Double {
        if let simple { return simple.width(of: simple.encode(line), size: size) }
        return shape(line, prefer: prefer).width * size / 1000
    }

    /// The `Tf` operator that sets the font at `size` before lines are shown, when one
    /// font draws them all (the Unicode fonts set theirs in ``show(_:x:y:size:)``).
    func fontOperator(size: Double) -> String? {
        simple.map { "/\($0.resourceName) \(Appearance.n(size)) Tf" }
    }

    /// The operators, inside BT and ET, that show `line` with its left end at (x, y);
    /// `skew` slants it (the text matrix's c), `stretch` scales it across (its a: the line
    /// is then `stretch` times as wide).
    func show(
        _ line: String,
        x: Double,
        y: Double,
        size: Double,
        skew: Double = 0,
        stretch: Double = 1,
        prefer: Int? = nil
    ) -> String {
        let n = Appearance.n
        if let simple {
            let bytes = AppearanceText.stringOperand(simple.encode(line))
            return "\(n(stretch)) 0 \(n(skew)) 1 \(n(x)) \(n(y)) Tm \(bytes) Tj"
        }
        return embedded?.show(shape(line, prefer: prefer), x: x, y: y, size: size, skew: skew, stretch: stretch) ?? ""
    }

    /// The fonts to put in the appearance's /Font: the simple font, or the Unicode fonts
    /// used (written into the document now, as subsets of what was shown).
    func fontResources(_ document: Document) throws -> [(String, PDFObject)] {
        if let simple { return [(simple.resourceName, simple.resource)] }
        return try embedded?.write(into: document) ?? []
    }

    /// A literal string operand in ASCII: bytes outside printable ASCII, and the
    /// delimiters, as escapes (the content stream stays UTF-8-clean text).
    static func stringOperand(_ bytes: [UInt8]) -> String {
        var out = "("
        for b in bytes {
            switch b {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "\\"):
                out += "\\" + String(UnicodeScalar(b))
            case 32...126:
                out += String(UnicodeScalar(b))
            default:
                let o = String(b, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - o.count) + o
            }
        }
        return out + ")"
    }
}

extension Document {
    /// Adds a font file (TrueType; a collection's first face) to try first when generated
    /// appearances draw text their /DA font cannot (``AppearanceFonts``). Fonts added
    /// earlier are tried before it. Throws when the file cannot serve: unreadable, not a
    /// font, no TrueType outlines, or a licence that forbids embedding.
    public func addAppearanceFont(path: String) throws {
        let font = try AppearanceFonts.font(path)
        guard !appearanceFontFiles.contains(path) else { return }
        appearanceFontFiles.append(path)
        appearanceFontsLoaded.append(font)
    }

    /// `leading` (fonts chosen by name, ``FontChain/leading``), then the document's font
    /// files, then `QUIRE_FONTS`'s and the system's.
    func appearanceFontChain(leading: [UnicodeFont] = []) -> FontChain {
        let given = appearanceFontsLoaded.filter { d in !leading.contains { $0 === d } }
        let defaults = AppearanceFonts.defaultFonts().filter { d in !(leading + given).contains { $0 === d } }
        return FontChain(fonts: leading + given + defaults, leading: leading.count)
    }
}
