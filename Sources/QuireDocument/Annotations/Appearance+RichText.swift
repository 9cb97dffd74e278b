import QuireSyntax

extension ContentBuilder {
    /// Rich text (``RichText/paragraphs(_:base:)``) in `r`, wrapped by words to its width
    /// less 2 points each side, from its top; each line aligned by its paragraph's
    /// `text-align`, else `alignment` (/Q).
    ///
    /// Each run is drawn in the standard 14 font of its family, weight and slant
    /// (Helvetica, Times or Courier; ``RichText/Style/standardFont``) when WinAnsiEncoding
    /// has its text; else in the document's Unicode fonts (``AppearanceText``), which have
    /// no bold or italic faces: bold is drawn by stroking the glyphs' outlines too (text
    /// rendering mode 2) and italic by slanting them. Underline and line-through are drawn
    /// under and through each run. Lines are 1.2 times their largest size apart. Returns
    /// the fonts used, for the appearance's resources.
    mutating func richText(
        _ paragraphs: [RichText.Paragraph],
        in r: Rect,
        alignment: Int,
        document: Document,
        strict: Bool
    ) throws -> [AppearanceText] {
        typealias Style = RichText.Style
        // The font of each run: its standard font when that font has its text, else the
        // Unicode fonts (made once, for all such text, so that a character no font has
        // fails the call as for plain text).
        var standard: [String: AppearanceText] = [:]
        var unicodeText = ""
        for p in paragraphs {
            for run in p.runs {
                let (name, base) = run.style.standardFont
                if Appearance.standardFont(name, base).covers(run.text) {
                    if standard[name] == nil {
                        standard[name] = try AppearanceText(
                            run.text,
                            preferred: Appearance.standardFont(name, base),
                            document: document,
                            strict: strict,
                            what: "the rich text of a FreeText annotation"
                        )
                    }
                } else {
                    unicodeText += run.text + "\n"
                }
            }
        }
        let unicode =
            unicodeText.isEmpty
            ? nil
            : try AppearanceText(
                unicodeText,
                preferred: Appearance.standardFont("Helv", "Helvetica"),
                document: document,
                strict: strict,
                what: "the rich text of a FreeText annotation"
            )
        func font(_ run: RichText.Run) -> (AppearanceText, synthetic: Bool)? {
            let (name, _) = run.style.standardFont
            if let f = standard[name], f.simple?.covers(run.text) == true { return (f, false) }
            return unicode.map { ($0, true) }
        }

        // Words (with the spaces after them) of each paragraph, laid into lines.
        struct Piece {
            var text: String
            var run: RichText.Run
        }
        struct Line {
            var pieces: [Piece] = []
            var size = 0.0
            var alignment: Int
        }
        let available = r.width - 4
        var lines: [Line] = []
        var lastSize = paragraphs.first?.runs.first?.style.size ?? 12
        for p in paragraphs {
            var line = Line(alignment: p.alignment ?? alignment)
            var width = 0.0
            for run in p.runs {
                guard let (f, _) = font(run) else { continue }
                var words: [String] = []
                var current = ""
                for c in run.text {
                    current.append(c)
                    if c == " " {
                        words.append(current)
                        current = ""
                    }
                }
                if !current.isEmpty { words.append(current) }
                for word in words {
                    let w = f.width(word, size: run.style.size)
                    let trimmed = f.width(
                        String(word.reversed().drop(while: { $0 == " " }).reversed()),
                        size: run.style.size
                    )
                    if !line.pieces.isEmpty && width + trimmed > available {
                        lines.append(line)
                        line = Line(alignment: line.alignment)
                        width = 0
                    }
                    if let last = line.pieces.last, last.run == run {
                        line.pieces[line.pieces.count - 1].text += word
                    } else {
                        line.pieces.append(Piece(text: word, run: run))
                    }
                    line.size = Swift.max(line.size, run.style.size)
                    width += w
                    if lines.count > 10_000 { break }
                }
            }
            if line.pieces.isEmpty { line.size = lastSize }
            lastSize = line.size
            lines.append(line)
            if lines.count > 10_000 { break }
        }

        let n = Appearance.n
        line("q BT")
        // The text state set so far: each operator is written when it changes.
        var shownColor: [Double]? = nil
        var shownMode: String? = nil
        var shownFont: String? = nil
        var decorations: [(x0: Double, x1: Double, y: Double, width: Double, color: [Double])] = []
        var y = r.top - 2
        for l in lines {
            y -= l.size
            guard y >= r.bottom - l.size else { break }
            defer { y -= l.size * 0.2 }
            // The line's width without the spaces at its end, for the alignment.
            var widths: [Double] = []
            for (k, piece) in l.pieces.enumerated() {
                guard let (f, _) = font(piece.run) else {
                    widths.append(0)
                    continue
                }
                let text =
                    k == l.pieces.count - 1
                    ? String(piece.text.reversed().drop(while: { $0 == " " }).reversed()) : piece.text
                widths.append(f.width(text, size: piece.run.style.size))
            }
            let total = widths.reduce(0, +)
            var x: Double
            switch l.alignment {
            case 1: x = (r.left + r.right) / 2 - total / 2
            case 2: x = r.right - 2 - total
            default: x = r.left + 2
            }
            for (k, piece) in l.pieces.enumerated() {
                guard let (f, synthetic) = font(piece.run) else { continue }
                let style = piece.run.style
                let mode = synthetic && style.bold ? "2 Tr \(n(style.size * 0.03)) w" : "0 Tr"
                if shownColor != style.color || (mode != "0 Tr" && mode != shownMode) {
                    color(style.color, stroking: false)
                    if mode != "0 Tr" { color(style.color, stroking: true) }
                    shownColor = style.color
                }
                if mode != shownMode, mode != "0 Tr" || shownMode != nil {
                    line(mode)
                }
                shownMode = mode
                // The Unicode fonts set their own font (one per stretch of glyphs).
                let tf = f.fontOperator(size: style.size)
                if let tf, tf != shownFont { line(tf) }
                shownFont = tf
                let text =
                    k == l.pieces.count - 1
                    ? String(piece.text.reversed().drop(while: { $0 == " " }).reversed()) : piece.text
                line(f.show(text, x: x, y: y, size: style.size, skew: synthetic && style.italic ? 0.21 : 0))
                if style.underline {
                    decorations.append((x, x + widths[k], y - style.size * 0.12, style.size * 0.06, style.color))
                }
                if style.lineThrough {
                    decorations.append((x, x + widths[k], y + style.size * 0.28, style.size * 0.06, style.color))
                }
                x += widths[k]
            }
        }
        line("ET")
        for d in decorations {
            color(d.color, stroking: true)
            line("\(n(d.width)) w \(n(d.x0)) \(n(d.y)) m \(n(d.x1)) \(n(d.y)) l S")
        }
        line("Q")
        return Array(standard.keys.sorted().compactMap { standard[$0] }) + (unicode.map { [$0] } ?? [])
    }
}
