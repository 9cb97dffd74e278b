import FoundationEssentials
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSQLite
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Issue 30's defects, each as the issue reproduced it, against the real sync core in this
// process: clients that end clean with nothing pending must hold the server's records,
// byte for byte, in their store and in their document's export.

/// The descriptor's own records (its store's view), by id.
func storeRecords(_ d: SyncDescriptor) throws -> [String: String] {
    var out: [String: String] = [:]
    for r in try d.records() { out[r.id] = String(decoding: r.json, as: UTF8.self) }
    return out
}

/// Expects `d` to be clean, with nothing pending, holding exactly the server's records.
func expectConverged(_ d: SyncDescriptor, _ server: [String: String], _ who: String,
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(d.state == .clean, "\(who): \(d.state)", sourceLocation: sourceLocation)
    #expect(try d.pendingChanges() == 0, "\(who) has pending changes", sourceLocation: sourceLocation)
    let stored = try storeRecords(d)
    let exported = try localRecords(d)
    for id in Set(server.keys).union(stored.keys).union(exported.keys).sorted() {
        #expect(stored[id] == server[id], "\(who)'s record \(id): \(stored[id] ?? "absent") / server \(server[id] ?? "absent")",
                sourceLocation: sourceLocation)
        #expect(exported[id] == server[id], "\(who)'s document's \(id): \(exported[id] ?? "absent") / server \(server[id] ?? "absent")",
                sourceLocation: sourceLocation)
    }
}

func objectID(_ d: SyncDescriptor, _ name: String) throws -> ObjectID? {
    try d.withDocument { doc in
        for page in 0..<(try doc.pageCount()) {
            for a in try doc.annotations(onPage: page) where a.name == name { return a.id }
        }
        return nil
    }
}

func deleteRecord(_ d: SyncDescriptor, _ name: String) throws {
    let id = try #require(try objectID(d, name))
    try d.withDocument { doc in try doc.deleteAnnotation(id) }
}

/// The feed's changes after `since`: (seq, op, id, record). Blocking (the service's
/// blocking handler): call it off the cooperative threads (``offload(_:)``).
func feed(_ h: Harness, token: String, since: Int64 = 0) throws -> [(seq: Int64, op: String, id: String, record: String?)] {
    let r = h.service.handleBlocking(SyncRequest(method: "GET", path: "/documents/doc/layers/main/changes",
                                                 query: ["since": String(since)], headers: [("Authorization", "Bearer \(token)")],
                                                 body: []))
    return try (json(r)["changes"]?.arrayValue ?? []).map { c in
        guard case .integer(let seq)? = c["seq"], case .string(let op)? = c["op"], case .string(let id)? = c["id"] else {
            throw SyncClientError(.protocolError, "a change without seq, op or id")
        }
        return (seq, op, id, c["record"].map { $0.canonicalText })
    }
}

/// The server's records of layer main, without pdfObjectId, by id (blocking, as ``feed``).
func serverRecordsNow(_ h: Harness, token: String) throws -> [String: String] {
    let r = h.service.handleBlocking(SyncRequest(method: "GET", path: "/documents/doc/layers/main", query: [:],
                                                 headers: [("Authorization", "Bearer \(token)")], body: []))
    var out: [String: String] = [:]
    for item in try json(r)["records"]?.arrayValue ?? [] {
        guard case .object(var fields)? = item["record"], case .string(let id)? = fields["id"] else { continue }
        fields["pdfObjectId"] = nil
        out[id] = InstantJSONValue.object(fields).canonicalText
    }
    return out
}

@Suite("Issue 30: convergence defects", .serialized)
struct ConvergenceDefectTests {
    /// Two clients (Ann, Bob) of a fresh layer; ``start()`` downloads (blocking: in
    /// ``offload(_:)``, as every step of these tests that waits for a client).
    final class Pair: @unchecked Sendable {
        let h: Harness
        let dirs: [TempDir]
        let clients: [SyncClient]
        let ann: SyncDescriptor
        let bob: SyncDescriptor
        let annLog: EventLog
        let bobLog: EventLog
        let token: String

        init() async throws {
            h = try await Harness()
            dirs = [try TempDir(), try TempDir()]
            annLog = EventLog()
            bobLog = EventLog()
            let transport = SwitchableTransport(h.service)
            clients = [try makeClient(h, transport, dirs[0].path, log: annLog),
                       try makeClient(h, transport, dirs[1].path, log: bobLog)]
            token = try await sign(claims())
            ann = try clients[0].descriptor(forJWT: token)
            bob = try clients[1].descriptor(forJWT: token)
        }

        func start() throws {
            try ann.downloadNow(token: token)
            try bob.downloadNow(token: token)
        }

        func server() throws -> [String: String] { try serverRecordsNow(h, token: token) }

        func finish() async {
            for c in clients { c.close() }
            for d in dirs { d.remove() }
            await h.finish()
        }
    }

    /// Defect 1: a reply made while another client deletes its parent must not end as
    /// three versions of the reply.
    @Test(arguments: [true, false])
    func replyRacingADeleteOfItsParent(stateReply: Bool) async throws {
        let p = try await Pair()
        try await offload {
            try p.start()
            let parent = try #require(try note(p.ann, "parent-note", "the parent"))
            try p.ann.syncNow()
            try p.bob.syncNow()
            try deleteRecord(p.bob, "parent-note")  // not yet synced
            try p.ann.withDocument { doc in
                if stateReply {
                    _ = try doc.addStateReply(to: parent, author: "Ann", model: .review, state: "Accepted")
                } else {
                    _ = try doc.addReply(to: parent, author: "Ann", contents: "a reply")
                }
            }
            try p.ann.syncNow()
            try p.bob.syncNow()
            try p.ann.syncNow()
            try p.bob.syncNow()
            try p.ann.waitIdle()
            try p.bob.waitIdle()
            let server = try p.server()
            #expect(server["parent-note"] == nil)
            let replies = server.filter { $0.value.contains("\"inReplyTo\":\"parent-note\"") }
            #expect(replies.count == 1, "the reply keeps its link to the deleted parent: \(server)")
            if stateReply { #expect(replies.first?.value.contains("\"state\":\"Accepted\"") == true) }
            try expectConverged(p.ann, server, "Ann")
            try expectConverged(p.bob, server, "Bob")
            // Ann can still edit her reply, whose parent is gone: it stays a reply.
            let replyID = try #require(replies.first?.key)
            try setContents(p.ann, replyID, "edited after the parent went")
            try p.ann.syncNow()
            try p.ann.waitIdle()
            #expect(!p.annLog.contains("changeDropped"), "\(p.annLog.all)")
            try p.bob.syncNow()
            let after = try p.server()
            #expect(after[replyID]?.contains("edited after the parent went") == true)
            #expect(after[replyID]?.contains("\"inReplyTo\":\"parent-note\"") == true)
            try expectConverged(p.ann, after, "Ann")
            try expectConverged(p.bob, after, "Bob")
        }
        await p.finish()
    }

    /// Defect 2: deleting a record pushes that delete and nothing else: not the other
    /// users' replies to it, rewritten without their link.
    @Test func aDeletePushesNoOtherRecord() async throws {
        let p = try await Pair()
        try await offload {
            try p.start()
            let parent = try #require(try note(p.ann, "parent-note", "the parent"))
            _ = try p.ann.withDocument { doc in try doc.addReply(to: parent, author: "Ann", contents: "Ann's reply") }
            _ = try p.ann.withDocument { doc in try doc.addStateReply(to: parent, author: "Ann", model: .review, state: "Rejected") }
            try p.ann.syncNow()
            try p.bob.syncNow()
            let before = try feed(p.h, token: p.token).last?.seq ?? 0
            try deleteRecord(p.bob, "parent-note")
            #expect(try p.bob.pendingChanges() == 1, "only the delete is pending")
            try p.bob.syncNow()
            let after = try feed(p.h, token: p.token, since: before)
            #expect(after.map { "\($0.op) \($0.id)" } == ["delete parent-note"], "\(after.map { "\($0.op) \($0.id)" })")
            try p.ann.syncNow()
            try p.bob.syncNow()
            let server = try p.server()
            #expect(server.values.filter { $0.contains("\"inReplyTo\":\"parent-note\"") }.count == 2)
            try expectConverged(p.ann, server, "Ann")
            try expectConverged(p.bob, server, "Bob")
        }
        await p.finish()
    }

    /// A popup deleted alone: its parent keeps naming it, and nothing but the delete goes.
    @Test func aPopupDeletedAloneLeavesItsParentAsItWas() async throws {
        let p = try await Pair()
        try await offload {
            try p.start()
            let popupJSON = """
                {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
                  {"v": 1, "type": "quire/generic", "id": "pop-1", "pageIndex": 0, "bbox": [300, 100, 200, 100],
                   "quire": {"subtype": "Popup"}},
                  {"v": 1, "type": "pspdfkit/note", "id": "with-popup", "pageIndex": 0, "bbox": [10, 10, 20, 20],
                   "text": "has a popup", "quire": {"popup": "pop-1"}}]}
                """
            _ = try p.ann.withDocument { doc in try doc.importAnnotationsJSON(Array(popupJSON.utf8)) }
            try p.ann.syncNow()
            try p.bob.syncNow()
            let before = try feed(p.h, token: p.token).last?.seq ?? 0
            try deleteRecord(p.bob, "pop-1")
            try p.bob.syncNow()
            let after = try feed(p.h, token: p.token, since: before)
            #expect(after.map { "\($0.op) \($0.id)" } == ["delete pop-1"])
            try p.ann.syncNow()
            let server = try p.server()
            #expect(server["with-popup"]?.contains("\"popup\":\"pop-1\"") == true)
            try expectConverged(p.ann, server, "Ann")
            try expectConverged(p.bob, server, "Bob")
        }
        await p.finish()
    }

    /// Defect 3: automatic sync runs at most `autoSyncDelay` after the first pending
    /// change, however steadily the user keeps editing.
    @Test func automaticSyncWhileTheUserKeepsEditing() async throws {
        let p = try await Pair()
        try await offload {
            try p.start()
            p.ann.autoSyncDelay = 0.2
            let start = try feed(p.h, token: p.token).count
            var reachedWhileEditing = false
            for i in 0..<30 {
                _ = try note(p.ann, "steady-\(i)", "note \(i)")
                usleep(100_000)  // an edit every 0.1 s: never a pause of 0.2 s
                if i >= 10, try feed(p.h, token: p.token).count > start {
                    reachedWhileEditing = true
                    break
                }
            }
            #expect(reachedWhileEditing, "nothing reached the server while the user kept editing")
            p.ann.autoSyncDelay = 0
            try p.ann.syncNow()
        }
        await p.finish()
    }

    /// Defect 5: CHANGE_DROPPED names the local changes it drops, so that a program can
    /// tell a dropped edit from a lost one.
    @Test func changeDroppedNamesTheLocalChanges() async throws {
        let p = try await Pair()
        try await offload {
            try p.start()
            try setContents(p.ann, "sq-1", "Ann's text")
            try setContents(p.bob, "sq-1", "Bob's first")
            let first = p.bob.lastChangeID
            try setContents(p.bob, "sq-1", "Bob's second")
            let second = p.bob.lastChangeID
            _ = try note(p.bob, "bobs-own", "kept")
            let kept = p.bob.lastChangeID
            #expect(first > 0 && second == first + 1 && kept == second + 1)
            try p.ann.syncNow()
            let dropped = Mutex<[SyncDroppedChange]>([])
            p.clients[1].eventHandler = { _, e in
                if case .changeDropped(let d) = e { dropped.withLock { $0.append(d) } }
            }
            try p.bob.syncNow()
            try p.bob.waitIdle()
            let seen = dropped.withLock { $0 }
            #expect(seen.count == 1)
            #expect(seen.first?.id == "sq-1" && seen.first?.reason == "conflict")
            #expect(seen.first?.changes == [first, second], "\(seen)")
            #expect((seen.first?.clientSeq ?? 0) > 0)
            let server = try p.server()
            #expect(server["bobs-own"] != nil)
            #expect(server["sq-1"]?.contains("Ann's text") == true)
            try p.ann.syncNow()
            try expectConverged(p.ann, server, "Ann")
            try expectConverged(p.bob, server, "Bob")
        }
        await p.finish()
    }

    /// A client whose copy of a record differs from the server's (here: its store edited
    /// behind its back) finds it at its next pull (the layer's digest), fetches the layer
    /// again, reports RECORDS_REPAIRED and counts it.
    @Test func aDivergedRecordIsFoundRepairedAndReported() async throws {
        let p = try await Pair()
        try await offload {
            try p.start()
            try p.ann.syncNow()
            #expect(try p.ann.repairs() == 0)
            let tampered = try SQLiteConnection(path: p.ann.storePath)
            // The record as a faulty apply would have stored it (its digest computed again
            // from what the store holds, as for a store made before digests).
            try tampered.run("UPDATE records SET json = ? WHERE id = ?",
                             [.blob(Array("{\"id\":\"sq-1\",\"tampered\":true}".utf8)), .text("sq-1")])
            try tampered.run("DELETE FROM meta WHERE key = 'digest'")
            try p.ann.syncNow()
            try p.ann.waitIdle()
            #expect(p.annLog.contains("recordsRepaired sq-1"), "\(p.annLog.all)")
            #expect(try p.ann.repairs() == 1)
            let server = try p.server()
            try expectConverged(p.ann, server, "Ann")
            // Nothing differs any more: the next pulls repair nothing.
            try p.ann.syncNow()
            #expect(try p.ann.repairs() == 1)
        }
        await p.finish()
    }

    /// A client more than a page of changes behind reads every page: the feed's `seq` is
    /// the layer's when `more` is true, so the cursor is the page's last change. (It took
    /// the layer's seq, skipped the rest of the changes and needed a repair; a client whose
    /// rights hide records gets no digest and would have stayed without them.)
    @Test func aClientPagesOfChangesBehindReadsEveryPage() async throws {
        var limits = SyncLimits()
        limits.maxChangesPerPage = 3
        let h = try await Harness(limits: limits)
        let dirs = [try TempDir(), try TempDir()]
        let logs = [EventLog(), EventLog()]
        let transport = SwitchableTransport(h.service)
        let clients = [try makeClient(h, transport, dirs[0].path, log: logs[0]),
                       try makeClient(h, transport, dirs[1].path, log: logs[1])]
        let token = try await sign(claims())
        try await offload {
            let ann = try clients[0].descriptor(forJWT: token)
            let bob = try clients[1].descriptor(forJWT: token)
            try ann.downloadNow(token: token)
            try bob.downloadNow(token: token)
            for i in 0..<11 { _ = try note(ann, "behind-\(i)", "note \(i)") }
            try ann.syncNow()
            try bob.syncNow()
            let server = try serverRecordsNow(h, token: token)
            #expect(server.keys.filter { $0.hasPrefix("behind-") }.count == 11)
            try expectConverged(bob, server, "Bob")
            #expect(try bob.repairs() == 0, "\(logs[1].all)")
        }
        for c in clients { c.close() }
        for d in dirs { d.remove() }
        await h.finish()
    }

    /// Defect 4 in process: a listening client whose network was down for a while is back
    /// within seconds of the network coming back, and pushes what waited.
    @Test func listenerResumesPromptlyAfterAnOutage() async throws {
        let h = try await Harness()
        let dir = try TempDir()
        defer { dir.remove() }
        let token = try await sign(claims())
        try await offload {
            let transport = SwitchableTransport(h.service)
            var configuration = SyncClientConfiguration()
            configuration.autoSyncDelay = 0.2
            configuration.listenWaitSeconds = 1
            let client = try SyncClient(transport: transport, dataDirectory: dir.path, configuration: configuration)
            let d = try client.descriptor(forJWT: token)
            try d.downloadNow(token: token)
            d.startListening()
            transport.online.withLock { $0 = false }
            _ = try note(d, "offline-note", "made offline")
            // The listener and the retries fail meanwhile (the old back-off, 1, 2, 4, 8, 16 s,
            // had its next try 15 s after this outage ended).
            sleep(16)
            transport.online.withLock { $0 = true }
            var arrived = false
            for _ in 0..<60 {  // 6 s
                if try serverRecordsNow(h, token: token)["offline-note"] != nil { arrived = true; break }
                usleep(100_000)
            }
            #expect(arrived, "not pushed within 6 s of the network coming back")
            d.stopListening()
            client.close()
        }
        await h.finish()
    }
}
