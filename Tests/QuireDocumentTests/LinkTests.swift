import QuireDocument
import QuireSyntax
import Testing

// Links between annotations are record ids (issue 30): a reply whose parent is deleted
// stays a reply to that id, deleting an annotation changes no other annotation's record,
// and importing a record whose link names an absent id keeps it when asked to.

@Suite("Links as ids")
struct LinkTests {
    /// Each record of the document's export, by id (compact JSON without pdfObjectId).
    func records(_ doc: Document) throws -> [String: String] {
        let v = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
        guard case .object(let top) = v, case .array(let items)? = top["annotations"] else { return [:] }
        var out: [String: String] = [:]
        for item in items {
            guard case .object(var fields) = item, case .string(let id)? = fields["id"] else { continue }
            fields["pdfObjectId"] = nil
            out[id] = InstantJSONValue.object(fields).canonicalText
        }
        return out
    }

    func thread() throws -> (Document, Annotation, Annotation, Annotation) {
        let doc = try blankDocument()
        var parent = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 200, top: 200))
        parent.name = "parent"
        let p = try doc.addAnnotation(parent)
        let pid = try #require(p.id)
        let added = try doc.addReply(to: pid, author: "Ann", contents: "a reply")
        let addedID = try #require(added.id)
        let reply = try #require(try doc.annotation(addedID))
        let addedState = try doc.addStateReply(to: pid, author: "Bob", model: .review, state: "Accepted")
        let stateID = try #require(addedState.id)
        let state = try #require(try doc.annotation(stateID))
        return (doc, p, reply, state)
    }

    @Test func deletingAParentChangesNoReplysRecord() throws {
        let (doc, parent, reply, state) = try thread()
        let before = try records(doc)
        try doc.deleteAnnotation(try #require(parent.id))
        let after = try records(doc)
        #expect(after["parent"] == nil)
        for r in [reply, state] {
            let id = try #require(r.name)
            #expect(after[id] == before[id], "the record of \(id) changed: \(after[id] ?? "absent") / \(before[id] ?? "absent")")
            let rid = try #require(r.id)
            let now = try #require(try doc.annotation(rid))
            #expect(now.inReplyTo == nil && now.inReplyToID == "parent" && now.isReply)
            #expect(now.modificationDate == r.modificationDate, "a deletion stamps no /M on another annotation")
        }
        #expect(after[try #require(state.name)]?.contains("\"state\":\"Accepted\"") == true)
        // The document's own export imports as a no-op, orphans included.
        let json = try doc.exportAnnotationsJSON(page: nil)
        _ = try doc.importAnnotationsJSON(json)
        #expect(try records(doc) == after)
        // Saved and opened again: still a reply to "parent".
        let reopened = try Document(data: doc.saved(.incremental))
        #expect(try records(reopened) == after)
    }

    @Test func deletingAPopupLeavesItsParentsRecord() throws {
        let doc = try blankDocument()
        let json = """
            {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
              {"v": 1, "type": "quire/generic", "id": "pop", "pageIndex": 0, "bbox": [300, 100, 200, 100], "quire": {"subtype": "Popup"}},
              {"v": 1, "type": "pspdfkit/note", "id": "note", "pageIndex": 0, "bbox": [10, 10, 20, 20], "text": "x", "quire": {"popup": "pop"}}]}
            """
        let stored = try doc.importAnnotationsJSON(Array(json.utf8))
        let before = try records(doc)
        try doc.deleteAnnotation(try #require(stored[0].id))
        let after = try records(doc)
        #expect(after["pop"] == nil)
        #expect(after["note"] == before["note"])
        #expect(after["note"]?.contains("\"popup\":\"pop\"") == true)
    }

    @Test func importKeepsOrRefusesALinkToAnAbsentID() throws {
        let doc = try blankDocument()
        let json = Array("""
            {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
              {"v": 1, "type": "pspdfkit/note", "id": "orphan", "pageIndex": 0, "bbox": [10, 10, 20, 20], "text": "x",
               "quire": {"inReplyTo": "gone", "replyType": "reply", "state": "Rejected", "stateModel": "Review"}}]}
            """.utf8)
        #expect(throws: PDFError.self) { _ = try doc.importAnnotationsJSON(json) }
        #expect(try records(doc).isEmpty, "a refused import changes nothing")
        _ = try doc.importAnnotationsJSON(json, missingLinks: .keep)
        let kept = try #require(try records(doc)["orphan"])
        #expect(kept.contains("\"inReplyTo\":\"gone\"") && kept.contains("\"state\":\"Rejected\""))
        // The target appearing again (an import creating "gone") makes the link an /IRT.
        let parent = Array("""
            {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
              {"v": 1, "type": "pspdfkit/note", "id": "gone", "pageIndex": 0, "bbox": [40, 40, 20, 20], "text": "back"}]}
            """.utf8)
        let back = try doc.importAnnotationsJSON(parent)
        let orphan = try #require(try doc.annotations(onPage: 0).first { $0.name == "orphan" })
        #expect(orphan.inReplyTo == back[0].id && orphan.inReplyToID == nil)
        #expect(try records(doc)["orphan"] == kept)
    }
}
