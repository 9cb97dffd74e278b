import QuireSyntax

extension ContentBuilder {
    /// Rich text (``RichText/paragraphs(_:base:)``) in `r`, wrapped by words to its width
    /// less 2 points each side, from its top; each line aligned by its paragraph's
    /// `text-align`, else `alignment` (/Q).
    ///
    /// Each run is drawn in the face of the first of its families found
    /// (``Document/familyFace(_:bold:italic:systemLookups:)``: a font of the form's /DR, a
    /// standard 14 family, a system font), else in the standard 14 font of its generic family
    /// (``RichText/Style/standardFont``). A simple font draws a run whose characters its
    /// encoding has; a font program (a system font, a /DR composite font's) draws through
    /// the Unicode fonts, first in their chain; other text is drawn in the document's
    /// Unicode fonts (``AppearanceText``). Bold and italic a face lacks (the Unicode
    /// fonts have neither) are drawn by stroking the glyphs' outlines too (text rendering
    /// mode 2) and by slanting them. Underline and line-through are drawn under and
    /// through each run; `vertical-align` shifts a run's baseline and `font-stretch`
    /// scales its glyphs across (the text matrix's a). Lines are 1.2 times their largest
    /// size apart. Returns the fonts used, for the appearance's resources.
    mutating func richText(
        _ paragraphs: [RichText.Paragraph],
        in r: Rect,
        alignment: Int,
        document: Document,
        strict: Bool
    ) throws -> [AppearanceText] {
        // The face of each style, found once for its families, weight and slant; at most
        // ``SystemFonts/maxLookupsPerAppearance`` families are looked up among the
        // system's fonts (a hostile /RC may name thousands).
        struct FaceKey: Hashable {
            var families: [String]
            var bold: Bool
            var italic: Bool
        }
        var found: [FaceKey: StyledFace] = [:]
        var faces: [RichText.Style: StyledFace] = [:]
        var systemLookups = SystemFonts.maxLookupsPerAppearance
        func face(_ style: RichText.Style) throws -> StyledFace {
            if let f = faces[style] { return f }
            let key = FaceKey(families: style.families, bold: style.bold, italic: style.italic)
            let f =
                try found[key]
                ?? document.familyFace(
                    style.families,
                    bold: style.bold,
                    italic: style.italic,
                    systemLookups: &systemLookups
                )
                ?? StyledFace(
                    face: .simple(Appearance.standardFont(style.standardFont.resourceName, style.standardFont.base))
                )
            found[key] = f
            faces[style] = f
            return f
        }
        // The simple fonts by resource name (a name taken by another font gets a suffix),
        // the text each draws, and the programs.
        var simpleFonts: [String: FieldFont] = [:]
        var simpleText: [String: String] = [:]
        var nameOfSimple: [RichText.Style: String] = [:]
        var programs: [UnicodeFont] = []
        var unicodeText = ""
        for p in paragraphs {
            for run in p.runs {
                switch try face(run.style).face {
                case .simple(let font):
                    var name = font.resourceName
                    var k = 1
                    while let other = simpleFonts[name], other.resource != font.resource {
                        name = font.resourceName + "_\(k)"
                        k += 1
                    }
                    var renamed = font
                    renamed.resourceName = name
                    simpleFonts[name] = renamed
                    nameOfSimple[run.style] = name
                    if renamed.covers(run.text) {
                        simpleText[name, default: ""] += run.text + "\n"
                    } else {
                        unicodeText += run.text + "\n"
                    }
                case .program(let program):
                    if !programs.contains(where: { $0 === program }) { programs.append(program) }
                    unicodeText += run.text + "\n"
                }
            }
        }
        let what = "the rich text of a FreeText annotation"
        var standard: [String: AppearanceText] = [:]
        for (name, text) in simpleText {
            if let font = simpleFonts[name] {
                standard[name] = try AppearanceText(
                    text,
                    preferred: font,
                    document: document,
                    strict: strict,
                    what: what
                )
            }
        }
        let unicode =
            unicodeText.isEmpty
            ? nil
            : try AppearanceText(
                unicodeText,
                preferred: nil,
                programs: programs,
                document: document,
                strict: strict,
                what: what
            )
        /// How a run is drawn: its font, the program it prefers, and the bold and slant
        /// drawn by Quire.
        struct Drawn {
            var text: AppearanceText
            var prefer: Int?
            var bold: Bool
            var italic: Bool
        }
        func font(_ run: RichText.Run) -> Drawn? {
            guard let styled = faces[run.style] else { return nil }
            switch styled.face {
            case .simple:
                if let name = nameOfSimple[run.style], let f = standard[name], f.simple?.covers(run.text) == true {
                    return Drawn(text: f, prefer: nil, bold: styled.syntheticBold, italic: styled.syntheticItalic)
                }
                return unicode.map { Drawn(text: $0, prefer: nil, bold: run.style.bold, italic: run.style.italic) }
            case .program(let program):
                let index = programs.firstIndex { $0 === program }
                return unicode.map {
                    Drawn(text: $0, prefer: index, bold: styled.syntheticBold, italic: styled.syntheticItalic)
                }
            }
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
            /// Its paragraph's direction (from the paragraph's first strong character).
            var rightToLeft = false
        }
        let available = r.width - 4
        var lines: [Line] = []
        var lastSize = paragraphs.first?.runs.first?.style.size ?? 12
        for p in paragraphs {
            let rightToLeft = FontChain.isRightToLeft(Array(p.runs.map(\.text).joined().unicodeScalars))
            var line = Line(alignment: p.alignment ?? alignment, rightToLeft: rightToLeft)
            var width = 0.0
            for run in p.runs {
                guard let drawn = font(run) else { continue }
                let f = drawn.text
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
                    let w = f.width(word, size: run.style.size, prefer: drawn.prefer) * run.style.stretch
                    let trimmed =
                        f.width(
                            String(word.reversed().drop(while: { $0 == " " }).reversed()),
                            size: run.style.size,
                            prefer: drawn.prefer
                        ) * run.style.stretch
                    if !line.pieces.isEmpty && width + trimmed > available {
                        lines.append(line)
                        line = Line(alignment: line.alignment, rightToLeft: line.rightToLeft)
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
            // The line's pieces (the last without the spaces at its end) cut where the
            // embedding level changes, and put in visual order: FriBidi over the whole line
            // (in its paragraph's direction) and rule L2, so that a
            // right-to-left sentence reads right to left across its styled runs. Each
            // segment is then shaped alone, in its own direction.
            struct Segment {
                var piece: Int
                var text: String
                var level: Int
                var width = 0.0
            }
            let texts = l.pieces.enumerated().map { k, piece in
                k == l.pieces.count - 1
                    ? String(piece.text.reversed().drop(while: { $0 == " " }).reversed()) : piece.text
            }
            let levels = FontChain.bidiLevels(texts.flatMap { Array($0.unicodeScalars) }, rightToLeft: l.rightToLeft)
            var segments: [Segment] = []
            var offset = 0
            for (k, text) in texts.enumerated() {
                var current = String.UnicodeScalarView()
                var level = 0
                for s in text.unicodeScalars {
                    let v = offset < levels.count ? levels[offset] : 0
                    offset += 1
                    if v != level, !current.isEmpty {
                        segments.append(Segment(piece: k, text: String(current), level: level))
                        current = String.UnicodeScalarView()
                    }
                    level = v
                    current.append(s)
                }
                if !current.isEmpty { segments.append(Segment(piece: k, text: String(current), level: level)) }
            }
            for i in segments.indices {
                guard let drawn = font(l.pieces[segments[i].piece].run) else { continue }
                let style = l.pieces[segments[i].piece].run.style
                segments[i].width =
                    drawn.text.width(segments[i].text, size: style.size, prefer: drawn.prefer) * style.stretch
            }
            segments = FontChain.visualOrder(segments) { $0.level }
            let total = segments.reduce(0) { $0 + $1.width }
            var x: Double
            switch l.alignment {
            case 1: x = (r.left + r.right) / 2 - total / 2
            case 2: x = r.right - 2 - total
            default: x = r.left + 2
            }
            for segment in segments {
                let run = l.pieces[segment.piece].run
                guard let drawn = font(run) else { continue }
                let f = drawn.text
                let style = run.style
                let mode = drawn.bold ? "2 Tr \(n(style.size * 0.03)) w" : "0 Tr"
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
                // vertical-align shifts the baseline; font-stretch scales the glyphs across.
                let baseline = y + style.rise
                line(
                    f.show(
                        segment.text,
                        x: x,
                        y: baseline,
                        size: style.size,
                        skew: drawn.italic ? 0.21 : 0,
                        stretch: style.stretch,
                        prefer: drawn.prefer
                    )
                )
                if style.underline {
                    decorations.append(
                        (x, x + segment.width, baseline - style.size * 0.12, style.size * 0.06, style.color)
                    )
                }
                if style.lineThrough {
                    decorations.append(
                        (x, x + segment.width, baseline + style.size * 0.28, style.size * 0.06, style.color)
                    )
                }
                x += segment.width
            }
        }
        line("ET")
        for d in decorations {
            color(d.color, stroking: true)
            line("\(n(d.width)) w \(n(d.x0)) \(n(d.y)) m \(n(d.x1)) \(n(d.y)) l S")
        }
        line("Q")
        return standard.keys.sorted().compactMap { standard[$0] } + (unicode.map { [$0] } ?? [])
    }
}
