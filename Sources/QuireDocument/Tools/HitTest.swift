import QuireSyntax

/// What lies at a point of a page, topmost first (the last drawn wins).
public enum HitTarget: Sendable, Equatable {
    /// Nothing Quire knows of: empty space (or page content).
    case none
    /// An annotation that is not a link or a widget.
    case annotation(Annotation)
    /// A link annotation: its URI or destination page (see ``Annotation/linkTarget(in:)``).
    case link(Annotation)
    /// A form field's widget annotation.
    case widget(Annotation)

    /// The annotation hit, if any.
    public var annotation: Annotation? {
        switch self {
        case .none: return nil
        case .annotation(let a), .link(let a), .widget(let a): return a
        }
    }
}

/// Where a link leads, as the link tool reports it (it does not navigate).
public enum LinkTarget: Sendable, Equatable {
    case uri(String)
    case page(Int)
    /// A link with an action Quire does not follow (Named, Launch, GoToR, JavaScript, ...),
    /// or a broken destination.
    case other
}

extension Annotation {
    /// Whether a viewer draws it on the page: not hidden, not no-view, not a reply (replies
    /// are listed in threads, not drawn), not a popup (drawn only when opened).
    public var isDrawnOnPage: Bool {
        flags & (Flag.hidden | Flag.noView) == 0 && !isReply && subtype != "Popup"
    }

    /// Where a link leads: its /Dest, else a GoTo or URI action.
    public func linkTarget() -> LinkTarget {
        if let destination { return .page(destination.pageIndex) }
        switch action?.kind {
        case .uri(let s, _)?: return .uri(s)
        case .goTo(let d?)?: return .page(d.pageIndex)
        default: return .other
        }
    }

    /// Whether `p` hits it with `tolerance`: lines, polylines and ink strokes by their
    /// distance to the drawn segments (plus half the border), everything else by /Rect.
    public func hits(_ p: Point, tolerance: Double) -> Bool {
        let reach = tolerance + Swift.max(0, (borderWidth ?? 1)) / 2
        func nearPolyline(_ xy: [Double], closed: Bool) -> Bool {
            let points = stride(from: 0, to: xy.count - 1, by: 2).map { Point(x: xy[$0], y: xy[$0 + 1]) }
            guard let first = points.first else { return false }
            if points.count == 1 { return distance(p, first, first) <= reach }
            for i in 1..<points.count where distance(p, points[i - 1], points[i]) <= reach { return true }
            if closed, let last = points.last, distance(p, last, first) <= reach { return true }
            return false
        }
        switch subtype {
        case "Line" where linePoints.count == 4: return nearPolyline(linePoints, closed: false)
        case "PolyLine" where vertices.count >= 2: return nearPolyline(vertices, closed: false)
        case "Ink" where !inkList.isEmpty: return inkList.contains { nearPolyline($0, closed: false) }
        default: return rect.contains(p, tolerance: tolerance)
        }
    }
}

/// The distance from `p` to the segment `a`-`b`.
func distance(_ p: Point, _ a: Point, _ b: Point) -> Double {
    let dx = b.x - a.x, dy = b.y - a.y
    let len2 = dx * dx + dy * dy
    var t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0
    t = Swift.min(Swift.max(t, 0), 1)
    let qx = a.x + t * dx - p.x, qy = a.y + t * dy - p.y
    return (qx * qx + qy * qy).squareRoot()
}

extension Document {
    /// The topmost thing at `point` (user space) of page `pageIndex`, within `tolerance`
    /// points: the last annotation in /Annots order that is drawn on the page
    /// (``Annotation/isDrawnOnPage``) and hit (``Annotation/hits(_:tolerance:)``),
    /// classified as a link, a widget or another annotation; `.none` when nothing is hit.
    /// Throws `.invalidArgument` for a point or tolerance that is not finite (or a negative
    /// tolerance), and as ``annotations(onPage:)`` for a page out of range.
    public func hitTest(pageIndex: Int, at point: Point, tolerance: Double = 0) throws -> HitTarget {
        guard point.isFinite else { throw PDFError(.invalidArgument, "the point \(point) is not finite") }
        guard tolerance.isFinite, tolerance >= 0 else {
            throw PDFError(.invalidArgument, "the tolerance \(tolerance) must be finite and not negative")
        }
        for a in try annotations(onPage: pageIndex).reversed() where a.isDrawnOnPage && a.hits(point, tolerance: tolerance) {
            switch a.subtype {
            case "Link": return .link(a)
            case "Widget": return .widget(a)
            default: return .annotation(a)
            }
        }
        return .none
    }
}

extension Document {
    /// The index of the text character (``TextPage/characters``) whose quad holds `point`
    /// on page `pageIndex`, grown by `tolerance`; nil when no character is there (the text
    /// model's ``TextPage/characterIndex(at:)`` also answers the nearest one; this does not).
    public func hitTestText(pageIndex: Int, at point: Point, tolerance: Double = 0) throws -> Int? {
        guard point.isFinite, tolerance.isFinite, tolerance >= 0 else {
            throw PDFError(.invalidArgument, "the point \(point) and tolerance \(tolerance) must be finite, the tolerance not negative")
        }
        let text = try textPage(at: pageIndex)
        for (i, c) in text.characters.enumerated() where !c.isGenerated {
            if c.quad.bounds.contains(point, tolerance: tolerance) { return i }
        }
        return nil
    }
}
