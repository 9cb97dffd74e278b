import QuireSyntax

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A cloudy border (/BE /S /C, ISO 32000-2 §12.5.4) drawn the way Acrobat draws it, as
/// read from Acrobat's own appearance streams (the corpus's AnnotationTypes.pdf of PDFBox
/// and xfdfCloudNested.pdf of iText; Apache PDFBox's `CloudyBorder` describes the same
/// curls).
///
/// A cloud is a chain of curls: circles of one radius, each overlapping the next, centred
/// along an outline. On a polygon (and a rectangle, which Acrobat follows clockwise from its
/// upper left corner) a curl is centred on each vertex and then every 5/3 of the radius
/// along the edge, in the order of the vertices; the edge's leftover length is the gap
/// before the next vertex (Acrobat does not spread the curls out). On an ellipse the curls
/// are spread evenly along its perimeter. Each curl is drawn as its outer arc, from where it
/// meets the previous curl round the outside to where it meets the next one, then 22.5°
/// further (inside the next curl) and back: the little hook that makes it look drawn by
/// hand.
///
/// The radius is 4 × intensity + half the line width (Polygon and Square), 4.75 ×
/// intensity + half the line width (Circle). Every curve is a Bézier arc of at most 90°.
struct CloudPath {
    enum Element {
        case move(Double, Double)
        case line(Double, Double)
        case curve(Double, Double, Double, Double, Double, Double)
    }

    /// At most this many curls: a longer outline (or a hostile size) is drawn plainly.
    static let maxCurls = 20_000
    /// How far apart the centres of neighbouring curls are, in radii (Acrobat's).
    static let spacing = 5.0 / 3.0
    /// How far past the next curl's edge each curl's arc runs, and back (its hook).
    static let hook = 22.5 * Double.pi / 180

    private(set) var elements: [Element] = []
    /// The bounds of every point and control point (the line width is added by
    /// ``bounds()``).
    private var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
    private let lineWidth: Double

    /// The radius of a Polygon's or Square's curls.
    static func polygonRadius(intensity: Double, width: Double) -> Double { 4 * intensity + width / 2 }
    /// The radius of a Circle's curls (Acrobat's are a little larger).
    static func ellipseRadius(intensity: Double, width: Double) -> Double { 4.75 * intensity + width / 2 }

    /// The cloud of a Square whose rectangle (/Rect less /RD) is `r`: curls centred on `r`
    /// less half the line width, clockwise from its upper left corner.
    static func rectangle(_ r: Rect, intensity: Double, lineWidth: Double) -> CloudPath {
        var path = CloudPath(lineWidth: lineWidth)
        let w = path.lineWidth / 2
        let inner = Rect(
            left: min(r.left + w, (r.left + r.right) / 2),
            bottom: min(r.bottom + w, (r.bottom + r.top) / 2),
            right: max(r.right - w, (r.left + r.right) / 2),
            top: max(r.top - w, (r.bottom + r.top) / 2)
        )
        path.rectangle(inner, radius: polygonRadius(intensity: intensity, width: lineWidth))
        return path
    }

    /// The cloud along the polygon `points` (closed or not; in either direction).
    static func polygon(_ points: [(Double, Double)], intensity: Double, lineWidth: Double) -> CloudPath {
        var path = CloudPath(lineWidth: lineWidth)
        path.polygon(points, radius: polygonRadius(intensity: intensity, width: lineWidth))
        return path
    }

    /// The cloud along the ellipse inscribed in `r`.
    static func ellipse(_ r: Rect, intensity: Double, lineWidth: Double) -> CloudPath {
        var path = CloudPath(lineWidth: lineWidth)
        path.ellipse(r, radius: ellipseRadius(intensity: intensity, width: lineWidth))
        return path
    }

    private init(lineWidth: Double) { self.lineWidth = lineWidth.isFinite ? max(lineWidth, 0) : 1 }

    /// The rectangle that holds the drawn cloud: its points and control points, and half
    /// the line width around them (the /Rect of a cloudy annotation). Nil when nothing is
    /// drawn.
    func bounds() -> Rect? {
        guard minX <= maxX, minY <= maxY else { return nil }
        let d = lineWidth / 2
        return Rect(left: minX - d, bottom: minY - d, right: maxX + d, top: maxY + d)
    }

    // MARK: Output

    private mutating func note(_ x: Double, _ y: Double) {
        minX = min(minX, x)
        minY = min(minY, y)
        maxX = max(maxX, x)
        maxY = max(maxY, y)
    }

    private mutating func move(_ x: Double, _ y: Double) {
        note(x, y)
        elements.append(.move(x, y))
    }

    private mutating func lineTo(_ x: Double, _ y: Double) {
        note(x, y)
        elements.append(.line(x, y))
    }

    private mutating func curve(_ p1: (Double, Double), _ p2: (Double, Double), _ p3: (Double, Double)) {
        note(p1.0, p1.1)
        note(p2.0, p2.1)
        note(p3.0, p3.1)
        elements.append(.curve(p1.0, p1.1, p2.0, p2.1, p3.0, p3.1))
    }

    /// The arc of the circle (`cx`, `cy`, `r`) from angle `a` through `sweep` (radians,
    /// positive counter-clockwise), in Bézier curves of at most 90°.
    private mutating func arc(from a: Double, sweep: Double, _ cx: Double, _ cy: Double, _ r: Double) {
        let pieces = max(1, Int((abs(sweep) / (Double.pi / 2)).rounded(.up)))
        let step = sweep / Double(pieces)
        // The control points' distance along the tangents: 4/3 · tan(θ/4) of the radius.
        let k = 4.0 / 3.0 * tan(step / 4)
        for i in 0..<pieces {
            let s = a + step * Double(i)
            let e = s + step
            let (cs, ss, ce, se) = (cos(s), sin(s), cos(e), sin(e))
            curve(
                (cx + r * (cs - k * ss), cy + r * (ss + k * cs)),
                (cx + r * (ce + k * se), cy + r * (se - k * ce)),
                (cx + r * ce, cy + r * se)
            )
        }
    }

    /// A plain ellipse (a cloud too small to draw).
    private mutating func plainEllipse(_ r: Rect) {
        let rx = r.width / 2
        let ry = r.height / 2
        let cx = (r.left + r.right) / 2
        let cy = (r.bottom + r.top) / 2
        let k = 0.5523
        move(cx + rx, cy)
        curve((cx + rx, cy + k * ry), (cx + k * rx, cy + ry), (cx, cy + ry))
        curve((cx - k * rx, cy + ry), (cx - rx, cy + k * ry), (cx - rx, cy))
        curve((cx - rx, cy - k * ry), (cx - k * rx, cy - ry), (cx, cy - ry))
        curve((cx + k * rx, cy - ry), (cx + rx, cy - k * ry), (cx + rx, cy))
    }

    /// The curls of radius `r` centred on `centres`, a closed chain in order; `clockwise`
    /// when the chain turns clockwise (its outside on the left of each step). Each curl
    /// runs round the outside from where it meets the previous one to where it meets the
    /// next, on past that by ``hook`` and back.
    private mutating func curls(_ centres: [(Double, Double)], radius r: Double, clockwise: Bool) {
        let m = centres.count
        guard m >= 2 else { return }
        let turn = clockwise ? -1.0 : 1.0
        // Where two curls `d` apart meet: this far round from the line between them.
        func meet(_ d: Double) -> Double { d / (2 * r) >= 1 ? 0 : acos(d / (2 * r)) }
        for i in 0..<m {
            let c = centres[i]
            let p = centres[(i + m - 1) % m]
            let q = centres[(i + 1) % m]
            let toPrevious = atan2(p.1 - c.1, p.0 - c.0)
            let toNext = atan2(q.1 - c.1, q.0 - c.0)
            let start = toPrevious + turn * meet(hypot(p.0 - c.0, p.1 - c.1))
            let end = toNext - turn * meet(hypot(q.0 - c.0, q.1 - c.1))
            // Round the outside: clockwise from start to end, or counter-clockwise.
            var sweep = (end - start) * turn
            sweep -= 2 * Double.pi * (sweep / (2 * Double.pi)).rounded(.down)
            if sweep == 0 { sweep = 2 * Double.pi }
            if i == 0 { move(c.0 + r * cos(start), c.1 + r * sin(start)) }
            arc(from: start, sweep: sweep * turn, c.0, c.1, r)
            arc(from: end, sweep: CloudPath.hook * turn, c.0, c.1, r)
            arc(from: end + CloudPath.hook * turn, sweep: -CloudPath.hook * turn, c.0, c.1, r)
        }
    }

    // MARK: Shapes

    /// Clockwise from the upper left corner, as Acrobat draws a rectangle's cloud.
    private mutating func rectangle(_ box: Rect, radius: Double) {
        let (l, b, r, t) = (box.left, box.bottom, box.right, box.top)
        polygon([(l, t), (r, t), (r, b), (l, b)], radius: radius)
    }

    private mutating func polygon(_ input: [(Double, Double)], radius: Double) {
        guard input.allSatisfy({ $0.0.isFinite && $0.1.isFinite }), radius.isFinite, radius > 0 else { return }
        // Points less than half a point from the one before are one point; a last point
        // equal to the first closes the polygon, as it always is.
        var pts: [(Double, Double)] = []
        for p in input {
            if let q = pts.last, abs(p.0 - q.0) < 0.5, abs(p.1 - q.1) < 0.5 { continue }
            pts.append(p)
        }
        if pts.count > 1, let first = pts.first, let last = pts.last, abs(first.0 - last.0) < 0.5,
            abs(first.1 - last.1) < 0.5
        {
            pts.removeLast()
        }
        guard pts.count >= 2 else { return }
        var area = 0.0
        for i in pts.indices {
            let p = pts[i]
            let q = pts[(i + 1) % pts.count]
            area += p.0 * q.1 - p.1 * q.0
        }
        let r = max(radius, 0.5)
        let step = CloudPath.spacing * r
        // A curl on each vertex, then every `step` along the edge; a leftover shorter than
        // a tenth of a step is left to the next vertex's curl.
        var centres: [(Double, Double)] = []
        for i in pts.indices {
            let p = pts[i]
            let q = pts[(i + 1) % pts.count]
            let length = hypot(q.0 - p.0, q.1 - p.1)
            let count = ((length - step / 10) / step).rounded(.up)
            guard count.isFinite, Double(centres.count) + max(count, 1) <= Double(CloudPath.maxCurls) else {
                // Too many curls (a huge outline): the plain polygon.
                centres = []
                break
            }
            centres.append(p)
            for j in stride(from: 1, to: Int(max(count, 1)), by: 1) {
                let f = step * Double(j) / length
                centres.append((p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f))
            }
        }
        guard !centres.isEmpty else {
            move(pts[0].0, pts[0].1)
            for p in pts.dropFirst() { lineTo(p.0, p.1) }
            lineTo(pts[0].0, pts[0].1)
            return
        }
        curls(centres, radius: r, clockwise: area < 0)
    }

    private mutating func ellipse(_ box: Rect, radius: Double) {
        var r = radius
        guard r.isFinite, r > 0, box.width.isFinite, box.height.isFinite else { return }
        let (w, h) = (box.width, box.height)
        if w < 0.5 * r && h < 0.5 * r { return plainEllipse(box) }
        // A thin ellipse is drawn as a thin rectangle's cloud.
        if (w < 5 && h > 20) || (w > 20 && h < 5) {
            let (l, b, rt, t) = (box.left, box.bottom, box.right, box.top)
            return polygon([(l, t), (rt, t), (rt, b), (l, b)], radius: r)
        }
        // The curls' centres lie on a smaller ellipse, so that their hooks almost touch
        // the outline (PDFBox's reading of Acrobat's circles).
        let adjust = sin(12 * Double.pi / 180) * r - 1.5
        var (l, b, rt, t) = (box.left, box.bottom, box.right, box.top)
        if w > 2 * adjust {
            l += adjust
            rt -= adjust
        } else {
            (l, rt) = ((l + rt) / 2 - 0.1, (l + rt) / 2 + 0.1)
        }
        if h > 2 * adjust {
            b += adjust
            t -= adjust
        } else {
            (b, t) = ((b + t) / 2 - 0.1, (b + t) / 2 + 0.1)
        }
        let (cx, cy, rx, ry) = ((l + rt) / 2, (b + t) / 2, (rt - l) / 2, (t - b) / 2)
        // The ellipse as a polygon of short chords, counter-clockwise from its right end.
        let perimeter = Double.pi * (3 * (rx + ry) - ((3 * rx + ry) * (rx + 3 * ry)).squareRoot())
        guard perimeter.isFinite else { return }
        let chords = Int(min(4 * Double(CloudPath.maxCurls), max(64, perimeter)))
        let flat = (0...chords).map { i -> (Double, Double) in
            let a = 2 * Double.pi * Double(i) / Double(chords)
            return (cx + rx * cos(a), cy + ry * sin(a))
        }
        var total = 0.0
        for i in 1..<flat.count { total += hypot(flat[i].0 - flat[i - 1].0, flat[i].1 - flat[i - 1].1) }
        // As many curls as fit at Acrobat's spacing, spread evenly (the radius adjusted).
        let count = (total / (CloudPath.spacing * r)).rounded(.up)
        guard count >= 2, count <= Double(CloudPath.maxCurls) else { return plainEllipse(box) }
        let advance = total / count
        r = advance / CloudPath.spacing
        if r < 3 { return plainEllipse(box) }
        var centres: [(Double, Double)] = []
        var walked = 0.0
        var next = advance
        for i in 1..<flat.count where centres.count < Int(count) {
            let (p, q) = (flat[i - 1], flat[i])
            let len = hypot(q.0 - p.0, q.1 - p.1)
            guard len > 0 else { continue }
            while next <= walked + len + 1e-9, centres.count < Int(count) {
                let f = (next - walked) / len
                centres.append((p.0 + (q.0 - p.0) * f, p.1 + (q.1 - p.1) * f))
                next += advance
            }
            walked += len
        }
        guard centres.count >= 2 else { return plainEllipse(box) }
        curls(centres, radius: r, clockwise: false)
    }
}

extension ContentBuilder {
    /// Writes `path` and paints it with `close` (`s` or `b`: closed, stroked, filled).
    mutating func cloud(_ path: CloudPath, close: String) {
        guard !path.elements.isEmpty else { return }
        let n = Appearance.n
        for e in path.elements {
            switch e {
            case .move(let x, let y): line("\(n(x)) \(n(y)) m")
            case .line(let x, let y): line("\(n(x)) \(n(y)) l")
            case .curve(let x1, let y1, let x2, let y2, let x3, let y3):
                line("\(n(x1)) \(n(y1)) \(n(x2)) \(n(y2)) \(n(x3)) \(n(y3)) c")
            }
        }
        line(close)
    }
}

extension Appearance {
    /// The cloud of a cloudy Square, Circle or Polygon: along the polygon's vertices, or
    /// along ``cloudOutline(_:intensity:width:)``'s rectangle or the ellipse inscribed in it.
    static func cloudPath(_ a: Annotation, intensity: Double, width: Double) -> CloudPath {
        switch a.subtype {
        case "Polygon":
            let v = a.vertices
            let points = stride(from: 0, to: v.count - 1, by: 2).map { (v[$0], v[$0 + 1]) }
            return CloudPath.polygon(points, intensity: intensity, lineWidth: width)
        case "Circle":
            return CloudPath.ellipse(
                cloudOutline(a, intensity: intensity, width: width),
                intensity: intensity,
                lineWidth: width
            )
        default:
            return CloudPath.rectangle(
                cloudOutline(a, intensity: intensity, width: width),
                intensity: intensity,
                lineWidth: width
            )
        }
    }

    /// The rectangle of a Square's cloud (its curls are centred half the line width inside
    /// it), or the box of a Circle's ellipse: /Rect less /RD, as Acrobat reads it; without
    /// /RD, /Rect less the depth of the cloud drawn on /Rect itself, so that the cloud stays
    /// inside /Rect.
    static func cloudOutline(_ a: Annotation, intensity: Double, width: Double) -> Rect {
        let r = a.rect
        if a.rectDifferences.count == 4 { return inset(r, a.rectDifferences.map { max($0, 0) }, default: 0) }
        let probe =
            a.subtype == "Circle"
            ? CloudPath.ellipse(r, intensity: intensity, lineWidth: width)
            : CloudPath.rectangle(r, intensity: intensity, lineWidth: width)
        guard let b = probe.bounds() else { return r }
        let depth = [r.left - b.left, r.bottom - b.bottom, b.right - r.right, b.top - r.top].map { max($0, 0) }
        return inset(r, depth, default: 0)
    }
}

extension Annotation {
    /// A cloud's curls reach out of the outline they run along. When a program adds or
    /// updates a cloudy annotation, its rectangle is fitted to the cloud as Acrobat writes
    /// it: a Square's or Circle's /Rect becomes the cloud's bounds (its points and control
    /// points, and half the line width) and /RD the inset from there to the outline
    /// (``Appearance/cloudOutline(_:intensity:width:)``), so that drawing it again draws the
    /// same cloud; a Polygon's /Rect grows to hold the cloud (it never shrinks: its
    /// measurement label may need more).
    mutating func fitRectToCloud() {
        guard ["Square", "Circle", "Polygon"].contains(subtype), let intensity = cloudyIntensity, intensity > 0 else {
            return
        }
        let width = borderWidth ?? 1
        guard width.isFinite, width >= 0 else { return }
        let i = Swift.min(intensity, Annotation.maxCloudyIntensity)
        if subtype == "Polygon" {
            guard vertices.count >= 6, vertices.allSatisfy(\.isFinite),
                let b = Appearance.cloudPath(self, intensity: i, width: width).bounds()
            else { return }
            rect = Rect(
                left: Swift.min(rect.left, b.left),
                bottom: Swift.min(rect.bottom, b.bottom),
                right: Swift.max(rect.right, b.right),
                top: Swift.max(rect.top, b.top)
            )
            return
        }
        let outline = Appearance.cloudOutline(self, intensity: i, width: width)
        guard let drawn = Appearance.cloudPath(self, intensity: i, width: width).bounds(),
            [drawn.left, drawn.bottom, drawn.right, drawn.top].allSatisfy(\.isFinite)
        else { return }
        // In thousandths of a point (as XFDF writes them), /Rect rounded outwards.
        func thousandths(_ v: Double, _ rule: FloatingPointRoundingRule) -> Double { (v * 1000).rounded(rule) / 1000 }
        let b = Rect(
            left: thousandths(drawn.left, .down),
            bottom: thousandths(drawn.bottom, .down),
            right: thousandths(drawn.right, .up),
            top: thousandths(drawn.top, .up)
        )
        let rd = [outline.left - b.left, outline.bottom - b.bottom, b.right - outline.right, b.top - outline.top]
            .map { Swift.max(thousandths($0, .toNearestOrAwayFromZero), 0) }
        // What is stored already (rounded when written) stays, so that writing it again
        // changes nothing.
        let old = [rect.left, rect.bottom, rect.right, rect.top] + rectDifferences
        let new = [b.left, b.bottom, b.right, b.top] + rd
        if old.count == new.count, zip(old, new).allSatisfy({ abs($0 - $1) < 0.01 }) { return }
        rect = b
        rectDifferences = rd
    }
}
