import QuireSyntax
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Generated normal appearances (/AP /N, ISO 32000-2 §12.5.5) for the annotations Quire
/// creates, so that viewers that only draw what is in the file show them.
///
/// Each appearance is a form XObject whose /BBox is the annotation's /Rect, drawn in page
/// coordinates (the mapping of §12.5.5 is then the identity).
enum Appearance {
    struct Stream {
        var dictionary: PDFDictionary
        var content: [UInt8]
        /// The text's fonts, written with the stream (``Document/addAppearanceStream(_:)``):
        /// one for plain text, one per font of rich text.
        var texts: [AppearanceText] = []
    }

    /// The appearance of `a`. Its text (free text's contents, a stamp's name) is drawn in
    /// Helvetica when WinAnsiEncoding has every character, else in the document's Unicode
    /// fonts (``AppearanceText``; `strict`: a character no font has fails the call).
    static func make(for annotation: Annotation, document: Document, strict: Bool) throws -> Stream {
        // A turned annotation (/Rotate) is drawn upright in its unturned box, which /Matrix
        // turns onto /Rect (``Turn``).
        let turn = Turn(annotation)
        var a = annotation
        a.rect = turn.box
        a.calloutLine = turn.unturned(a.calloutLine)
        var text: AppearanceText? = nil
        var richTexts: [AppearanceText] = []
        var ops = ContentBuilder()
        var resources = PDFDictionary()
        var states = PDFDictionary()
        let width = a.borderWidth ?? 1
        if a.opacity < 1 || isMarkup(a.subtype) || a.blendMode != nil {
            var gs = PDFDictionary([("Type", .name("ExtGState")), ("CA", Annotation.number(a.opacity)), ("ca", Annotation.number(a.opacity))])
            if let mode = a.blendMode ?? (a.subtype == "Highlight" ? "Multiply" : nil) { gs["BM"] = .name(PDFName(mode)) }
            states["GS0"] = .dictionary(gs)
            ops.line("/GS0 gs")
        }
        let stroke = a.color ?? defaultColor(a.subtype)
        ops.color(stroke, stroking: true)
        if let fill = a.interiorColor { ops.color(fill, stroking: false) }
        let hasFill = a.interiorColor.map { !$0.isEmpty } ?? false
        let r = a.rect
        // A dashed border (/BS /S /D) dashes every stroked shape; line endings stay solid.
        let dash = a.borderStyle == "D" ? dashOperator(a.dashPattern) : nil
        let cloud = a.cloudyIntensity.flatMap { $0 > 0 ? min($0, Annotation.maxCloudyIntensity) : nil }
        switch a.subtype {
        case "Square":
            ops.line("\(n(width)) w")
            if let dash { ops.line(dash) }
            if let cloud {
                ops.line("1 j")
                ops.cloud(cloudPath(a, intensity: cloud, width: width), close: hasFill ? "b" : "s")
            } else {
                let box = inset(r, a.rectDifferences, default: 0)
                ops.border(box, width: width, style: a.borderStyle, fill: hasFill)
            }
        case "Circle":
            ops.line("\(n(width)) w")
            if let dash { ops.line(dash) }
            if let cloud {
                ops.line("1 j")
                ops.cloud(cloudPath(a, intensity: cloud, width: width), close: hasFill ? "b" : "s")
            } else {
                let box = inset(r, a.rectDifferences, default: width / 2)
                ops.ellipse(box)
                ops.line(hasFill ? "B" : "S")
            }
        case "Line":
            ops.line("\(n(width)) w 1 J")
            if let dash { ops.line(dash) }
            if a.linePoints.count >= 4 {
                let p = a.linePoints
                // An inline caption breaks the line around it.
                let parts = MeasurementLabel(caption: a)?.lineOutside(from: (p[0], p[1]), to: (p[2], p[3]))
                    ?? [((p[0], p[1]), (p[2], p[3]))]
                for (s, e) in parts { ops.line("\(n(s.0)) \(n(s.1)) m \(n(e.0)) \(n(e.1)) l S") }
                if dash != nil { ops.line("[] 0 d") }
                ops.lineEndings(a.lineEndings, start: ((p[0], p[1]), (p[2], p[3])), end: ((p[2], p[3]), (p[0], p[1])),
                                size: endingSize(width), fill: hasFill)
            }
        case "Polygon", "PolyLine":
            ops.line("\(n(width)) w 1 j")
            if let dash { ops.line(dash) }
            let v = a.vertices
            if a.subtype == "Polygon", let cloud, v.count >= 6 {
                ops.cloud(cloudPath(a, intensity: cloud, width: width), close: hasFill ? "b" : "s")
            } else if v.count >= 4 {
                ops.line("\(n(v[0])) \(n(v[1])) m")
                var i = 2
                while i + 1 < v.count { ops.line("\(n(v[i])) \(n(v[i + 1])) l"); i += 2 }
                ops.line(a.subtype == "Polygon" ? (hasFill ? "b" : "s") : "S")
                if a.subtype == "PolyLine" {
                    if dash != nil { ops.line("[] 0 d") }
                    let k = v.count / 2 * 2
                    ops.lineEndings(a.lineEndings, start: ((v[0], v[1]), (v[2], v[3])),
                                    end: ((v[k - 2], v[k - 1]), (v[k - 4], v[k - 3])), size: endingSize(width), fill: hasFill)
                }
            }
        case "Ink":
            ops.line("\(n(width)) w 1 J 1 j")
            if let dash { ops.line(dash) }
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
        case "FileAttachment":
            // The icon of /Name (PushPin by default, and for a name Quire does not draw) in
            // the rectangle, in /C.
            ops.color(a.color ?? defaultColor("FileAttachment"), stroking: true)
            ops.color(a.color ?? defaultColor("FileAttachment"), stroking: false)
            ops.fileIcon(a.iconName ?? "PushPin", in: inset(r, a.rectDifferences, default: 0))
        case "Caret":
            // A filled caret (^) in the rectangle less /RD, in /C (blue by default).
            let box = inset(r, a.rectDifferences, default: 0)
            ops.color(a.color ?? defaultColor("Caret"), stroking: false)
            ops.caret(box)
        case "FreeText":
            // A size of 0 in /DA means "fit the box" (§12.7.4.3); Quire draws 12 points then,
            // and for a size that is negative or not a number.
            let size = a.fontSize.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 12
            // The box is /Rect less /RD (a callout's line lies outside it). A typewriter
            // (/IT /FreeTextTypeWriter) is its text alone: no border, no callout.
            let box = inset(r, a.rectDifferences, default: 0)
            let typewriter = a.intent == "FreeTextTypeWriter"
            if let fill = a.interiorColor, !fill.isEmpty, !typewriter {
                ops.line("\(n(box.left)) \(n(box.bottom)) \(n(box.width)) \(n(box.height)) re f")
            }
            if width > 0 && a.color != nil && !typewriter {
                ops.line("\(n(width)) w")
                if let dash { ops.line(dash) }
                ops.border(box, width: width, style: a.borderStyle, fill: false)
                if dash != nil { ops.line("[] 0 d") }
            }
            let cl = a.calloutLine
            if !typewriter, cl.count == 4 || cl.count == 6 {
                // The callout line, from the point it points at to the box, with its ending
                // at that point (/LE, one name).
                ops.line("\(n(max(width, 1))) w 1 j")
                ops.line("\(n(cl[0])) \(n(cl[1])) m")
                var i = 2
                while i + 1 < cl.count { ops.line("\(n(cl[i])) \(n(cl[i + 1])) l"); i += 2 }
                ops.line("S")
                ops.lineEndings(Array(a.lineEndings.prefix(1)), start: ((cl[0], cl[1]), (cl[2], cl[3])), end: ((0, 0), (0, 0)),
                                size: endingSize(max(width, 1)), fill: hasFill)
            }
            // Rich text (/RC) is drawn with its styles over the base style: /DA's font, size
            // and colour, then /DS's properties. Plain /Contents with a /DS is drawn in that
            // base style the same way; without, in /DA's font, size and colour.
            let da = DefaultAppearance(a.defaultAppearance)
            var base = RichText.Style(size: size, color: textColor(a.defaultAppearance))
            base.families = [da.fontName]
            if let ds = a.defaultStyle { base.apply(css: RichText.sanitizedStyle(ds)) }
            var paragraphs: [RichText.Paragraph] = []
            if let rc = a.richText, let p = try? RichText.paragraphs(rc, base: base), p.contains(where: { !$0.runs.isEmpty }) {
                paragraphs = p
            } else if a.defaultStyle != nil {
                paragraphs = RichText.paragraphs(plain: a.contents ?? "", base: base)
            }
            if !paragraphs.isEmpty {
                richTexts = try ops.richText(paragraphs, in: box, alignment: a.alignment ?? 0, document: document, strict: strict)
            } else {
                // In /DA's font (``Document/appearanceFace(named:what:)``), as a field's.
                let face = try document.appearanceFace(named: da.fontName, what: "a FreeText annotation")
                let t = try AppearanceText(a.contents ?? "", face: face, document: document, strict: strict,
                                           what: "the contents of a FreeText annotation")
                ops.text(a.contents ?? "", in: box, font: t, size: size, color: textColor(a.defaultAppearance),
                         alignment: a.alignment ?? 0)
                text = t
            }
        case "Redact":
            // The marked state (before it is applied): each region outlined in /C, red by
            // default. Applying it draws ``redacted(for:document:strict:)`` instead.
            let w = max(width, 1)
            ops.line("\(n(w)) w")
            for q in quads(a) {
                let box = inset(q, [], default: w / 2)
                ops.line("\(n(box.left)) \(n(box.bottom)) \(n(box.width)) \(n(box.height)) re S")
            }
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
        // A measurement shows its value (/Contents) with its shape; a Line with /Cap its caption.
        if let label = MeasurementLabel(a) ?? MeasurementLabel(caption: a) {
            let what = a.caption && a.subtype == "Line" ? "the caption" : "the measured value"
            let t = try AppearanceText(label.text, preferred: standardFont("Helv", "Helvetica"), document: document,
                                       strict: strict, what: "\(what) of a \(a.subtype) annotation")
            ops.measurementLabel(label, font: t, color: stroke)
            text = t
        }
        if !states.isEmpty { resources["ExtGState"] = .dictionary(states) }
        var dict = PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Form")),
            ("BBox", .array([r.left, r.bottom, r.right, r.top].map(Annotation.number))),
        ])
        if !resources.isEmpty { dict["Resources"] = .dictionary(resources) }
        if let m = turn.matrix { dict["Matrix"] = .array(m.map(Annotation.number)) }
        return Stream(dictionary: dict, content: ops.bytes, texts: (text.map { [$0] } ?? []) + richTexts)
    }

    /// The turn of a FreeText's or Stamp's appearance (/Rotate 90, 180 or 270: counter-
    /// clockwise, as Acrobat and PDFium write it). Its content is drawn upright in `box`,
    /// the unturned box with /Rect's centre (its width and height swapped for 90 and 270),
    /// which is the form's /BBox; /Matrix turns it about that centre onto /Rect exactly, so
    /// the mapping of §12.5.5 (the turned /BBox fitted to /Rect) leaves it as it is.
    struct Turn {
        let box: Rect
        /// /Matrix, nil when there is no turn.
        let matrix: [Double]?
        private let cos: Double, sin: Double, cx: Double, cy: Double

        init(_ a: Annotation) {
            let r = a.rect
            cx = (r.left + r.right) / 2
            cy = (r.bottom + r.top) / 2
            let turns = (a.subtype == "FreeText" || a.subtype == "Stamp") ? ((a.rotation / 90) % 4 + 4) % 4 : 0
            (cos, sin) = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][turns]
            guard turns != 0 else { box = r; matrix = nil; return }
            let (hw, hh) = turns % 2 == 1 ? (r.height / 2, r.width / 2) : (r.width / 2, r.height / 2)
            box = Rect(left: cx - hw, bottom: cy - hh, right: cx + hw, top: cy + hh)
            // Turn about (cx, cy): translate to the origin, turn, translate back.
            matrix = [cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy]
        }

        /// Points of the page (x, y pairs) in the unturned box's space.
        func unturned(_ points: [Double]) -> [Double] {
            guard matrix != nil else { return points }
            var out = points
            var i = 0
            while i + 1 < points.count {
                let dx = points[i] - cx, dy = points[i + 1] - cy
                out[i] = cx + cos * dx + sin * dy
                out[i + 1] = cy - sin * dx + cos * dy
                i += 2
            }
            return out
        }
    }

    /// What an applied Redact annotation leaves on the page (ISO 32000-2 §12.5.6.23): each
    /// region (its quadrilaterals, a turned one as its polygon, else /Rect) filled with /IC
    /// (nothing without it),
    /// and /OverlayText in each region in /DA's size (10 points without one) and colour
    /// (without /DA: white on a dark fill, black on a light one),
    /// aligned by /Q, repeated to fill the region with /Repeat. A form XObject whose /BBox
    /// is /Rect, in page coordinates.
    static func redacted(for a: Annotation, document: Document, strict: Bool) throws -> Stream {
        var ops = ContentBuilder()
        let shapes = regions(a)
        if let fill = a.interiorColor, !fill.isEmpty {
            ops.color(fill, stroking: false)
            for shape in shapes { ops.line("\(shape.path(n)) f") }
        }
        var text: AppearanceText? = nil
        if let overlay = a.overlayText, !overlay.isEmpty {
            let t = try AppearanceText(overlay, preferred: standardFont("Helv", "Helvetica"), document: document,
                                       strict: strict, what: "the overlay text of a Redact annotation")
            let size = a.fontSize.flatMap { $0.isFinite && $0 > 0 ? $0 : nil } ?? 10
            // /DA's colour; without /DA, white on a dark fill and black on a light one.
            var color = textColor(a.defaultAppearance)
            if a.defaultAppearance == nil, let fill = a.interiorColor, !fill.isEmpty {
                let light: Double
                switch fill.count {
                case 3: light = 0.3 * fill[0] + 0.59 * fill[1] + 0.11 * fill[2]
                case 4: light = 1 - min(1, 0.3 * fill[0] + 0.59 * fill[1] + 0.11 * fill[2] + fill[3])
                default: light = fill[0]
                }
                color = light < 0.5 ? [1] : [0]
            }
            for shape in shapes {
                let q = shape.bounds
                var shown = overlay
                if a.repeatsOverlayText {
                    // Enough copies to fill the region's lines (the text wraps by words).
                    let one = max(t.width(overlay + " ", size: size), 1)
                    let perLine = max(1, Int(min(q.width / one, 1000)))
                    let lines = max(1, Int(min(q.height / (size * 1.2), 1000)))
                    shown = Array(repeating: overlay, count: min(perLine * lines, 10_000)).joined(separator: " ")
                }
                ops.line("q \(shape.path(n)) W n")
                ops.text(shown, in: q, font: t, size: size, color: color, alignment: a.alignment ?? 0)
                ops.line("Q")
            }
            text = t
        }
        let r = a.rect
        let dict = PDFDictionary([
            ("Type", .name("XObject")), ("Subtype", .name("Form")),
            ("BBox", .array([r.left, r.bottom, r.right, r.top].map(Annotation.number))),
        ])
        return Stream(dictionary: dict, content: ops.bytes, texts: text.map { [$0] } ?? [])
    }

    /// The `d` operator of a dash array: /BS /D, else 3 on and 3 off (Table 168's default).
    static func dashOperator(_ dash: [Double]) -> String {
        "[\((dash.isEmpty ? [3] : dash).map(n).joined(separator: " "))] 0 d"
    }

    /// The size of a line ending: 4 times the width, at least 6 points.
    static func endingSize(_ width: Double) -> Double { max(6, width * 4) }

    /// `r` less /RD (left, bottom, right, top), or less `default` on each side without
    /// it; never less than an empty rectangle at its centre.
    static func inset(_ r: Rect, _ rd: [Double], default d: Double) -> Rect {
        let e = rd.count == 4 ? rd : [d, d, d, d]
        let cx = (r.left + r.right) / 2, cy = (r.bottom + r.top) / 2
        return Rect(left: min(r.left + e[0], cx), bottom: min(r.bottom + e[1], cy),
                    right: max(r.right - e[2], cx), top: max(r.top - e[3], cy))
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
        case "Caret": return [0, 0, 1]
        case "FileAttachment": return [0.1, 0.3, 0.8]
        case "Redact": return [1, 0, 0]
        default: return [0, 0, 0]
        }
    }

    /// A standard 14 font's dictionary: WinAnsiEncoding, but Symbol and ZapfDingbats in
    /// their built-in encodings (their own).
    static func helvetica(_ base: String) -> PDFObject {
        var d = PDFDictionary([("Type", .name("Font")), ("Subtype", .name("Type1")), ("BaseFont", .name(PDFName(base)))])
        if StandardFontMetrics.font(named: base)?.isSymbolic != true { d["Encoding"] = .name("WinAnsiEncoding") }
        return .dictionary(d)
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
    /// The regions of Redact annotation `a`: each quadrilateral of its /QuadPoints (a
    /// turned one as its polygon), else its /Rect.
    static func regions(_ a: Annotation) -> [RedactionRegion] {
        let q = a.quadPoints
        guard q.count >= 8 else { return [RedactionRegion(a.rect)] }
        return stride(from: 0, to: q.count - 7, by: 8).map { RedactionRegion(quad: Array(q[$0..<($0 + 8)])) }
    }

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

    /// The two line endings of /LE: the first at `start.0` pointing away from `start.1`,
    /// the second at `end.0` pointing away from `end.1`.
    mutating func lineEndings(_ endings: [String], start: ((Double, Double), (Double, Double)),
                              end: ((Double, Double), (Double, Double)), size: Double, fill: Bool) {
        for (k, ending) in endings.prefix(2).enumerated() {
            let (tip, from) = k == 0 ? start : end
            lineEnding(ending, tip: tip, from: from, size: size, fill: fill)
        }
    }

    /// A line ending (§12.5.6.7, Table 179) at `tip`, pointing away from `from`: every
    /// name of the table; another name draws nothing, as None.
    mutating func lineEnding(_ name: String, tip: (Double, Double), from: (Double, Double), size: Double, fill: Bool) {
        let dx = tip.0 - from.0, dy = tip.1 - from.1
        let length = (dx * dx + dy * dy).squareRoot()
        guard length > 0, length.isFinite else { return }
        let ux = dx / length, uy = dy / length
        let n = Appearance.n
        func p(_ q: (Double, Double)) -> String { "\(n(q.0)) \(n(q.1))" }
        // The wings of an arrow whose apex is `apex` and whose back is `size` along -u·dir.
        func wings(apex: (Double, Double), dir: Double) -> ((Double, Double), (Double, Double)) {
            let back = (apex.0 - dir * ux * size, apex.1 - dir * uy * size)
            return ((back.0 - uy * size / 2, back.1 + ux * size / 2), (back.0 + uy * size / 2, back.1 - ux * size / 2))
        }
        switch name {
        case "OpenArrow", "ROpenArrow":
            let (l, r) = wings(apex: tip, dir: name == "OpenArrow" ? 1 : -1)
            line("\(p(l)) m \(p(tip)) l \(p(r)) l S")
        case "ClosedArrow", "RClosedArrow":
            let (l, r) = wings(apex: tip, dir: name == "ClosedArrow" ? 1 : -1)
            line("\(p(l)) m \(p(tip)) l \(p(r)) l \(fill ? "b" : "s")")
        case "Square":
            line("\(n(tip.0 - size / 2)) \(n(tip.1 - size / 2)) \(n(size)) \(n(size)) re \(fill ? "B" : "S")")
        case "Circle":
            ellipse(Rect(left: tip.0 - size / 2, bottom: tip.1 - size / 2, right: tip.0 + size / 2, top: tip.1 + size / 2))
            line(fill ? "B" : "S")
        case "Diamond":
            let h = size / 2
            line("\(n(tip.0)) \(n(tip.1 + h)) m \(n(tip.0 + h)) \(n(tip.1)) l \(n(tip.0)) \(n(tip.1 - h)) l \(n(tip.0 - h)) \(n(tip.1)) l \(fill ? "b" : "s")")
        case "Butt":
            line("\(n(tip.0 - uy * size / 2)) \(n(tip.1 + ux * size / 2)) m \(n(tip.0 + uy * size / 2)) \(n(tip.1 - ux * size / 2)) l S")
        case "Slash":
            // 30° clockwise from the perpendicular (-uy, ux).
            let c = 3.0.squareRoot() / 2, s = 0.5
            let px = -uy * c + ux * s, py = ux * c + uy * s
            line("\(n(tip.0 - px * size / 2)) \(n(tip.1 - py * size / 2)) m \(n(tip.0 + px * size / 2)) \(n(tip.1 + py * size / 2)) l S")
        default:
            break  // None, and names the table does not have
        }
    }

    /// The border of a rectangle in its style (Table 168): solid or dashed (the dash set
    /// by the caller), beveled and inset (the border, then a light and a dark band inside
    /// it, as on a raised or sunken button), underline (the bottom edge only).
    mutating func border(_ box: Rect, width w: Double, style: String?, fill: Bool) {
        let n = Appearance.n
        let outer = Rect(left: box.left + w / 2, bottom: box.bottom + w / 2, right: box.right - w / 2, top: box.top - w / 2)
        switch style {
        case "U"?:
            if fill { line("\(n(box.left)) \(n(box.bottom)) \(n(box.width)) \(n(box.height)) re f") }
            line("\(n(box.left)) \(n(box.bottom + w / 2)) m \(n(box.right)) \(n(box.bottom + w / 2)) l S")
        case "B"?, "I"?:
            line("\(n(outer.left)) \(n(outer.bottom)) \(n(max(outer.width, 0))) \(n(max(outer.height, 0))) re \(fill ? "B" : "S")")
            let (l, b, r, t) = (box.left + w, box.bottom + w, box.right - w, box.top - w)
            guard r - l > 2 * w, t - b > 2 * w else { return }
            let (light, dark) = style == "B" ? ("1 g", "0.5 g") : ("0.5 g", "0.75 g")
            line("q \(light)")
            line("\(n(l)) \(n(b)) m \(n(l)) \(n(t)) l \(n(r)) \(n(t)) l \(n(r - w)) \(n(t - w)) l \(n(l + w)) \(n(t - w)) l \(n(l + w)) \(n(b + w)) l f")
            line("\(dark)")
            line("\(n(r)) \(n(t)) m \(n(r)) \(n(b)) l \(n(l)) \(n(b)) l \(n(l + w)) \(n(b + w)) l \(n(r - w)) \(n(b + w)) l \(n(r - w)) \(n(t - w)) l f Q")
        default:
            line("\(n(outer.left)) \(n(outer.bottom)) \(n(max(outer.width, 0))) \(n(max(outer.height, 0))) re \(fill ? "B" : "S")")
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

    /// A caret (^) filling `r`: its two sides curve in from the bottom corners to the apex.
    mutating func caret(_ r: Rect) {
        let n = Appearance.n
        let cx = (r.left + r.right) / 2, w = r.width, h = r.height
        line("\(n(r.left)) \(n(r.bottom)) m")
        line("\(n(cx - w * 0.1)) \(n(r.bottom + h * 0.1)) \(n(cx)) \(n(r.top - h * 0.4)) \(n(cx)) \(n(r.top)) c")
        line("\(n(cx)) \(n(r.top - h * 0.4)) \(n(cx + w * 0.1)) \(n(r.bottom + h * 0.1)) \(n(r.right)) \(n(r.bottom)) c")
        line("h f")
    }

    /// A FileAttachment icon (Table 187) in `r`, in the current colours: a push pin (its
    /// head and needle), a paper clip, a bar graph or a tag with its hole.
    mutating func fileIcon(_ name: String, in r: Rect) {
        let n = Appearance.n
        let w = r.width, h = r.height
        func p(_ x: Double, _ y: Double) -> String { "\(n(r.left + w * x)) \(n(r.bottom + h * y))" }
        line("\(n(max(min(w, h) / 12, 0.5))) w 1 J 1 j")
        switch name {
        case "Paperclip":
            // Two nested loops of one wire.
            line("\(p(0.6, 0.25)) m \(p(0.6, 0.85)) l \(p(0.6, 1)) \(p(0.3, 1)) \(p(0.3, 0.85)) c")
            line("\(p(0.3, 0.12)) l \(p(0.3, -0.04)) \(p(0.75, -0.04)) \(p(0.75, 0.12)) c \(p(0.75, 0.8)) l S")
        case "Graph":
            line("\(p(0.1, 0.95)) m \(p(0.1, 0.05)) l \(p(0.95, 0.05)) l S")
            for (x, top) in [(0.25, 0.45), (0.5, 0.75), (0.75, 0.6)] {
                line("\(p(x - 0.08, 0.05)) \(n(w * 0.16)) \(n(h * (top - 0.05))) re f")
            }
        case "Tag":
            line("\(p(0.05, 0.95)) m \(p(0.55, 0.95)) l \(p(0.95, 0.5)) l \(p(0.55, 0.05)) l \(p(0.05, 0.05)) l h S")
            line("\(p(0.25, 0.5)) m \(p(0.35, 0.5)) l S")
        default:
            // PushPin: a round head and a needle to the lower left.
            line("\(p(0.5, 0.55)) m \(p(0.1, 0.05)) l S")
            let cx = r.left + w * 0.65, cy = r.bottom + h * 0.7, rr = min(w, h) * 0.25, k = rr * 0.5523
            line("\(n(cx + rr)) \(n(cy)) m")
            line("\(n(cx + rr)) \(n(cy + k)) \(n(cx + k)) \(n(cy + rr)) \(n(cx)) \(n(cy + rr)) c")
            line("\(n(cx - k)) \(n(cy + rr)) \(n(cx - rr)) \(n(cy + k)) \(n(cx - rr)) \(n(cy)) c")
            line("\(n(cx - rr)) \(n(cy - k)) \(n(cx - k)) \(n(cy - rr)) \(n(cx)) \(n(cy - rr)) c")
            line("\(n(cx + k)) \(n(cy - rr)) \(n(cx + rr)) \(n(cy - k)) \(n(cx + rr)) \(n(cy)) c f")
        }
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
    /// `alignment` (/Q): 0 left, 1 centred, 2 right, each line in the box.
    mutating func text(_ text: String, in r: Rect, font: AppearanceText, size: Double, color c: [Double],
                       centered: Bool = false, alignment: Int = 0) {
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
            let x: Double
            if centered || alignment == 1 {
                x = (r.left + r.right) / 2 - font.width(l, size: size) / 2
            } else if alignment == 2 {
                x = r.right - 2 - font.width(l, size: size)
            } else {
                x = r.left + 2
            }
            line(font.show(l, x: x, y: y, size: size))
            y -= size * 1.2
        }
        line("ET Q")
    }
}
