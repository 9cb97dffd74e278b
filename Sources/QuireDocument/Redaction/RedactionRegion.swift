/// A region of a Redact annotation: one quadrilateral of its /QuadPoints, or its /Rect
/// without them. An axis-aligned region is its box; a turned quadrilateral (text selected
/// on a rotated line) is the convex polygon of its four corners, so that what lies in its
/// box but outside it stays.
struct RedactionRegion: Sendable, Equatable {
    struct Point: Sendable, Equatable {
        var x, y: Double
    }

    /// The region's box.
    let bounds: Rect
    /// The corners of a turned quadrilateral, counterclockwise; nil when the region is its box.
    let polygon: [Point]?

    init(_ rect: Rect) {
        bounds = rect
        polygon = nil
    }

    /// The region of the quadrilateral `quad` (x1 y1 ... x4 y4, in any order of its corners:
    /// writers follow the standard's counterclockwise order or Acrobat's Z order).
    init(quad: [Double]) {
        let q = quad.count >= 8 ? quad : quad + Array(repeating: 0, count: 8 - quad.count)
        let xs = [q[0], q[2], q[4], q[6]]
        let ys = [q[1], q[3], q[5], q[7]]
        bounds = Rect(left: xs.min() ?? 0, bottom: ys.min() ?? 0, right: xs.max() ?? 0, top: ys.max() ?? 0)
        let hull = RedactionRegion.hull((0..<4).map { Point(x: xs[$0], y: ys[$0]) })
        let b = bounds
        let isBox = hull.allSatisfy { p in
            (abs(p.x - b.left) < 1e-6 || abs(p.x - b.right) < 1e-6)
                && (abs(p.y - b.bottom) < 1e-6 || abs(p.y - b.top) < 1e-6)
        }
        // A quadrilateral of no area (its corners on a line) is taken as its box, as before.
        polygon = hull.count < 3 || isBox ? nil : hull
    }

    /// The convex hull of `points`, counterclockwise (Andrew's monotone chain).
    static func hull(_ points: [Point]) -> [Point] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var lower: [Point] = []
        for p in sorted {
            while lower.count >= 2 && cross(lower[lower.count - 2], lower[lower.count - 1], p) <= 1e-12 {
                lower.removeLast()
            }
            lower.append(p)
        }
        var upper: [Point] = []
        for p in sorted.reversed() {
            while upper.count >= 2 && cross(upper[upper.count - 2], upper[upper.count - 1], p) <= 1e-12 {
                upper.removeLast()
            }
            upper.append(p)
        }
        return Array(lower.dropLast()) + Array(upper.dropLast())
    }

    /// The edges of the polygon as outward normals and offsets: a point p is inside when
    /// n.x * p.x + n.y * p.y <= offset for every edge (normals of unit length).
    private var edges: [(n: Point, offset: Double)] {
        guard let p = polygon else { return [] }
        return p.indices.compactMap { i in
            let a = p[i]
            let b = p[(i + 1) % p.count]
            let length = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            guard length > 0, length.isFinite else { return nil }
            let n = Point(x: (b.y - a.y) / length, y: -(b.x - a.x) / length)
            return (n, n.x * a.x + n.y * a.y)
        }
    }

    private static func corners(_ box: Rect) -> [Point] {
        [
            Point(x: box.left, y: box.bottom), Point(x: box.right, y: box.bottom),
            Point(x: box.right, y: box.top), Point(x: box.left, y: box.top),
        ]
    }

    /// Whether `box` overlaps the region by more than a hundredth of a point each way (a box
    /// of no width, such as a zero-width glyph, overlaps when it touches): the boxes first,
    /// then, for a turned region, each of its edges (the separating axis test).
    func intersects(_ box: Rect) -> Bool {
        let r = bounds
        let dx = Swift.min(r.right, box.right) - Swift.max(r.left, box.left)
        let dy = Swift.min(r.top, box.top) - Swift.max(r.bottom, box.bottom)
        let needX = box.width < 0.02 ? 0 : 0.01
        let needY = box.height < 0.02 ? 0 : 0.01
        guard dx >= needX && dy >= needY && (dx > 0 || box.width < 0.02) && (dy > 0 || box.height < 0.02) else {
            return false
        }
        guard polygon != nil else { return true }
        let points = RedactionRegion.corners(box)
        let need = box.width < 0.02 || box.height < 0.02 ? 0 : 0.01
        for e in edges {
            let nearest = points.map { e.n.x * $0.x + e.n.y * $0.y }.min() ?? 0
            if nearest > e.offset - need { return false }
        }
        return true
    }

    /// Whether the region holds all of `box`.
    func contains(_ box: Rect) -> Bool {
        let r = bounds
        guard box.left >= r.left && box.right <= r.right && box.bottom >= r.bottom && box.top <= r.top else {
            return false
        }
        guard polygon != nil else { return true }
        let points = RedactionRegion.corners(box)
        return edges.allSatisfy { e in points.allSatisfy { e.n.x * $0.x + e.n.y * $0.y <= e.offset + 1e-9 } }
    }

    /// The region's outline as a path of a content stream (`re`, or `m`, `l` and `h`).
    func path(_ n: (Double) -> String) -> String {
        guard let p = polygon, let first = p.first else {
            return "\(n(bounds.left)) \(n(bounds.bottom)) \(n(bounds.width)) \(n(bounds.height)) re"
        }
        return (["\(n(first.x)) \(n(first.y)) m"] + p.dropFirst().map { "\(n($0.x)) \(n($0.y)) l" } + ["h"])
            .joined(separator: " ")
    }

    /// Whether `point` lies in the convex polygon `polygon`, whichever way it turns (an
    /// image's space may mirror the page's).
    static func convex(_ polygon: [Point], holds point: Point) -> Bool {
        var sign = 0.0
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[(i + 1) % polygon.count]
            let c = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x)
            if c == 0 { continue }
            if sign == 0 {
                sign = c
            } else if (c > 0) != (sign > 0) {
                return false
            }
        }
        return true
    }
}
