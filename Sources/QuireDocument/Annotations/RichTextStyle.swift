import QuireSyntax

/// The styles of rich text (ISO 32000-2 §12.7.4.3, Table 388), as generated appearances
/// draw them: the runs of text of each paragraph with their bold, italic, colour, size,
/// font family, decoration and alignment.
extension RichText {
    /// The style of a run of rich text.
    public struct Style: Sendable, Hashable {
        public var bold = false
        public var italic = false
        /// Gray, RGB or CMYK components (the text's fill colour).
        public var color: [Double] = [0]
        /// In points.
        public var size: Double = 12
        /// The families of `font-family` (or of `font`), in order, without quotes (at
        /// most ``RichText/maxFamilies``).
        public var families: [String] = ["Helvetica"]
        /// The first family.
        public var family: String { families.first ?? "Helvetica" }
        public var underline = false
        public var lineThrough = false
        /// `text-align`: 0 left (and justify), 1 centre, 2 right; nil: the annotation's /Q.
        public var alignment: Int? = nil
        /// `vertical-align`: the baseline's shift up from the paragraph's, in points.
        public var rise: Double = 0
        /// `font-stretch`: the horizontal scaling of the glyphs (1 normal, 0.75 condensed).
        public var stretch: Double = 1

        public init(size: Double = 12, color: [Double] = [0]) {
            self.size = size
            self.color = color
        }

        /// The style with `css`'s declarations ("property:value;...", as
        /// ``RichText/sanitizedStyle(_:)`` gives them) applied; values Quire does not
        /// read are left out.
        mutating func apply(css: String) {
            for declaration in css.split(separator: ";") {
                guard let colon = declaration.firstIndex(of: ":") else { continue }
                let property = declaration[..<colon].lowercased()
                let value = String(declaration[declaration.index(after: colon)...]).lowercased()
                switch property {
                case "font-weight": applyWeight(value)
                case "font-style": italic = value == "italic" || value == "oblique"
                case "color": if let c = RichText.color(value) { color = c }
                case "font-size": if let s = RichText.size(value) { size = s }
                case "font-family":
                    if let f = RichText.families(String(declaration[declaration.index(after: colon)...])) {
                        families = f
                    }
                case "text-decoration":
                    underline = value.contains("underline")
                    lineThrough = value.contains("line-through")
                case "vertical-align":
                    // super and sub as word processors draw them (58% of the size, raised
                    // by 33% or lowered by 14% of it); a length raises (pt, px) or a
                    // percentage of the line height (1.2 times the size).
                    switch value.trimmed(" ") {
                    case "super":
                        rise += size * 0.33
                        size *= 0.58
                    case "sub":
                        rise -= size * 0.14
                        size *= 0.58
                    case "baseline": break
                    case let v where v.hasSuffix("%"):
                        if let p = Double(v.dropLast()), p.isFinite, abs(p) <= 1000 { rise += size * 1.2 * p / 100 }
                    case let v:
                        if let shift = RichText.length(v) { rise += shift }
                    }
                case "font-stretch":
                    if let s = RichText.stretches[value.trimmed(" ")] {
                        stretch = s
                    } else if value.hasSuffix("%"), let p = Double(value.dropLast().trimmed(" ")), p.isFinite {
                        stretch = Swift.min(Swift.max(p / 100, 0.5), 2)
                    }
                case "text-align":
                    switch value {
                    case "center", "centre": alignment = 1
                    case "right", "end": alignment = 2
                    case "left", "start", "justify": alignment = 0
                    default: break
                    }
                case "font":
                    // `font: [style] [weight] size[/line-height] family` (Acrobat's /DS:
                    // "font: Helvetica,sans-serif 12.0pt"): the words read in any order.
                    let original = String(declaration[declaration.index(after: colon)...])
                    var familyWords: [Substring] = []
                    for word in original.split(separator: " ") {
                        let w = word.lowercased()
                        if w == "italic" || w == "oblique" {
                            italic = true
                        } else if w == "bold" || w == "bolder" || (Int(w).map { $0 >= 100 && $0 <= 900 } ?? false) {
                            applyWeight(w)
                        } else if w == "normal" {
                            continue
                        } else if let s = RichText.size(String(w.split(separator: "/").first ?? "")) {
                            size = s
                        } else {
                            familyWords.append(word)
                        }
                    }
                    if let f = RichText.families(familyWords.joined(separator: " ")) { families = f }
                default: break
                }
            }
        }

        private mutating func applyWeight(_ value: String) {
            if value == "bold" || value == "bolder" {
                bold = true
            } else if value == "normal" || value == "lighter" {
                bold = false
            } else if let w = Int(value) {
                bold = w >= 600
            }
        }

        /// The standard 14 font that draws the style when none of its families is found
        /// (Table 388's generic families: a family naming Times, Georgia or serif to Times,
        /// Courier or mono to Courier, anything else to Helvetica) and its resource name.
        public var standardFont: (resourceName: String, base: String) {
            let f = family.lowercased()
            let standard: String
            if f.contains("courier") || f.contains("mono") {
                standard = "Courier"
            } else if f.contains("times") || f.contains("georgia") || f == "serif"
                || (f.contains("serif") && !f.contains("sans"))
            {
                standard = "Times"
            } else {
                standard = "Helvetica"
            }
            let base = Appearance.standardFace(standard, bold: bold, italic: italic)
            return (Appearance.acrobatName(base), base)
        }
    }

    /// A run of text in one style.
    public struct Run: Sendable, Equatable {
        public var text: String
        public var style: Style
    }

    /// A paragraph (`p`, or a line of one after a `br`) and its `text-align`.
    public struct Paragraph: Sendable, Equatable {
        public var runs: [Run] = []
        public var alignment: Int? = nil
    }

    /// The paragraphs of `xhtml` as runs of styled text, each style inheriting from its
    /// element's parent and the outermost from `base` (the annotation's /DA): `b` and
    /// `font-weight` bold (600 or more), `i` and `font-style` italic, `color` (#RRGGBB,
    /// #RGB or a basic colour name), `font-size` (pt, px as 0.75 pt, at most 1,000),
    /// `font-family` (its families, in order), `font` (its words), `text-decoration` underline
    /// and line-through, `text-align`. Throws what ``sanitized(_:)`` throws.
    public static func paragraphs(_ xhtml: String, base: Style) throws -> [Paragraph] {
        let state = try read(xhtml, base: base)
        // Paragraphs with nothing in them at the end draw nothing.
        var out = state.paragraphs
        while let last = out.last, last.runs.isEmpty { out.removeLast() }
        return out
    }

    /// Plain text (a FreeText's /Contents under its /DS) as paragraphs of one run each in
    /// `base`: a paragraph per line, aligned by `base`'s `text-align`.
    static func paragraphs(plain: String, base: Style) -> [Paragraph] {
        var out = plain.split(
            omittingEmptySubsequences: false,
            whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        )
        .prefix(10_000)
        .map { line in
            Paragraph(runs: line.isEmpty ? [] : [Run(text: String(line), style: base)], alignment: base.alignment)
        }
        while let last = out.last, last.runs.isEmpty { out.removeLast() }
        return out
    }

    static let colorNames: [String: [Double]] = [
        "black": [0, 0, 0], "white": [1, 1, 1], "red": [1, 0, 0], "green": [0, 0.5, 0], "lime": [0, 1, 0],
        "blue": [0, 0, 1], "yellow": [1, 1, 0], "gray": [0.5, 0.5, 0.5], "grey": [0.5, 0.5, 0.5],
        "orange": [1, 0.647, 0], "purple": [0.5, 0, 0.5], "navy": [0, 0, 0.5], "maroon": [0.5, 0, 0],
    ]

    /// The RGB colour of a CSS value: #RRGGBB, #RGB or a basic name.
    static func color(_ value: String) -> [Double]? {
        let v = value.trimmed(" ")
        if let named = colorNames[v] { return named }
        let digits = Array(v.utf8)
        if digits.count == 4, digits.first == UInt8(ascii: "#") {
            let doubled =
                "#" + digits.dropFirst().map { String(UnicodeScalar($0)) + String(UnicodeScalar($0)) }.joined()
            return Annotation.color(hex: doubled)
        }
        return Annotation.color(hex: v)
    }

    /// The horizontal scaling of each `font-stretch` keyword (CSS Fonts' percentages).
    static let stretches: [String: Double] = [
        "ultra-condensed": 0.5, "extra-condensed": 0.625, "condensed": 0.75, "semi-condensed": 0.875, "normal": 1,
        "semi-expanded": 1.125, "expanded": 1.25, "extra-expanded": 1.5, "ultra-expanded": 2,
    ]

    /// A length in points, of either sign: "3pt", "-2", "4px" (0.75 pt each); nil beyond
    /// 1,000 points.
    static func length(_ value: String) -> Double? {
        let v = value.trimmed(" ")
        let negative = v.hasPrefix("-")
        guard let magnitude = size(negative ? String(v.dropFirst()) : v) else { return v == "0" ? 0 : nil }
        return negative ? -magnitude : magnitude
    }

    /// A font size in points: "12pt", "12.5", "16px" (0.75 pt each); nil outside 0...1000.
    static func size(_ value: String) -> Double? {
        var v = value.trimmed(" ")
        var factor = 1.0
        if v.hasSuffix("pt") {
            v.removeLast(2)
        } else if v.hasSuffix("px") {
            v.removeLast(2)
            factor = 0.75
        }
        guard let n = Double(v), n.isFinite, n > 0 else { return nil }
        let size = n * factor
        return size <= 1000 ? size : nil
    }

    /// The most families of a `font-family` list read.
    public static let maxFamilies = 16

    /// The families of a `font-family` list, without quotes; nil when it names none.
    static func families(_ value: String) -> [String]? {
        let list = value.split(separator: ",").prefix(maxFamilies).map { $0.trimmed(" '\"") }.filter { !$0.isEmpty }
        return list.isEmpty ? nil : list
    }
}

extension StringProtocol {
    /// The string without the characters of `set` at either end.
    fileprivate func trimmed(_ set: String) -> String {
        let s = Set(set)
        return String(drop(while: { s.contains($0) }).reversed().drop(while: { s.contains($0) }).reversed())
    }
}

extension Annotation {
    /// Sets /RC to `xhtml` sanitized (``RichText/sanitized(_:)``) and /Contents to its plain
    /// text, as the standard asks (§12.7.4.3). Throws what ``RichText/sanitized(_:)``
    /// throws, changing nothing then.
    public mutating func setRichText(_ xhtml: String) throws {
        let clean = try RichText.sanitized(xhtml)
        richText = clean.xhtml
        contents = clean.plainText
    }
}
