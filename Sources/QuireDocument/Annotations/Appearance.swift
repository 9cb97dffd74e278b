import QuireSyntax

/// Generated normal appearances (/AP /N, ISO 32000-2 §12.5.5) for the annotations Quire
/// creates, so that viewers that only draw what is in the file show them.
///
/// Each appearance is a form XObject whose /BBox is the annotation's /Rect, drawn in page
/// coordinates (the mapping of §12.5.5 is then the identity).
enum Appearance {
    struct Stream {
        var dictionary: PDFDictionary
        var content: [UInt8]
        /// The text's fonts, written with the stream (``Document/addAppearanceStream(_:)``).
        var text: AppearanceText? = nil
    }

    /// The appearance of `a`. Its text (free text's contents, a stamp's name) is drawn in
    /// Helvetica when WinAnsiEncoding has every character, else in the document's Unicode
    /// fonts (``AppearanceText``; `strict`: a character no font has fails the call).
    static func make(for a: Annotation, document: Document, strict: Bool) throws -> Stream {
        var text: AppearanceText? = nil
        var ops = ContentBuilder()
        var resources = PDFDictionary()
        var states = PDFDictionary()
        let width = a.borderWidth ?? 1
        if a.opacity < 1 || isMarkup(a.subtype) {
            var gs = PDFDictionary([("Type", .name("ExtGState")), ("CA", Annotation.number(a.opacity)), ("ca", Annotation.number(a.opacity))])
            if a.subtype == "Highlight" { gs["BM"] = .name("Multiply") }
            states["GS0"] = .dictionary(gs)
            ops.line("/GS0 gs")
        }
        let stroke = a.color ?? defaultColor(a.subtype)
        ops.color(stroke, stroking: true)
        if let fill = a.interiorColor { ops.color(fill, stroking: false) }
        let hasFill = a.interiorColor.map { !$0.isEmpty } ?? false
        let r = a.rect
        switch a.subtype {
        case "Square":
            ops.line("\(n(width)) w")
            ops.line("\(n(r.left + width / 2)) \(n(r.bottom + width / 2)) \(n(max(r.width - width, 0))) \(n(max(r.height - width, 0))) re \(hasFill ? "B" : "S")")
        case "Circle":
            ops.line("\(n(width)) w")
            ops.ellipse(Rect(left: r.left + width / 2, bottom: r.bottom + width / 2, right: r.right - width / 2, top: r.top - width / 2))
            ops.line(hasFill ? "B" : "S")
        case "Line":
            ops.line("\(n(width)) w 1 J")
            if a.linePoints.count >= 4 {
                let p = a.linePoints
                ops.line("\(n(p[0])) \(n(p[1])) m \(n(p[2])) \(n(p[3])) l S")
                for (k, ending) in a.lineEndings.prefix(2).enumerated() {
                    let (tip, from) = k == 0 ? ((p[0], p[1]), (p[2], p[3])) : ((p[2], p[3]), (p[0], p[1]))
                    ops.lineEnding(ending, tip: tip, from: from, size: max(6, width * 4), fill: hasFill)
                }
            }
        case "Polygon", "PolyLine":
            ops.line("\(n(width)) w 1 j")
            let v = a.vertices
            if v.count >= 4 {
                ops.line("\(n(v[0])) \(n(v[1])) m")
                var i = 2
                while i + 1 < v.count { ops.line("\(n(v[i])) \(n(v[i + 1])) l"); i += 2 }
                ops.line(a.subtype == "Polygon" ? (hasFill ? "b" : "s") : "S")
            }
        case "Ink":
            ops.line("\(n(width)) w 1 J 1 j")
            for stroke in a.inkList where stroke.count >= 2 {
                ops.line("\(n(stroke[0])) \(n(stroke[1])) m")
                var i = 2
                while i + 1 < stroke.count { ops.line("\(n(stroke[i])) \(n(stroke[i + 1])) l"); i += 2 }
                if stroke.count == 2 { ops.line("\(n(stroke[0])) \(n(stroke[1])) l") }  // a dot
                ops.line("S")
            }
        case "Highlight", "Underline", "Squiggly", "StrikeOut":
            for q in quads(a) { ops.markup(a.subtype, q) }
        case "Text":
            ops.note(r, fill: a.color ?? [1, 0.82, 0])
        case "FreeText":
            // A size of 0 in /DA means "fit the box" (§12.7.4.3); Quire draws 12 points then,
            // and for a size that is negative or not a number.
            let size = a.fontSize.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 12
            if width > 0 && a.color != nil { ops.line("\(n(width)) w \(n(r.left + width / 2)) \(n(r.bottom + width / 2)) \(n(max(r.width - width, 0))) \(n(max(r.height - width, 0))) re S") }
            let t = try AppearanceText(a.contents ?? "", preferred: standardFont("Helv", "Helvetica"), document: document,
                                       strict: strict, what: "the contents of a FreeText annotation")
            ops.text(a.contents ?? "", in: r, font: t, size: size, color: textColor(a.defaultAppearance))
            text = t
        case "Stamp":
            let name = a.iconName ?? "Draft"
            ops.line("\(n(max(width, 2))) w")
            ops.line("\(n(r.left + 2)) \(n(r.bottom + 2)) \(n(max(r.width - 4, 0))) \(n(max(r.height - 4, 0))) re S")
            let label = name.uppercased()
            let t = try AppearanceText(label, preferred: standardFont("HeBo", "Helvetica-Bold"), document: document,
                                       strict: strict, what: "the name of a Stamp annotation")
            // The name fits 90% of the width and half the height.
            let widthAtOne = t.width(label, size: 1)
            let size = max(4, min(r.height * 0.5, widthAtOne > 0 ? r.width * 0.9 / widthAtOne : r.height * 0.5))
            ops.text(label, in: r, font: t, size: size, color: stroke, centered: true)
            text = t
        default:
            ops.line("\(n(r.left)) \(n(r.bottom)) \(n(r.width)) \(n(r.height)) re S")
        }
        if !states.isEmpty { resources["ExtGState"] = .dictionary(states) }
        var dict = PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Form")),
            ("BBox", .array([r.left, r.bottom, r.right, r.top].map(Annotation.number))),
        ])
        if !resources.isEmpty { dict["Resources"] = .dictionary(resources) }
        return Stream(dictionary: dict, content: ops.bytes, text: text)
    }

    /// One of the standard 14 fonts, as the font of generated text (WinAnsiEncoding).
    static func standardFont(_ resourceName: String, _ base: String) -> FieldFont {
        FieldFont(resourceName: resourceName, resource: helvetica(base), standard: StandardFontMetrics.font(named: base))
    }

    static func isMarkup(_ subtype: String) -> Bool {
        ["Highlight", "Underline", "Squiggly", "StrikeOut"].contains(subtype)
    }

    static func defaultColor(_ subtype: String) -> [Double] {
        switch subtype {
        case "Highlight": return [1, 1, 0]
        case "Underline", "Squiggly": return [0, 0.5, 0]
        case "StrikeOut": return [0.8, 0, 0]
        case "Stamp": return [0.8, 0.1, 0.1]
        default: return [0, 0, 0]
        }
    }

    static func helvetica(_ base: String) -> PDFObject {
        .dictionary(PDFDictionary([("Type", .name("Font")), ("Subtype", .name("Type1")),
                                   ("BaseFont", .name(PDFName(base))), ("Encoding", .name("WinAnsiEncoding"))]))
    }

    /// The fill colour of a default appearance string (`0 g`, `1 0 0 rg`), else black.
    static func textColor(_ da: String?) -> [Double] {
        guard let da else { return [0] }
        let t = da.split(separator: " ").map(String.init)
        if let i = t.lastIndex(of: "rg"), i >= 3 { return t[(i - 3)..<i].compactMap(Double.init) }
        if let i = t.lastIndex(of: "g"), i >= 1, let g = Double(t[i - 1]) { return [g] }
        return [0]
    }

    /// The quadrilaterals of text markup as bounding boxes; the annotation's rect when
    /// /QuadPoints is missing.
    static func quads(_ a: Annotation) -> [Rect] {
        let q = a.quadPoints
        guard q.count >= 8 else { return [a.rect] }
        return stride(from: 0, to: q.count - 7, by: 8).map { i in
            let xs = [q[i], q[i + 2], q[i + 4], q[i + 6]], ys = [q[i + 1], q[i + 3], q[i + 5], q[i + 7]]
            return Rect(left: xs.min() ?? 0, bottom: ys.min() ?? 0, right: xs.max() ?? 0, top: ys.max() ?? 0)
        }
    }

    /// A number for a content stream.
    static func n(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let s = Serializer.bytes(Annotation.number((v * 1000).rounded() / 1000))
        return String(decoding: s, as: UTF8.self)
    }
}

/// Builds a content stream line by line.
struct ContentBuilder {
    var bytes: [UInt8] = []

    mutating func line(_ text: String) {
        bytes += Array(text.utf8)
        bytes.append(0x0A)
    }

    mutating func color(_ c: [Double], stroking: Bool) {
        let v = c.map(Appearance.n).joined(separator: " ")
        switch c.count {
        case 1: line("\(v) \(stroking ? "G" : "g")")
        case 3: line("\(v) \(stroking ? "RG" : "rg")")
        case 4: line("\(v) \(stroking ? "K" : "k")")
        default: break
        }
    }

    /// An ellipse inscribed in `r`, from four Bézier curves.
    mutating func ellipse(_ r: Rect) {
        let k = 0.5523, cx = (r.left + r.right) / 2, cy = (r.bottom + r.top) / 2
        let rx = r.width / 2, ry = r.height / 2
        let n = Appearance.n
        line("\(n(cx + rx)) \(n(cy)) m")
        line("\(n(cx + rx)) \(n(cy + k * ry)) \(n(cx + k * rx)) \(n(cy + ry)) \(n(cx)) \(n(cy + ry)) c")
        line("\(n(cx - k * rx)) \(n(cy + ry)) \(n(cx - rx)) \(n(cy + k * ry)) \(n(cx - rx)) \(n(cy)) c")
        line("\(n(cx - rx)) \(n(cy - k * ry)) \(n(cx - k * rx)) \(n(cy - ry)) \(n(cx)) \(n(cy - ry)) c")
        line("\(n(cx + k * rx)) \(n(cy - ry)) \(n(cx + rx)) \(n(cy - k * ry)) \(n(cx + rx)) \(n(cy)) c")
    }

    /// A line ending (§12.5.6.7, Table 179) at `tip`, pointing away from `from`.
    mutating func lineEnding(_ name: String, tip: (Double, Double), from: (Double, Double), size: Double, fill: Bool) {
        let dx = tip.0 - from.0, dy = tip.1 - from.1
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0 else { return }
        let ux = dx / length, uy = dy / length
        let n = Appearance.n
        let back = (tip.0 - ux * size, tip.1 - uy * size)
        let left = (back.0 - uy * size / 2, back.1 + ux * size / 2)
        let right = (back.0 + uy * size / 2, back.1 - ux * size / 2)
        switch name {
        case "OpenArrow":
            line("\(n(left.0)) \(n(left.1)) m \(n(tip.0)) \(n(tip.1)) l \(n(right.0)) \(n(right.1)) l S")
        case "ClosedArrow":
            line("\(n(left.0)) \(n(left.1)) m \(n(tip.0)) \(n(tip.1)) l \(n(right.0)) \(n(right.1)) l \(fill ? "b" : "s")")
        case "Square":
            line("\(n(tip.0 - size / 2)) \(n(tip.1 - size / 2)) \(n(size)) \(n(size)) re \(fill ? "B" : "S")")
        case "Circle":
            ellipse(Rect(left: tip.0 - size / 2, bottom: tip.1 - size / 2, right: tip.0 + size / 2, top: tip.1 + size / 2))
            line(fill ? "B" : "S")
        case "Butt":
            line("\(n(tip.0 - uy * size / 2)) \(n(tip.1 + ux * size / 2)) m \(n(tip.0 + uy * size / 2)) \(n(tip.1 - ux * size / 2)) l S")
        default:
            break  // None, and endings Quire does not draw
        }
    }

    /// Text markup on one quadrilateral's box.
    mutating func markup(_ subtype: String, _ q: Rect) {
        let n = Appearance.n
        let h = max(q.height, 1)
        switch subtype {
        case "Highlight":
            let fill = bytes  // the stroking colour was set; highlights fill with it
            _ = fill
            line("q")
            bytes += Array(strokeToFill().utf8)
            line("\(n(q.left)) \(n(q.bottom)) \(n(q.width)) \(n(q.height)) re f Q")
        case "Underline":
            line("\(n(max(h / 14, 0.5))) w \(n(q.left)) \(n(q.bottom + h / 14)) m \(n(q.right)) \(n(q.bottom + h / 14)) l S")
        case "StrikeOut":
            line("\(n(max(h / 14, 0.5))) w \(n(q.left)) \(n(q.bottom + h / 2)) m \(n(q.right)) \(n(q.bottom + h / 2)) l S")
        case "Squiggly":
            // At most 1,000 zigzags a quadrilateral: a thin one 2e9 wide was 2e9 of them,
            // and past 2^53 steps x + step == x and the loop never ended.
            let step = max(h / 6, 1, q.width / 1000)
            var x = q.left
            var up = true
            line("\(n(max(h / 20, 0.5))) w \(n(x)) \(n(q.bottom + step / 2)) m")
            while x < q.right {
                guard x + step > x else { break }
                x = min(x + step, q.right)
                line("\(n(x)) \(n(q.bottom + (up ? step * 1.5 : step / 2))) l")
                up.toggle()
            }
            line("S")
        default:
            break
        }
    }

    /// The operator that sets the fill colour to the last stroking colour set.
    func strokeToFill() -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        for l in text.split(separator: "\n").reversed() {
            if l.hasSuffix(" RG") { return l.dropLast(3) + " rg\n" }
            if l.hasSuffix(" G") { return l.dropLast(2) + " g\n" }
            if l.hasSuffix(" K") { return l.dropLast(2) + " k\n" }
        }
        return "1 1 0 rg\n"
    }

    /// A note icon filling `r`: a coloured sheet with lines of text.
    mutating func note(_ r: Rect, fill: [Double]) {
        let n = Appearance.n
        color(fill, stroking: false)
        line("0 G 1 w")
        line("\(n(r.left + 0.5)) \(n(r.bottom + 0.5)) \(n(max(r.width - 1, 0))) \(n(max(r.height - 1, 0))) re B")
        for k in 1...3 {
            let y = r.top - r.height * Double(k) / 4.5
            line("\(n(r.left + r.width * 0.2)) \(n(y)) m \(n(r.right - r.width * 0.2)) \(n(y)) l S")
        }
    }

    /// `text` in `font`, wrapped by words to `r`'s width less 2 points each side, from its
    /// top (or one line centred in `r`).
    mutating func text(_ text: String, in r: Rect, font: AppearanceText, size: Double, color c: [Double],
                       centered: Bool = false) {
        let n = Appearance.n
        let available = r.width - 4
        var lines: [String] = []
        for paragraph in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            var current = ""
            for word in paragraph.split(separator: " ") {
                let candidate = current.isEmpty ? String(word) : current + " " + word
                if current.isEmpty || font.width(candidate, size: size) <= available {
                    current = candidate
                } else {
                    lines.append(current)
                    current = String(word)
                }
                if lines.count > 10_000 { break }
            }
            lines.append(current)
            if lines.count > 10_000 { break }
        }
        line("q BT")
        color(c, stroking: false)
        if let tf = font.fontOperator(size: size) { line(tf) }
        var y = centered ? (r.bottom + r.top) / 2 - size * 0.35 : r.top - 2 - size
        for l in lines where y >= r.bottom - size {
            let x = centered ? (r.left + r.right) / 2 - font.width(l, size: size) / 2 : r.left + 2
            line(font.show(l, x: x, y: y, size: size))
            y -= size * 1.2
        }
        line("ET Q")
    }
}
