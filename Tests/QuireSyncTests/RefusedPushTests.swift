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

// A push refused whole (docs/sync-protocol.md, "Refused pushes"; docs/sync-client.md): the
// client drops a record the server refuses on its own and pushes the rest, and uploads a
// missing attachment again instead of losing the change. The server is the real core in
// this process; the test's hand on the wire is SwitchableTransport.beforeSend.

/// Counts the requests of each kind that went through the hook.
final class RequestCounts: @unchecked Sendable {
    let counts = Mutex<[String: Int]>([:])
    func note(_ r: SyncRequest) -> Int {
        let key =
            r.method + " "
            + (r.path.hasSuffix("/mutations") ? "mutations" : r.path.contains("/attachments/") ? "attachment" : "other")
        return counts.withLock { c in
            c[key, default: 0] += 1
            return c[key] ?? 0
        }
    }
    subscript(_ key: String) -> Int { counts.withLock { $0[key] ?? 0 } }
}

/// The push's body with the record of mutation `id` moved to a page the PDF lacks: a
/// record the server refuses on its own (the client's model would not make one).
func spoilingRecord(_ id: String, in request: SyncRequest) -> SyncRequest {
    guard request.method == "POST", request.path.hasSuffix("/mutations"),
        case .object(var top)? = try? InstantJSONValue(parsing: request.body),
        case .array(var items)? = top["mutations"]
    else { return request }
    for (i, item) in items.enumerated() {
        guard case .object(var m) = item, m["id"]?.stringValue == id, case .object(var record)? = m["record"] else {
            continue
        }
        record["pageIndex"] = .integer(99)
        m["record"] = .object(record)
        items[i] = .object(m)
    }
    top["mutations"] = .array(items)
    var out = request
    out.body = InstantJSONValue.object(top).canonicalBytes
    return out
}

/// Adds an image stamp named `name` to page 1 of the descriptor's document.
func addStamp(_ d: SyncDescriptor, _ name: String, image: [UInt8]) throws {
    try d.withDocument { doc in
        var s = Annotation(subtype: "Stamp", pageIndex: 1, rect: Rect(left: 100, bottom: 100, right: 140, top: 130))
        s.name = name
        s.image = try Annotation.StampImage(bytes: image, contentType: "image/png")
        _ = try doc.addAnnotation(s)
    }
}

/// The admin API's collection of document "doc"'s attachments, sent from the hook.
func collectNow(_ transport: SwitchableTransport) -> [String] {
    let r = transport.inner.service.handleBlocking(
        SyncRequest(
            method: "POST",
            path: "/admin/documents/doc/attachments/collect",
            query: [:],
            headers: [("Authorization", "Token \(adminToken)")],
            body: []
        )
    )
    return (try? InstantJSONValue(parsing: r.body))?["collected"]?.arrayValue?.compactMap(\.stringValue) ?? []
}

/// A service and one client on it, through a transport the test holds: with `graceSeconds`,
/// on the convergence harness's starting PDF and that grace period of attachment
/// collection; without, on the annotated PDF and the default hour.
struct OneClient {
    let h: Harness
    let dir: TempDir
    let transport: SwitchableTransport
    let log = EventLog()
    let client: SyncClient
    let token: String

    init(graceSeconds: Int?) async throws {
        if let graceSeconds {
            var limits = SyncLimits()
            limits.attachmentGraceSeconds = graceSeconds
            h = try await Harness(limits: limits, upload: false)
            let up = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: try startingPDF())
            #expect(up.status == 201, "\(text(up))")
        } else {
            h = try await Harness()
        }
        dir = try TempDir()
        transport = SwitchableTransport(h.service)
        client = try makeClient(h, transport, dir.path, log: log)
        token = try await sign(claims())
    }
}

@Suite("Refused pushes and the client", .serialized)
struct RefusedPushTests {
    /// A record the server refuses on its own (422 invalid_record): the client drops that
    /// change alone, reports it, shows the server's records, and pushes the others; it
    /// does not retry the refused one.
    @Test func aRefusedRecordIsDroppedAndTheOthersPushed() async throws {
        let f = try await OneClient(graceSeconds: nil)
        defer { f.dir.remove() }
        let (h, transport, log, client, token) = (f.h, f.transport, f.log, f.client, f.token)
        let counts = RequestCounts()
        let refusals = Mutex(0)
        transport.beforeSend.withLock {
            $0 = { r in
                _ = counts.note(r)
                let spoiled = spoilingRecord("bad", in: r)
                if spoiled.body != r.body { refusals.withLock { $0 += 1 } }
                return spoiled
            }
        }
        try await offload {
            let d = try downloaded(client, token: token)
            _ = try note(d, "keep", "kept")
            _ = try note(d, "bad", "refused")
            try d.syncNow()
            #expect(try d.pendingChanges() == 0)
            #expect(log.all.filter { $0.hasPrefix("changeDropped") } == ["changeDropped bad invalid"], "\(log.all)")
            #expect(counts["POST mutations"] == 2 && refusals.withLock { $0 } == 1)
            try d.syncNow()  // nothing left to push: the refused change is not retried
            #expect(counts["POST mutations"] == 2)
        }
        let server = try await serverRecords(h)
        #expect(server["keep"] != nil && server["bad"] == nil)
        #expect(try localRecords(try client.descriptor(forJWT: token)) == server)
        client.close()
        await h.finish()
    }

    /// An attachment collected between its upload and the push (grace 0, the admin API's
    /// collection from the wire): the push answers 409 missing_attachment, the client
    /// uploads it again from its local store and pushes again, one mutation a push; nothing
    /// is lost.
    @Test func aCollectedAttachmentIsUploadedAgain() async throws {
        let f = try await OneClient(graceSeconds: 0)
        defer { f.dir.remove() }
        let (h, transport, log, client, token) = (f.h, f.transport, f.log, f.client, f.token)
        let png = testPNG(shade: 5)
        let sha = hexSHA256(png)
        let counts = RequestCounts()
        let collected = Mutex<[String]>([])
        transport.beforeSend.withLock {
            $0 = { r in
                if counts.note(r) == 1, r.method == "POST", r.path.hasSuffix("/mutations") {
                    let gone = collectNow(transport)
                    collected.withLock { $0 += gone }
                }
                return r
            }
        }
        try await offload {
            let d = try downloaded(client, token: token)
            try addStamp(d, "stamp", image: png)
            _ = try note(d, "beside", "pushed with it")
            try d.syncNow()
            #expect(try d.pendingChanges() == 0)
            #expect(!log.contains("changeDropped"), "\(log.all)")
            #expect(collected.withLock { $0 } == [sha])
            // The refused push, then one push a mutation (the stamp, the note); the image
            // uploaded twice (before the first push, and again after its refusal).
            #expect(counts["POST mutations"] == 3 && counts["PUT attachment"] == 2, "\(counts.counts.withLock { $0 })")
        }
        let server = try await serverRecords(h)
        #expect(server["stamp"]?.contains(sha) == true && server["beside"] != nil, "\(server)")
        let fetched = await h.client("GET", "/documents/doc/attachments/\(sha)", token: token)
        #expect(fetched.status == 200 && fetched.body == png)
        client.close()
        await h.finish()
    }

    /// Two new attachments in one push, on a server without a grace period: the second
    /// upload collects the first (no record names it yet), so the push is refused; the
    /// client uploads it again and pushes one mutation at a time, and both stamps arrive
    /// (the convergence harness found the two uploads collecting each other forever).
    @Test func twoNewAttachmentsOnAServerWithoutGrace() async throws {
        let f = try await OneClient(graceSeconds: 0)
        defer { f.dir.remove() }
        let (h, log, client, token) = (f.h, f.log, f.client, f.token)
        let images = [testPNG(shade: 8), testPNG(shade: 9)]
        try await offload {
            let d = try downloaded(client, token: token)
            try addStamp(d, "first", image: images[0])
            try addStamp(d, "second", image: images[1])
            try d.syncNow()
            #expect(try d.pendingChanges() == 0)
            #expect(!log.contains("changeDropped"), "\(log.all)")
        }
        let server = try await serverRecords(h)
        #expect(server["first"]?.contains(hexSHA256(images[0])) == true, "\(server)")
        #expect(server["second"]?.contains(hexSHA256(images[1])) == true, "\(server)")
        #expect(try localRecords(try client.descriptor(forJWT: token)) == server)
        client.close()
        await h.finish()
    }

    /// An attachment collected before every push: after three uploads again the sync
    /// fails and the change stays pending (no endless loop, nothing lost); the next sync
    /// without the collections pushes it. A client that holds no copy drops that change
    /// alone, reported, and pushes the others.
    @Test func anAttachmentThatCannotBeKeptEndsTheRetries() async throws {
        let f = try await OneClient(graceSeconds: 0)
        defer { f.dir.remove() }
        let (h, dir, transport, log, client, token) = (f.h, f.dir, f.transport, f.log, f.client, f.token)
        let png = testPNG(shade: 6)
        let sha = hexSHA256(png)
        let counts = RequestCounts()
        let collecting = Mutex(true)
        transport.beforeSend.withLock {
            $0 = { r in
                _ = counts.note(r)
                if collecting.withLock({ $0 }), r.method == "POST", r.path.hasSuffix("/mutations") {
                    _ = collectNow(transport)
                }
                return r
            }
        }
        try await offload {
            let d = try downloaded(client, token: token)
            try addStamp(d, "stamp", image: png)
            #expect(throws: SyncClientError.self) { try d.syncNow() }
            #expect(try d.pendingChanges() == 1)
            #expect(counts["POST mutations"] == 4 && counts["PUT attachment"] == 4, "\(counts.counts.withLock { $0 })")
            #expect(!log.contains("changeDropped"))
            collecting.withLock { $0 = false }
            try d.syncNow()
            #expect(try d.pendingChanges() == 0)

            // No copy to upload: that change goes, the note beside it stays.
            let other = testPNG(shade: 7)
            try addStamp(d, "lost", image: other)
            _ = try note(d, "beside", "pushed")
            // The client's copy of the image, in its data directory, goes.
            let copies = ((try? FileManager.default.subpathsOfDirectory(atPath: dir.path)) ?? [])
                .filter { $0.hasSuffix("/attachments/" + hexSHA256(other)) }
            #expect(copies.count == 1, "\(copies)")
            for copy in copies { try FileManager.default.removeItem(atPath: dir.path + "/" + copy) }
            collecting.withLock { $0 = true }
            try d.syncNow()
            #expect(try d.pendingChanges() == 0)
            #expect(log.all.filter { $0.hasPrefix("changeDropped") } == ["changeDropped lost invalid"], "\(log.all)")
        }
        let server = try await serverRecords(h)
        #expect(server["stamp"]?.contains(sha) == true && server["beside"] != nil && server["lost"] == nil, "\(server)")
        #expect(try localRecords(try client.descriptor(forJWT: token)) == server)
        client.close()
        await h.finish()
    }
}
