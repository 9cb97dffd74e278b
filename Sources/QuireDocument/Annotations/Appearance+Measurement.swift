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

    /// The label of `a`, when it is a measurement with a measured text and geometry: a
    /// distance's at the middle of its line, above it and along it; a perimeter's at the
    /// middle of its longest segment, the same way; an area's centred on the centroid of
    /// its polygon.
    init?(_ a: Annotation) {
        guard a.measurement != nil, let text = a.contents, !text.isEmpty, text.count <= 200 else { return nil }
        self.text = text
        width =
            StandardFontMetrics.width(of: text, font: "Helvetica", size: MeasurementLabel.size) ?? Double(text.count)
            * MeasurementLabel.size * 0.6
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
    /// A measurement's label (``MeasurementLabel``) is drawn on its appearance: its
    /// rectangle grows to hold it (the appearance is clipped to /Rect), when a program adds
    /// or updates it. It never shrinks.
    mutating func fitRectToMeasurementLabel() {
        guard let label = MeasurementLabel(self) else { return }
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
