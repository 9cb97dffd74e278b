import QuireSyntax

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The label of a measurement (ISO 32000-2 §12.9): its /Contents (the measured value, as
/// viewers show it) drawn on its appearance, as Acrobat shows the value with the shape.
struct MeasurementLabel {
    /// The label's size, in points.
    static let size = 10.0
    /// How far the baseline of a distance's or perimeter's label lies above its segment.
    static let gap = 2.0

    var text: String
    /// The centre of the label's baseline's frame: the label is centred on x = 0 of that
    /// frame, its baseline at y = ``baseline``.
    var origin: (x: Double, y: Double)
    /// The frame's turn (the segment's direction, turned to read left to right).
    var cos: Double, sin: Double
    var baseline: Double
    /// The label's width in Helvetica (an estimate for text Helvetica does not encode).
    var width: Double
    /// A Line's inline caption (/Cap with /CP /Inline): the line is broken around it.
    var inline = false

    /// The label of `a`, when it is a measurement with a measured text and geometry: a
    /// distance's at the middle of its line, above it and along it; a perimeter's at the
    /// middle of its longest segment, the same way; an area's centred on the centroid of
    /// its polygon.
    /// A Line with a caption (/Cap) has its caption instead (``init(caption:)``).
    init?(_ a: Annotation) {
        guard a.measurement != nil, !(a.subtype == "Line" && a.caption), let text = a.contents, !text.isEmpty,
            text.count <= 200
        else { return nil }
        self.text = text
        width = MeasurementLabel.width(text)
        switch a.subtype {
        case "Line", "PolyLine":
            let p = a.subtype == "Line" ? a.linePoints : a.vertices
            guard p.count >= 4, p.count % 2 == 0, p.allSatisfy(\.isFinite) else { return nil }
            // The longest segment (a Line has one).
            var best = (0.0, 0)
            for k in stride(from: 0, to: p.count - 3, by: 2) {
                let d = hypot(p[k + 2] - p[k], p[k + 3] - p[k + 1])
                if d > best.0 { best = (d, k) }
            }
            let (length, k) = best
            guard length > 0 else { return nil }
            var (dx, dy) = ((p[k + 2] - p[k]) / length, (p[k + 3] - p[k + 1]) / length)
            if dx < 0 || (dx == 0 && dy < 0) { (dx, dy) = (-dx, -dy) }  // reads left to right
            (cos, sin) = (dx, dy)
            origin = ((p[k] + p[k + 2]) / 2, (p[k + 1] + p[k + 3]) / 2)
            baseline = MeasurementLabel.gap
        case "Polygon":
            let v = a.vertices
            guard v.count >= 6, v.allSatisfy(\.isFinite) else { return nil }
            let n = v.count / 2
            var (twice, cx, cy) = (0.0, 0.0, 0.0)
            for i in 0..<n {
                let j = (i + 1) % n
                let cross = v[2 * i] * v[2 * j + 1] - v[2 * j] * v[2 * i + 1]
                twice += cross
                cx += (v[2 * i] + v[2 * j]) * cross
                cy += (v[2 * i + 1] + v[2 * j + 1]) * cross
            }
            if abs(twice) > 1e-9 {
                origin = (cx / (3 * twice), cy / (3 * twice))
            } else {
                origin = (
                    stride(from: 0, to: 2 * n, by: 2).map { v[$0] }.reduce(0, +) / Double(n),
                    stride(from: 1, to: 2 * n, by: 2).map { v[$0] }.reduce(0, +) / Double(n)
                )
            }
            (cos, sin) = (1, 0)
            baseline = -0.35 * MeasurementLabel.size
        default:
            return nil
        }
    }

    /// The caption of a Line (/Cap true, ISO 32000-2 Table 178): its /Contents at the middle
    /// of the line, along it (turned to read left to right), centred in it for /CP /Inline
    /// (the default; the line is broken around it) or its baseline 2 points above it for
    /// /CP /Top, moved by /CO along the line (to the right as it reads) and across it (up).
    init?(caption a: Annotation) {
        guard a.subtype == "Line", a.caption, let text = a.contents, !text.isEmpty, text.count <= 200 else {
            return nil
        }
        let p = a.linePoints
        guard p.count == 4, p.allSatisfy(\.isFinite) else { return nil }
        let length = hypot(p[2] - p[0], p[3] - p[1])
        guard length > 0 else { return nil }
        self.text = text
        width = MeasurementLabel.width(text)
        var (dx, dy) = ((p[2] - p[0]) / length, (p[3] - p[1]) / length)
        if dx < 0 || (dx == 0 && dy < 0) { (dx, dy) = (-dx, -dy) }  // reads left to right
        (cos, sin) = (dx, dy)
        let offset = a.captionOffset.count == 2 && a.captionOffset.allSatisfy(\.isFinite) ? a.captionOffset : [0, 0]
        origin = ((p[0] + p[2]) / 2 + dx * offset[0], (p[1] + p[3]) / 2 + dy * offset[0])
        inline = a.captionPosition != "Top"
        baseline =
            (inline ? -0.35 * MeasurementLabel.size : MeasurementLabel.gap + (a.borderWidth ?? 1) / 2) + offset[1]
    }

    /// The width of `text` in Helvetica at the label's size (an estimate for text Helvetica
    /// does not encode).
    static func width(_ text: String) -> Double {
        StandardFontMetrics.width(of: text, font: "Helvetica", size: size) ?? Double(text.count) * size * 0.6
    }

    /// The parts of the line from `start` to `end` outside an inline caption's box (with 2
    /// points of space each side): the whole line for other labels.
    func lineOutside(from start: (Double, Double), to end: (Double, Double)) -> [((Double, Double), (Double, Double))] {
        guard inline else { return [(start, end)] }
        // Positions along the label's direction, from its origin.
        func along(_ q: (Double, Double)) -> Double { (q.0 - origin.x) * cos + (q.1 - origin.y) * sin }
        func point(_ t: Double) -> (Double, Double) {
            let ta = along(start)
            let tb = along(end)
            let f = tb == ta ? 0 : (t - ta) / (tb - ta)
            return (start.0 + (end.0 - start.0) * f, start.1 + (end.1 - start.1) * f)
        }
        let (a, b) = (along(start), along(end))
        let (lo, hi) = (Swift.min(a, b), Swift.max(a, b))
        let (gapLo, gapHi) = (-width / 2 - 2, width / 2 + 2)
        var parts: [((Double, Double), (Double, Double))] = []
        if lo < gapLo { parts.append((point(lo), point(Swift.min(hi, gapLo)))) }
        if hi > gapHi { parts.append((point(Swift.max(lo, gapHi)), point(hi))) }
        return parts
    }

    /// The corners of the label's box on the page (descent to ascent, with a point of
    /// margin), to fit /Rect to.
    var corners: [(Double, Double)] {
        let s = MeasurementLabel.size
        let (x0, x1, y0, y1) = (-width / 2 - 1, width / 2 + 1, baseline - 0.25 * s, baseline + s)
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map { (x, y) in
            (origin.x + cos * x - sin * y, origin.y + sin * x + cos * y)
        }
    }
}

extension ContentBuilder {
    /// Draws `label` in `font` and `color`, turned along its segment.
    mutating func measurementLabel(_ label: MeasurementLabel, font: AppearanceText, color: [Double]) {
        let n = Appearance.n
        let s = MeasurementLabel.size
        let w = font.width(label.text, size: s)
        line(
            "q \(n(label.cos)) \(n(label.sin)) \(n(-label.sin)) \(n(label.cos)) \(n(label.origin.x)) \(n(label.origin.y)) cm"
        )
        // ``text(_:in:...)`` puts the first baseline 2 + size under the box's top.
        text(
            label.text,
            in: Rect(left: -w / 2 - 4, bottom: label.baseline - s, right: w / 2 + 4, top: label.baseline + 2 + s),
            font: font,
            size: s,
            color: color,
            alignment: 1
        )
        line("Q")
    }
}

extension Annotation {
    /// A measurement's label, or a Line's caption (``MeasurementLabel``), is drawn on its
    /// appearance: its rectangle grows to hold it (the appearance is clipped to /Rect), when a program adds
    /// or updates it. It never shrinks.
    mutating func fitRectToMeasurementLabel() {
        guard let label = MeasurementLabel(self) ?? MeasurementLabel(caption: self) else { return }
        var r = rect.normalized
        for (x, y) in label.corners where x.isFinite && y.isFinite {
            r = Rect(
                left: Swift.min(r.left, x),
                bottom: Swift.min(r.bottom, y),
                right: Swift.max(r.right, x),
                top: Swift.max(r.top, y)
            )
        }
        rect = r
    }
}
