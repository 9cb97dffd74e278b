import QuireDocument
import QuireSyntax
import Testing

// Cloudy borders (issue 39) on hostile geometry: nothing traps, and what is stored holds the
// cloud. Their likeness to Acrobat's drawing is checked against Acrobat's own appearances
// in Tests/python/test_annotation_cloudy.py.

@Suite("Cloudy borders")
struct CloudyBorderTests {
    @Test func hostileGeometryIsDrawnWithoutTrapping() throws {
        let doc = try blankDocument(pages: 1)
        let huge = 1e300
        let cases: [(String, Rect, [Double], Double)] = [
            // A polygon too long for 20,000 curls: drawn as the plain polygon.
            ("Polygon", Rect(left: 0, bottom: 0, right: 1, top: 1), [0, 0, huge, 0, huge, huge], 1),
            ("Polygon", Rect(left: 0, bottom: 0, right: 1, top: 1), [0, 0, 1e7, 0, 1e7, 1e7, 0, 1e7], 1),
            // Every vertex on one point, and two points only.
            ("Polygon", Rect(left: 0, bottom: 0, right: 10, top: 10), [5, 5, 5, 5, 5, 5], 1),
            ("Polygon", Rect(left: 0, bottom: 0, right: 10, top: 10), [5, 5, 50, 5, 5, 5], 1),
            ("Square", Rect(left: 0, bottom: 0, right: huge, top: huge), [], 1),
            ("Circle", Rect(left: 0, bottom: 0, right: huge, top: 1), [], 1),
            ("Square", Rect(left: 10, bottom: 10, right: 10, top: 10), [], 1),
            ("Circle", Rect(left: 10, bottom: 10, right: 10.1, top: 10.1), [], 1),
            ("Square", Rect(left: 10, bottom: 10, right: 200, top: 200), [], 1e12),
        ]
        for (subtype, rect, vertices, width) in cases {
            var a = Annotation(subtype: subtype, pageIndex: 0, rect: rect)
            a.cloudyIntensity = 2
            a.borderWidth = width
            a.vertices = vertices
            let stored = try doc.addAnnotation(a)
            #expect(stored.id != nil, "\(subtype) \(rect) \(vertices)")
        }
    }

    @Test func aSquaresRectangleHoldsItsCloudAndStaysPut() throws {
        let doc = try blankDocument(pages: 1)
        var a = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 300, top: 200))
        a.cloudyIntensity = 1
        let added = try doc.addAnnotation(a)
        // /Rect is the cloud's bounds, within a point of the rectangle given; /RD the inset
        // to the curls' rectangle (more than the radius, 4.5, and half the width).
        for (got, given) in zip(
            [added.rect.left, added.rect.bottom, added.rect.right, added.rect.top],
            [100.0, 100, 300, 200]
        ) {
            #expect(abs(got - given) < 1, "\(added.rect)")
        }
        #expect(added.rectDifferences.count == 4 && added.rectDifferences.allSatisfy { $0 > 4.5 && $0 < 6.5 })
        // Written again, nothing moves.
        try doc.updateAnnotation(added)
        let again = try #require(try doc.annotations(onPage: 0).first)
        #expect(again.rect == added.rect && again.rectDifferences == added.rectDifferences)
    }
}
