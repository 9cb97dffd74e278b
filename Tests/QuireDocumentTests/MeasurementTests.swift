import QuireDocument
import QuireSyntax
import Testing

// Measurements (issue 39): the scale's rules, its text form and the value the model computes
// from the geometry, in the one home every interface (C, Python, JSON, XFDF) goes through.

@Suite("Measurements")
struct MeasurementTests {
    @Test func ratiosReadAndWriteTheSameScale() throws {
        let scale = try #require(MeasurementScale(ratio: "1 in = 2.5 ft", precision: 3))
        #expect(scale == MeasurementScale(fromValue: 1, fromUnit: "in", toValue: 2.5, toUnit: "ft", precision: 3))
        #expect(scale.ratio == "1 in = 2.5 ft")
        #expect(MeasurementScale(ratio: scale.ratio, precision: 3) == scale)
        // Not "A unit = B unit" in known units, or a page unit that is a world unit only.
        for bad in ["1:100", "1 in = 2", "1 in = 2 furlong", "1 ft = 1 in", "0 in = 1 in", "= 1 in", "nan in = 1 in"] {
            #expect(MeasurementScale(ratio: bad, precision: 2) == nil, "\(bad)")
        }
    }

    @Test func valuesAreShownWithTheirDecimalsAndUnit() {
        let s = MeasurementScale(fromValue: 1, fromUnit: "in", toValue: 1, toUnit: "cm", precision: 2)
        #expect(s.text(5.08, area: false) == "5.08 cm")
        #expect(s.text(0.005, area: true) == "0.01 sq cm")
        #expect(s.text(12, area: false) == "12.00 cm")
        var whole = s
        whole.precision = 0
        #expect(whole.text(2.5, area: false) == "3 cm")
    }

    @Test func theModelMeasuresItsGeometry() throws {
        let inches = MeasurementScale(fromValue: 1, fromUnit: "in", toValue: 1, toUnit: "in", precision: 2)
        var line = Annotation(subtype: "Line", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 300, top: 300))
        line.linePoints = [0, 0, 216, 288]  // 360 points: 5 in
        line.measurement = inches
        #expect(line.measuredValue == 5 && line.measuredText == "5.00 in")
        var square = Annotation(subtype: "Polygon", pageIndex: 0, rect: line.rect)
        square.vertices = [0, 0, 144, 0, 144, 144, 0, 144]  // 2 in by 2 in
        square.measurement = inches
        #expect(square.measuredValue == 4 && square.measuredText == "4.00 sq in")
        var path = Annotation(subtype: "PolyLine", pageIndex: 0, rect: line.rect)
        path.vertices = [0, 0, 72, 0, 72, 72]
        path.measurement = inches
        #expect(path.measuredValue == 2)
        // Another subtype measures nothing and may not have a scale.
        var square2 = Annotation(subtype: "Square", pageIndex: 0, rect: line.rect)
        square2.measurement = inches
        #expect(square2.measuredValue == nil)
        #expect(throws: PDFError.self) { try square2.validate() }
    }

    @Test func addingWritesTheMeasureAndAnUnrelatedUpdateKeepsTheText() throws {
        let doc = try blankDocument()
        var line = Annotation(subtype: "Line", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 300, top: 300))
        line.linePoints = [0, 0, 144, 0]
        line.measurement = MeasurementScale(fromValue: 1, fromUnit: "in", toValue: 2.54, toUnit: "cm", precision: 1)
        let added = try doc.addAnnotation(line)
        #expect(added.contents == "5.1 cm" && added.intent == "LineDimension")
        let id = try #require(added.id)
        var read = try #require(try doc.annotation(id))
        #expect(read.measurement == line.measurement)
        read.contents = "about five centimetres"
        try doc.updateAnnotation(read)
        read = try #require(try doc.annotation(id))
        read.color = [0, 0, 1]
        try doc.updateAnnotation(read)
        #expect(try doc.annotation(id)?.contents == "about five centimetres")
        read.linePoints = [0, 0, 72, 0]
        try doc.updateAnnotation(read)
        #expect(try doc.annotation(id)?.contents == "2.5 cm")
    }
}
