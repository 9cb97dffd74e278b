import Testing
import FoundationEssentials
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A document whose pages have the given boxes (and rotation).
private func documentWithBoxes(pages: Int = 2, mediaBox: String = "[0 0 612 792]", cropBox: String? = nil,
                               rotate: Int = 0) throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " ")
        b.object(2, "<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>")
        for p in 0..<pages {
            let crop = cropBox.map { " /CropBox \($0)" } ?? ""
            b.object(3 + p, "<< /Type /Page /Parent 2 0 R /MediaBox \(mediaBox)\(crop) /Rotate \(rotate) >>")
        }
    }
}

/// Adds an annotation of any subtype through the object layer (for subtypes Quire does not
/// create), then returns it as the model reads it.
@discardableResult
private func addRaw(_ doc: Document, page index: Int, _ entries: [(PDFName, PDFObject)]) throws -> Annotation {
    let page = try doc.page(at: index)
    let pageID = try #require(page.id)
    var dict = PDFDictionary([("Type", .name("Annot")), ("P", .reference(pageID))])
    for (k, v) in entries { dict[k] = v }
    let id = try doc.addObject(.dictionary(dict))
    var annots = try page.dictionary["Annots"].map(doc.resolve)?.array ?? []
    annots.append(.reference(id))
    try doc.setValue(.array(annots), forKey: "Annots", inObject: pageID.number)
    return try #require(try doc.annotation(id))
}

private func numbers(_ values: [Double]) -> PDFObject { .array(values.map { .real($0) }) }

/// The annotation without its document-local object numbers; the references as the names
/// of their targets.
private func portable(_ a: Annotation, in doc: Document) throws -> (Annotation, replyTo: String?, popup: String?) {
    var b = a
    b.id = nil
    b.popup = nil
    b.inReplyTo = nil
    let reply = try a.inReplyTo.flatMap { try doc.annotation($0)?.name }
    let popup = try a.popup.flatMap { try doc.annotation($0)?.name }
    return (b, reply, popup)
}

private func expectSameAnnotations(_ source: Document, _ target: Document, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let a = try source.allAnnotations(), b = try target.allAnnotations()
    #expect(a.count == b.count, sourceLocation: sourceLocation)
    for (x, y) in zip(a, b) {
        let px = try portable(x, in: source), py = try portable(y, in: target)
        #expect(px.0 == py.0, "\(x.subtype) \(x.name ?? "")", sourceLocation: sourceLocation)
        #expect(px.replyTo == py.replyTo && px.popup == py.popup, sourceLocation: sourceLocation)
    }
}

private func json(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("Annotation JSON (Instant JSON)")
struct InstantJSONTests {
    /// Every creatable subtype with every field the model reads, on pages whose crop box is
    /// offset by fractions, so that the flip is not exact in binary.
    func richDocument() throws -> Document {
        let doc = try documentWithBoxes(cropBox: "[10.5 20.25 600.3 780.7]")
        let colours: [[Double]] = [[1, 0, 0], [0.3, 0.5, 0.7], [0.5], [0.1, 0.2, 0.3, 0.4], [], [0, 0, 1]]
        let zones: [Int?] = [0, 330, -180, nil, 60]
        for (k, subtype) in Annotation.creatableSubtypes.sorted().enumerated() {
            let x = 100.1 + Double(k) * 10.3, y = 200.7 + Double(k) * 7.9
            var a = Annotation(subtype: subtype, pageIndex: k % 2, rect: Rect(left: x, bottom: y, right: x + 80.35, top: y + 40.15))
            a.contents = "a \(subtype) — ünïcode ✓ \"quoted\" / slash"
            a.author = "Ada \(k)"
            a.subject = k % 3 == 0 ? "Subject \(k)" : nil
            a.color = colours[k % colours.count]
            a.opacity = k % 2 == 0 ? 0.5 : 1
            a.borderWidth = k % 3 == 1 ? nil : 1.25 + Double(k)
            a.creationDate = PDFDate(year: 2026, month: 3, day: 1 + k, hour: 9, minute: 30, second: k,
                                     utcOffsetMinutes: zones[k % zones.count])
            a.flags = [0, Annotation.Flag.print, Annotation.Flag.print | Annotation.Flag.locked | 4096,
                       Annotation.Flag.hidden | Annotation.Flag.noView | 1024][k % 4]
            a.customData = [#"{"app":{"list":[1,2.5,"x",null,true],"n":1},"id":"k\#(k)"}"#,
                            #"{ "spaced" : true }"#, "not json at all", nil][k % 4]
            switch subtype {
            case "Line":
                a.linePoints = [x + 0.1, y + 0.2, x + 80.3, y + 40.1]
                a.lineEndings = ["None", "OpenArrow"]
                a.interiorColor = [0.2, 0.4, 0.6]
            case "Polygon":
                a.vertices = [x, y, x + 80.35, y, x + 40.1, y + 40.15]
                a.interiorColor = [0, 1, 0]
            case "PolyLine":
                a.vertices = [x, y, x + 80.35, y + 0.3, x + 40.1, y + 40.15]
                a.lineEndings = ["Circle", "RClosedArrow"]
            case "Square", "Circle":
                a.interiorColor = [0.9, 0.9, 0.1]
            case "Ink":
                a.inkList = [[x, y, x + 10.7, y + 10.3, x + 20.9, y + 5.1], [x + 30, y + 30]]
            case "Highlight", "StrikeOut":
                // Axis-aligned quads, in viewers' order, two lines.
                a.quadPoints = [x, y + 40.15, x + 80.35, y + 40.15, x, y + 20, x + 80.35, y + 20,
                                x, y + 20, x + 40.5, y + 20, x, y, x + 40.5, y]
            case "Underline", "Squiggly":
                // A rotated quad: not a rectangle, kept exactly.
                a.quadPoints = [x, y + 30, x + 70, y + 40.15, x + 10, y, x + 80.35, y + 10]
            case "FreeText":
                a.defaultAppearance = "/Helv 14.5 Tf 0.2 0.4 0.6 rg"
            case "Stamp":
                a.iconName = "Approved"
            case "Text":
                a.iconName = "Comment"
            case "FileAttachment":
                a.file = try Annotation.AttachedFile(bytes: Array("attached".utf8), name: "a.txt", contentType: "text/plain")
            default:
                break
            }
            _ = try doc.addAnnotation(a)
        }
        // Replies: a thread on the first note, nested, with state replies.
        let note = try #require(try doc.allAnnotations().first { $0.subtype == "Text" })
        let noteID = try #require(note.id)
        let first = try doc.addReply(to: noteID, author: "Bob", contents: "First answer")
        _ = try doc.addReply(to: try #require(first.id), author: "Cy", contents: "Nested")
        _ = try doc.addStateReply(to: noteID, author: "Ada", model: .review, state: "Accepted")
        let marked = try doc.addStateReply(to: noteID, author: "Bob", model: .marked, state: "Unmarked")
        let markedID = try #require(marked.id)
        var grouped = try #require(try doc.annotation(markedID))
        grouped.replyType = .group
        try doc.updateAnnotation(grouped)
        // A date without a zone, and flags 0, set below the model (the API always dates
        // changes now, in UTC, and prints new annotations).
        let square = try #require(try doc.allAnnotations().first { $0.subtype == "Square" }?.id)
        try doc.setValue(.string(PDFString(text: "D:20240229235959")), forKey: "M", inObject: square.number)
        try doc.setValue(nil, forKey: "F", inObject: square.number)
        return doc
    }

    @Test func everyCreatableSubtypeRoundTrips() throws {
        let source = try richDocument()
        let bytes = try source.exportAnnotationsJSON(page: nil)
        let target = try documentWithBoxes(cropBox: "[10.5 20.25 600.3 780.7]")
        let imported = try target.importAnnotationsJSON(bytes)
        #expect(imported.count == (try source.allAnnotations()).count)
        try expectSameAnnotations(source, target)
        // Saved and reopened, still the same. (Against the source saved and reopened too:
        // the PDF lexer reads some reals an ulp off, 0.3 as 0.30000000000000004.)
        let reread = try reopen(try target.saved(.incremental))
        try expectSameAnnotations(try reopen(try source.saved(.incremental)), reread)
        // Threads and reviews survive.
        let note = try #require(try reread.allAnnotations().first { $0.subtype == "Text" && !$0.isReply })
        #expect(try reread.comments(for: try #require(note.id)).map { $0.contents ?? "" }.suffix(2) == ["First answer", "Nested"])
        #expect(try reread.reviewSummary(for: try #require(note.id)).current.map { $0.state ?? "" } == ["Accepted", "Unmarked"])
        // Exporting the import gives the same JSON, but for the object numbers.
        var again = try target.annotationsInstantJSON(page: nil)
        var first = try source.annotationsInstantJSON(page: nil)
        for i in again.annotations.indices { again.annotations[i].pdfObjectId = nil }
        for i in first.annotations.indices { first.annotations[i].pdfObjectId = nil }
        #expect(again == first)
    }

    @Test func theJSONIsInstantJSON() throws {
        let source = try richDocument()
        let text = json(try source.exportAnnotationsJSON(page: nil))
        let doc = try InstantJSONDocument(jsonBytes: Array(text.utf8))
        #expect(doc.format == "https://pspdfkit.com/instant-json/v1")
        #expect(doc.quire == InstantJSONQuireInfo(version: 1, pageCount: 2, pageIndex: nil))
        let byType = Dictionary(grouping: doc.annotations, by: \.type)
        for type in ["pspdfkit/note", "pspdfkit/text", "pspdfkit/shape/line", "pspdfkit/shape/rectangle",
                     "pspdfkit/shape/ellipse", "pspdfkit/shape/polygon", "pspdfkit/shape/polyline",
                     "pspdfkit/markup/highlight", "pspdfkit/markup/underline", "pspdfkit/markup/squiggly",
                     "pspdfkit/markup/strikeout", "pspdfkit/ink", "pspdfkit/stamp"] {
            #expect(byType[type] != nil, "\(type)")
        }
        for r in doc.annotations {
            #expect(r.v == 1 && r.id != nil && r.id == r.name && r.bbox.count == 4)
        }
        let line = try #require(byType["pspdfkit/shape/line"]?.first)
        #expect(line.startPoint != nil && line.lineCaps == InstantJSONLineCaps(start: nil, end: "openArrow"))
        let stamp = try #require(byType["pspdfkit/stamp"]?.first)
        #expect(stamp.stampType == "Approved")
        let free = try #require(byType["pspdfkit/text"]?.first)
        #expect(free.fontSize == 14.5 && free.fontColor == "#336699" && free.text?.hasPrefix("a FreeText") == true)
        let replies = doc.annotations.filter { $0.quire?.inReplyTo != nil }
        #expect(replies.count == 4)
        #expect(replies.compactMap { $0.quire?.stateModel }.sorted() == ["Marked", "Review"])
        #expect(replies.contains { $0.quire?.replyType == "group" })
        // Exact values only where the Instant JSON field loses something.
        let red = try #require(doc.annotations.first { $0.quire?.color == nil && ($0.color == "#FF0000" || $0.strokeColor == "#FF0000" || $0.borderColor == "#FF0000") })
        #expect(red.quire?.color == nil)
        #expect(doc.annotations.contains { $0.quire?.color == [0.1, 0.2, 0.3, 0.4] })
        #expect(doc.annotations.contains { $0.quire?.modificationDate == "D:20240229235959" && $0.updatedAt == "2024-02-29T23:59:59Z" })
        #expect(doc.annotations.contains { $0.createdAt?.hasSuffix("+05:30") == true })
        #expect(doc.annotations.contains { $0.flags?.contains("noPrint") == true })
        #expect(doc.annotations.contains { $0.quire?.otherFlags == 4096 })
        #expect(doc.annotations.contains { $0.customData != nil && $0.quire?.customDataText == nil })
        #expect(doc.annotations.contains { $0.quire?.customDataText == #"{ "spaced" : true }"# })
        // Stable: the same bytes twice; compact is the same document.
        #expect(try source.exportAnnotationsJSON(page: nil) == Array(text.utf8))
        let compact = try source.exportAnnotationsJSON(page: nil, prettyPrinted: false)
        #expect(!compact.contains(UInt8(ascii: "\n")))
        #expect(try InstantJSONDocument(jsonBytes: compact) == doc)
        #expect(text.contains("\n  \"annotations\" : ["))
        // The schema types are Codable: JSONDecoder reads what the parser reads.
        #expect(try JSONDecoder().decode(InstantJSONDocument.self, from: Data(text.utf8)) == doc)
        #expect(try JSONDecoder().decode(InstantJSONDocument.self, from: try JSONEncoder().encode(doc)) == doc)
    }

    @Test func pageAndDocumentExports() throws {
        let source = try richDocument()
        let whole = try source.annotationsInstantJSON(page: nil)
        let page1 = try source.annotationsInstantJSON(page: 1)
        #expect(page1.quire?.pageIndex == 1)
        #expect(page1.annotations == whole.annotations.filter { $0.pageIndex == 1 })
        #expect(page1.annotations.count == (try source.annotations(onPage: 1)).count)
        #expect(!page1.annotations.isEmpty && page1.annotations.count < whole.annotations.count)
        #expect((#expect(throws: PDFError.self) { try source.exportAnnotationsJSON(page: 2) })?.kind == .range)
        // A page's export imports into that page alone.
        let target = try documentWithBoxes(cropBox: "[10.5 20.25 600.3 780.7]")
        _ = try target.importAnnotationsJSON(try source.exportAnnotationsJSON(page: 0))
        #expect(try target.annotations(onPage: 0).count == (try source.annotations(onPage: 0)).count)
        #expect(try target.annotations(onPage: 1).isEmpty)
        // An empty page exports an empty list.
        let blank = try documentWithBoxes()
        #expect(try blank.annotationsInstantJSON(page: 0).annotations.isEmpty)
        #expect(try blank.importAnnotationsJSON(try blank.exportAnnotationsJSON(page: nil)).isEmpty)
    }

    @Test func coordinatesOnACroppedRotatedPage() throws {
        // Crop box [36 50 576 742]: the top-left corner is (36, 742) in PDF space. /Rotate is
        // not applied: Instant JSON coordinates are those of the unrotated page.
        let doc = try documentWithBoxes(pages: 1, cropBox: "[36 50 576 742]", rotate: 90)
        var square = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 100, bottom: 200, right: 300, top: 400))
        square.color = [1, 0, 0]
        _ = try doc.addAnnotation(square)
        var ink = Annotation(subtype: "Ink", pageIndex: 0, rect: Rect(left: 100, bottom: 200, right: 300, top: 400))
        ink.inkList = [[100, 200, 300, 400]]
        _ = try doc.addAnnotation(ink)
        var line = Annotation(subtype: "Line", pageIndex: 0, rect: Rect(left: 136, bottom: 542, right: 236, top: 642))
        line.linePoints = [136, 642, 236, 542]
        _ = try doc.addAnnotation(line)
        var mark = Annotation(subtype: "Highlight", pageIndex: 0, rect: Rect(left: 100, bottom: 380, right: 300, top: 400))
        mark.quadPoints = [100, 400, 300, 400, 100, 380, 300, 380]
        _ = try doc.addAnnotation(mark)
        var polygon = Annotation(subtype: "Polygon", pageIndex: 0, rect: Rect(left: 36, bottom: 50, right: 576, top: 742))
        polygon.vertices = [36, 742, 576, 742, 576, 50]
        _ = try doc.addAnnotation(polygon)
        let records = try doc.annotationsInstantJSON(page: 0).annotations
        #expect(records[0].bbox == [64, 342, 200, 200])          // 100-36, 742-400
        #expect(records[1].lines?.points == [[[64, 542], [264, 342]]])
        #expect(records[2].startPoint == [100, 100] && records[2].endPoint == [200, 200])
        #expect(records[3].rects == [[64, 342, 200, 20]])
        #expect(records[4].points == [[0, 0], [540, 0], [540, 692]])
        // Integral coordinates flip exactly: no exact PDF values are needed.
        #expect(records.allSatisfy { $0.quire?.pdfRect == nil && $0.quire?.pdfQuadPoints == nil && $0.quire?.pdfInkList == nil })
        // And back: a hand-written record at the top-left corner of the crop box.
        let text = #"""
        {"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0,
          "bbox": [0, 0, 100, 50], "strokeColor": "#00FF00", "strokeWidth": 3}]}
        """#
        let made = try doc.importAnnotationsJSON(Array(text.utf8))
        #expect(made[0].rect == Rect(left: 36, bottom: 692, right: 136, top: 742))
        #expect(made[0].color == [0, 1, 0] && made[0].borderWidth == 3 && made[0].flags == Annotation.Flag.print)
        #expect(made[0].name != nil && made[0].creationDate == nil)
        // A page with a crop box but a media box offset only: the media box is the frame.
        let plain = try documentWithBoxes(pages: 1, mediaBox: "[-100 -100 500 700]")
        _ = try plain.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 10, top: 10)))
        #expect(try plain.annotationsInstantJSON(page: 0).annotations[0].bbox == [100, 690, 10, 10])
    }

    @Test func importIntoASecondDocumentAndUpdate() throws {
        let source = try documentWithBoxes()
        var a = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 50, top: 50))
        a.contents = "original"
        a = try source.addAnnotation(a)
        _ = try source.addReply(to: try #require(a.id), author: "Bob", contents: "a reply")
        let bytes = try source.exportAnnotationsJSON(page: nil)
        let target = try documentWithBoxes()
        let first = try target.importAnnotationsJSON(bytes)
        #expect(first.count == 2 && first[1].inReplyTo == first[0].id)
        // The same JSON again updates the same objects: no duplicates.
        let second = try target.importAnnotationsJSON(bytes)
        #expect(second.map(\.id) == first.map(\.id))
        #expect(try target.allAnnotations().count == 2)
        // A changed record updates its annotation (matched by name).
        var doc = try InstantJSONDocument(jsonBytes: bytes)
        doc.annotations[0].note = "changed elsewhere"
        doc.annotations[0].bbox = [20, 20, 30, 30]
        let third = try target.importAnnotations(doc)
        #expect(third[0].id == first[0].id && third[0].contents == "changed elsewhere")
        #expect(third[0].rect == Rect(left: 20, bottom: 742, right: 50, top: 772))
        // A reply alone, whose parent is already in the document (as sync sends it).
        var reply = doc.annotations[1]
        reply.id = "new-reply"
        reply.name = nil
        reply.note = "late reply"
        let added = try target.importAnnotations(InstantJSONDocument(annotations: [reply]))
        #expect(added[0].inReplyTo == first[0].id && added[0].name == "new-reply")
        #expect(try target.comments(for: try #require(first[0].id)).count == 3)
        // An annotation of that name on another page: annotations do not move.
        var moved = doc.annotations[0]
        moved.pageIndex = 1
        let error = #expect(throws: PDFError.self) { try target.importAnnotations(InstantJSONDocument(annotations: [moved])) }
        #expect(error?.kind == .invalidArgument && error?.message.contains("page") == true)
        // Replies before their parents in the JSON: parents are created first.
        var reversed = try InstantJSONDocument(jsonBytes: try source.exportAnnotationsJSON(page: nil))
        reversed.annotations.reverse()
        let fresh = try documentWithBoxes()
        let made = try fresh.importAnnotations(reversed)
        #expect(made[0].inReplyTo == made[1].id && made[1].contents == "original")
        // Replies turned off: a reply is refused before anything changes.
        let off = try documentWithBoxes()
        off.repliesEnabled = false
        #expect((#expect(throws: PDFError.self) { try off.importAnnotationsJSON(bytes) })?.kind == .disabled)
        #expect(!off.hasUnsavedChanges)
    }

    @Test func genericSubtypesPopupsAndActions() throws {
        let doc = try documentWithBoxes(pages: 2)
        let page1 = try #require(try doc.page(at: 1).id)
        let parent = try doc.addAnnotation(Annotation(subtype: "Highlight", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 90, top: 20)))
        let popup = try addRaw(doc, page: 0, [("Subtype", .name("Popup")), ("Rect", numbers([100, 100, 300, 200])),
                                              ("Parent", .reference(try #require(parent.id)))])
        var p = parent
        p.popup = popup.id
        try doc.updateAnnotation(p)
        try addRaw(doc, page: 0, [("Subtype", .name("Link")), ("Rect", numbers([10, 700, 200, 720])),
                                  ("BS", .dictionary(PDFDictionary([("W", .integer(0))]))),
                                  ("A", .dictionary(PDFDictionary([("S", .name("URI")), ("URI", .string(PDFString(text: "https://example.com/a?b=c")))])))])
        try addRaw(doc, page: 0, [("Subtype", .name("Link")), ("Rect", numbers([10, 600, 200, 620])),
                                  ("QuadPoints", numbers([10, 620, 200, 620, 10, 600, 200, 600])),
                                  ("Dest", .array([.reference(page1), .name("XYZ"), .integer(72), .integer(700), .integer(0)]))])
        try addRaw(doc, page: 0, [("Subtype", .name("Link")), ("Rect", numbers([10, 500, 200, 520])),
                                  ("A", .dictionary(PDFDictionary([
                                      ("S", .name("Named")), ("N", .name("NextPage")),
                                      ("Next", .array([
                                          .dictionary(PDFDictionary([("S", .name("GoTo")), ("D", .array([.reference(page1), .name("FitH"), .real(500.5)]))])),
                                          .dictionary(PDFDictionary([("S", .name("Launch")), ("F", .string(PDFString(text: "other.pdf"))), ("NewWindow", .bool(true))])),
                                      ])),
                                  ])))])
        try addRaw(doc, page: 1, [("Subtype", .name("Link")), ("Rect", numbers([10, 400, 200, 420])),
                                  ("A", .dictionary(PDFDictionary([
                                      ("S", .name("GoToR")), ("F", .string(PDFString(text: "manual.pdf"))),
                                      ("D", .array([.integer(4), .name("FitR"), .integer(1), .integer(2), .integer(3), .integer(4)])),
                                      ("Next", .dictionary(PDFDictionary([("S", .name("URI")), ("URI", .string(PDFString(text: "https://example.com/map"))), ("IsMap", .bool(true))]))),
                                  ])))])
        try addRaw(doc, page: 1, [("Subtype", .name("Link")), ("Rect", numbers([10, 300, 200, 320])),
                                  ("A", .dictionary(PDFDictionary([("S", .name("JavaScript")), ("JS", .string(PDFString(text: "app.alert('hi')")))])))])
        try addRaw(doc, page: 1, [("Subtype", .name("Caret")), ("Rect", numbers([5, 5, 15, 15])), ("NM", .string(PDFString(text: "caret-1"))),
                                  ("C", numbers([0, 0, 1])), ("IC", numbers([1, 1, 0])), ("Name", .name("P")),
                                  ("Contents", .string(PDFString(text: "insert here")))])
        let records = try doc.annotationsInstantJSON(page: nil).annotations
        #expect(records.map(\.type) == ["pspdfkit/markup/highlight", "quire/generic", "pspdfkit/link", "pspdfkit/link", "pspdfkit/link",
                                         "pspdfkit/link", "pspdfkit/link", "quire/generic"])
        #expect(records[0].quire?.popup == records[1].id && records[1].quire?.subtype == "Popup")
        #expect(records[1].id == String(try #require(popup.id).number))  // no /NM: the object number
        #expect(records[2].action == { var a = InstantJSONAction(type: "uri"); a.uri = "https://example.com/a?b=c"; return a }())
        #expect(records[3].action?.type == "goTo" && records[3].action?.pageIndex == 1 && records[3].quire?.actionIsDestination == true)
        #expect(records[4].action?.action == "nextPage" && records[4].action?.next.count == 2)
        #expect(records[5].action?.type == "goToRemote" && records[5].action?.destination?.pageIndex == 4 && records[5].action?.next.first?.isMap == true)
        #expect(records[6].action?.script == "app.alert('hi')")
        #expect(records[7].quire?.iconName == "P" && records[7].quire?.interiorColor == [1, 1, 0])
        let target = try documentWithBoxes(pages: 2)
        let imported = try target.importAnnotationsJSON(try doc.exportAnnotationsJSON(page: nil))
        #expect(imported.map(\.subtype) == ["Highlight", "Popup", "Link", "Link", "Link", "Link", "Link", "Caret"])
        // The popup knows its parent again.
        let newPopup = try #require(imported[1].id)
        #expect(try target.object(newPopup.number).dictionary?["Parent"] == .reference(try #require(imported[0].id)))
        // Same annotations, but that annotations without /NM get their JSON id as /NM.
        let before = try doc.allAnnotations(), after = try target.allAnnotations()
        #expect(before.count == after.count)
        for (x, y) in zip(before, after) {
            var px = try portable(x, in: doc)
            let py = try portable(y, in: target)
            if x.name == nil { px.0.name = py.0.name }
            #expect(px.0 == py.0, "\(x.subtype)")
            #expect((x.popup == nil) == (y.popup == nil))
        }
        #expect(after[3].destination == Destination(pageIndex: 1, fit: .xyz(left: 72, top: 700, zoom: 0)) && after[3].action == nil)
    }

    @Test func plainInstantJSONFromOtherProducers() throws {
        // Records as PSPDFKit writes them: no quire fields, version 2 text, unknown keys.
        let text = #"""
        {
          "format": "https://pspdfkit.com/instant-json/v1",
          "annotations": [
            {"v": 2, "type": "pspdfkit/note", "id": "01HXYZ", "pageIndex": 0, "bbox": [10, 10, 32, 32],
             "text": {"format": "plain", "value": "Hello"}, "icon": "help", "color": "#ffcc00",
             "createdAt": "2024-02-09T10:21:17.1203525+00:00", "isCommentThreadRoot": false, "opacity": 1},
            {"v": 1, "type": "pspdfkit/ink", "pageIndex": 1, "bbox": [0, 0, 100, 100],
             "lines": {"points": [[[0, 0], [50, 50]]], "intensities": [[0.5, 0.5]]}, "lineWidth": 5,
             "strokeColor": "#2293FB", "blendMode": "normal", "flags": ["noPrint", "readOnly"],
             "customData": {"z": 1, "a": [true]}},
            {"v": 1, "type": "pspdfkit/shape/line", "pageIndex": 0, "bbox": [0, 0, 100, 100],
             "startPoint": [10, 10], "endPoint": [100, 100], "lineCaps": {"end": "closedArrow"}, "strokeWidth": 5}
          ]
        }
        """#
        let doc = try documentWithBoxes()
        let made = try doc.importAnnotationsJSON(Array(text.utf8))
        #expect(made.map(\.subtype) == ["Text", "Ink", "Line"])
        #expect(made[0].contents == "Hello" && made[0].iconName == "Help" && made[0].name == "01HXYZ")
        #expect(made[0].color == [1, 0.8, 0] && made[0].creationDate == PDFDate(year: 2024, month: 2, day: 9, hour: 10, minute: 21, second: 17))
        #expect(made[1].inkList == [[0, 792, 50, 742]] && made[1].borderWidth == 5)
        #expect(made[1].flags == Annotation.Flag.readOnly && made[1].customData == #"{"a":[true],"z":1}"#)
        #expect(made[1].name?.count == 36)  // no id: a new UUID
        #expect(made[2].lineEndings == ["None", "ClosedArrow"] && made[2].linePoints == [10, 782, 100, 692])
    }

    @Test func malformedInputIsRefused() throws {
        let doc = try documentWithBoxes()
        _ = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        let before = try doc.saved(.incremental)
        func record(_ fields: String) -> String {
            #"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, 3, 4]\#(fields)}]}"#
        }
        let cases: [(String, String)] = [
            ("", "not valid JSON"),
            ("{\"annotations\": [", "not valid JSON"),
            ("[1, 2]", "the top level: expected an object"),
            ("{}", "missing field \"annotations\""),
            (#"{"annotations": {}}"#, "annotations: expected an array"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0}]}"#, "annotations[0]: missing field \"bbox\""),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, 3]}]}"#, "annotations[0].bbox: expected 4 numbers"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, "2", 3, 4]}]}"#, "annotations[0].bbox[1]: expected a number, found a string"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, 3, 1e999]}]}"#, "out of range"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, 3, 1e300]}]}"#, "annotations[0].bbox[3]: the number"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 1.5, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].pageIndex: expected an integer"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": -1, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].pageIndex: the integer -1 is out of range"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 99999999999999999999, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].pageIndex"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 7, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].pageIndex: page 7 does not exist"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, -3, 4]}]}"#, "annotations[0].bbox: the width and height"),
            (#"{"annotations": [{"v": 3, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].v: record version 3"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/widget", "pageIndex": 0, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].type: unsupported annotation type \"pspdfkit/widget\""),
            (#"{"annotations": [{"v": 1, "type": 7, "pageIndex": 0, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].type: expected a string, found a number"),
            (#"{"annotations": [{"v": 1, "type": "quire/generic", "pageIndex": 0, "bbox": [1, 2, 3, 4]}]}"#, "annotations[0].quire.subtype"),
            (#"{"format": "something else", "annotations": []}"#, "format: \"something else\" is not Instant JSON"),
            (#"{"quire": {"version": 2}, "annotations": []}"#, "quire.version: Quire annotation JSON version 2"),
            (record(#", "flags": ["noPrint", "sparkly"]"#), "annotations[0].flags[1]: unknown flag \"sparkly\""),
            (record(#", "strokeColor": "red""#), "annotations[0].strokeColor: \"red\" is not a colour"),
            (record(#", "createdAt": "yesterday""#), "annotations[0].createdAt: \"yesterday\" is not an ISO 8601 date"),
            (record(#", "opacity": 2"#), "annotations[0].opacity: 2.0 is not between 0 and 1"),
            (record(#", "customData": [1]"#), "annotations[0].customData: expected an object, found an array"),
            (record(#", "quire": {"inReplyTo": "nobody"}"#), "annotations[0].quire.inReplyTo: no annotation \"nobody\""),
            (record(#", "quire": {"inReplyTo": "x", "state": "Accepted"}"#), "annotations[0].quire.stateModel: a state needs a state model"),
            (record(#", "id": "x", "quire": {"inReplyTo": "x"}"#), "annotations[0].quire.inReplyTo: an annotation cannot reply to itself"),
            (record(#", "action": {"type": "hide"}"#), "annotations[0].action.type: unsupported action type \"hide\""),
            (record(#", "action": {"type": "goTo", "pageIndex": 9}"#), "annotations[0].action.pageIndex: page 9 does not exist"),
            (record(#", "text": {"format": "markdown", "value": "*x*"}"#), "annotations[0].text.format: text in the \"markdown\" format"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/line", "pageIndex": 0, "bbox": [1, 2, 3, 4], "lineCaps": {"start": "rocket"}}]}"#, "annotations[0].lineCaps.start: unknown line cap \"rocket\""),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "id": "a", "pageIndex": 0, "bbox": [1, 2, 3, 4]}, {"v": 1, "type": "pspdfkit/shape/rectangle", "id": "a", "pageIndex": 0, "bbox": [1, 2, 3, 4]}]}"#, "annotations[1].id: \"a\" is the id of an earlier record too"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/note", "id": "a", "pageIndex": 0, "bbox": [1, 2, 3, 4], "quire": {"inReplyTo": "b"}}, {"v": 1, "type": "pspdfkit/note", "id": "b", "pageIndex": 0, "bbox": [1, 2, 3, 4], "quire": {"inReplyTo": "a"}}]}"#, "the replies make a cycle"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/note", "id": "a", "pageIndex": 0, "bbox": [1, 2, 3, 4]}, {"v": 1, "type": "pspdfkit/note", "id": "b", "pageIndex": 1, "bbox": [1, 2, 3, 4], "quire": {"inReplyTo": "a"}}]}"#, "annotations[1].quire.inReplyTo: \"a\" is on page 0, not page 1"),
            (#"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 0, "bbox": [1, 2, 3, 4], "customData": "# + String(repeating: "[", count: 100_000) + "]}]}", "not valid JSON"),
        ]
        for (text, expected) in cases {
            let error = #expect(throws: PDFError.self, "\(text.prefix(120))") { try doc.importAnnotationsJSON(Array(text.utf8)) }
            #expect(error?.kind == .format, "\(text.prefix(120))")
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "") does not contain \(expected)")
        }
        // Nothing changed: every check comes before the first change.
        #expect(try doc.saved(.incremental) == before)
        #expect(try doc.allAnnotations().count == 1)
        // Invalid UTF-8 and binary garbage too.
        #expect(throws: PDFError.self) { try doc.importAnnotationsJSON([0xFF, 0xFE, 0x00, 0x7B]) }
        #expect(throws: PDFError.self) { try doc.importAnnotationsJSON(Array(repeating: 0x5B, count: 1_000_000)) }
    }

    @Test func mutatedInputNeverTraps() throws {
        // Every value of a real export, replaced in turn by values of other types and sizes:
        // each import either succeeds or throws a PDFError (anything else fails the test).
        let base = try InstantJSONValue(parsing: try richDocument().exportAnnotationsJSON(page: nil))
        let replacements: [InstantJSONValue] = [
            .null, .string("x"), .string(""), .integer(-1), .integer(Int64.max), .number(1e308), .number(-0.5),
            .number(1.5), .bool(true), .array([]), .array([.integer(1)]), .object([:]), .string("#GGGGGG"),
            .string("2026-13-45T99:99:99Z"), .array([.array([.number(1e9), .integer(-7)])]),
        ]
        var rng = SplitMix64(seed: 0x5EED)
        var succeeded = 0, refused = 0
        for _ in 0..<150 {
            var counter = 0
            let total = nodeCount(base)
            let target = Int.random(in: 0..<total, using: &rng)
            let replacement = replacements.randomElement(using: &rng)!
            let mutated = replacing(base, at: target, with: replacement, counter: &counter)
            let doc = try documentWithBoxes(cropBox: "[10.5 20.25 600.3 780.7]")
            do {
                _ = try doc.importAnnotationsJSON(Array(mutated.canonicalText.utf8))
                succeeded += 1
            } catch let error as PDFError {
                #expect([.format, .invalidArgument, .range].contains(error.kind), "\(error)")
                refused += 1
            }
        }
        #expect(succeeded > 0 && refused > 0)
    }

    @Test func recordsBuiltInCodeAreChecked() throws {
        let doc = try documentWithBoxes()
        func refuse(_ change: (inout InstantJSONAnnotation) -> Void, _ expected: String) {
            var r = InstantJSONAnnotation(type: "pspdfkit/shape/polygon", pageIndex: 0, bbox: [1, 2, 3, 4])
            change(&r)
            let error = #expect(throws: PDFError.self) { try doc.importAnnotations(InstantJSONDocument(annotations: [r])) }
            #expect(error?.kind == .format && error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
        refuse({ $0.bbox = [1, 2, .nan, 4] }, "annotations[0].bbox[2]")
        refuse({ $0.bbox = [1, 2] }, "annotations[0].bbox: expected 4 numbers")
        refuse({ $0.points = [[1, 2], [3]] }, "annotations[0].points[1]: expected 2 numbers")
        refuse({ $0.pageIndex = -3 }, "annotations[0].pageIndex")
        refuse({ $0.opacity = .infinity }, "annotations[0].opacity")
        refuse({ var q = InstantJSONQuireFields(); q.color = [0, 0, 0, 0, 0]; $0.quire = q }, "annotations[0].quire.color")
        #expect(try doc.allAnnotations().isEmpty)
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func aRealFile() throws {
        // PDFium's annots.pdf: links (two shared by both pages), highlights, a popup, a
        // widget and a square, 9 and 3 annotations. The widget is a form field, which the
        // JSON does not create in another document: it is skipped.
        let source = try Document(path: corpusDirectory! + "/pdfium/testing/resources/annots.pdf")
        let exported = try source.exportAnnotationsJSON(page: nil)
        let target = try documentWithBoxes(pages: 2)
        // The export's formFieldValues name the source's field, which the target lacks:
        // refused, and nothing changes. Without them, the annotations import.
        let error = #expect(throws: PDFError.self) { try target.importAnnotationsJSON(exported) }
        #expect(error?.message.contains("formFieldValues[0].name: the document has no field \"Combo1\"") == true)
        #expect(try target.allAnnotations().isEmpty)
        var json = try InstantJSONDocument(jsonBytes: exported)
        json.formFieldValues = nil
        let bytes = Array(try JSONEncoder().encode(json))
        let imported = try target.importAnnotationsJSON(bytes)
        #expect(imported.count == 11)
        #expect(target.warnings.contains { $0.contains("form widget") })
        for page in 0..<2 {
            let a = try source.annotations(onPage: page).filter { $0.subtype != "Widget" }, b = try target.annotations(onPage: page)
            #expect(a.map(\.subtype) == b.map(\.subtype))
            for (x, y) in zip(a, b) {
                #expect(x.rect == y.rect && x.contents == y.contents && x.color == y.color && x.flags == y.flags)
                #expect(x.quadPoints == y.quadPoints && x.action == y.action && x.destination == y.destination)
                #expect(x.name == nil || x.name == y.name)
            }
        }
        // The highlight's popup is linked again.
        let highlight = try #require(try target.annotations(onPage: 0).first { $0.name == "Highlight-With-Popup-1" })
        #expect(try highlight.popup.flatMap { try target.annotation($0)?.subtype } == "Popup")
        // Exporting the imported document gives the same records (ids aside, as the
        // imported annotations all have /NM now).
        let again = try target.annotationsInstantJSON(page: nil).annotations
        let first = try InstantJSONDocument(jsonBytes: bytes).annotations.filter { $0.quire?.subtype != "Widget" }
        #expect(again.map(\.type) == first.map(\.type) && again.map(\.bbox) == first.map(\.bbox))
    }
}

private func nodeCount(_ v: InstantJSONValue) -> Int {
    switch v {
    case .array(let a): return 1 + a.map(nodeCount).reduce(0, +)
    case .object(let o): return 1 + o.values.map(nodeCount).reduce(0, +)
    default: return 1
    }
}

/// `v` with its node number `target` (in a depth-first walk, objects by sorted key)
/// replaced.
private func replacing(_ v: InstantJSONValue, at target: Int, with replacement: InstantJSONValue, counter: inout Int) -> InstantJSONValue {
    if counter == target { counter += 1; return replacement }
    counter += 1
    switch v {
    case .array(let a):
        return .array(a.map { replacing($0, at: target, with: replacement, counter: &counter) })
    case .object(let o):
        var out: [String: InstantJSONValue] = [:]
        for key in o.keys.sorted() { out[key] = replacing(o[key]!, at: target, with: replacement, counter: &counter) }
        return .object(out)
    default:
        return v
    }
}

/// Issue 24: ids are stable and round trips idempotent, for annotations with and without
/// /NM, popups named by object number, duplicated /NMs and widgets.
@Suite("Annotation JSON ids")
struct InstantJSONIdTests {
    /// A page with a note without /NM and its popup (no /NM either), a link, a widget, and
    /// two squares that share one /NM.
    func document() throws -> (Document, note: ObjectID, popup: ObjectID) {
        let doc = try documentWithBoxes(pages: 1)
        let rect = numbers([10, 10, 30, 30])
        let note = try addRaw(doc, page: 0, [("Subtype", .name("Text")), ("Rect", rect), ("Contents", .string(PDFString(text: "no name")))])
        let popup = try addRaw(doc, page: 0, [("Subtype", .name("Popup")), ("Rect", numbers([40, 40, 140, 100])),
                                              ("Parent", .reference(try #require(note.id)))])
        try doc.setValue(.reference(try #require(popup.id)), forKey: "Popup", inObject: try #require(note.id).number)
        try addRaw(doc, page: 0, [("Subtype", .name("Link")), ("Rect", rect),
                                  ("A", .dictionary(PDFDictionary([("S", .name("URI")), ("URI", .string(PDFString(text: "https://example.org")))])))])
        try addRaw(doc, page: 0, [("Subtype", .name("Widget")), ("Rect", rect), ("FT", .name("Tx")), ("T", .string(PDFString(text: "field")))])
        for text in ["first", "second"] {
            try addRaw(doc, page: 0, [("Subtype", .name("Square")), ("Rect", rect), ("NM", .string(PDFString(text: "same"))),
                                      ("Contents", .string(PDFString(text: text)))])
        }
        return (doc, try #require(note.id), try #require(popup.id))
    }

    @Test func exportThenImportIntoTheSameDocumentChangesNothing() throws {
        let (doc, _, _) = try document()
        let before = try doc.exportAnnotationsJSON(page: nil)
        let count = try doc.annotations(onPage: 0).count
        let stored = try doc.importAnnotationsJSON(before)
        #expect(stored.count == count)
        #expect(try doc.annotations(onPage: 0).count == count)
        #expect(try doc.exportAnnotationsJSON(page: nil) == before)
        // Every id is unique, and the shared /NM stays in `name` for both squares.
        let records = try InstantJSONDocument(jsonBytes: before).annotations
        #expect(Set(records.compactMap(\.id)).count == records.count)
        #expect(records.filter { $0.name == "same" }.count == 2)
        // Twice is the same as once.
        _ = try doc.importAnnotationsJSON(before)
        #expect(try doc.exportAnnotationsJSON(page: nil) == before)
    }

    @Test func anEditedRecordWithoutNMUpdatesItsObjectAndStaysWithoutNM() throws {
        let (doc, note, _) = try document()
        var json = try InstantJSONDocument(jsonBytes: try doc.exportAnnotationsJSON(page: nil))
        let i = try #require(json.annotations.firstIndex { $0.id == String(note.number) })
        json.annotations[i].text = "edited"
        json.annotations[i].pdfObjectId = nil  // an id of digits alone names the object too
        json.annotations = [json.annotations[i]]
        let count = try doc.annotations(onPage: 0).count
        _ = try doc.importAnnotationsJSON(try JSONEncoder().encode(json).map { $0 })
        #expect(try doc.annotations(onPage: 0).count == count)
        let updated = try #require(try doc.annotation(note))
        #expect(updated.contents == "edited")
        #expect(updated.name == nil)
    }

    @Test func aPopupNamedByItsObjectNumberIsFound() throws {
        let (doc, note, popup) = try document()
        let text = """
        {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
          {"v": 1, "type": "pspdfkit/note", "id": "new-note", "pageIndex": 0, "bbox": [100, 100, 20, 20],
           "text": "points at an existing popup", "quire": {"popup": "\(popup.number)", "inReplyTo": "\(note.number)"}}]}
        """
        let stored = try doc.importAnnotationsJSON(Array(text.utf8))
        #expect(stored.first?.popup == popup)
        #expect(stored.first?.inReplyTo == note)
    }

    @Test func aWidgetThatTheDocumentLacksIsSkipped() throws {
        let (doc, _, _) = try document()
        let json = try doc.exportAnnotationsJSON(page: nil)
        let other = try documentWithBoxes(pages: 1)
        let stored = try other.importAnnotationsJSON(json)
        let subtypes = try other.annotations(onPage: 0).map(\.subtype)
        #expect(!subtypes.contains("Widget"))
        #expect(stored.count == subtypes.count)
        #expect(other.warnings.contains { $0.contains("form widget") })
    }
}
