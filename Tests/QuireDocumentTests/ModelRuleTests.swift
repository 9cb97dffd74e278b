import Testing
import QuireDocument
import QuireSyntax

// Rules that had two homes and now have one (issue 32). Each test drives the model through
// every path that used to carry its own copy of the rule.

/// The decoded content of the normal appearance of the annotation `id`.
private func appearanceText(_ doc: Document, _ id: ObjectID) throws -> String {
    let ap = try #require(try doc.dictionary(try doc.object(id.number).dictionary?["AP"]))
    guard case .stream(let n) = try doc.resolve(ap["N"] ?? .null) else {
        Issue.record("no /AP /N stream")
        return ""
    }
    return String(decoding: try doc.streamData(n, decoded: true), as: UTF8.self)
}

@Suite("One rule, one home")
struct ModelRuleTests {
    /// Defect 1: the font size comes from /DA wherever the annotation was made.
    @Test func freeTextFontSizeFromTheToolManager() throws {
        let doc = try blankDocument()
        let m = ToolManager(document: doc)
        var style = m.style
        style.fontSize = 24
        try m.setStyle(style)
        try m.setTool(.builtIn(.freeText))
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, Point(x: 100, y: 100)))
        try m.send(PointerEvent(.dragMove, pageIndex: 0, Point(x: 200, y: 150)))
        try m.send(PointerEvent(.dragEnd, pageIndex: 0, Point(x: 300, y: 200)))
        try m.commit()
        let made = try #require(try doc.annotations(onPage: 0).first { $0.subtype == "FreeText" })
        #expect(made.defaultAppearance?.contains("24 Tf") == true)
        #expect(made.fontSize == 24)
        let text = try appearanceText(doc, try #require(made.id))
        #expect(text.contains(" 24 Tf"), "appearance: \(text)")
        #expect(!text.contains(" 12 Tf"), "appearance: \(text)")
    }

    @Test func freeTextFontSizeFromXFDF() throws {
        let doc = try blankDocument()
        let xfdf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>
            <freetext page="0" rect="100,100,300,200" name="ft-1"><contents>Big</contents>\
            <defaultappearance>/Helv 24 Tf 0 g</defaultappearance></freetext>
            </annots></xfdf>
            """
        #expect(try doc.importXFDF(Array(xfdf.utf8)) == 1)
        let made = try #require(try doc.annotations(onPage: 0).first { $0.name == "ft-1" })
        #expect(made.fontSize == 24)
        let text = try appearanceText(doc, try #require(made.id))
        #expect(text.contains(" 24 Tf") && !text.contains(" 12 Tf"), "appearance: \(text)")
        // Changing /DA changes the size: the size is never a second copy of it.
        var changed = made
        changed.defaultAppearance = "/Helv 9 Tf 1 0 0 rg"
        #expect(changed.fontSize == 9)
        try doc.updateAnnotation(changed)
        #expect(try appearanceText(doc, try #require(made.id)).contains(" 9 Tf"))
        #expect(Annotation.defaultAppearance(fontSize: 30, color: [1, 0, 0]) == "/Helv 30 Tf 1 0 0 rg")
    }

    /// Defect 2: one colour parser: no sign, no space, exactly six digits.
    @Test func oneColourParser() throws {
        for bad in ["#-00001", "#+0000F", "# 00000", "#0000F", "#0000FFF", "#GG0000", "#00 0FF", "0x0000FF", ""] {
            #expect(Annotation.color(hex: bad) == nil, "\(bad)")
        }
        #expect(Annotation.color(hex: "#FF8000") == [1, 128.0 / 255, 0])
        #expect(Annotation.color(hex: "#ff8000") == [1, 128.0 / 255, 0])
        #expect(Annotation.color(hex: "FF8000") == nil)
        #expect(Annotation.color(hex: "FF8000", requireHash: false) == [1, 128.0 / 255, 0])
        #expect(Annotation.hexColor([1, 128.0 / 255, 0]) == "#FF8000")
        #expect(Annotation.hexColor([2, -1, .nan]) == "#FF0000")
        #expect(Annotation.hexColor([0.5]) == "#808080")
        #expect(Annotation.hexColor([]) == nil)

        // XFDF and annotation JSON read the same colours the same way.
        let doc = try blankDocument()
        let xfdf = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>
            <square page="0" rect="10,10,50,50" name="signed" color="#-00001" interior-color="#+0000F"/>
            <square page="0" rect="10,10,50,50" name="good" color="#00FF00" interior-color="0000ff"/>
            </annots></xfdf>
            """
        #expect(try doc.importXFDF(Array(xfdf.utf8)) == 2)
        let byName = Dictionary(uniqueKeysWithValues: try doc.annotations(onPage: 0).compactMap { a in a.name.map { ($0, a) } })
        #expect(byName["signed"]?.color == nil && byName["signed"]?.interiorColor == nil)
        #expect(byName["good"]?.color == [0, 1, 0] && byName["good"]?.interiorColor == [0, 0, 1])
        for bad in ["#-00001", "#+0000F"] {
            let json = """
                {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
                {"v": 1, "type": "pspdfkit/shape/rectangle", "id": "j", "pageIndex": 0, "bbox": [10, 10, 40, 40],
                 "strokeColor": "\(bad)"}]}
                """
            #expect(throws: PDFError.self) { try doc.importAnnotationsJSON(Array(json.utf8)) }
        }
    }
}

/// The change log has observers (after GRDB's TransactionObserver): the checkpointer and
/// any other reader subscribe the same way, each sees every group and every save.
@Suite("Change log observers")
struct ChangeObserverTests {
    @Test func checkpointsAndOtherObserversSeeTheSameLog() throws {
        let dir = try temporaryDirectory()
        let pdf = dir + "/doc.pdf"
        try documentWithPages(1).save(to: pdf, mode: .full(objectStreams: false))
        let doc = try Document(path: pdf)
        let first = CountingObserver(), second = CountingObserver()
        doc.addChangeObserver(first)
        doc.addChangeObserver(first)  // once only
        try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/checkpoints"))
        doc.addChangeObserver(second)
        _ = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 50, top: 50)))
        try doc.batch {
            _ = try doc.addAnnotation(Annotation(subtype: "Circle", pageIndex: 0, rect: Rect(left: 60, bottom: 10, right: 90, top: 50)))
            _ = try doc.addAnnotation(Annotation(subtype: "Circle", pageIndex: 0, rect: Rect(left: 60, bottom: 60, right: 90, top: 90)))
        }
        #expect(first.calls == 2 && second.calls == 2)
        #expect(first.log.count == second.log.count && !first.log.isEmpty)
        // The checkpointer took the same groups: a second open recovers all three.
        do {
            let again = try Document(path: pdf)
            #expect(try again.inspectCheckpoint(CheckpointOptions(directory: dir + "/checkpoints")).state == .changes)
        }
        try doc.save(to: pdf)
        #expect(first.saves == 1 && second.saves == 1)
        // Removed: no longer called. Gone: not kept alive by the document.
        doc.removeChangeObserver(first)
        var transient: CountingObserver? = CountingObserver()
        weak let weakTransient = transient
        doc.addChangeObserver(transient!)
        transient = nil
        #expect(weakTransient == nil)
        _ = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 100, bottom: 10, right: 150, top: 50)))
        #expect(first.calls == 2 && second.calls == 3)
        doc.stopCheckpointing(removingCheckpoint: true)
    }
}
