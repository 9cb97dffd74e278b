import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

func blankDocument(pages: Int = 2) throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " ")
        b.object(2, "<< /Type /Pages /Kids [\(kids)] /Count \(pages) /MediaBox [0 0 612 792] >>")
        for p in 0..<pages { b.object(3 + p, "<< /Type /Page /Parent 2 0 R >>") }
    }
}

@Suite("PDF dates")
struct PDFDateTests {
    @Test func parseAndFormat() throws {
        let d = try #require(PDFDate("D:20031010180432-03'00'"))
        #expect(d.year == 2003 && d.month == 10 && d.day == 10 && d.hour == 18 && d.second == 32)
        #expect(d.utcOffsetMinutes == -180)
        #expect(d.description == "D:20031010180432-03'00'")
        #expect(d.iso8601 == "2003-10-10T18:04:32-03:00")
        #expect(PDFDate(iso8601: d.iso8601) == d)
        #expect(PDFDate("D:2024")?.month == 1)
        #expect(PDFDate("D:20240229235959Z")?.description == "D:20240229235959Z")
        #expect(PDFDate("garbage") == nil)
        #expect(PDFDate(iso8601: "2026-11-21T14:09:00.123Z")?.minute == 9)
        // The same instant in two zones compares equal in time.
        let utc = try #require(PDFDate("D:20031010210432Z"))
        #expect(utc.secondsSinceEpoch == d.secondsSinceEpoch)
        #expect(PDFDate(secondsSinceEpoch: 0).description == "D:19700101000000Z")
        #expect(PDFDate(secondsSinceEpoch: utc.secondsSinceEpoch) == utc)
    }

    @Test func uuids() {
        let a = UUIDString.make(), b = UUIDString.make()
        #expect(a != b && a.count == 36 && a.split(separator: "-").count == 5)
    }
}

@Suite("Annotations")
struct AnnotationTests {
    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func readsARealFile() throws {
        // PDFium's annots.pdf: 9 and 3 annotations (manifest: pdfium.annots_per_page).
        let doc = try Document(path: corpusDirectory! + "/pdfium/testing/resources/annots.pdf")
        #expect(try doc.annotations(onPage: 0).count == 9)
        #expect(try doc.annotations(onPage: 1).count == 3)
        #expect(try doc.allAnnotations().allSatisfy { $0.pageIndex < 2 && !$0.subtype.isEmpty })
    }

    @Test func createEverySubtypeAndReadBack() throws {
        let doc = try blankDocument()
        var made: [Annotation] = []
        for subtype in Annotation.creatableSubtypes.sorted() {
            var a = Annotation(subtype: subtype, pageIndex: 1, rect: Rect(left: 100, bottom: 100, right: 200, top: 160))
            a.contents = "a \(subtype)"
            a.author = "Ada"
            a.color = [1, 0, 0]
            switch subtype {
            case "Line": a.linePoints = [100, 100, 200, 160]; a.lineEndings = ["None", "OpenArrow"]
            case "Polygon", "PolyLine": a.vertices = [100, 100, 200, 100, 150, 160]
            case "Ink": a.inkList = [[100, 100, 150, 150, 200, 120]]
            case "Highlight", "Underline", "Squiggly", "StrikeOut": a.quadPoints = [100, 160, 200, 160, 100, 100, 200, 100]
            case "FreeText": a.defaultAppearance = "/Helv 14 Tf 0 g"
            case "Stamp": a.iconName = "Approved"
            case "Text": a.iconName = "Comment"
            case "FileAttachment": a.file = try Annotation.AttachedFile(bytes: Array("attached".utf8), name: "a.txt")
            default: break
            }
            made.append(try doc.addAnnotation(a))
        }
        let reread = try reopen(try doc.saved(.incremental))
        let read = try reread.annotations(onPage: 1)
        #expect(read.count == Annotation.creatableSubtypes.count)
        for (a, b) in zip(made, read) {
            #expect(a.id == b.id && a.subtype == b.subtype && a.contents == b.contents && a.author == b.author)
            #expect(b.name?.count == 36 && b.creationDate != nil && b.modificationDate != nil)
            #expect(a.quadPoints == b.quadPoints && a.inkList == b.inkList && a.vertices == b.vertices)
            #expect(a.linePoints == b.linePoints && a.lineEndings == b.lineEndings && a.iconName == b.iconName)
            // Every annotation Quire creates has a normal appearance stream.
            let id = try #require(b.id)
            let ap = try #require(try reread.dictionary(try reread.object(id.number).dictionary?["AP"]))
            guard case .stream(let n) = try reread.resolve(ap["N"] ?? .null) else {
                Issue.record("no /AP /N for \(b.subtype)"); continue
            }
            #expect(try !reread.streamData(n, decoded: true).isEmpty)
        }
        #expect(read.first { $0.subtype == "FreeText" }?.fontSize == 14)
    }

    @Test func updateAndDelete() throws {
        let doc = try blankDocument()
        var note = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 50, top: 50))
        note = try doc.addAnnotation(note)
        let noteID = try #require(note.id)
        let popup = try doc.addObject(.dictionary(PDFDictionary([("Type", .name("Annot")), ("Subtype", .name("Popup"))])))
        note.popup = popup
        note.contents = "changed"
        note.interiorColor = [0, 0, 1]
        try doc.updateAnnotation(note)
        let updated = try #require(try doc.annotation(noteID))
        #expect(updated.contents == "changed" && updated.interiorColor == [0, 0, 1] && updated.popup == popup)
        // Unknown entries survive an update.
        try doc.setValue(.name("Kept"), forKey: "Foo", inObject: noteID.number)
        try doc.updateAnnotation(try #require(try doc.annotation(noteID)))
        #expect(try doc.object(noteID.number).dictionary?["Foo"] == .name("Kept"))
        try doc.deleteAnnotation(noteID)
        #expect(try doc.annotations(onPage: 0).isEmpty)
        #expect(try doc.object(popup.number) == .null)
        #expect(throws: PDFError.self) { try doc.deleteAnnotation(noteID) }
    }

    @Test func repliesThreadsAndReviews() throws {
        let doc = try blankDocument()
        var root = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        root.contents = "Is this right?"
        root.creationDate = PDFDate("D:20260101100000Z")
        root = try doc.addAnnotation(root)
        let rootID = try #require(root.id)
        // Replies added out of date order: the thread sorts them by creation date.
        var late = try doc.addReply(to: rootID, author: "Bob", contents: "Second answer")
        late.creationDate = PDFDate("D:20260101120000Z")
        try doc.updateAnnotation(late)
        var early = try doc.addReply(to: rootID, author: "Ada", contents: "First answer")
        early.creationDate = PDFDate("D:20260101110000Z")
        try doc.updateAnnotation(early)
        let earlyID = try #require(early.id)
        var nested = try doc.addReply(to: earlyID, author: "Cy", contents: "Nested")
        nested.creationDate = PDFDate("D:20260101113000Z")
        try doc.updateAnnotation(nested)
        let accepted = try doc.addStateReply(to: rootID, author: "Ada", model: .review, state: "Accepted")
        _ = try doc.addStateReply(to: rootID, author: "Bob", model: .review, state: "Rejected")
        let completed = try doc.addStateReply(to: rootID, author: "Ada", model: .review, state: "Completed")
        _ = accepted
        #expect(try doc.comments(for: rootID).map { $0.contents ?? "" } == ["Is this right?", "First answer", "Nested", "Second answer"])
        let summary = try doc.reviewSummary(for: rootID)
        #expect(summary.history.count == 3)
        #expect(summary.current.map { "\($0.author ?? ""):\($0.state ?? "")" } == ["Ada:Completed", "Bob:Rejected"])
        #expect(summary.current.first?.id == completed.id)
        #expect(try doc.replies(to: rootID).count == 5)
        let nestedID = try #require(nested.id)
        #expect(try doc.annotation(nestedID)?.isReply == true)
        #expect(try doc.searchAnnotations("ANSWER").count == 2)
        // And the same after saving and reopening.
        let reread = try reopen(try doc.saved(.incremental))
        #expect(try reread.comments(for: rootID).count == 4)
        #expect(try reread.reviewSummary(for: rootID).current.count == 2)
    }

    @Test func replyRules() throws {
        let doc = try blankDocument()
        let a = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        let aID = try #require(a.id)
        let b = try doc.addReply(to: aID, author: nil, contents: "reply")
        let bID = try #require(b.id)
        let other = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 1, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        // No cycles, same page, existing targets.
        #expect((#expect(throws: PDFError.self) { try doc.setInReplyTo(aID, bID) })?.message.contains("cycle") == true)
        #expect(throws: PDFError.self) { try doc.setInReplyTo(bID, other.id) }
        #expect(throws: PDFError.self) { try doc.addReply(to: ObjectID(999), author: nil, contents: "x") }
        // Model and state together, and consistent.
        var inconsistent = try #require(try doc.annotation(bID))
        inconsistent.state = "Accepted"
        #expect(throws: PDFError.self) { try doc.updateAnnotation(inconsistent) }
        inconsistent.stateModel = "Marked"
        #expect(throws: PDFError.self) { try doc.updateAnnotation(inconsistent) }
        inconsistent.stateModel = "Review"
        try doc.updateAnnotation(inconsistent)
        #expect(try doc.annotation(bID)?.isStateReply == true)
        try doc.setInReplyTo(bID, nil)
        #expect(try doc.annotation(bID)?.isReply == false)
    }

    @Test func repliesCanBeTurnedOff() throws {
        let doc = try blankDocument()
        let a = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        let aID = try #require(a.id)
        let reply = try doc.addReply(to: aID, author: nil, contents: "before")
        let replyID = try #require(reply.id)
        doc.repliesEnabled = false
        #expect((#expect(throws: PDFError.self) { try doc.addReply(to: aID, author: nil, contents: "x") })?.kind == .disabled)
        #expect((#expect(throws: PDFError.self) { try doc.addStateReply(to: aID, author: nil, model: .marked, state: "Marked") })?.kind == .disabled)
        #expect((#expect(throws: PDFError.self) { try doc.setInReplyTo(replyID, nil) })?.kind == .disabled)
        // Reading keeps working, and so do annotations that are not replies.
        #expect(try doc.annotation(replyID)?.isReply == true)
        #expect(try doc.comments(for: aID).count == 2)
        _ = try doc.addAnnotation(Annotation(subtype: "Circle", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
    }

    @Test func onlyCreatableSubtypes() throws {
        let doc = try blankDocument()
        let error = #expect(throws: PDFError.self) {
            try doc.addAnnotation(Annotation(subtype: "Widget", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 9, top: 9)))
        }
        #expect(error?.kind == .unsupported)
    }
}
