import FoundationEssentials
import QuireDocument
import QuireSync
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Testing

// The admin API's PDF export and import, checked by opening the PDFs with Quire.

@Suite struct ExportAndImport {
    /// The annotations of a PDF by /NM.
    func annotations(_ pdf: [UInt8]) throws -> (Document, [String: Annotation]) {
        let doc = try Document(data: pdf)
        var byName: [String: Annotation] = [:]
        for a in try doc.allAnnotations() { if let n = a.name { byName[n] = a } }
        return (doc, byName)
    }

    @Test func untouchedLayerExportsThePDFsOwnAnnotations() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let r = await h.admin("GET", "/admin/documents/doc/layers/fresh/pdf")
        #expect(r.status == 200, "\(text(r))")
        #expect(r.header("Content-Type") == "application/pdf")
        let token = try await sign(claims())
        let original = await h.client("GET", "/documents/doc/pdf", token: token).body
        // Saved incrementally: the uploaded bytes come first.
        #expect(r.body.starts(with: original) && r.body.count >= original.count)
        let (doc, byName) = try annotations(r.body)
        #expect(Set(byName.keys) == ["sq-1", "re-1", "st-1", "hl-1"])
        let source = try Document(data: original)
        #expect(try doc.exportAnnotationsJSON(page: nil) == source.exportAnnotationsJSON(page: nil))
    }

    /// A PDF may hold annotations that break the model's rules (here a reply on another page
    /// than its parent): Quire reads them but would refuse to import them. The layer still
    /// exports, changed or not, since untouched records are not imported again.
    @Test func aPDFWithRuleBreakingAnnotationsStillExports() async throws {
        let h = try await Harness(upload: false)
        defer { Task { await h.finish() } }
        let doc = try Document(data: plainPDF(pages: 2))
        var square = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 10, bottom: 10, right: 90, top: 90))
        square.name = "parent"
        let parent = try #require(try doc.addAnnotation(square).id)
        var note = Annotation(subtype: "Text", pageIndex: 1, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        note.name = "across"
        let child = try #require(try doc.addAnnotation(note).id)
        try doc.setValue(.reference(parent), forKey: "IRT", inObject: child.number)
        var r = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: try doc.saved(.full(objectStreams: false)))
        #expect(r.status == 201, "\(text(r))")
        r = await h.admin("GET", "/admin/documents/doc/layers/main/pdf")
        #expect(r.status == 200, "\(text(r))")
        let push = try await h.push([putNote(1, id: "n1", page: 1)])
        #expect(try json(push)["results"]?[0]?["status"]?.stringValue == "accepted")
        r = await h.admin("GET", "/admin/documents/doc/layers/main/pdf")
        #expect(r.status == 200, "\(text(r))")
        let names = try Document(data: r.body).allAnnotations().compactMap(\.name)
        #expect(Set(names) == ["parent", "across", "n1"])
    }

    @Test func layerChangesAreWrittenIntoThePDF() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        // Change the square's note, delete the highlight, add a note with a reply and a
        // state, and a reply to a record that is then deleted (its /IRT is left out).
        let layer = try await h.layer()
        let square = try #require(layer["records"]?.arrayValue?.first { $0["record"]?["id"]?.stringValue == "sq-1" }?["record"])
        guard case .object(var fields) = square else { Issue.record("not an object"); return }
        fields["note"] = .string("Changed in the layer")
        let changed = String(decoding: InstantJSONValue.object(fields).canonicalText.utf8, as: UTF8.self)
        let r = try await h.push([
            "{\"client_seq\": 1, \"op\": \"put\", \"id\": \"sq-1\", \"base_revision\": 0, \"record\": \(changed)}",
            deleteMutation(2, id: "hl-1", base: 0),
            putNote(3, id: "new-1", page: 1, text: "A new note"),
            putNote(4, id: "new-2", page: 1, text: "Its reply", extra: #", "quire": {"inReplyTo": "new-1", "replyType": "reply"}"#),
            putNote(5, id: "new-3", page: 1, text: "State", extra: #", "flags": ["hidden"], "quire": {"inReplyTo": "new-1", "replyType": "reply", "state": "Rejected", "stateModel": "Review"}"#),
            putNote(6, id: "tmp", page: 1, text: "Temporary"),
            putNote(7, id: "orphan", page: 1, text: "Orphan", extra: #", "quire": {"inReplyTo": "tmp"}"#),
            deleteMutation(8, id: "tmp", base: 6),
        ])
        #expect(try json(r)["results"]?.arrayValue?.allSatisfy { $0["status"]?.stringValue == "accepted" } == true, "\(text(r))")
        let export = await h.admin("GET", "/admin/documents/doc/layers/main/pdf")
        #expect(export.status == 200, "\(text(export))")
        let (doc, byName) = try annotations(export.body)
        #expect(Set(byName.keys) == ["sq-1", "re-1", "st-1", "new-1", "new-2", "new-3", "orphan"])
        #expect(byName["sq-1"]?.contents == "Changed in the layer")
        #expect(byName["sq-1"]?.subtype == "Square")
        #expect(byName["new-1"]?.pageIndex == 1 && byName["new-1"]?.contents == "A new note")
        #expect(byName["new-1"]?.author == "alice")
        let newID = try #require(byName["new-1"]?.id)
        #expect(byName["new-2"]?.inReplyTo == newID)
        #expect(byName["new-3"]?.inReplyTo == newID && byName["new-3"]?.state == "Rejected")
        #expect(byName["orphan"]?.inReplyTo == nil)
        // The PDF's own replies still answer the square.
        #expect(byName["re-1"]?.inReplyTo == byName["sq-1"]?.id)
        // The export of the layer's JSON and the PDF agree.
        #expect(try doc.allAnnotations().count == 7)
        #expect(try doc.reviewSummary(for: newID).history.map(\.state) == ["Rejected"])
    }

    @Test func importAddsAPDFsAnnotationsWithNewIdsWhereTheyClash() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        // Another PDF whose annotations are the same (ids clash) plus one new.
        let other = try Document(data: try annotatedPDF())
        var extra = Annotation(subtype: "Circle", pageIndex: 1, rect: Rect(left: 10, bottom: 10, right: 50, top: 50))
        extra.name = "circle-1"
        _ = try other.addAnnotation(extra)
        let bytes = try other.saved(.full(objectStreams: false))
        var r = await h.admin("POST", "/admin/documents/doc/layers/main/import", body: bytes)
        #expect(r.status == 200, "\(text(r))")
        #expect(try json(r)["imported"]?.integerValue == 5)
        let layer = try await h.layer()
        let records = layer["records"]?.arrayValue?.compactMap { $0["record"] } ?? []
        #expect(records.count == 9)
        #expect(layer["seq"]?.integerValue == 5)
        // The clashing ones got new ids; their reply points at the renamed square.
        let imported = records.suffix(5)
        let renamedSquare = try #require(imported.first { $0["type"]?.stringValue == "pspdfkit/shape/rectangle" })
        let newSquareID = try #require(renamedSquare["id"]?.stringValue)
        #expect(newSquareID != "sq-1" && renamedSquare["name"]?.stringValue == newSquareID)
        #expect(renamedSquare["pdfObjectId"] == nil)
        let replies = imported.filter { $0["quire"]?["inReplyTo"] != nil }
        #expect(replies.count == 2 && replies.allSatisfy { $0["quire"]?["inReplyTo"]?.stringValue == newSquareID })
        #expect(imported.contains { $0["id"]?.stringValue == "circle-1" })
        // They are changes of the feed.
        let token = try await sign(claims())
        let feed = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0"])
        #expect(try json(feed)["changes"]?.arrayValue?.count == 5)
        // The exported PDF has both sets.
        let export = await h.admin("GET", "/admin/documents/doc/layers/main/pdf")
        #expect(export.status == 200, "\(text(export))")
        #expect(try Document(data: export.body).allAnnotations().count == 9)
        // A PDF with more pages than the document: refused whole.
        let big = try Document(data: plainPDF(pages: 4))
        _ = try big.addAnnotation(Annotation(subtype: "Square", pageIndex: 3, rect: Rect(left: 1, bottom: 1, right: 9, top: 9)))
        r = await h.admin("POST", "/admin/documents/doc/layers/main/import", body: try big.saved(.full(objectStreams: false)))
        #expect(r.status == 400, "\(text(r))")
        #expect(try await h.layer()["seq"]?.integerValue == 5)
        r = await h.admin("POST", "/admin/documents/doc/layers/main/import", body: Array("not a pdf".utf8))
        #expect(r.status == 400)
    }
}
