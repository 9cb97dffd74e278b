import QuireSyntax

/// A point in PDF user space.
public struct TextPoint: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// An affine matrix `[a b c d e f]` (ISO 32000-2 §8.3.4).
public struct TextMatrix: Sendable, Equatable {
    public var a = 1.0, b = 0.0, c = 0.0, d = 1.0, e = 0.0, f = 0.0
    public init() {}
    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e; self.f = f
    }
    /// `self` then `m`: a point goes through self first.
    public func concatenating(_ m: TextMatrix) -> TextMatrix {
        TextMatrix(a * m.a + b * m.c, a * m.b + b * m.d,
                   c * m.a + d * m.c, c * m.b + d * m.d,
                   e * m.a + f * m.c + m.e, e * m.b + f * m.d + m.f)
    }
    public func apply(_ x: Double, _ y: Double) -> TextPoint {
        TextPoint(x: a * x + c * y + e, y: b * x + d * y + f)
    }
}

/// A quadrilateral around a glyph or a run of text: lower-left, lower-right, upper-right,
/// upper-left in the text's own direction (for rotated text, the corners rotate with it).
public struct TextQuad: Sendable, Equatable {
    public var lowerLeft: TextPoint, lowerRight: TextPoint, upperRight: TextPoint, upperLeft: TextPoint

    public init(lowerLeft: TextPoint, lowerRight: TextPoint, upperRight: TextPoint, upperLeft: TextPoint) {
        self.lowerLeft = lowerLeft; self.lowerRight = lowerRight; self.upperRight = upperRight; self.upperLeft = upperLeft
    }

    /// The axis-aligned box around the quad.
    public var bounds: Rect {
        // As the arrays' min() and max() compared, without making arrays (a page's text
        // asks this of every character).
        func least(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Double {
            var r = a
            if b < r { r = b }
            if c < r { r = c }
            if d < r { r = d }
            return r
        }
        func most(_ a: Double, _ b: Double, _ c: Double, _ d: Double) -> Double {
            var r = a
            if r < b { r = b }
            if r < c { r = c }
            if r < d { r = d }
            return r
        }
        return Rect(left: least(lowerLeft.x, lowerRight.x, upperRight.x, upperLeft.x),
                    bottom: least(lowerLeft.y, lowerRight.y, upperRight.y, upperLeft.y),
                    right: most(lowerLeft.x, lowerRight.x, upperRight.x, upperLeft.x),
                    top: most(lowerLeft.y, lowerRight.y, upperRight.y, upperLeft.y))
    }

    /// The centre.
    public var center: TextPoint {
        TextPoint(x: (lowerLeft.x + lowerRight.x + upperRight.x + upperLeft.x) / 4,
                  y: (lowerLeft.y + lowerRight.y + upperRight.y + upperLeft.y) / 4)
    }

    /// The eight numbers of /QuadPoints in the order viewers read them (Acrobat, PDFium,
    /// pdf.js): upper-left, upper-right, lower-left, lower-right. ISO 32000-2 Table 182
    /// describes a counter-clockwise order that no viewer follows.
    public var quadPoints: [Double] {
        [upperLeft.x, upperLeft.y, upperRight.x, upperRight.y, lowerLeft.x, lowerLeft.y, lowerRight.x, lowerRight.y]
    }

    /// Whether `p` lies inside the quad (convex, either winding).
    public func contains(_ p: TextPoint) -> Bool {
        let corners = [lowerLeft, lowerRight, upperRight, upperLeft]
        var sign = 0.0
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            if cross == 0 { continue }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }
}

/// One glyph as the content stream shows it, before words and lines are made.
struct ShownGlyph {
    var text: String
    var quad: TextQuad
    /// The quad of the glyph's own box (from the font program or AFM), when known.
    var glyphQuad: TextQuad?
    var fontSize: Double
    var fontName: String
    /// Unit vector of the baseline direction (user space).
    var direction: TextPoint
    /// Advance in user space along the direction.
    var advance: Double
    /// The text rendering mode's glyph was invisible (3) or inside an /ActualText span
    /// whose text replaced it.
    var invisible: Bool
    var origin: TextPoint
    /// Height of the glyph box in user space (ascent minus descent).
    var height: Double
    /// Width of a space in this font, in user space.
    var spaceWidth: Double
}

/// Limits of text extraction, besides the document's ``PDFLimits``.
public struct TextLimits: Sendable {
    /// Deepest nesting of form XObjects (PDFium stops at 256; real files use a few).
    public var maxFormDepth = 32
    /// Deepest `q` nesting; deeper `q`s are ignored (as PDFium does past its limit).
    public var maxStateDepth = 1024
    /// Most glyphs one page yields; the rest are dropped with a warning.
    public var maxGlyphs = 2_000_000
    /// Most operators interpreted on one page (all its streams and forms together).
    public var maxOperators = 20_000_000
    public init() {}
    public static let `default` = TextLimits()
}

/// Interprets a page's content streams for the text they show (§9.4): the graphics state
/// that moves text (CTM, `cm`, `q`/`Q`), the text state (`Tc`, `Tw`, `Tz`, `TL`, `Tf`,
/// `Ts`, `Tr`), the text matrices and the text-showing operators, form XObjects (with their
/// matrices, a depth limit and a cycle check), inline images (skipped), and marked content
/// with /ActualText. Damage in a content stream ends that stream: what came before is kept.
struct ContentTextInterpreter {
    struct GState {
        var ctm = TextMatrix()
        var charSpacing = 0.0, wordSpacing = 0.0, hScale = 1.0, leading = 0.0, rise = 0.0
        var fontSize = 0.0
        var font: TextFont? = nil
        var render = 0
        /// `w`, for how far a stroked path reaches (read by redaction).
        var lineWidth = 1.0
    }

    let document: Document
    let limits: TextLimits
    var glyphs: [ShownGlyph] = []
    var warnings: [String] = []
    var operatorCount = 0
    var fontCache: [String: TextFont] = [:]
    /// Objects of form XObjects being interpreted, for the cycle check.
    var formStack: Set<Int> = []
    /// /ActualText spans open: (text, glyph count when opened, marked-content depth).
    var actualText: [(text: String, start: Int, depth: Int)] = []
    var markedDepth = 0
    /// Whether the glyph limit was reported.
    var glyphLimitWarned = false
    /// Set, the run also rewrites what it reads without what lies in the redaction's
    /// regions (``ContentRedaction``, Redaction/ContentRedaction.swift).
    var redaction: ContentRedaction? = nil

    init(document: Document, limits: TextLimits) {
        self.document = document
        self.limits = limits
    }

    mutating func run(page: Page) {
        var contents: [UInt8] = []
        let value = (try? document.resolve(page.dictionary["Contents"] ?? .null)) ?? .null
        var parts: [PDFObject] = []
        if case .array(let a) = value { parts = a } else { parts = [value] }
        for part in parts {
            guard case .stream(let s)? = try? document.resolve(part) else { continue }
            do {
                contents += try document.file.decodedData(s)
                contents.append(0x0A)
            } catch {
                damaged("page \(page.index + 1): a content stream cannot be decoded: \(error)")
            }
        }
        let resources = (try? document.dictionary(page.inheritedResources)) ?? PDFDictionary()
        var state = GState()
        redaction?.begin(contents)
        interpret(contents, resources: resources, state: &state, depth: 0)
        redaction?.pageFrame = redaction?.frames.popLast()
    }

    /// Reports damage that ends the reading of a stream; a redaction fails on it (what was
    /// not read cannot be known to be outside the regions).
    mutating func damaged(_ message: String) {
        warnings.append(message)
        redaction?.fail(message)
    }

    private mutating func font(_ name: PDFName, _ resources: PDFDictionary) -> TextFont {
        let fonts = (try? document.dictionary(resources["Font"])) ?? PDFDictionary()
        let ref = fonts[name]
        let key: String
        if let id = ref?.reference { key = "\(id.number) \(id.generation)" } else { key = "/" + name.value + "@\(fonts.count)" }
        if let f = fontCache[key] { return f }
        // A font object is loaded once per document: the pages of a document share their
        // fonts, and parsing an embedded font program was a third of extracting text.
        let id = ref?.reference
        if let id, let f = document.textFontCache[id] {
            fontCache[key] = f
            return f
        }
        let f: TextFont
        if let d = try? document.dictionary(ref) { f = TextFont.load(d, document: document) } else {
            warnings.append("font /\(name.value) is not in the resources; Helvetica assumed")
            f = TextFont.fallback()
        }
        if fontCache.count < 4096 { fontCache[key] = f }
        if let id, document.textFontCache.count < 4096 { document.textFontCache[id] = f }
        return f
    }

    mutating func interpret(_ data: [UInt8], resources: PDFDictionary, state initial: inout GState, depth: Int) {
        let buffer = ByteBuffer(copying: data)
        var parser = ObjectParser(buffer, limits: document.options.limits)
        var operands: [PDFObject] = []
        var stack: [GState] = []
        var state = initial
        var tm = TextMatrix(), tlm = TextMatrix()
        var inText = false
        // Where the current operator's operands begin (a redaction replaces that range).
        var opStart = parser.position

        while true {
            let start = parser.position
            let token: Token
            do { token = try parser.lexer.next() } catch {
                damaged("content stream: \(error)"); break
            }
            switch token {
            case .eof:
                initial = state
                return
            case .integer(let i): operands.append(.integer(i))
            case .real(let r): operands.append(.real(r))
            case .string(let s): operands.append(.string(s))
            case .name(let n): operands.append(.name(n))
            case .arrayStart, .dictStart:
                parser.position = start
                do { operands.append(try parser.parseObject()) } catch {
                    damaged("content stream: \(error)"); initial = state; return
                }
            case .arrayEnd, .dictEnd, .brace: operands.removeAll()
            case .keyword(let op):
                operatorCount += 1
                if operatorCount > limits.maxOperators {
                    damaged("more than \(limits.maxOperators) operators on the page; the rest is not read")
                    initial = state
                    return
                }
                if operands.count > 64 { operands.removeFirst(operands.count - 64) }
                let n = operands.map { $0.number ?? 0 }
                func arg(_ i: Int, of count: Int) -> Double {
                    // Operands counted from the end: extra leading operands are ignored.
                    let k = n.count - count + i
                    return k >= 0 && k < n.count ? n[k] : 0
                }
                let end = parser.position
                redaction?.step(op, n, operands, from: opStart, to: end, state: state)
                var shownBefore = redaction?.shown.count ?? 0
                switch op {
                case "q":
                    if stack.count < limits.maxStateDepth { stack.append(state) }
                case "Q":
                    if let s = stack.popLast() { state = s }
                case "w" where n.count >= 1: state.lineWidth = arg(0, of: 1)
                case "cm" where n.count >= 6:
                    let m = TextMatrix(arg(0, of: 6), arg(1, of: 6), arg(2, of: 6), arg(3, of: 6), arg(4, of: 6), arg(5, of: 6))
                    state.ctm = m.concatenating(state.ctm)
                case "BT":
                    tm = TextMatrix(); tlm = TextMatrix(); inText = true
                case "ET":
                    inText = false
                case "Tc" where n.count >= 1: state.charSpacing = arg(0, of: 1)
                case "Tw" where n.count >= 1: state.wordSpacing = arg(0, of: 1)
                case "Tz" where n.count >= 1: state.hScale = arg(0, of: 1) / 100
                case "TL" where n.count >= 1: state.leading = arg(0, of: 1)
                case "Ts" where n.count >= 1: state.rise = arg(0, of: 1)
                case "Tr" where n.count >= 1:
                    // Rendering modes are 0 to 7; anything else (1e300, NaN) is not one of them.
                    let mode = arg(0, of: 1)
                    state.render = mode >= 0 && mode <= 7 ? Int(mode) : 0
                case "Tf" where operands.last?.number != nil:
                    // `14 Tf` without its font's name: the size still applies and the font
                    // is Helvetica, as PDFium and MuPDF read it (PDFium's Handle_SetFont).
                    if operands.count >= 2, case .name(let name) = operands[operands.count - 2] {
                        state.font = font(name, resources)
                    } else {
                        state.font = nil
                    }
                    state.fontSize = n[n.count - 1]
                case "Td" where n.count >= 2:
                    tlm = TextMatrix(1, 0, 0, 1, arg(0, of: 2), arg(1, of: 2)).concatenating(tlm); tm = tlm
                case "TD" where n.count >= 2:
                    state.leading = -arg(1, of: 2)
                    tlm = TextMatrix(1, 0, 0, 1, arg(0, of: 2), arg(1, of: 2)).concatenating(tlm); tm = tlm
                case "Tm" where n.count >= 6:
                    tlm = TextMatrix(arg(0, of: 6), arg(1, of: 6), arg(2, of: 6), arg(3, of: 6), arg(4, of: 6), arg(5, of: 6)); tm = tlm
                case "T*":
                    tlm = TextMatrix(1, 0, 0, 1, 0, -state.leading).concatenating(tlm); tm = tlm
                case "Tj", "'", "\"":
                    if op == "\"", n.count >= 3 { state.wordSpacing = arg(0, of: 3); state.charSpacing = arg(1, of: 3) }
                    if op != "Tj" { tlm = TextMatrix(1, 0, 0, 1, 0, -state.leading).concatenating(tlm); tm = tlm }
                    if case .string(let s)? = operands.last {
                        show(s.bytes, state: state, tm: &tm)
                        redaction?.shownText(op, n, [(s, shownBefore)], numbers: [], from: opStart, to: end)
                    }
                case "TJ":
                    if case .array(let items)? = operands.last {
                        var strings: [(PDFString, Int)] = []
                        for item in items {
                            switch item {
                            case .string(let s):
                                show(s.bytes, state: state, tm: &tm)
                                strings.append((s, shownBefore))
                                shownBefore = redaction?.shown.count ?? 0
                            case .integer, .real:
                                let adj = item.number ?? 0
                                if state.font?.vertical == true {
                                    tm = TextMatrix(1, 0, 0, 1, 0, -adj / 1000 * state.fontSize).concatenating(tm)
                                } else {
                                    tm = TextMatrix(1, 0, 0, 1, -adj / 1000 * state.fontSize * state.hScale, 0).concatenating(tm)
                                }
                            default: break
                            }
                        }
                        redaction?.shownText(op, n, strings, numbers: items, from: opStart, to: end)
                    }
                case "gs":
                    if case .name(let name)? = operands.last,
                       let gsDicts = try? document.dictionary(resources["ExtGState"]),
                       let gs = try? document.dictionary(gsDicts[name]),
                       let f = (try? document.resolve(gs["Font"] ?? .null))?.array, f.count == 2,
                       let fd = try? document.dictionary(f[0]) {
                        state.font = TextFont.load(fd, document: document)
                        state.fontSize = (try? document.resolve(f[1]))?.number ?? state.fontSize
                    }
                case "Do":
                    if case .name(let name)? = operands.last {
                        form(name, resources: resources, state: state, depth: depth, from: opStart, to: end)
                        redaction?.drawn(name, resources: resources, ctm: state.ctm, from: opStart, to: end)
                    }
                case "BI":
                    skipInlineImage(&parser)
                    redaction?.inlineImage(ctm: state.ctm, from: opStart, to: parser.position)
                case "BMC":
                    markedDepth += 1
                    redaction?.openMarked(nil, properties: nil, from: opStart, to: end)
                case "BDC":
                    markedDepth += 1
                    if operands.count >= 2 {
                        var props: PDFDictionary? = operands[operands.count - 1].dictionary
                        if props == nil, case .name(let pn) = operands[operands.count - 1],
                           let all = try? document.dictionary(resources["Properties"]) {
                            props = try? document.dictionary(all[pn])
                        }
                        if let p = props, case .string(let t)? = try? document.resolve(p["ActualText"] ?? .null) {
                            actualText.append((t.text, glyphs.count, markedDepth))
                        }
                        let tag = operands[operands.count - 2].name
                        redaction?.openMarked(tag, properties: props, from: opStart, to: end)
                    } else {
                        redaction?.openMarked(nil, properties: nil, from: opStart, to: end)
                    }
                case "EMC":
                    redaction?.closeMarked()
                    if let last = actualText.last, last.depth == markedDepth {
                        actualText.removeLast()
                        applyActualText(last.text, from: last.start)
                    }
                    markedDepth = Swift.max(0, markedDepth - 1)
                default:
                    break
                }
                _ = inText
                operands.removeAll(keepingCapacity: true)
                opStart = parser.position
            }
        }
    }

    /// Replaces the glyphs shown since `start` by one glyph run carrying `text`: the first
    /// glyph gets the text over the union of their boxes, the others become invisible.
    private mutating func applyActualText(_ text: String, from start: Int) {
        guard start <= glyphs.count else { return }
        if start == glyphs.count {
            return  // nothing shown: the text has no position, it is dropped
        }
        var first = glyphs[start]
        let last = glyphs[glyphs.count - 1]
        first.text = text
        first.quad = TextQuad(lowerLeft: first.quad.lowerLeft, lowerRight: last.quad.lowerRight,
                              upperRight: last.quad.upperRight, upperLeft: first.quad.upperLeft)
        if let a = first.glyphQuad, let b = last.glyphQuad {
            first.glyphQuad = TextQuad(lowerLeft: a.lowerLeft, lowerRight: b.lowerRight, upperRight: b.upperRight, upperLeft: a.upperLeft)
        } else {
            first.glyphQuad = nil
        }
        first.advance = max(first.advance, (last.origin.x - first.origin.x) * first.direction.x
                            + (last.origin.y - first.origin.y) * first.direction.y + last.advance)
        glyphs[start] = first
        glyphs.removeSubrange((start + 1)..<glyphs.count)
    }

    /// Shows string `bytes` with the current state, advancing `tm` (§9.4.4).
    private mutating func show(_ bytes: [UInt8], state: GState, tm: inout TextMatrix) {
        let font = state.font ?? {
            let f = TextFont.fallback()
            return f
        }()
        let size = state.fontSize
        let th = state.hScale
        let vertical = font.vertical
        var offset = 0
        for (code, count) in font.codes(bytes) {
            defer { offset += count }
            let w0 = font.advance(code, bytes: count)
            let trm = TextMatrix(size * th, 0, 0, size, 0, state.rise).concatenating(tm).concatenating(state.ctm)
            let text = font.text(code, bytes: count)
            let wordSpace = font.isWordSpace(code, bytes: count) ? state.wordSpacing : 0
            let quad: TextQuad
            var asc = font.ascent / 1000, desc = font.descent / 1000
            if font.kind == .type3 { asc = 0.8; desc = -0.2 }
            let w = vertical ? 1.0 : w0
            // Vertical writing: the displacement and position vector of /W2 (§9.7.4.3).
            let metrics = vertical ? font.verticalMetrics(code, bytes: count) : (w1y: -1.0, vx: w0 / 2, vy: 0.88)
            if vertical {
                // Vertical writing: the glyph hangs below its origin, centred (§9.7.4.3).
                quad = TextQuad(lowerLeft: trm.apply(-0.5, -1), lowerRight: trm.apply(0.5, -1),
                                upperRight: trm.apply(0.5, 0), upperLeft: trm.apply(-0.5, 0))
            } else {
                quad = TextQuad(lowerLeft: trm.apply(0, desc), lowerRight: trm.apply(w, desc),
                                upperRight: trm.apply(w, asc), upperLeft: trm.apply(0, asc))
            }
            // The glyph's own box (PDFium's FPDFText_GetCharBox): a box with no height gets
            // 1/1000 em, one with no width the advance, as PDFium gives them.
            var glyphQuad: TextQuad? = nil
            if let gb = font.glyphBox(code, bytes: count) {
                var l = gb.left / 1000, b = gb.bottom / 1000, r = gb.right / 1000, t = gb.top / 1000
                if t - b < 1e-4 { t = b + 0.001 }
                if r - l < 1e-4 { r = l + w0 }
                if vertical {
                    // The glyph hangs from its position vector (by default w0 / 2, 0.88 em).
                    l -= metrics.vx; r -= metrics.vx; b -= metrics.vy; t -= metrics.vy
                }
                glyphQuad = TextQuad(lowerLeft: trm.apply(l, b), lowerRight: trm.apply(r, b),
                                     upperRight: trm.apply(r, t), upperLeft: trm.apply(l, t))
            }
            let origin = trm.apply(0, 0)
            let ex = trm.apply(1, 0)
            let dx = ex.x - origin.x, dy = ex.y - origin.y
            let len = (dx * dx + dy * dy).squareRoot()
            let direction = len > 0 ? TextPoint(x: dx / len, y: dy / len) : TextPoint(x: 1, y: 0)
            let up = trm.apply(0, 1)
            let vlen = ((up.x - origin.x) * (up.x - origin.x) + (up.y - origin.y) * (up.y - origin.y)).squareRoot()
            if glyphs.count >= limits.maxGlyphs && !glyphLimitWarned {
                glyphLimitWarned = true
                warnings.append("more than \(limits.maxGlyphs) glyphs on the page; the rest are dropped")
            }
            // White space drawn with no width (a text matrix that maps the x axis to a point,
            // `0 0 0 1 0 0 Tm`, pdfminer AcroForm_TEST_compiled.pdf) shows nothing and is no
            // text: PDFium and MuPDF leave it out. Placed where that matrix puts it (x 0), it
            // would break the line it stands in.
            let noWidth = len == 0 && !text.isEmpty && text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
            if glyphs.count < limits.maxGlyphs && !noWidth {
                let spaceW = (font.kind == .composite ? 0.25 : (font.widths[32] ?? font.missingWidth) / 1000)
                glyphs.append(ShownGlyph(text: text, quad: quad, glyphQuad: glyphQuad, fontSize: vlen, fontName: font.name,
                                         direction: direction, advance: w * len,
                                         invisible: state.render == 3 || state.render == 7,
                                         origin: origin, height: (asc - desc) * vlen,
                                         spaceWidth: (spaceW > 0 ? spaceW : 0.25) * len))
            }
            // The displacement in thousandths of text space along the writing direction, as
            // a TJ number gives it: minus that number moves the same way (vertically, a
            // positive number moves down, ty being negative).
            let displacement: Double
            if vertical {
                let ty = metrics.w1y * size + state.charSpacing + wordSpace
                tm = TextMatrix(1, 0, 0, 1, 0, ty).concatenating(tm)
                displacement = size != 0 ? ty / size * 1000 : 0
            } else {
                let tx = (w0 * size + state.charSpacing + wordSpace) * th
                tm = TextMatrix(1, 0, 0, 1, tx, 0).concatenating(tm)
                displacement = size * th != 0 ? tx / (size * th) * 1000 : 0
            }
            redaction?.glyph(offset: offset, count: count, box: (glyphQuad ?? quad).bounds, displacement: displacement)
        }
    }

    /// Interprets form XObject `name`, if it is one.
    /// `from..<to`: the `Do` operator's bytes, which a redaction renames when this
    /// placement draws a rewritten copy.
    private mutating func form(
        _ name: PDFName, resources: PDFDictionary, state: GState, depth: Int, from: Int, to: Int
    ) {
        guard let xobjects = try? document.dictionary(resources["XObject"]) else { return }
        let ref = xobjects[name]
        guard case .stream(let s)? = try? document.resolve(ref ?? .null),
              (try? document.resolve(s.dictionary["Subtype"] ?? .null))?.name?.value == "Form" else { return }
        guard depth + 1 <= limits.maxFormDepth else {
            damaged("form XObjects nested deeper than \(limits.maxFormDepth); the deeper ones are not read")
            return
        }
        let number = ref?.reference?.number ?? -1
        if number >= 0 {
            guard !formStack.contains(number) else {
                damaged("form XObject \(number) 0 R draws itself; the cycle is not followed")
                return
            }
            formStack.insert(number)
        }
        defer { if number >= 0 { formStack.remove(number) } }
        // A redaction reads the original at each placement: each one that changes gets its
        // own copy (ContentRedaction.endForm).
        let form = s
        let data: [UInt8]
        do { data = try document.file.decodedData(form) } catch {
            damaged("form XObject /\(name.value) cannot be decoded: \(error)")
            return
        }
        var st = state
        if let m = (try? document.resolve(s.dictionary["Matrix"] ?? .null))?.array?.compactMap(\.number), m.count == 6 {
            st.ctm = TextMatrix(m[0], m[1], m[2], m[3], m[4], m[5]).concatenating(st.ctm)
        }
        let formResources = (try? document.dictionary(form.dictionary["Resources"])) ?? resources
        redaction?.begin(data)
        interpret(data, resources: formResources, state: &st, depth: depth + 1)
        redaction?.endForm(name, stream: form, resources: formResources, drawnWith: resources, from: from, to: to)
    }

    /// Skips an inline image (§8.9.7) after `BI`: its dictionary up to `ID`, then its data
    /// up to an `EI` that stands alone (white space before it, white space or a delimiter
    /// or the end after it). `/L` or `/Length`, when given, is trusted first.
    private mutating func skipInlineImage(_ parser: inout ObjectParser) {
        var length: Int? = nil
        var lastKey: PDFName? = nil
        while true {
            guard let t = try? parser.lexer.next() else { return }
            switch t {
            case .eof: return
            case .keyword("ID"):
                let from = parser.position + 1  // one white-space byte after ID
                parser.position = parser.lexer.buffer.withBytes { bytes in
                    ContentTextInterpreter.endOfInlineImage(bytes, from: from, length: length)
                }
                return
            case .name(let n):
                if lastKey == nil { lastKey = n } else { lastKey = nil }
            case .integer(let v):
                if let k = lastKey, k.value == "L" || k.value == "Length" { length = Int(clamping: v) }
                lastKey = nil
            case .arrayStart, .dictStart:
                parser.position = parser.lexer.tokenStart
                _ = try? parser.parseObject()
                lastKey = nil
            default:
                lastKey = nil
            }
        }
    }

    /// Where the data of an inline image that starts at `from` ends (just after its `EI`).
    static func endOfInlineImage(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, length: Int?) -> Int {
        func isWS(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 || b == 0x0C || b == 0x00 }
        if let l = length, l >= 0, from <= bytes.count, l <= bytes.count - from {
            var j = from + l
            while j < bytes.count && isWS(bytes[j]) { j += 1 }
            if j + 1 < bytes.count && bytes[j] == UInt8(ascii: "E") && bytes[j + 1] == UInt8(ascii: "I") { return j + 2 }
        }
        var i = Swift.max(from, 1)
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: "E") && bytes[i + 1] == UInt8(ascii: "I") && isWS(bytes[i - 1])
                && (i + 2 >= bytes.count || isWS(bytes[i + 2]) || bytes[i + 2] == UInt8(ascii: "/")
                    || bytes[i + 2] == UInt8(ascii: "[") || bytes[i + 2] == UInt8(ascii: "%")) {
                return i + 2
            }
            i += 1
        }
        return bytes.count
    }
}
