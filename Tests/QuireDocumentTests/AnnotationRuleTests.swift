import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A square on page 0 of a blank document, not added yet.
private func square() -> Annotation {
    Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 60, top: 40))
}

/// A document whose page 0 holds a square written by another tool, with values outside the
/// model's rules: /C of 0 to 255, 7 quad points, a negative border width, /F -1 and an
/// empty ink stroke.
private func documentWithOddValues() throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>")
        b.object(4, "<< /Type /Annot /Subtype /Square /Rect [10 10 60 40] /NM (odd) /C [0 0 255] /IC [0.5 0.5] /QuadPoints [1 2 3 4 5 6 7] /BS << /W -2 >> /F -1 /InkList [[]] /Contents (before) >>")
    }
}

@Suite("Annotation rules (the model's, for every way in)")
struct AnnotationRuleTests {
    @Test func eachRuleNamesItsField() throws {
        let cases: [((inout Annotation) -> Void, String)] = [
            ({ $0.subtype = "" }, "subtype: must not be empty"),
            ({ $0.pageIndex = -1 }, "page index: -1 is negative"),
            ({ $0.rect = Rect(left: 0, bottom: .nan, right: 1, top: 1) }, "rect: "),
            ({ $0.opacity = 1.5 }, "opacity: 1.5 is not between 0 and 1"),
            ({ $0.opacity = .nan }, "opacity: nan is not between 0 and 1"),
            ({ $0.borderWidth = -1 }, "border width: -1.0 is negative"),
            ({ $0.borderWidth = .infinity }, "border width: inf is not a finite number"),
            ({ $0.flags = -1 }, "flags: -1 is not an unsigned 32-bit integer"),
            ({ $0.flags = 1 << 32 }, "flags: 4294967296 is not an unsigned 32-bit integer"),
            ({ $0.color = [1, 0] }, "colour: 2 components (a colour has 0, 1, 3 or 4"),
            ({ $0.color = [0, 0, 255] }, "colour: the component 255.0 is not between 0 and 1"),
            ({ $0.interiorColor = [0, 0, 0, 0, 0] }, "interior colour: 5 components"),
            ({ $0.interiorColor = [-0.5] }, "interior colour: the component -0.5 is not between 0 and 1"),
            ({ $0.quadPoints = [1, 2, 3, 4, 5, 6, 7] }, "quad points: 7 numbers (quad points come in groups of 8"),
            ({ $0.quadPoints = [1, 2, 3, 4, 5, 6, 7, .infinity] }, "quad points: inf is not a finite number"),
            ({ $0.linePoints = [1, 2, 3] }, "line: 3 numbers (a line is 4: x1 y1 x2 y2, or none)"),
            ({ $0.linePoints = [1, 2, 3, .nan] }, "line: nan is not a finite number"),
            ({ $0.vertices = [1, 2, 3] }, "vertices: 3 numbers (vertices are x, y pairs)"),
            ({ $0.inkList = [[1, 2], []] }, "ink list: stroke 1: an empty stroke"),
            ({ $0.inkList = [[1, 2, 3]] }, "ink list: stroke 0: 3 numbers (a stroke is x, y pairs)"),
        ]
        for (change, expected) in cases {
            var a = square()
            change(&a)
            let error = #expect(throws: PDFError.self, "\(expected)") { try a.validate() }
            #expect(error?.kind == .invalidArgument, "\(expected)")
            #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "") is not \(expected)")
        }
        // What the rules allow, at their edges.
        var a = square()
        a.opacity = 0
        a.borderWidth = 0
        a.flags = Int(UInt32.max)
        a.color = []
        a.interiorColor = [0, 0.5, 1, 1]
        a.quadPoints = Array(repeating: 1, count: 16)
        a.linePoints = [1, 2, 3, 4]
        a.vertices = [1, 2]
        a.inkList = [[1, 2], [3, 4, 5, 6]]
        try a.validate()
        try square().validate()
    }

    @Test func theStaticChecksAreTheSameRules() throws {
        try Annotation.validate(opacity: 1)
        try Annotation.validate(color: [0.2])
        try Annotation.validate(inkStroke: [1, 2])
        let cases: [(() throws -> Void, String)] = [
            ({ try Annotation.validate(subtype: "") }, "subtype: must not be empty"),
            ({ try Annotation.validate(pageIndex: -3) }, "page index: -3 is negative"),
            ({ try Annotation.validate(rect: Rect(left: 0, bottom: 0, right: .infinity, top: 1)) }, "rect: "),
            ({ try Annotation.validate(opacity: -0.1) }, "opacity: -0.1 is not between 0 and 1"),
            ({ try Annotation.validate(borderWidth: -1) }, "border width: -1.0 is negative"),
            ({ try Annotation.validate(flags: -4) }, "flags: -4 is not"),
            ({ try Annotation.validate(color: [1, 1]) }, "colour: 2 components"),
            ({ try Annotation.validate(interiorColor: [2]) }, "interior colour: the component 2.0"),
            ({ try Annotation.validate(quadPoints: [1, 2]) }, "quad points: 2 numbers"),
            ({ try Annotation.validate(linePoints: [1]) }, "line: 1 numbers"),
            ({ try Annotation.validate(vertices: [1]) }, "vertices: 1 numbers"),
            ({ try Annotation.validate(inkStroke: []) }, "ink list: an empty stroke"),
        ]
        for (check, expected) in cases {
            let error = #expect(throws: PDFError.self, "\(expected)") { try check() }
            #expect(error?.kind == .invalidArgument)
            #expect(error?.message.hasPrefix(expected) == true, "\(error?.message ?? "") is not \(expected)")
        }
    }

    /// Text markup without quad points gets its rectangle as its one quadrilateral when a
    /// program adds or updates it (a rule of the model: C, Python and the tools get it).
    @Test func textMarkupWithoutQuadPointsCoversItsRectangle() throws {
        let doc = try blankDocument()
        for subtype in ["Highlight", "Underline", "Squiggly", "StrikeOut"] {
            let a = Annotation(subtype: subtype, pageIndex: 0, rect: Rect(left: 10, bottom: 20, right: 110, top: 40))
            let stored = try doc.addAnnotation(a)
            #expect(stored.quadPoints == [10, 40, 110, 40, 10, 20, 110, 20], "\(subtype)")
            #expect(try doc.annotation(try #require(stored.id))?.quadPoints == [10, 40, 110, 40, 10, 20, 110, 20])
            // Given quad points are kept.
            var b = a
            b.quadPoints = [0, 9, 9, 9, 0, 0, 9, 0]
            #expect(try doc.addAnnotation(b).quadPoints == [0, 9, 9, 9, 0, 0, 9, 0])
        }
        // Other subtypes get none.
        #expect(try doc.addAnnotation(square()).quadPoints.isEmpty)
    }

    @Test func addAnnotationChecksEveryField() throws {
        let doc = try blankDocument()
        let before = try doc.saved(.incremental)
        var a = square()
        a.color = [0, 0, 255]
        let error = #expect(throws: PDFError.self) { try doc.addAnnotation(a) }
        #expect(error?.kind == .invalidArgument && error?.message.hasPrefix("colour:") == true)
        a.color = nil
        a.quadPoints = [1, 2, 3]
        #expect((#expect(throws: PDFError.self) { try doc.addAnnotation(a) })?.message.hasPrefix("quad points:") == true)
        #expect(try doc.saved(.incremental) == before)
        a.quadPoints = []
        a.opacity = 0.5
        #expect(try doc.addAnnotation(a).opacity == 0.5)
    }

    @Test func updateAnnotationChecksTheChangedFieldsOnly() throws {
        let doc = try documentWithOddValues()
        var a = try #require(try doc.annotations(onPage: 0).first)
        #expect(a.color == [0, 0, 255] && a.quadPoints.count == 7 && a.borderWidth == -2 && a.flags == -1)
        #expect(throws: PDFError.self) { try a.validate() }
        // Another field changes: the values the file had are written back as they were.
        a.contents = "after"
        try doc.updateAnnotation(a)
        let stored = try #require(try doc.annotations(onPage: 0).first)
        #expect(stored.contents == "after" && stored.color == [0, 0, 255] && stored.interiorColor == [0.5, 0.5])
        #expect(stored.quadPoints.count == 7 && stored.borderWidth == -2 && stored.flags == -1)
        // A changed field keeps the rules, even when the file broke the same rule.
        var b = stored
        b.color = [0, 0, 254]
        let error = #expect(throws: PDFError.self) { try doc.updateAnnotation(b) }
        #expect(error?.kind == .invalidArgument && error?.message == "colour: the component 254.0 is not between 0 and 1")
        b = stored
        b.opacity = 2
        #expect((#expect(throws: PDFError.self) { try doc.updateAnnotation(b) })?.message.hasPrefix("opacity:") == true)
        b.opacity = 0.25
        try doc.updateAnnotation(b)
        #expect(try doc.annotations(onPage: 0).first?.opacity == 0.25)
    }

    @Test func theJSONImportChecksTheSameRulesAndNamesItsField() throws {
        let doc = try blankDocument()
        func record(_ type: String, _ fields: String) -> String {
            #"{"annotations": [{"v": 1, "type": "\#(type)", "pageIndex": 0, "bbox": [1, 2, 30, 40]\#(fields)}]}"#
        }
        func record(_ fields: String) -> String { record("pspdfkit/shape/rectangle", fields) }
        // An exact colour in `quire` counts when "#RRGGBB" is its visible form.
        let cases: [(String, String)] = [
            (record(##", "strokeColor": "#0000FF", "quire": {"color": [0, 0, 255]}"##), "annotations[0].quire.color: the component 255.0 is not between 0 and 1"),
            (record(#", "quire": {"color": [0.5, 0.5]}"#), "annotations[0].quire.color: 2 components"),
            (record(##", "fillColor": "#FFFFFF", "quire": {"interiorColor": [2]}"##), "annotations[0].quire.interiorColor: the component 2.0"),
            (record(#", "strokeWidth": -1"#), "annotations[0].strokeWidth: -1.0 is negative"),
            (record("pspdfkit/ink", #", "lineWidth": -3"#), "annotations[0].lineWidth: -3.0 is negative"),
            (record("pspdfkit/note", #", "quire": {"borderWidth": -1}"#), "annotations[0].quire.borderWidth: -1.0 is negative"),
            (record(#", "quire": {"otherFlags": -4096}"#), "annotations[0].quire.otherFlags: "),
            (record(#", "quire": {"pdfQuadPoints": [1, 2, 3, 4, 5, 6, 7]}"#), "annotations[0].quire.pdfQuadPoints: 7 numbers"),
            (record("pspdfkit/markup/highlight", #", "quire": {"pdfQuadPoints": [1, 2, 3]}"#), "annotations[0].quire.pdfQuadPoints: 3 numbers"),
            (record(#", "quire": {"pdfLinePoints": [1, 2, 3]}"#), "annotations[0].quire.pdfLinePoints: 3 numbers"),
            (record(#", "quire": {"pdfVertices": [1, 2, 3]}"#), "annotations[0].quire.pdfVertices: 3 numbers"),
            (record("pspdfkit/ink", #", "lines": {"points": [[[1, 2]], []]}"#), "annotations[0].lines.points: stroke 1: an empty stroke"),
            (record(#", "quire": {"pdfInkList": [[1, 2, 3]]}"#), "annotations[0].quire.pdfInkList: stroke 0: 3 numbers"),
            (record(#", "opacity": 1.5"#), "annotations[0].opacity: 1.5 is not between 0 and 1"),
        ]
        let before = try doc.saved(.incremental)
        for (text, expected) in cases {
            let error = #expect(throws: PDFError.self, "\(text)") { try doc.importAnnotationsJSON(Array(text.utf8)) }
            #expect(error?.kind == .format, "\(text)")
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "") does not contain \(expected)")
        }
        #expect(try doc.saved(.incremental) == before)
        // Within the rules, the same records import.
        _ = try doc.importAnnotationsJSON(Array(record(##", "strokeWidth": 2, "strokeColor": "#0000ff", "quire": {"color": [0, 0, 1], "otherFlags": 4096}"##).utf8))
        let made = try #require(try doc.annotations(onPage: 0).first)
        #expect(made.color == [0, 0, 1] && made.borderWidth == 2 && made.flags & 4096 != 0)
    }

    @Test func aDocumentsOwnExportOfValuesOutsideTheRulesStillImports() throws {
        // The export writes the odd values exactly (quire.color, ...); importing it updates
        // the annotation it came from, whose values do not change, so no rule is broken.
        let doc = try documentWithOddValues()
        let json = try doc.exportAnnotationsJSON(page: nil)
        let imported = try doc.importAnnotationsJSON(json)
        #expect(imported.count == 1 && imported[0].color == [0, 0, 255] && imported[0].quadPoints.count == 7)
        #expect(try doc.exportAnnotationsJSON(page: nil) == json)
        // Into a document without it, it would be a new annotation: the rules apply.
        let other = try blankDocument()
        let error = #expect(throws: PDFError.self) { try other.importAnnotationsJSON(json) }
        #expect(error?.kind == .format && error?.message.contains("annotations[0].") == true)
        #expect(try other.allAnnotations().isEmpty)
    }
}
