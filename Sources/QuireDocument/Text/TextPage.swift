import QuireSyntax
import Synchronization

/// One character of a page's text: its Unicode text (a ligature glyph or an /ActualText
/// span may carry several scalars), its quad in user space and its font size. Characters
/// that Quire inserts between words and lines (`isGenerated`) have the text " " or "\n";
/// a generated space has the quad of the gap it stands for, a generated line break the
/// empty quad at the end of its line.
public struct TextCharacter: Sendable, Equatable {
    public var text: String
    public var quad: TextQuad
    /// The font size in user space units (the text matrix and CTM applied).
    public var fontSize: Double
    /// The font's /BaseFont.
    public var fontName: String
    public var isGenerated: Bool
    /// The line (0-based, in ``TextPage/lines``) the character belongs to.
    public var line: Int
    /// The quad of the glyph's own bounding box (what PDFium's `FPDFText_GetCharBox`
    /// reports): from the outline in the embedded font program (TrueType `glyf`, CFF or
    /// Type 1 charstrings) or the AFM box of a non-embedded standard 14 font. Where neither
    /// is known (Type 3 and other non-embedded fonts, generated characters) it is ``quad``,
    /// and ``hasGlyphBox`` is false. ``quad`` stays the box for highlights and selection.
    public var glyphQuad: TextQuad
    /// Whether ``glyphQuad`` comes from the glyph's outline or metrics (else it is ``quad``).
    public var hasGlyphBox: Bool
}

/// A word or a line: a range of character indices, its text and its quads (one per line).
public struct TextSpan: Sendable, Equatable {
    public var range: Range<Int>
    public var text: String
    public var quads: [TextQuad]
    public var bounds: Rect {
        guard let first = quads.first?.bounds else { return Rect(left: 0, bottom: 0, right: 0, top: 0) }
        return quads.dropFirst().reduce(first) { r, q in
            let b = q.bounds
            return Rect(left: min(r.left, b.left), bottom: min(r.bottom, b.bottom), right: max(r.right, b.right), top: max(r.top, b.top))
        }
    }
}

/// A match of a search: the page, the characters it covers, their text and quads.
public struct TextMatch: Sendable, Equatable {
    public var pageIndex: Int
    public var span: TextSpan
}

/// Options of ``TextPage/search(_:options:)`` and ``Document/searchText(_:options:)``.
public struct TextSearchOptions: Sendable {
    /// Match letter case exactly (default: case-insensitive, by Unicode lowercase mapping).
    public var caseSensitive = false
    /// Only matches with no letter or digit just before or after them.
    public var wholeWord = false
    /// Most matches returned (0: no limit).
    public var maxMatches = 0
    public init(caseSensitive: Bool = false, wholeWord: Bool = false, maxMatches: Int = 0) {
        self.caseSensitive = caseSensitive; self.wholeWord = wholeWord; self.maxMatches = maxMatches
    }
}

/// A page's text (issue 18): characters with quads in content-stream order, grouped into
/// lines and words, and the page's plain text.
///
/// Reading order is the order the content stream shows the glyphs in (PDFium's order too).
/// The heuristic that makes lines and words, documented because search, selection and
/// the plain text depend on it:
/// - a glyph starts a new line when its baseline direction turns (cosine under 0.95), when
///   its origin lies off the previous glyph's baseline by more than half the larger glyph
///   height, or when it goes back along the baseline by more than one glyph height;
/// - on the same line, a space is inserted when the gap after the previous glyph's advance
///   exceeds 0.3 × the width of the font's space (at least 0.1 × the font size) and
///   neither glyph is white space already.
/// Each line break is one generated "\n". Words are the runs of characters between white
/// space.
public final class TextPage {
    public let pageIndex: Int
    public let characters: [TextCharacter]
    /// The page's plain text: every character's text in order.
    public let text: String
    /// The lines, each with its text and quads: made on first use (the plain text and
    /// the characters do not need them; making them was a third of a page's text, issue
    /// 41), under a lock, as a text page may be read from any thread.
    public var lines: [TextSpan] {
        linesCache.withLock { cached in
            if let cached { return cached }
            let made = TextPage.lines(characters)
            cached = made
            return made
        }
    }
    private let linesCache = Mutex<[TextSpan]?>(nil)
    /// Warnings from interpreting the content (damage skipped, limits reached).
    public let warnings: [String]

    init(pageIndex: Int, glyphs: [ShownGlyph], warnings: [String]) {
        self.pageIndex = pageIndex
        self.warnings = warnings
        var chars: [TextCharacter] = []
        chars.reserveCapacity(glyphs.count + glyphs.count / 4)
        var line = 0
        var previous: ShownGlyph? = nil
        // White space by the Unicode property; one ASCII byte (most glyphs) decided on the byte.
        let isSpace = { (s: String) -> Bool in
            if s.utf8.count == 1, let b = s.utf8.first { return b == 0x20 || (0x09...0x0D).contains(b) }
            return s.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
        }
        for g in glyphs where !g.text.isEmpty {
            if let p = previous {
                let end = TextPoint(x: p.origin.x + p.direction.x * p.advance, y: p.origin.y + p.direction.y * p.advance)
                let dx = g.origin.x - end.x, dy = g.origin.y - end.y
                let along = dx * p.direction.x + dy * p.direction.y
                let perp = -dx * p.direction.y + dy * p.direction.x
                let turn = g.direction.x * p.direction.x + g.direction.y * p.direction.y
                let h = max(max(p.height, g.height), 0.01)
                if turn < 0.95 || abs(perp) > h * 0.5 || along < -h - p.advance {
                    let q = TextQuad(lowerLeft: p.quad.lowerRight, lowerRight: p.quad.lowerRight,
                                     upperRight: p.quad.upperRight, upperLeft: p.quad.upperRight)
                    chars.append(TextCharacter(text: "\n", quad: q, fontSize: p.fontSize, fontName: p.fontName, isGenerated: true, line: line,
                                               glyphQuad: q, hasGlyphBox: false))
                    line += 1
                } else if along > max(p.spaceWidth * 0.3, p.fontSize * 0.1), !isSpace(p.text), !isSpace(g.text) {
                    let q = TextQuad(lowerLeft: p.quad.lowerRight, lowerRight: g.quad.lowerLeft,
                                     upperRight: g.quad.upperLeft, upperLeft: p.quad.upperRight)
                    chars.append(TextCharacter(text: " ", quad: q, fontSize: p.fontSize, fontName: p.fontName, isGenerated: true, line: line,
                                               glyphQuad: q, hasGlyphBox: false))
                }
            }
            chars.append(TextCharacter(text: g.text, quad: g.quad, fontSize: g.fontSize, fontName: g.fontName, isGenerated: false, line: line,
                                       glyphQuad: g.glyphQuad ?? g.quad, hasGlyphBox: g.glyphQuad != nil))
            previous = g
        }
        characters = chars
        // The UTF-8 of every character's text, made into a String once (appending String to
        // String per character was a tenth of a search, issue 41).
        var utf8: [UInt8] = []
        utf8.reserveCapacity(chars.count + chars.count / 8)
        for c in chars {
            var t = c.text
            t.withUTF8 { utf8.append(contentsOf: $0) }
        }
        text = String(decoding: utf8, as: UTF8.self)
    }

    /// The lines of `chars`: the runs between generated line breaks, each with its text
    /// and quads.
    static func lines(_ chars: [TextCharacter]) -> [TextSpan] {
        var spans: [TextSpan] = []
        var start = 0
        for (i, c) in chars.enumerated() where c.isGenerated && c.text == "\n" {
            spans.append(TextSpan(range: start..<i, text: "", quads: []))
            start = i + 1
        }
        if start < chars.count || chars.isEmpty == false { spans.append(TextSpan(range: start..<chars.count, text: "", quads: [])) }
        let built = spans.map { s -> TextSpan in
            var s = s
            s.text = chars[s.range].map(\.text).joined()
            s.quads = TextPage.quads(chars, s.range)
            return s
        }
        return built
    }

    /// The words: runs of characters between white space.
    public var words: [TextSpan] {
        var out: [TextSpan] = []
        var start: Int? = nil
        func close(_ end: Int) {
            if let s = start, s < end { out.append(span(s..<end)) }
            start = nil
        }
        for (i, c) in characters.enumerated() {
            let ws = c.text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
            if ws { close(i) } else if start == nil { start = i }
        }
        close(characters.count)
        return out
    }

    /// The quad of character `index` as a span of it alone gives it (``span(_:)``'s one
    /// quad), without making the span's text; nil for a generated line break (or an index
    /// out of range).
    public func characterQuad(_ index: Int) -> TextQuad? {
        guard characters.indices.contains(index) else { return nil }
        let c = characters[index]
        if c.isGenerated && c.text == "\n" { return nil }
        return TextPage.runQuad(characters, index, index)
    }

    /// The characters in `range` as a span: their text and one quad per line.
    public func span(_ range: Range<Int>) -> TextSpan {
        let r = range.clamped(to: 0..<characters.count)
        return TextSpan(range: r, text: characters[r].map(\.text).joined(), quads: TextPage.quads(characters, r))
    }

    /// One quad per line over the characters of `range`: from the first character's left
    /// edge to the last one's right edge, as tall as the tallest character of the run.
    static func quads(_ chars: [TextCharacter], _ range: Range<Int>) -> [TextQuad] {
        var out: [TextQuad] = []
        var i = range.lowerBound
        while i < range.upperBound {
            let line = chars[i].line
            var j = i
            var first: Int? = nil, last: Int? = nil
            while j < range.upperBound && chars[j].line == line {
                if !(chars[j].isGenerated && chars[j].text == "\n") {
                    if first == nil { first = j }
                    last = j
                }
                j += 1
            }
            if let f = first, let l = last {
                out.append(runQuad(chars, f, l))
            }
            i = j
        }
        return out
    }

    /// The quad over characters `f ... l` of one line (neither a generated line break):
    /// from the first one's left edge to the last one's right edge, as tall as the tallest
    /// of the run, generated spaces at either end left out.
    static func runQuad(_ chars: [TextCharacter], _ f: Int, _ l: Int) -> TextQuad {
        // Trim generated spaces at either end.
        var a = f, b = l
        while a < b && chars[a].isGenerated { a += 1 }
        while b > a && chars[b].isGenerated { b -= 1 }
        let qa = chars[a].quad, qb = chars[b].quad
        // Heights: the largest of the run, measured along the first quad's up side.
        var best = 0.0, worst = 0.0
        let ux = qa.upperLeft.x - qa.lowerLeft.x, uy = qa.upperLeft.y - qa.lowerLeft.y
        let ulen = max((ux * ux + uy * uy).squareRoot(), 1e-9)
        for k in a...b where !chars[k].isGenerated {
            let q = chars[k].quad
            let hi = ((q.upperLeft.x - qa.lowerLeft.x) * ux + (q.upperLeft.y - qa.lowerLeft.y) * uy) / ulen
            let lo = ((q.lowerLeft.x - qa.lowerLeft.x) * ux + (q.lowerLeft.y - qa.lowerLeft.y) * uy) / ulen
            if hi > best { best = hi }
            if lo < worst { worst = lo }
        }
        let nx = ux / ulen, ny = uy / ulen
        let h = max(best, ulen)
        let low = min(worst, 0)
        func shift(_ p: TextPoint, _ d: Double) -> TextPoint { TextPoint(x: p.x + nx * d, y: p.y + ny * d) }
        return TextQuad(lowerLeft: shift(qa.lowerLeft, low), lowerRight: shift(qb.lowerRight, low),
                        upperRight: shift(qb.lowerRight, h), upperLeft: shift(qa.lowerLeft, h))
    }

    // MARK: Search

    /// The searchable form of the page: each Character folded (lowercased unless case
    /// sensitive), white space runs as one space, a hyphen at a line end with its line
    /// break removed (hyphenation), with the character index each came from.
    private func searchable(caseSensitive: Bool) -> (chars: [Character], index: [Int]) {
        var out: [Character] = []
        var index: [Int] = []
        out.reserveCapacity(characters.count)
        index.reserveCapacity(characters.count)
        let space: Character = " "
        var i = 0
        while i < characters.count {
            let c = characters[i]
            // Most characters are one ASCII byte: the hyphen, white space and lowercase tests
            // on the byte, as the general ones below decide them (a String comparison, the
            // White_Space property and a lowercased copy per character were half of a
            // search, issue 41).
            if c.text.utf8.count == 1, let b = c.text.utf8.first {
                if b == UInt8(ascii: "-"), i + 1 < characters.count, characters[i + 1].isGenerated,
                   characters[i + 1].text == "\n" {
                    i += 2
                    continue
                }
                if b == 0x20 || (0x09...0x0D).contains(b) {
                    if out.last != space { out.append(space); index.append(i) }
                } else {
                    let folded = !caseSensitive && (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b) ? b + 32 : b
                    out.append(Character(Unicode.Scalar(folded)))
                    index.append(i)
                }
                i += 1
                continue
            }
            if (c.text == "-" || c.text == "\u{AD}" || c.text == "\u{2010}"), i + 1 < characters.count,
               characters[i + 1].isGenerated, characters[i + 1].text == "\n" {
                i += 2
                continue
            }
            if c.text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
                if out.last != space { out.append(space); index.append(i) }
            } else {
                for ch in TextPage.unligated(caseSensitive ? c.text : c.text.lowercased()) {
                    out.append(ch)
                    index.append(i)
                }
            }
            i += 1
        }
        return (out, index)
    }

    /// The byte of each Character that is one ASCII byte, else 0: two such Characters are
    /// equal exactly when their bytes are, so a search compares bytes where both have one.
    private static func asciiBytes(_ chars: [Character]) -> [UInt8] {
        chars.map { ch in ch.utf8.count == 1 ? ch.utf8.first ?? 0 : 0 }
    }

    /// `text` with the Latin ligatures (U+FB00 to U+FB06: ff, fi, fl, ffi, ffl, long s t,
    /// st) as their letters, as PDFium's and MuPDF's text gives them: a search for
    /// "buffer" finds the "bu\u{FB00}er" of a ligature glyph (pdfbox cweb.pdf).
    static func unligated(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { (0xFB00...0xFB06).contains($0.value) }) else { return text }
        let letters = ["ff", "fi", "fl", "ffi", "ffl", "st", "st"]
        var out = ""
        for scalar in text.unicodeScalars {
            if (0xFB00...0xFB06).contains(scalar.value) {
                out += letters[Int(scalar.value - 0xFB00)]
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func fold(_ query: String, caseSensitive: Bool) -> [Character] {
        var out: [Character] = []
        for ch in TextPage.unligated(caseSensitive ? query : query.lowercased()) {
            if ch.isWhitespace { if out.last != " " && !out.isEmpty { out.append(" ") } } else { out.append(ch) }
        }
        while out.last == " " { out.removeLast() }
        return out
    }

    /// Every match of `query` on the page, in text order (matches do not overlap). Case
    /// folds by lowercasing, white space in the query matches any white space (line breaks
    /// included), and a word hyphenated at a line end matches unhyphenated.
    public func search(_ query: String, options: TextSearchOptions = TextSearchOptions()) -> [TextMatch] {
        let q = TextPage.fold(query, caseSensitive: options.caseSensitive)
        guard !q.isEmpty else { return [] }
        let (hay, index) = searchable(caseSensitive: options.caseSensitive)
        var out: [TextMatch] = []
        guard hay.count >= q.count else { return [] }
        let hayBytes = TextPage.asciiBytes(hay), qBytes = TextPage.asciiBytes(q)
        func same(_ h: Int, _ k: Int) -> Bool {
            let a = hayBytes[h], b = qBytes[k]
            return a != 0 && b != 0 ? a == b : hay[h] == q[k]
        }
        func matches(at i: Int) -> Bool {
            for k in 0..<q.count where !same(i + k, k) { return false }
            return true
        }
        var i = 0
        let isWordChar = { (c: Character) in c.isLetter || c.isNumber }
        while i + q.count <= hay.count {
            if same(i, 0) && matches(at: i) {
                let before = i > 0 ? hay[i - 1] : " "
                let after = i + q.count < hay.count ? hay[i + q.count] : " "
                if !options.wholeWord || (!isWordChar(before) && !isWordChar(after)) {
                    let range = index[i]..<(index[i + q.count - 1] + 1)
                    out.append(TextMatch(pageIndex: pageIndex, span: span(range)))
                    if options.maxMatches > 0 && out.count >= options.maxMatches { return out }
                    i += q.count
                    continue
                }
            }
            i += 1
        }
        return out
    }

    // MARK: Selection

    /// The index of the character nearest to `point`: one whose quad holds it, else the
    /// one whose centre is closest. Nil on a page without text.
    public func characterIndex(at point: TextPoint) -> Int? {
        var best: Int? = nil
        var bestDistance = Double.infinity
        for (i, c) in characters.enumerated() where !c.isGenerated || c.text == " " {
            if c.quad.contains(point) { return i }
            let m = c.quad.center
            let d = (m.x - point.x) * (m.x - point.x) + (m.y - point.y) * (m.y - point.y)
            if d < bestDistance { bestDistance = d; best = i }
        }
        return best
    }

    /// The text between two points, as a viewer's drag gives them: from the character at
    /// `from` to the one at `to` (in either order), both included.
    public func select(from: TextPoint, to: TextPoint) -> TextSpan? {
        guard let a = characterIndex(at: from), let b = characterIndex(at: to) else { return nil }
        return span(min(a, b)..<(max(a, b) + 1))
    }

    /// The characters whose centres lie inside one of `quads` (a markup annotation's
    /// /QuadPoints), with the generated spaces and line breaks between them.
    public func text(under quads: [TextQuad]) -> String {
        var inside = characters.map { c in !c.isGenerated && quads.contains { $0.contains(c.quad.center) } }
        for i in characters.indices where characters[i].isGenerated {
            inside[i] = i > 0 && i + 1 < characters.count && inside[i - 1] && inside[i + 1]
        }
        var out = ""
        for (i, c) in characters.enumerated() where inside[i] { out += c.text }
        return out
    }
}

extension TextQuad {
    /// The quad of 8 /QuadPoints numbers in the viewers' order (upper-left, upper-right,
    /// lower-left, lower-right).
    public init?(quadPoints q: ArraySlice<Double>) {
        guard q.count == 8 else { return nil }
        let v = Array(q)
        self.init(lowerLeft: TextPoint(x: v[4], y: v[5]), lowerRight: TextPoint(x: v[6], y: v[7]),
                  upperRight: TextPoint(x: v[2], y: v[3]), upperLeft: TextPoint(x: v[0], y: v[1]))
    }
}

extension Annotation {
    /// The text markup subtypes, whose /QuadPoints cover text.
    public static let textMarkupSubtypes: Set<String> = ["Highlight", "Underline", "StrikeOut", "Squiggly"]
}

extension Document {
    /// The text of page `index` (see ``TextPage``). Throws as ``page(at:)`` does; damage in
    /// the page's content is skipped and reported in ``TextPage/warnings``.
    public func textPage(at index: Int, limits: TextLimits = .default) throws -> TextPage {
        let page = try self.page(at: index)
        var interpreter = ContentTextInterpreter(document: self, limits: limits)
        interpreter.run(page: page)
        return TextPage(pageIndex: index, glyphs: interpreter.glyphs, warnings: interpreter.warnings)
    }

    /// Every match of `query` in the document, page by page (see ``TextPage/search(_:options:)``),
    /// over the pages that exist (a page that the root's /Count counts but the page tree
    /// lacks has no text). `progress` (see ``ProgressHandler``) counts the pages searched;
    /// throwing from it stops the search.
    public func searchText(_ query: String, options: TextSearchOptions = TextSearchOptions(),
                           progress: ProgressHandler? = nil) throws -> [TextMatch] {
        var out: [TextMatch] = []
        let indices = try pages().map(\.index)
        try progress?(0, indices.count)
        for (k, i) in indices.enumerated() {
            var o = options
            if options.maxMatches > 0 { o.maxMatches = options.maxMatches - out.count }
            out += try textPage(at: i).search(query, options: o)
            if options.maxMatches > 0 && out.count >= options.maxMatches { break }
            if k + 1 < indices.count { try progress?(k + 1, indices.count) }
        }
        if !indices.isEmpty { try progress?(indices.count, indices.count) }
        return out
    }

    /// The text of every page (``TextPage/text``) in page order, each page's followed by a
    /// form feed (U+000C), as pdftotext writes it: splitting at form feeds gives the pages.
    /// A page that the root's /Count counts but the page tree lacks gives an empty page.
    /// `progress` (see ``ProgressHandler``) counts the pages read; throwing from it stops.
    public func documentText(progress: ProgressHandler? = nil) throws -> String {
        let count = try pageCount()
        var exists = [Bool](repeating: false, count: count)
        for page in try pages() where page.index < count { exists[page.index] = true }
        var out = ""
        try progress?(0, count)
        for i in 0..<count {
            if exists[i] { out += try textPage(at: i).text }
            out += "\u{0C}"
            try progress?(i + 1, count)
        }
        return out
    }

    /// The text a markup annotation (Highlight, Underline, StrikeOut, Squiggly) covers:
    /// the characters whose centres lie in its /QuadPoints (PSPDFKit's
    /// `highlightedString`). Empty for an annotation without quads.
    public func markedText(of annotation: Annotation) throws -> String {
        let q = annotation.quadPoints
        var quads: [TextQuad] = []
        var i = 0
        while i + 8 <= q.count {
            if let quad = TextQuad(quadPoints: q[i..<(i + 8)]) { quads.append(quad) }
            i += 8
        }
        guard !quads.isEmpty else { return "" }
        return try textPage(at: annotation.pageIndex).text(under: quads)
    }

    /// Creates a text markup annotation (`Highlight`, `Underline`, `StrikeOut` or
    /// `Squiggly`) over `quads` on page `pageIndex`, through the ordinary creation path
    /// (generated appearance, checkpoints and journal). /Rect is the quads' bounds.
    @discardableResult
    public func addTextMarkup(_ subtype: String, pageIndex: Int, quads: [TextQuad], color: [Double]? = nil,
                              contents: String? = nil, author: String? = nil) throws -> Annotation {
        guard ["Highlight", "Underline", "StrikeOut", "Squiggly"].contains(subtype) else {
            throw PDFError(.invalidArgument, "text markup is Highlight, Underline, StrikeOut or Squiggly, not \(subtype)")
        }
        guard !quads.isEmpty else { throw PDFError(.invalidArgument, "a text markup annotation needs at least one quad") }
        var r = quads[0].bounds
        for q in quads.dropFirst() {
            let b = q.bounds
            r = Rect(left: min(r.left, b.left), bottom: min(r.bottom, b.bottom), right: max(r.right, b.right), top: max(r.top, b.top))
        }
        var a = Annotation(subtype: subtype, pageIndex: pageIndex, rect: r)
        a.quadPoints = quads.flatMap(\.quadPoints)
        if let color { a.color = color }
        a.contents = contents
        a.author = author
        return try addAnnotation(a)
    }
}
