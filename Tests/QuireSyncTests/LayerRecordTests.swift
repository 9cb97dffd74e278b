import Crypto
import FoundationEssentials
import QuireConvergence
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Synchronization
import Testing

// Form field values and user bookmarks as records of a layer (issue 33, docs/sync-
// protocol.md "What a layer holds"), on the convergence harness's starting PDF: its page 3
// has a text field "name" (/MaxLen 24), a check box "agree" (Yes/Off), a multi-select list
// box "fruit" (Apple, Banana, Cherry) and a read-only text field "locked".

func putRecord(_ seq: Int, _ record: String, id: String, base: Int64? = nil, fields: [String]? = nil) -> String {
    let named = fields.map { ", \"fields\": [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
    return
        "{\"client_seq\": \(seq), \"op\": \"put\", \"id\": \"\(id)\", \"base_revision\": \(base.map(String.init) ?? "null")\(named), \"record\": \(record)}"
}

func formValue(_ name: String, _ value: String?) -> String {
    "{\"v\": 1, \"type\": \"pspdfkit/form-field-value\", \"id\": \"pspdfkit/form-field-value/\(name)\", \"name\": \"\(name)\""
        + (value.map { ", \"value\": \($0)" } ?? "") + "}"
}

@Suite(.serialized) struct LayerRecordRules {
    func harness() async throws -> Harness {
        let h = try await Harness(upload: false)
        let up = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: try startingPDF())
        #expect(up.status == 201, "\(text(up))")
        return h
    }

    func results(_ r: SyncResponse) throws -> [InstantJSONValue] {
        #expect(r.status == 200, "\(text(r))")
        return try json(r)["results"]?.arrayValue ?? []
    }

    /// The forms model's rules, from the server: a refused value refuses the push (422
    /// `invalid_record` naming each mutation with the model's message), and nothing is
    /// stored; the accepted ones are as export writes them.
    @Test func formValuesFollowTheFormsModel() async throws {
        let h = try await harness()
        let key = "pspdfkit/form-field-value/"
        let refused: [(String, String, String)] = [
            ("name", "\"" + String(repeating: "x", count: 25) + "\"", "takes at most 24 characters (/MaxLen)"),
            ("locked", "\"changed\"", "is read-only"),
            ("agree", "[\"Maybe\"]", "\"Maybe\" is not a state of field \"agree\""),
            ("agree", "\"Yes\"", "takes this value as [\"Yes\"]"),
            ("fruit", "[\"Durian\"]", "\"Durian\" is not an option of field \"fruit\""),
            ("nothing", "\"x\"", "the document has no field \"nothing\""),
        ]
        let r = refusedMutations(
            try await h.push(refused.enumerated().map { i, x in putRecord(i + 1, formValue(x.0, x.1), id: key + x.0) })
        )
        #expect(r.count == refused.count)
        for (i, x) in refused.enumerated() {
            #expect(r[Int64(i + 1)]?["message"]?.stringValue?.contains(x.2) == true, "\(r)")
        }
        #expect(
            try await h.layer()["records"]?.arrayValue?.contains {
                $0["record"]?["id"]?.stringValue?.hasPrefix(key) == true
            } == false
        )
        let accepted = try results(
            await h.push([
                putRecord(10, formValue("name", "\"Ada\""), id: key + "name"),
                putRecord(11, formValue("agree", "[\"Yes\"]"), id: key + "agree"),
                putRecord(12, formValue("fruit", "[\"Apple\", \"Cherry\"]"), id: key + "fruit"),
                putRecord(13, formValue("locked", "\"fixed\""), id: key + "locked"),  // its own value: not a change
            ])
        )
        #expect(
            accepted.map { $0["status"]?.stringValue } == ["accepted", "accepted", "accepted", "accepted"],
            "\(accepted)"
        )
        // An annotation may not take a form value's key; a form value's id is its field's.
        let odd = refusedMutations(
            try await h.push([
                putNote(20, id: key + "nothing"),
                putRecord(
                    21,
                    formValue("name", "\"x\"").replacing("\"id\": \"\(key)name\"", with: "\"id\": \"n\""),
                    id: "n"
                ),
            ])
        )
        #expect(odd.keys.sorted() == [20, 21], "\(odd)")
        // The export: the values set through the forms model, with appearances.
        let pdf = await h.admin("GET", "/admin/documents/doc/layers/main/pdf")
        #expect(pdf.status == 200, "\(text(pdf))")
        let doc = try Document(data: pdf.body)
        #expect(try doc.formField(named: "name").values == ["Ada"])
        #expect(try doc.formField(named: "agree").values == ["Yes"])
        #expect(try doc.formField(named: "fruit").values == ["Apple", "Cherry"])
        #expect(try doc.formField(named: "locked").values == ["fixed"])
        await h.finish()
    }

    /// Bookmarks: the shape is checked; different fields of one bookmark merge; the export
    /// makes them the PDF's user bookmarks and outline items.
    @Test func bookmarksAreCheckedMergedAndExported() async throws {
        let h = try await harness()
        func mark(_ id: String, _ name: String, page: Int, key: Int, extra: String = "") -> String {
            "{\"v\": 1, \"type\": \"pspdfkit/bookmark\", \"id\": \"\(id)\", \"name\": \"\(name)\", \"sortKey\": \(key), \"action\": {\"type\": \"goTo\", \"pageIndex\": \(page)}\(extra)}"
        }
        let bad = refusedMutations(
            try await h.push([
                putRecord(1, mark("b1", "far", page: 3, key: 0), id: "b1"),
                putRecord(2, mark("b2", "odd", page: 0, key: 0, extra: ", \"pageIndex\": 0"), id: "b2"),
            ])
        )
        #expect(bad.keys.sorted() == [1, 2], "\(bad)")
        #expect(bad[1]?["message"]?.stringValue?.contains("page 3 does not exist") == true)
        let made = try results(
            await h.push([
                putRecord(3, mark("b1", "One", page: 0, key: 0), id: "b1"),
                putRecord(4, mark("b2", "Two", page: 2, key: 1), id: "b2"),
            ])
        )
        let base = try #require(made.first?["revision"]?.integerValue)
        _ = try results(
            await h.push(
                [putRecord(5, mark("b1", "Renamed", page: 0, key: 0), id: "b1", base: base, fields: ["name"])],
                version: 2
            )
        )
        let moved = try results(
            await h.push(
                [putRecord(1, mark("b1", "One", page: 0, key: 7), id: "b1", base: base, fields: ["sortKey"])],
                client: "other",
                version: 2
            )
        )
        #expect(
            moved.first?["record"]?["name"]?.stringValue == "Renamed"
                && moved.first?["record"]?["sortKey"]?.integerValue == 7,
            "\(moved)"
        )
        let pdf = await h.admin("GET", "/admin/documents/doc/layers/main/pdf")
        #expect(pdf.status == 200, "\(text(pdf))")
        let doc = try Document(data: pdf.body)
        let marks = try doc.bookmarks.bookmarks(sortedBy: .custom)
        #expect(marks.map(\.identifier) == ["b2", "b1"] && marks.map(\.name) == ["Two", "Renamed"])
        #expect(marks.map(\.pageIndex) == [2, 0])
        let outline = try doc.outline().map(\.title)
        #expect(outline.suffix(2) == ["Two", "Renamed"], "\(outline)")
        await h.finish()
    }
}

@Suite("Form values and bookmarks between clients", .serialized)
struct ClientLayerRecords {
    /// A fill and a bookmark made on one client appear in the other's document; the same
    /// field filled offline on both: the first wins and the other is told it lost `value`.
    @Test func fillsAndBookmarksFollowTheUser() async throws {
        let h = try await Harness(upload: false)
        let up = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: try startingPDF())
        #expect(up.status == 201, "\(text(up))")
        let dirA = try TempDir()
        let dirB = try TempDir()
        defer {
            dirA.remove()
            dirB.remove()
        }
        let logA = EventLog()
        let logB = EventLog()
        let transport = SwitchableTransport(h.service)
        let clientA = try makeClient(h, transport, dirA.path, log: logA)
        let clientB = try makeClient(h, transport, dirB.path, log: logB)
        let token = try await sign(claims())
        let identifier = "bm-form"
        try await offload {
            let a = try downloaded(clientA, token: token)
            let b = try downloaded(clientB, token: token)
            try a.withDocument { doc in
                try doc.setFieldValue("Ada", named: "name")
                try doc.setFieldValues(["Banana"], of: try doc.formField(named: "fruit"))
                try doc.bookmarks.add(Bookmark(identifier: identifier, action: .goTo(pageIndex: 2), name: "the form"))
            }
            try a.syncNow()
            try b.syncNow()
            try b.withDocument { doc in
                #expect(try doc.formField(named: "name").values == ["Ada"])
                #expect(try doc.formField(named: "fruit").values == ["Banana"])
                let marks = try doc.bookmarks.bookmarks()
                #expect(
                    marks.map(\.identifier) == [identifier] && marks.first?.name == "the form"
                        && marks.first?.pageIndex == 2
                )
            }
            // B renames the bookmark, A removes nothing: A sees the new name.
            try b.withDocument { doc in
                var mark = try #require(try doc.bookmarks.bookmark(identifier: identifier))
                mark.name = "renamed"
                try doc.bookmarks.add(mark)
            }
            try b.syncNow()
            try a.syncNow()
            let name = try a.withDocument { doc in try doc.bookmarks.bookmark(identifier: identifier)?.name }
            #expect(name == "renamed")
            // The same field offline on both.
            transport.online.withLock { $0 = false }
            try a.withDocument { doc in try doc.setFieldValue("Grace", named: "name") }
            try b.withDocument { doc in try doc.setFieldValue("Barbara", named: "name") }
            transport.online.withLock { $0 = true }
            try a.syncNow()
            try b.syncNow()
            try a.syncNow()
            let value = try b.withDocument { doc in try doc.formField(named: "name").values }
            #expect(value == ["Grace"])
        }
        #expect(logB.contains("changeDropped pspdfkit/form-field-value/name conflict"), "\(logB.all)")
        #expect(!logA.contains("changeDropped"), "\(logA.all)")
        let server = try await serverRecords(h)
        #expect(server["pspdfkit/form-field-value/name"]?.contains("Grace") == true)
        for client in [clientA, clientB] {
            let d = try client.descriptor(forJWT: token)
            var stored: [String: String] = [:]
            for r in try d.records() { stored[r.id] = String(decoding: r.json, as: UTF8.self) }
            #expect(stored == server)
            // Its document shows every one: annotations, the form values the layer has, the bookmark.
            var shown = try localRecords(d)
            try d.withDocument { doc in
                for value in doc.formFieldValueRecords() {
                    let record = LayerRecords.record(value)
                    if let id = record["id"]?.stringValue, server[id] != nil { shown[id] = record.canonicalText }
                }
                for b in try doc.bookmarks.bookmarks() { shown[b.identifier] = LayerRecords.record(b)?.canonicalText }
            }
            #expect(shown == server)
        }
        clientA.close()
        clientB.close()
        await h.finish()
    }
}

@Suite("Attachments", .serialized)
struct AttachmentTests {
    /// The limit is `max_attachment_bytes` (413), the id the hash (400), and an image record
    /// needs its attachment; a stamp made on one client shows its image on another.
    @Test func imagesAreUploadedOnceAndFollowTheirRecords() async throws {
        var limits = SyncLimits()
        limits.maxAttachmentBytes = 200
        let h = try await Harness(limits: limits, upload: false)
        let up = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: try startingPDF())
        #expect(up.status == 201, "\(text(up))")
        let token = try await sign(claims())
        let png = testPNG(shade: 2)
        let sha = hexSHA256(png)
        func put(_ body: [UInt8], _ id: String = sha) async -> SyncResponse {
            await h.client(
                "PUT",
                "/documents/doc/attachments/\(id)",
                token: token,
                body: body,
                headers: [("Content-Type", "image/png")]
            )
        }
        let big = png + [UInt8](repeating: 0, count: 300)
        #expect(await put(big, hexSHA256(big)).status == 413)
        #expect(errorCode(await put(png + [0])) == "bad_request")
        #expect(await put(png).status == 201)
        #expect(await put(png).status == 200)
        // The record names it: created; one naming a missing image is not.
        func stamp(_ id: String, _ image: String) -> String {
            "{\"v\": 1, \"type\": \"pspdfkit/image\", \"id\": \"\(id)\", \"pageIndex\": 0, \"bbox\": [100, 100, 40, 30], \"imageAttachmentId\": \"\(image)\", \"contentType\": \"image/png\"}"
        }
        let missing = String(repeating: "a", count: 64)
        let refused = refusedMutations(
            try await h.push([putRecord(1, stamp("s1", sha), id: "s1"), putRecord(2, stamp("s2", missing), id: "s2")]),
            status: 409,
            code: "missing_attachment"
        )
        #expect(refused.keys.sorted() == [2] && refused[2]?["attachment"]?.stringValue == missing, "\(refused)")
        #expect(try await h.layer()["seq"]?.integerValue == 0)  // nothing applied, s1 neither
        let r = try json(await h.push([putRecord(1, stamp("s1", sha), id: "s1")]))["results"]?.arrayValue ?? []
        #expect(r.map { $0["status"]?.stringValue } == ["accepted"], "\(r)")

        // Between clients: A's stamp, B shows it with the same image.
        let dirA = try TempDir()
        let dirB = try TempDir()
        defer {
            dirA.remove()
            dirB.remove()
        }
        let transport = SwitchableTransport(h.service)
        let clientA = try makeClient(h, transport, dirA.path, log: EventLog())
        let clientB = try makeClient(h, transport, dirB.path, log: EventLog())
        let other = testPNG(shade: 3)
        try await offload {
            let a = try downloaded(clientA, token: token)
            let b = try downloaded(clientB, token: token)
            try a.withDocument { doc in
                var s = Annotation(
                    subtype: "Stamp",
                    pageIndex: 1,
                    rect: Rect(left: 100, bottom: 100, right: 140, top: 130)
                )
                s.name = "stamp-a"
                s.image = try Annotation.StampImage(bytes: other, contentType: "image/png")
                _ = try doc.addAnnotation(s)
            }
            try a.syncNow()
            try b.syncNow()
            let shown = try b.withDocument { doc in
                try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: 1, prettyPrinted: false))
            }
            let record = shown["annotations"]?.arrayValue?.first { $0["id"]?.stringValue == "stamp-a" }
            let id = hexSHA256(other)
            #expect(record?["imageAttachmentId"]?.stringValue == id)
            #expect(shown["attachments"]?[id]?["binary"]?.stringValue == Data(other).base64EncodedString())
        }
        let fetched = await h.client("GET", "/documents/doc/attachments/\(hexSHA256(other))", token: token)
        #expect(fetched.status == 200 && fetched.body == other)
        clientA.close()
        clientB.close()
        await h.finish()
    }
}

func hexSHA256(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
}
