import CHarfBuzz
import QuireSyntax

/// One glyph of a shaped line, in thousandths of an em (multiply by the size / 1000).
struct ShapedGlyph: Equatable {
    /// The font, an index into ``FontChain/fonts``.
    var font: Int
    var gid: UInt32
    /// The pen's advance after it (HarfBuzz's, with kerning and mark positioning).
    var advance: Double
    /// Its offset from the pen.
    var xOffset: Double
    var yOffset: Double
    /// The characters it stands for, for /ToUnicode: the characters of its cluster on the
    /// first glyph of the cluster, nothing on the others.
    var text: String
}

/// A line of text shaped for drawing: its glyphs in visual order, left to right.
struct ShapedLine {
    var glyphs: [ShapedGlyph] = []
    /// The characters no font has (only when the line was shaped with them left out).
    var uncovered: [Unicode.Scalar] = []
    /// The width in thousandths of an em.
    var width: Double { glyphs.reduce(0) { $0 + $1.advance } }
}

/// The fonts that draw a text, in fallback order (``AppearanceFonts``), and the shaping of a
/// line with them: each character in the first font that has it, the Unicode
/// bidirectional algorithm (FriBidi) for the order of right-to-left runs, HarfBuzz for the
/// glyphs of each run (Arabic joining, ligatures, marks, kerning).
///
/// The first `leading` fonts are chosen fonts (a /DA font's program, a rich text family's
/// face): a line shaped preferring one of them draws each character in it when it has
/// it; other characters, and lines shaped with no preference, take the fallback order
/// after them, and those fonts only when no fallback font has the character.
struct FontChain {
    let fonts: [UnicodeFont]
    let leading: Int

    init(fonts: [UnicodeFont], leading: Int = 0) {
        self.fonts = fonts
        self.leading = Swift.min(Swift.max(leading, 0), fonts.count)
    }

    /// Scalars that need no glyph: default ignorables (joiners, variation selectors, bidi
    /// controls), which HarfBuzz removes.
    static func isIgnorable(_ s: Unicode.Scalar) -> Bool {
        s.properties.isDefaultIgnorableCodePoint
    }

    /// What is drawn of a line: a tab as a space; other control characters are not drawn.
    static func drawable(_ line: String) -> [Unicode.Scalar] {
        line.unicodeScalars.compactMap { s in
            if s == "\t" { return " " }
            return s.properties.generalCategory == .control ? nil : s
        }
    }

    /// The font that has every scalar of `scalars` that needs a glyph: `prefer` when it
    /// has them, else the first of the fallback order, else the first of the leading fonts.
    func fontIndex(for scalars: ArraySlice<Unicode.Scalar>, prefer: Int? = nil) -> Int? {
        let needed = scalars.filter { !FontChain.isIgnorable($0) }
        if needed.isEmpty {
            guard !fonts.isEmpty else { return nil }
            return prefer.flatMap { fonts.indices.contains($0) ? $0 : nil } ?? 0
        }
        func has(_ k: Int) -> Bool { needed.allSatisfy { fonts[k].glyph($0) != nil } }
        if let p = prefer, fonts.indices.contains(p), has(p) { return p }
        return (leading..<fonts.count).first(where: has) ?? (0..<leading).first(where: has)
    }

    /// The characters of `text` that no font of the chain has, in order, once each.
    func uncovered(_ text: String) -> [Unicode.Scalar] {
        var out: [Unicode.Scalar] = []
        var seen: Set<UInt32> = []
        for ch in text {
            let scalars = FontChain.drawable(String(ch))
            guard !scalars.isEmpty, fontIndex(for: scalars[...]) == nil else { continue }
            for s in scalars where !FontChain.isIgnorable(s) && !fonts.contains(where: { $0.glyph(s) != nil }) {
                if seen.insert(s.value).inserted { out.append(s) }
            }
            if out.count >= 32 { break }
        }
        return out
    }

    /// `line` (no line breaks) shaped, in font `prefer` where it has the characters;
    /// characters no font has are left out and listed.
    func shape(_ line: String, prefer: Int? = nil) -> ShapedLine {
        var result = ShapedLine()
        // The scalars drawn and, for each, its font: by grapheme cluster, so that a base
        // and its marks share a font. Spaces and punctuation stay in the font of the text
        // before them when it has them, so that runs are not cut at every space.
        var scalars: [Unicode.Scalar] = []
        var fontOf: [Int] = []
        var previous: Int? = nil
        for ch in line {
            let s = FontChain.drawable(String(ch))
            guard !s.isEmpty else { continue }
            let category = s[0].properties.generalCategory
            let neutral = [
                .spaceSeparator, .otherPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
                .initialPunctuation, .finalPunctuation,
            ].contains(category)
            var index: Int? = nil
            if neutral, let p = previous, s.allSatisfy({ FontChain.isIgnorable($0) || fonts[p].glyph($0) != nil }) {
                index = p
            } else {
                index = fontIndex(for: s[...], prefer: prefer)
            }
            guard let index else {
                for u in s where !FontChain.isIgnorable(u) && !result.uncovered.contains(u) {
                    result.uncovered.append(u)
                }
                continue
            }
            scalars += s
            fontOf += Array(repeating: index, count: s.count)
            previous = index
        }
        guard !scalars.isEmpty else { return result }
        let levels = FontChain.bidiLevels(scalars)
        // Runs of one font and one level, in logical order.
        var runs: [(start: Int, end: Int, font: Int, level: Int)] = []
        var start = 0
        for i in 1...scalars.count where i == scalars.count || fontOf[i] != fontOf[start] || levels[i] != levels[start]
        {
            runs.append((start, i, fontOf[start], levels[start]))
            start = i
        }
        runs = FontChain.visualOrder(runs) { $0.level }
        let codepoints = scalars.map(\.value)
        for run in runs {
            result.glyphs += shapeRun(
                codepoints,
                scalars: scalars,
                run.start,
                run.end,
                font: run.font,
                rtl: run.level % 2 == 1
            )
        }
        return result
    }

    /// `items` (runs of one embedding level, in logical order) in visual order: rule L2 of
    /// the bidirectional algorithm (UAX #9), from the highest level to the lowest odd one,
    /// reverses each sequence of items at that level or higher.
    static func visualOrder<T>(_ items: [T], level: (T) -> Int) -> [T] {
        var items = items
        let levels = items.map(level)
        let maxLevel = levels.max() ?? 0
        let minOdd = levels.filter { $0 % 2 == 1 }.min() ?? (maxLevel + 1)
        guard minOdd <= maxLevel else { return items }
        var order = Array(items.indices)
        for l in stride(from: maxLevel, through: minOdd, by: -1) {
            var i = 0
            while i < order.count {
                guard levels[order[i]] >= l else {
                    i += 1
                    continue
                }
                var j = i
                while j < order.count && levels[order[j]] >= l { j += 1 }
                order[i..<j].reverse()
                i = j
            }
        }
        items = order.map { items[$0] }
        return items
    }

    /// Whether a paragraph of `scalars` runs right to left: its first strong character is
    /// (rules P2 and P3 of UAX #9, by FriBidi).
    static func isRightToLeft(_ scalars: [Unicode.Scalar]) -> Bool {
        var direction = quire_fribidi_par_on
        _ = bidiLevels(scalars, direction: &direction)
        return direction == quire_fribidi_par_rtl
    }

    /// The embedding level of each scalar (FriBidi; the paragraph's direction from its
    /// first strong character, or `rightToLeft` when given: a line of a paragraph takes
    /// the paragraph's); all 0 if FriBidi fails.
    static func bidiLevels(_ scalars: [Unicode.Scalar], rightToLeft: Bool? = nil) -> [Int] {
        var direction = rightToLeft.map { $0 ? quire_fribidi_par_rtl : quire_fribidi_par_ltr } ?? quire_fribidi_par_on
        return bidiLevels(scalars, direction: &direction)
    }

    private static func bidiLevels(_ scalars: [Unicode.Scalar], direction: inout FriBidiParType) -> [Int] {
        let count = scalars.count
        var text = scalars.map { FriBidiChar($0.value) }
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: count)
        var brackets = [FriBidiBracketType](repeating: 0, count: count)
        var levels = [FriBidiLevel](repeating: 0, count: count)
        let ok = text.withUnsafeMutableBufferPointer { t -> Bool in
            guard let tp = t.baseAddress else { return false }
            guard let n = FriBidiStrIndex(exactly: count) else { return false }
            fribidi_get_bidi_types(tp, n, &types)
            fribidi_get_bracket_types(tp, n, types, &brackets)
            return fribidi_get_par_embedding_levels_ex(types, brackets, n, &direction, &levels) != 0
        }
        return ok ? levels.map { Swift.max(Int($0), 0) } : Array(repeating: 0, count: count)
    }

    /// Scalars `start..<end` of the line shaped with font `font` (the whole line as context),
    /// in visual order.
    private func shapeRun(
        _ codepoints: [UInt32],
        scalars: [Unicode.Scalar],
        _ start: Int,
        _ end: Int,
        font index: Int,
        rtl: Bool
    ) -> [ShapedGlyph] {
        let font = fonts[index]
        guard let buffer = hb_buffer_create() else { return [] }
        defer { hb_buffer_destroy(buffer) }
        codepoints.withUnsafeBufferPointer { cp in
            hb_buffer_add_utf32(
                buffer,
                cp.baseAddress,
                Int32(clamping: cp.count),
                UInt32(clamping: start),
                Int32(clamping: end - start)
            )
        }
        hb_buffer_set_direction(buffer, rtl ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_cluster_level(buffer, HB_BUFFER_CLUSTER_LEVEL_CHARACTERS)
        hb_buffer_set_flags(buffer, hb_buffer_flags_t(rawValue: HB_BUFFER_FLAG_REMOVE_DEFAULT_IGNORABLES.rawValue))
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font.font, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
            let positions = hb_buffer_get_glyph_positions(buffer, &count)
        else { return [] }
        let n = Int(count)
        let scale = 1000 / font.unitsPerEm
        // The text of each glyph: from its cluster to the next cluster of the run, on the
        // first glyph (in logical order) of its cluster.
        let clusters = Set((0..<n).map { Int(infos[$0].cluster) }).sorted()
        var next: [Int: Int] = [:]
        for (k, c) in clusters.enumerated() { next[c] = k + 1 < clusters.count ? clusters[k + 1] : end }
        var given: Set<Int> = []
        var glyphs = [ShapedGlyph](
            repeating: ShapedGlyph(font: index, gid: 0, advance: 0, xOffset: 0, yOffset: 0, text: ""),
            count: n
        )
        let logical: [Int] = rtl ? Array((0..<n).reversed()) : Array(0..<n)
        for i in logical {
            let c = Int(infos[i].cluster)
            var text = ""
            if given.insert(c).inserted, c >= start, let e = next[c], e <= scalars.count, c < e {
                var letters = Array(scalars[c..<e])
                // A ligature of right-to-left letters (lam-alef): its text in visual order.
                // PDFium and MuPDF read a right-to-left line's characters from its left end
                // and reverse them, the ligature's text with them: so they give it back in
                // logical order ("سلام", not "سالم").
                if rtl, letters.count > 1, letters.allSatisfy({ $0.properties.generalCategory == .otherLetter }) {
                    letters.reverse()
                }
                text = String(String.UnicodeScalarView(letters))
            }
            glyphs[i] = ShapedGlyph(
                font: index,
                gid: infos[i].codepoint,
                advance: Double(positions[i].x_advance) * scale,
                xOffset: Double(positions[i].x_offset) * scale,
                yOffset: Double(positions[i].y_offset) * scale,
                text: text
            )
        }
        return glyphs
    }
}
