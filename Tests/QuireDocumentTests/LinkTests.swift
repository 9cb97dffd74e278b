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
        // XFDF names the parent too, and its own export imports again without an error.
        let xfdf = try doc.exportXFDF()
        #expect(xfdf.contains("inreplyto=\"parent\""))
        _ = try doc.importXFDF(Array(xfdf.utf8))
        let again = try records(doc)
        for r in [reply, state] {
            let id = try #require(r.name)
            #expect(again[id]?.contains("\"inReplyTo\":\"parent\"") == true)
        }
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
        _ = try doc.importAnnotationsJSON(json, options: AnnotationImportOptions(missingLinks: .keep))
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

@Suite("Record ids")
struct RecordIDTests {
    /// Two notes with one /NM, a link that two pages list, a square without /NM.
    func awkward() throws -> Document {
        let doc = try blankDocument(pages: 2)
        func object(_ subtype: PDFName, _ extra: [(PDFName, PDFObject)]) throws -> PDFObject {
            .reference(try doc.addObject(.dictionary(PDFDictionary([
                ("Type", .name("Annot")), ("Subtype", .name(subtype)),
                ("Rect", .array([.integer(10), .integer(10), .integer(30), .integer(30)])),
            ] + extra))))
        }
        let link = try object("Link", [])
        let square = try object("Square", [])
        let twin1 = try object("Text", [("NM", .string(PDFString(text: "twin")))])
        let twin2 = try object("Text", [("NM", .string(PDFString(text: "twin")))])
        for (index, added) in [(0, [link, square, twin1]), (1, [link, twin2])] {
            let page = try doc.page(at: index)
            try doc.setValue(.array(added), forKey: "Annots", inObject: try #require(page.id).number)
        }
        return doc
    }

    func ids(_ doc: Document) throws -> [String] {
        let v = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
        guard case .object(let top) = v, case .array(let items)? = top["annotations"] else { return [] }
        return items.compactMap { item in
            if case .object(let f) = item, case .string(let id)? = f["id"] { return id }
            return nil
        }
    }

    @Test func idsOfDuplicatesAndSharedObjectsAndTheirPins() throws {
        let doc = try awkward()
        let before = try ids(doc)
        let numbers = try doc.allAnnotations().compactMap { $0.id?.number }
        let link = numbers[0], twin2 = numbers[4]
        // The second listing of the link is "N#1" (its page, not its place), the second
        // twin its object number.
        #expect(before == ["\(link)", "\(numbers[1])", "twin", "\(link)#1", "\(twin2)"])
        // Pinned, the second twin keeps its id when the first goes.
        #expect(try doc.pinAnnotationRecordIDs() == 1)
        let first = try #require(try doc.allAnnotations().first { $0.name == "twin" && $0.pageIndex == 0 }?.id)
        try doc.deleteAnnotation(first)
        #expect(try ids(doc) == ["\(link)", "\(numbers[1])", "\(link)#1", "\(twin2)"])
        // The link, through its second listing: updated, and both records say so.
        var second = try #require(try doc.annotations(onPage: 1).first { $0.id?.number == link })
        second.contents = "seen from page 2"
        try doc.updateAnnotation(second)
        let v = try String(decoding: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false), as: UTF8.self)
        #expect(v.ranges(of: "seen from page 2").count == 2)
        // Deleted, it leaves both pages' /Annots.
        try doc.deleteAnnotation(try #require(second.id))
        #expect(try ids(doc) == ["\(numbers[1])", "\(twin2)"])
        for index in 0..<2 {
            let annots = try doc.page(at: index).dictionary["Annots"].map { try doc.resolve($0) }?.array ?? []
            #expect(!annots.contains { $0.reference?.number == link })
        }
    }

    @Test func exactRecordsComeBackAsTheyWere() throws {
        let doc = try blankDocument()
        // Records a synced layer may hold: one without `name`, one whose name differs from
        // its id, a reply to the first by id.
        let json = Array("""
            {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
              {"v": 1, "type": "pspdfkit/note", "id": "67", "pageIndex": 0, "bbox": [10, 10, 20, 20], "text": "no name"},
              {"v": 1, "type": "pspdfkit/note", "id": "rec-2", "name": "other-name", "pageIndex": 0, "bbox": [40, 10, 20, 20], "text": "named"},
              {"v": 1, "type": "pspdfkit/note", "id": "rep", "name": "rep", "pageIndex": 0, "bbox": [70, 10, 20, 20], "text": "reply",
               "quire": {"inReplyTo": "67", "replyType": "reply"}}]}
            """.utf8)
        _ = try doc.importAnnotationsJSON(json, options: .synced)
        let v = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
        guard case .object(let top) = v, case .array(let items)? = top["annotations"] else { Issue.record("no annotations"); return }
        var byID: [String: [String: InstantJSONValue]] = [:]
        for item in items { if case .object(let f) = item, case .string(let id)? = f["id"] { byID[id] = f } }
        #expect(Set(byID.keys) == ["67", "rec-2", "rep"])
        #expect(byID["67"]?["name"] == nil, "a record without name stays without one")
        #expect(byID["rec-2"]?["name"] == .string("other-name"))
        if case .object(let q)? = byID["rep"]?["quire"] { #expect(q["inReplyTo"] == .string("67")) } else { Issue.record("no quire") }
        // Imported again, exactly, nothing changes.
        let again = try doc.exportAnnotationsJSON(page: nil, prettyPrinted: false)
        var stripped: [InstantJSONValue] = []
        for item in items {
            guard case .object(var f) = item else { continue }
            f["pdfObjectId"] = nil
            stripped.append(.object(f))
        }
        let records = InstantJSONValue.object(["format": .string(InstantJSONDocument.instantJSONFormat), "annotations": .array(stripped)])
        _ = try doc.importAnnotationsJSON(Array(records.canonicalText.utf8), options: .synced)
        #expect(try doc.exportAnnotationsJSON(page: nil, prettyPrinted: false) == again)
    }
}

extension RecordIDTests {
    @Test func undoingTheDeletionOfAnObjectOnTwoPagesListsItOnBoth() throws {
        let doc = try awkward()
        let before = try ids(doc)
        let link = try #require(try doc.allAnnotations().first?.id)
        let tm = ToolManager(document: doc)
        tm.select(link)
        try tm.deleteSelection()
        #expect(!(try ids(doc)).contains("\(link.number)"))
        #expect(try tm.undo())
        #expect(try ids(doc) == before)
        #expect(try tm.redo())
        #expect(try tm.undo())
        #expect(try ids(doc) == before)
    }
}
