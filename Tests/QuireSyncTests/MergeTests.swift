import QuireConvergence
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Synchronization
import Testing

// Field-level merge (issue 33, docs/sync-protocol.md "Field-level merge"): a put that names
// the fields it changed merges with concurrent changes of other fields; only the same
// field changed concurrently is a conflict, and the first writer of it wins.

@Suite struct FieldRules {
    func object(_ text: String) throws -> [String: InstantJSONValue] {
        try #require(try InstantJSONValue(parsing: Array(text.utf8)).objectValue)
    }

    @Test func fieldsGroupTheKeysThatHoldOneValue() throws {
        let a = try object(##"{"id":"n","type":"pspdfkit/note","pageIndex":0,"bbox":[1,1,2,2],"text":"x","color":"#FF0000","updatedAt":"t1","quire":{"pdfRect":[1,1,2,2],"modificationDate":"D:1"}}"##)
        var b = a
        b["bbox"] = .array([.integer(5), .integer(5), .integer(6), .integer(6)])
        b["updatedAt"] = .string("t2")
        #expect(RecordFields.changed(from: a, to: b) == ["geometry"])  // stamps are no field
        b["quire"] = .object(["pdfRect": .array([]), "modificationDate": .string("D:2"), "state": .string("Accepted")])
        #expect(RecordFields.changed(from: a, to: b) == ["geometry", "state"])
        b["color"] = nil
        b["opacity"] = .integer(1)
        #expect(RecordFields.changed(from: a, to: b) == ["geometry", "state", "colour", "opacity"])
        #expect(RecordFields.field(ofKey: "id") == nil && RecordFields.field(ofKey: "pageIndex") == nil)
        #expect(RecordFields.field(ofKey: "quire.richText") == "text" && RecordFields.field(ofKey: "v") == "text")
        #expect(RecordFields.field(ofKey: "somethingNew") == "somethingNew")
    }

    @Test func takingAFieldTakesAllItsKeysAndTheStamps() throws {
        let base = try object(##"{"id":"n","text":"old","color":"#FF0000","updatedAt":"t1","quire":{"pdfRect":[1,1,2,2],"contents":"old"}}"##)
        let mine = try object(##"{"id":"n","text":"new","updatedAt":"t2","quire":{"pdfRect":[9,9,9,9],"contents":"new"}}"##)
        let merged = RecordFields.taking(["text"], from: mine, into: base)
        #expect(merged["text"] == .string("new") && merged["quire"]?["contents"] == .string("new"))
        #expect(merged["color"] == .string("#FF0000"))             // not taken: colour
        #expect(merged["quire"]?["pdfRect"] == base["quire"]?["pdfRect"])  // not taken: geometry
        #expect(merged["updatedAt"] == .string("t2"))
        // Taking a field the source lacks removes it.
        let removed = RecordFields.taking(["colour"], from: mine, into: base)
        #expect(removed["color"] == nil && removed["text"] == .string("old"))
        #expect(RecordFields.taking([], from: mine, into: base) == base)
    }

    /// A merge that takes the last key out of `quire` leaves no empty `quire`: the
    /// annotation JSON has none, so the merged record would differ from every client's
    /// (the harness's long run, schedules 337, 505 and 1441 of seed 1).
    @Test func aMergeLeavesNoEmptyQuire() throws {
        let base = try object(##"{"id":"n","text":"old","quire":{"modificationDate":"D:1"}}"##)
        let mine = try object(##"{"id":"n","text":"new"}"##)
        let merged = RecordFields.taking(["text"], from: mine, into: base)
        #expect(merged["quire"] == nil && merged["text"] == .string("new"), "\(merged)")
    }
}

/// An annotation object that two pages list, given to one page as its own copy.
@Suite struct SharedAnnotationObjects {
    func ids(_ doc: Document) throws -> [String: Int] {
        var out: [String: Int] = [:]
        let v = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
        for item in v["annotations"]?.arrayValue ?? [] {
            if let id = item["id"]?.stringValue { out[id] = Int(item["pageIndex"]?.integerValue ?? -1) }
        }
        return out
    }

    func link(_ doc: Document, page: Int) throws -> Annotation {
        try #require(try doc.annotations(onPage: page).first { $0.subtype == "Link" })
    }

    /// Every record keeps its id whichever listing is separated, and after the other is
    /// deleted; a reply on the separated page still answers its page's listing.
    @Test func recordsKeepTheirIdsAndRepliesFollowTheCopy() throws {
        for page in [0, 1] {
            let doc = try Document(data: startingPDF())
            let object = try #require(try link(doc, page: 0).id)
            #expect(try link(doc, page: 1).id == object)
            let before = try ids(doc)
            let second = try #require(before.keys.first { $0.contains("#") })
            let first = String(second.prefix { $0 != "#" })
            #expect(before[first] == 0 && before[second] == 1)
            // A reply on page 2 to the object (addReply puts a reply on its target's first page).
            let pageTwo = try doc.page(at: 1)
            let replyObject = try doc.addObject(.dictionary(PDFDictionary([
                ("Type", .name("Annot")), ("Subtype", .name("Text")), ("Rect", .array([.integer(60), .integer(60), .integer(80), .integer(80)])),
                ("NM", .string(PDFString(text: "reply-two"))), ("Contents", .string(PDFString(text: "on page two"))),
                ("IRT", .reference(object)), ("P", .reference(try #require(pageTwo.id))),
            ])))
            let annots = try pageTwo.dictionary["Annots"].map { try doc.resolve($0) }?.array ?? []
            try doc.setValue(.array(annots + [.reference(replyObject)]), forKey: "Annots", inObject: try #require(pageTwo.id).number)
            let reply = try #require(try doc.annotations(onPage: 1).first { $0.contents == "on page two" })
            let replyBefore = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
            let copy = try #require(try doc.separateSharedAnnotation(object.number, onPage: page))
            #expect(try link(doc, page: page).id == copy && link(doc, page: 1 - page).id == object)
            #expect(try ids(doc).filter { $0.key != "reply-two" } == before)
            // The reply on page 1 answers page 1's listing, copy or not.
            let replyAfter = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
            func parent(_ v: InstantJSONValue) -> String? {
                v["annotations"]?.arrayValue?.first { $0["name"]?.stringValue == reply.name }?["quire"]?["inReplyTo"]?.stringValue
            }
            #expect(parent(replyAfter) == second && parent(replyBefore) == second)
            #expect(try doc.separateSharedAnnotation(object.number, onPage: page) == nil)  // listed once now
            // Deleting the other listing leaves this one its id.
            try doc.deleteAnnotation(try #require(try link(doc, page: 1 - page).id))
            let after = try ids(doc)
            #expect(after[page == 0 ? first : second] == page && after[page == 0 ? second : first] == nil, "\(after)")
        }
    }
}

@Suite(.serialized) struct FieldLevelMerge {
    func result(_ r: SyncResponse, _ i: Int = 0) throws -> InstantJSONValue {
        #expect(r.status == 200, "\(text(r))")
        return try #require(json(r)["results"]?[i])
    }

    @Test func differentFieldsBothApplyTheSameFieldGoesToTheFirst() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        #expect(try result(try await h.push([putNote(1, id: "n1", text: "start")]))["status"]?.stringValue == "accepted")
        // A changes the text (on revision 1, the current one).
        var r = try result(try await h.push([putNote(1, id: "n1", base: 1, text: "A's text", fields: ["text"])], client: "a", version: 2))
        #expect(r["status"]?.stringValue == "accepted" && r["revision"]?.integerValue == 2 && r["record"] == nil)
        // B, also on revision 1, changes the colour: merged with A's text.
        r = try result(try await h.push([putNote(1, id: "n1", base: 1, text: "start", extra: ##", "color": "#FF0000""##,
                                                 fields: ["colour"])], client: "b", version: 2))
        #expect(r["status"]?.stringValue == "accepted" && r["revision"]?.integerValue == 3)
        #expect(r["record"]?["text"]?.stringValue == "A's text" && r["record"]?["color"]?.stringValue == "#FF0000")
        #expect(r["dropped_fields"]?.arrayValue == [])
        // C, on revision 1, changes the text too: A was first.
        r = try result(try await h.push([putNote(1, id: "n1", base: 1, text: "C's text", fields: ["text"])], client: "c", version: 2))
        #expect(r["status"]?.stringValue == "rejected" && r["reason"]?.stringValue == "conflict")
        #expect(r["fields"]?.arrayValue?.compactMap(\.stringValue) == ["text"])
        #expect(r["current"]?["text"]?.stringValue == "A's text" && r["current_revision"]?.integerValue == 3)
        // D, on revision 2, changes the colour (B changed it at 3) and the opacity: the
        // opacity applies, the colour is dropped and named.
        r = try result(try await h.push([putNote(1, id: "n1", base: 2, text: "A's text", extra: ##", "color": "#0000FF", "opacity": 0.5"##,
                                                 fields: ["colour", "opacity"])], client: "d", version: 2))
        #expect(r["status"]?.stringValue == "accepted" && r["revision"]?.integerValue == 4)
        #expect(r["dropped_fields"]?.arrayValue?.compactMap(\.stringValue) == ["colour"])
        #expect(r["record"]?["color"]?.stringValue == "#FF0000" && r["record"]?["opacity"] != nil)
        // The same push again: the same answer (idempotent).
        let again = try result(try await h.push([putNote(1, id: "n1", base: 2, text: "A's text", extra: ##", "color": "#0000FF", "opacity": 0.5"##,
                                                     fields: ["colour", "opacity"])], client: "d", version: 2))
        #expect(again == r)
        // The layer holds the merge, and the feed carries it.
        let layer = try await h.layer()
        let stored = try #require(layer["records"]?.arrayValue?.first { $0["record"]?["id"]?.stringValue == "n1" })
        #expect(stored["revision"]?.integerValue == 4 && stored["record"] == r["record"])
        let token = try await sign(claims())
        let feed = try json(await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "3"]))
        #expect(feed["changes"]?[0]?["record"] == r["record"])
    }

    @Test func withoutFieldsTheWholeRecordRuleStays() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        _ = try await h.push([putNote(1, id: "n1")])
        _ = try await h.push([putNote(2, id: "n1", base: 1, text: "second")])
        // Version 1 (an old client): a stale base is a conflict, even for another field.
        var r = try result(try await h.push([putNote(1, id: "n1", base: 1, extra: ##", "color": "#FF0000""##)], client: "old", version: nil))
        #expect(r["status"]?.stringValue == "rejected" && r["fields"] == nil)
        // Version 1 knows no "fields".
        let refused = try await h.push([putNote(2, id: "n1", base: 2, fields: ["text"])], client: "old", version: nil)
        #expect(refused.status == 400 && errorCode(refused) == "unknown_field")
        // Version 2 without fields: the same whole-record rule.
        r = try result(try await h.push([putNote(1, id: "n1", base: 1, extra: ##", "color": "#FF0000""##)], client: "new", version: 2))
        #expect(r["status"]?.stringValue == "rejected")
        // A delete on a stale base is a conflict (the edit made since is kept), and a put
        // on a deleted record is a conflict (the delete was first), fields or not.
        r = try result(try await h.push([deleteMutation(2, id: "n1", base: 1)], client: "new", version: 2))
        #expect(r["status"]?.stringValue == "rejected")
        _ = try await h.push([deleteMutation(3, id: "n1", base: 2)])
        r = try result(try await h.push([putNote(3, id: "n1", base: 2, text: "late", fields: ["text"])], client: "new", version: 2))
        #expect(r["status"]?.stringValue == "rejected" && r["current"] == .null)
        // Bad versions and fields.
        for body in [##"{"v": 3, "client_id": "x", "mutations": []}"##,
                     ##"{"v": 2, "client_id": "x", "mutations": [{"client_seq": 1, "op": "delete", "id": "n1", "base_revision": 2, "fields": ["text"]}]}"##,
                     ##"{"v": 2, "client_id": "x", "mutations": [{"client_seq": 1, "op": "put", "id": "n1", "base_revision": 2, "fields": [1], "record": {}}]}"##] {
            let token = try await sign(claims())
            let bad = await h.client("POST", "/documents/doc/layers/main/mutations", token: token, body: Array(body.utf8))
            #expect(bad.status == 400, "\(body)")
        }
    }

    /// A merge that would make a record the model refuses is refused too: the merged record
    /// is checked like any other.
    @Test func theMergedRecordIsChecked() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        _ = try await h.push([putNote(1, id: "p1"), putNote(2, id: "n1")])
        _ = try await h.push([putNote(3, id: "n1", base: 2, text: "changed")])   // n1 at 3
        _ = try await h.push([deleteMutation(4, id: "p1", base: 1)])             // p1 gone at 4
        // A reply to p1, made on n1's revision 2, before p1 went: a merge (the text changed
        // since), and the merged record's new link names a record that is gone.
        let r = try result(try await h.push([putNote(1, id: "n1", base: 2, extra: ##", "quire": {"inReplyTo": "p1"}"##,
                                                     fields: ["reply"])], client: "b", version: 2))
        #expect(r["status"]?.stringValue == "rejected" && r["reason"]?.stringValue == "invalid", "\(r)")
        #expect(r["message"]?.stringValue?.contains("inReplyTo") == true)
    }
}

/// Changes the colour (/C) of annotation `name`.
func setColour(_ d: SyncDescriptor, _ name: String, _ colour: [Double]) throws {
    try editAnnotation(d, name) { $0.color = colour }
}

@Suite("Field-level merge between clients", .serialized)
struct ClientMerge {
    /// Two users change different things of one annotation offline: both keep their change,
    /// and both end with the server's record. The same thing: the first wins, the other is
    /// told which field it lost.
    @Test func offlineEditsOfDifferentFieldsBothSurvive() async throws {
        let h = try await Harness()
        let dirA = try TempDir(), dirB = try TempDir()
        defer { dirA.remove(); dirB.remove() }
        let logA = EventLog(), logB = EventLog()
        let transport = SwitchableTransport(h.service)
        let clientA = try makeClient(h, transport, dirA.path, log: logA)
        let clientB = try makeClient(h, transport, dirB.path, log: logB)
        let token = try await sign(claims())
        try await offload {
            let a = try downloaded(clientA, token: token)
            let b = try downloaded(clientB, token: token)
            transport.online.withLock { $0 = false }
            try setContents(a, "sq-1", "A's words")
            try setColour(b, "sq-1", [0, 0, 1])
            transport.online.withLock { $0 = true }
            try a.syncNow()
            try b.syncNow()
            try a.syncNow()
            #expect(!logB.contains("changeDropped"), "\(logB.all)")
        }
        var server = try await serverRecords(h)
        let merged = try #require(server["sq-1"])
        #expect(merged.contains("A's words") && merged.contains("#0000FF"), "\(merged)")
        #expect(try localRecords(clientA.descriptor(forJWT: token)) == server)
        #expect(try localRecords(clientB.descriptor(forJWT: token)) == server)

        // The same field offline on both: A's (first) stays, B is told "text" lost, and
        // B's other change of the same edit session (the colour) still goes.
        try await offload {
            let a = try clientA.descriptor(forJWT: token), b = try clientB.descriptor(forJWT: token)
            transport.online.withLock { $0 = false }
            try setContents(a, "sq-1", "A again")
            try setContents(b, "sq-1", "B's words")
            try setColour(b, "sq-1", [0, 1, 0])
            transport.online.withLock { $0 = true }
            try a.syncNow()
            try b.syncNow()
            try a.syncNow()
        }
        #expect(logB.contains("changeDropped sq-1 conflict"), "\(logB.all)")
        server = try await serverRecords(h)
        let second = try #require(server["sq-1"])
        #expect(second.contains("A again") && !second.contains("B's words") && second.contains("#00FF00"), "\(second)")
        #expect(try localRecords(clientA.descriptor(forJWT: token)) == server)
        #expect(try localRecords(clientB.descriptor(forJWT: token)) == server)
        clientA.close(); clientB.close()
        await h.finish()
    }

    /// One object that two pages list is two records (`L` and `L#1`); the layer may hold
    /// them with different values (two users each edited one). The client's document shows
    /// both: the page whose record changes gets its own copy of the object (it ended with
    /// both pages showing one value: found by the harness's long run, schedules 8249 and
    /// 9300 of seed 1).
    @Test func twoRecordsOfOneObjectMayDiffer() async throws {
        let h = try await Harness(upload: false)
        let up = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: try startingPDF())
        #expect(up.status == 201, "\(text(up))")
        let dir = try TempDir()
        defer { dir.remove() }
        let log = EventLog()
        let transport = SwitchableTransport(h.service)
        let client = try makeClient(h, transport, dir.path, log: log)
        let token = try await sign(claims())
        let records = try await serverRecords(h)
        let second = try #require(records.keys.first { $0.contains("#") })
        let first = String(second.prefix { $0 != "#" })
        let layer = try await h.layer()
        let revision = try #require(layer["records"]?.arrayValue?.first { $0["record"]?["id"]?.stringValue == second }?["revision"]?.integerValue)
        let before = try #require(layer["records"]?.arrayValue?.first { $0["record"]?["id"]?.stringValue == second }?["record"])
        try await offload {
            let d = try downloaded(client, token: token)
            #expect(try localRecords(d) == records)
            _ = d
        }
        // Another user changes the second page's record only.
        guard case .object(var fields) = before else { Issue.record("not an object"); return }
        fields["note"] = .string("page two only")
        let put = "{\"client_seq\": 1, \"op\": \"put\", \"id\": \"\(second)\", \"base_revision\": \(revision), \"record\": \(InstantJSONValue.object(fields).canonicalText)}"
        let r = try await h.push([put], client: "other")
        #expect(text(r).contains("accepted"), "\(text(r))")
        let server = try await serverRecords(h)
        #expect(server[second] != server[first])
        try await offload {
            let d = try client.descriptor(forJWT: token)
            try d.syncNow()
            #expect(try localRecords(d) == server)
            // And the copy is the page's own: an edit of the first page's record changes it alone.
            try d.withDocument { doc in
                for var a in try doc.annotations(onPage: 0) where a.subtype == "Link" {
                    a.contents = "page one only"
                    try doc.updateAnnotation(a)
                }
            }
            try d.syncNow()
            #expect(try d.pendingChanges() == 0)
        }
        let end = try await serverRecords(h)
        #expect(end[first]?.contains("page one only") == true && end[second]?.contains("page two only") == true, "\(end)")
        #expect(try localRecords(client.descriptor(forJWT: token)) == end)
        #expect(!log.contains("changeDropped"), "\(log.all)")
        client.close()
        await h.finish()
    }
}
