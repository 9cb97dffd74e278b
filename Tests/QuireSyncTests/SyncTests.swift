import Dispatch
import FoundationEssentials
import QuireDocument
@testable import QuireSync
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Testing

// The router end to end, in process, on a real SQLite file.

@Suite struct DocumentsAndLayers {
    @Test func uploadListDescribe() async throws {
        let h = try await Harness(upload: false)
        defer { Task { await h.finish() } }
        let pdf = try annotatedPDF()
        var r = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: pdf)
        #expect(r.status == 201)
        let d = try json(r)["document"]
        #expect(d?["id"]?.stringValue == "doc")
        #expect(d?["pages"]?.integerValue == 2)
        #expect(d?["bytes"]?.integerValue == Int64(pdf.count))
        #expect(d?["sha256"]?.stringValue?.utf8.count == 64)
        #expect(d?["created"]?.stringValue?.hasSuffix("Z") == true)
        // The same id again: 409.
        r = await h.admin("POST", "/admin/documents", query: ["id": "doc"], body: pdf)
        #expect(r.status == 409 && errorCode(r) == "conflict")
        // A generated id: a ULID.
        r = await h.admin("POST", "/admin/documents", body: plainPDF(pages: 3))
        #expect(r.status == 201)
        let generated = try #require(try json(r)["document"]?["id"]?.stringValue)
        #expect(generated.utf8.count == 26)
        // Not a PDF: 400.
        r = await h.admin("POST", "/admin/documents", query: ["id": "bad"], body: Array("hello".utf8))
        #expect(r.status == 400 && errorCode(r) == "bad_request")
        r = await h.admin("POST", "/admin/documents", query: ["id": "empty"], body: [])
        #expect(r.status == 400)
        r = await h.admin("GET", "/admin/documents")
        #expect(try json(r)["documents"]?.arrayValue?.count == 2)
        // The layer is created on first use with the PDF's own annotations.
        let layer = try await h.layer()
        #expect(layer["seq"]?.integerValue == 0)
        let records = layer["records"]?.arrayValue ?? []
        #expect(records.map { $0["record"]?["id"]?.stringValue } == ["sq-1", "re-1", "st-1", "hl-1"])
        #expect(records.allSatisfy { $0["revision"]?.integerValue == 0 })
        #expect(records[1]["record"]?["quire"]?["inReplyTo"]?.stringValue == "sq-1")
        #expect(records[2]["record"]?["quire"]?["state"]?.stringValue == "Accepted")
        r = await h.admin("GET", "/admin/documents/doc")
        let described = try json(r)
        #expect(described["layers"]?[0]?["name"]?.stringValue == "main")
        #expect(described["layers"]?[0]?["records"]?.integerValue == 4)
        // The PDF, with its SHA-256 as ETag.
        let token = try await sign(claims())
        r = await h.client("GET", "/documents/doc/pdf", token: token)
        #expect(r.status == 200 && r.body == pdf)
        #expect(r.header("Content-Type") == "application/pdf")
        let etag = try #require(r.header("ETag"))
        r = await h.client("GET", "/documents/doc/pdf", token: token, headers: [("If-None-Match", etag)])
        #expect(r.status == 304 && r.body.isEmpty)
    }

    @Test func copyDeleteAndAnnotations() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let r0 = try await h.push([putNote(1, id: "n1")])
        #expect(r0.status == 200)
        var r = await h.admin("POST", "/admin/documents/doc/layers/copy1/copy", body: Array(#"{"from": "main"}"#.utf8))
        #expect(r.status == 201, "\(text(r))")
        #expect(try json(r)["layer"]?["seq"]?.integerValue == 0)
        #expect(try json(r)["layer"]?["records"]?.integerValue == 5)
        let copied = try await h.layer("doc", "copy1")
        #expect(copied["records"]?.arrayValue?.allSatisfy { $0["revision"]?.integerValue == 0 } == true)
        r = await h.admin("POST", "/admin/documents/doc/layers/copy1/copy", body: Array(#"{"from": "main"}"#.utf8))
        #expect(r.status == 409)
        r = await h.admin("POST", "/admin/documents/doc/layers/copy2/copy", body: Array(#"{"from": "nope"}"#.utf8))
        #expect(r.status == 404)
        r = await h.admin("POST", "/admin/documents/doc/layers/copy2/copy", body: Array(#"{"from": "main", "x": 1}"#.utf8))
        #expect(r.status == 400 && errorCode(r) == "unknown_field")
        // The annotation JSON of a layer, which Quire imports.
        r = await h.admin("GET", "/admin/documents/doc/layers/copy1/annotations")
        #expect(r.status == 200)
        let parsed = try InstantJSONDocument(jsonBytes: r.body)
        #expect(parsed.annotations.count == 5)
        #expect(parsed.quire?.pageCount == 2)
        r = await h.admin("DELETE", "/admin/documents/doc/layers/copy1")
        #expect(r.status == 204)
        r = await h.admin("DELETE", "/admin/documents/doc/layers/copy1")
        #expect(r.status == 404)
        r = await h.admin("DELETE", "/admin/documents/doc")
        #expect(r.status == 204)
        let token = try await sign(claims())
        r = await h.client("GET", "/documents/doc/layers/main", token: token)
        #expect(r.status == 404 && errorCode(r) == "not_found")
        r = await h.client("GET", "/documents/doc/pdf", token: token)
        #expect(r.status == 404)
    }
}

@Suite struct Pushes {
    @Test func acceptedRejectedConflictInvalid() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        // Create: accepted, seq 1; the JWT's user becomes the author.
        var r = try await h.push([putNote(1, id: "n1")])
        #expect(r.status == 200, "\(text(r))")
        var answer = try json(r)
        #expect(answer["seq"]?.integerValue == 1)
        #expect(answer["results"]?[0]?["status"]?.stringValue == "accepted")
        #expect(answer["results"]?[0]?["revision"]?.integerValue == 1)
        var layer = try await h.layer()
        let n1 = layer["records"]?.arrayValue?.first { $0["record"]?["id"]?.stringValue == "n1" }
        #expect(n1?["record"]?["creatorName"]?.stringValue == "alice")
        #expect(n1?["revision"]?.integerValue == 1)
        // Update with the right base; then a stale base is a conflict with the current record.
        r = try await h.push([putNote(2, id: "n1", base: 1, text: "second")])
        #expect(try json(r)["results"]?[0]?["status"]?.stringValue == "accepted")
        r = try await h.push([putNote(3, id: "n1", base: 1, text: "stale")])
        answer = try json(r)["results"]?[0] ?? .null
        #expect(answer["status"]?.stringValue == "rejected")
        #expect(answer["reason"]?.stringValue == "conflict")
        #expect(answer["current_revision"]?.integerValue == 2)
        #expect(answer["current"]?["text"]?.stringValue == "second")
        // A create of an existing id (base null) and an update of a missing one: conflicts.
        r = try await h.push([putNote(4, id: "n1"), putNote(5, id: "ghost", base: 3)])
        #expect(try json(r)["results"]?.arrayValue?.map { $0["reason"]?.stringValue } == ["conflict", "conflict"])
        #expect(try json(r)["results"]?[1]?["current"] == .null)
        // Records refused on their own: the whole push is refused (422 invalid_record,
        // naming each), and nothing changes.
        let refusedAlone: [String] = [
            putNote(6, id: "p9", page: 9),
            putNote(10, id: "x1", extra: #", "bbox": [1, 2, -3, 4]"#).replacing(#""bbox": [10, 10, 20, 20], "#, with: ""),
            #"{"client_seq": 11, "op": "put", "id": "other", "base_revision": null, "record": {"v": 1, "type": "pspdfkit/note", "id": "mismatch", "pageIndex": 0, "bbox": [0,0,1,1]}}"#,
            putNote(14, id: "c1", extra: #", "flags": ["sparkly"]"#),
            putNote(15, id: "c2", extra: #", "quire": {"state": "Accepted", "stateModel": "Nonsense", "inReplyTo": "sq-1"}"#),
        ]
        r = try await h.push(refusedAlone + [putNote(16, id: "fine")])
        let named = refusedMutations(r)
        #expect(named.keys.sorted() == [6, 10, 11, 14, 15], "\(text(r))")
        #expect(named[6]?["message"]?.stringValue?.contains("page 9") == true)
        #expect(named.values.allSatisfy { $0["message"]?.stringValue?.isEmpty == false })
        #expect(try await h.layer()["seq"]?.integerValue == 2)
        // The same push as version 1 (no `v`: a client that predates it, which would send
        // a refused push again forever): each such record gets its `invalid` answer inside
        // a 200, and the good mutation is applied, as before (on a layer of its own).
        r = try await h.push(refusedAlone + [putNote(16, id: "fine")], client: "old", layer: "v1", version: nil)
        #expect(r.status == 200, "\(text(r))")
        let oldResults = try json(r)["results"]?.arrayValue ?? []
        #expect(oldResults.map { $0["reason"]?.stringValue } == ["invalid", "invalid", "invalid", "invalid", "invalid", nil], "\(text(r))")
        #expect(oldResults.last?["status"]?.stringValue == "accepted")
        #expect(try json(r)["seq"]?.integerValue == 1)
        // Records refused because of what the layer holds: each mutation's `invalid`
        // answer, and nothing else changes.
        r = try await h.push([
            putNote(7, id: "r1", extra: #", "quire": {"inReplyTo": "nobody"}"#),
            putNote(8, id: "r2", page: 1, extra: #", "quire": {"inReplyTo": "sq-1"}"#),
            putNote(12, id: "sq-1", page: 1, base: 0),
            putNote(13, id: "self", extra: #", "quire": {"inReplyTo": "self"}"#),
        ])
        #expect(r.status == 200, "\(text(r))")
        let results = try json(r)["results"]?.arrayValue ?? []
        #expect(results.count == 4)
        for result in results {
            #expect(result["status"]?.stringValue == "rejected" && result["reason"]?.stringValue == "invalid", "\(result)")
            #expect(result["message"]?.stringValue?.isEmpty == false)
        }
        #expect(try json(r)["seq"]?.integerValue == 2)
        // A valid reply on the same page; a cycle is refused.
        r = try await h.push([
            putNote(16, id: "r3", extra: #", "quire": {"inReplyTo": "sq-1", "replyType": "reply"}"#),
            putNote(17, id: "r4", extra: #", "quire": {"inReplyTo": "r3"}"#),
            putNote(18, id: "sq-1", base: 0, extra: #", "quire": {"inReplyTo": "r4"}"#)
                .replacing(#""type": "pspdfkit/note""#, with: #""type": "pspdfkit/note""#),
        ])
        let rs = try json(r)["results"]?.arrayValue ?? []
        #expect(rs.map { $0["status"]?.stringValue } == ["accepted", "accepted", "rejected"])
        #expect(rs[2]["message"]?.stringValue?.contains("cycle") == true)
        // Deletes: of a missing id a conflict with current null, of a stale base a
        // conflict, of the current revision accepted; replies to it stay.
        r = try await h.push([deleteMutation(19, id: "ghost", base: nil), deleteMutation(20, id: "sq-1", base: 5),
                              deleteMutation(21, id: "sq-1", base: 0)])
        let ds = try json(r)["results"]?.arrayValue ?? []
        #expect(ds.map { $0["status"]?.stringValue } == ["rejected", "rejected", "accepted"])
        #expect(ds[0]["current"] == .null && ds[0]["reason"]?.stringValue == "conflict")
        #expect(ds[1]["current_revision"]?.integerValue == 0)
        layer = try await h.layer()
        let ids = Set(layer["records"]?.arrayValue?.compactMap { $0["record"]?["id"]?.stringValue } ?? [])
        #expect(!ids.contains("sq-1") && ids.contains("re-1") && ids.contains("r3"))
        // A put of a deleted record with its old revision: conflict (it is gone).
        r = try await h.push([putNote(22, id: "sq-1", base: 0)])
        #expect(try json(r)["results"]?[0]?["reason"]?.stringValue == "conflict")
    }

    @Test func idempotentRetries() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let push = [putNote(1, id: "n1"), putNote(2, id: "n2", page: 1)]
        let first = try await h.push(push)
        #expect(first.status == 200)
        // The same push again (a lost answer): the same answers, nothing applied twice.
        let again = try await h.push(push)
        #expect(try json(again)["results"] == json(first)["results"])
        #expect(try json(again)["seq"]?.integerValue == 2)
        // The same (client_id, client_seq) with another body: the first answer wins.
        let changed = try await h.push([putNote(1, id: "n1", base: 1, text: "different"), deleteMutation(2, id: "n2", base: 2)])
        #expect(try json(changed)["results"] == json(first)["results"])
        let token = try await sign(claims())
        let feed = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0"])
        #expect(try json(feed)["changes"]?.arrayValue?.count == 2)
        // Another client's client_seq 1 is its own.
        let other = try await h.push([putNote(1, id: "n3")], client: "client-b")
        #expect(try json(other)["results"]?[0]?["seq"]?.integerValue == 3)
        // A rejection is kept too: a retry of it is rejected the same way even once the
        // conflict is gone.
        let rejected = try await h.push([putNote(5, id: "n1")])
        #expect(try json(rejected)["results"]?[0]?["reason"]?.stringValue == "conflict")
        _ = try await h.push([deleteMutation(6, id: "n1", base: 1)])
        let retried = try await h.push([putNote(5, id: "n1")])
        #expect(try json(retried)["results"] == json(rejected)["results"])
    }

    @Test func concurrentPushesFromManyTasks() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        // QUIRE_SYNC_BENCH_CLIENTS and QUIRE_SYNC_BENCH_PUSHES (per client) make this a
        // measurement (printed, never asserted): 8 and 25 by default.
        let environment = ProcessInfo.processInfo.environment
        let clients = environment["QUIRE_SYNC_BENCH_CLIENTS"].flatMap { Int($0) }.map { max(1, min($0, 1000)) } ?? 8
        let each = environment["QUIRE_SYNC_BENCH_PUSHES"].flatMap { Int($0) }.map { max(1, min($0, 100_000)) } ?? 25
        let start = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for c in 0..<clients {
                group.addTask {
                    let token = try await sign(claims())
                    for i in 0..<each {
                        let r = try await h.push([putNote(i, id: "c\(c)-\(i)")], client: "client-\(c)", token: token)
                        #expect(r.status == 200)
                        #expect(try json(r)["results"]?[0]?["status"]?.stringValue == "accepted")
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = Date().timeIntervalSince(start)
        let layer = try await h.layer()
        #expect(layer["seq"]?.integerValue == Int64(clients * each))
        #expect(layer["records"]?.arrayValue?.count == 4 + clients * each)
        // The revisions are the sequence numbers 1...N, each once.
        let revisions = (layer["records"]?.arrayValue ?? []).compactMap { $0["revision"]?.integerValue }.filter { $0 > 0 }.sorted()
        #expect(revisions == Array(1...Int64(clients * each)))
        print("sync: \(clients * each) single-mutation pushes from \(clients) tasks in \(elapsed) s (\(Int(Double(clients * each) / elapsed)) pushes/s)")
    }

    /// Writes committed together (group commit): one that fails is undone alone.
    @Test func failingWritesAmongConcurrentOnesAreUndoneAlone() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        _ = try await h.layer()  // "main" exists before it is copied
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<6 {
                group.addTask {
                    let r = await h.admin("POST", "/admin/documents/doc/layers/copy/copy", body: Array(#"{"from": "main"}"#.utf8))
                    #expect(r.status == 201 || r.status == 409, "\(text(r))")
                    return r.status * 1000 + i
                }
                group.addTask {
                    let r = try await h.push([putNote(i, id: "g\(i)")], client: "group-\(i)")
                    #expect(try json(r)["results"]?[0]?["status"]?.stringValue == "accepted")
                    return r.status * 1000 + i
                }
            }
            var out: [Int] = []
            for try await s in group { out.append(s / 1000) }
            return out
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 }.count == 5)
        #expect(statuses.filter { $0 == 200 }.count == 6)
        #expect(try await h.layer()["seq"]?.integerValue == 6)
        let described = try json(await h.admin("GET", "/admin/documents/doc"))
        #expect(described["layers"]?.arrayValue?.map { $0["name"]?.stringValue } == ["copy", "main"])
    }

    @Test func handleBlockingFromAThread() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let body = Array("{\"client_id\": \"c-thread\", \"mutations\": [\(putNote(1, id: "t1"))]}".utf8)
        let request = SyncRequest(method: "POST", path: "/documents/doc/layers/main/mutations",
                                  headers: [("Authorization", "Bearer \(token)")], body: body)
        let service = h.service
        let r = await withCheckedContinuation { (c: CheckedContinuation<SyncResponse, Never>) in
            DispatchQueue.global().async { c.resume(returning: service.handleBlocking(request)) }
        }
        #expect(r.status == 200)
        #expect(try json(r)["results"]?[0]?["status"]?.stringValue == "accepted")
    }
}

@Suite struct ChangeFeed {
    @Test func sinceMoreAndReset() async throws {
        var limits = SyncLimits()
        limits.maxChangesPerPage = 3
        limits.changeRetention = 5
        let h = try await Harness(limits: limits)
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        func pull(_ since: String) async throws -> InstantJSONValue {
            let r = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": since])
            #expect(r.status == 200, "\(text(r))")
            return try json(r)
        }
        var feed = try await pull("0")
        #expect(feed["seq"]?.integerValue == 0 && feed["changes"]?.arrayValue?.isEmpty == true && feed["more"]?.boolValue == false)
        for i in 1...4 { _ = try await h.push([putNote(i, id: "n\(i)")]) }
        feed = try await pull("0")
        #expect(feed["changes"]?.arrayValue?.map { $0["seq"]?.integerValue } == [1, 2, 3])
        #expect(feed["more"]?.boolValue == true)
        #expect(feed["seq"]?.integerValue == 4)
        let change = feed["changes"]?[0]
        #expect(change?["op"]?.stringValue == "put" && change?["id"]?.stringValue == "n1")
        #expect(change?["client_id"]?.stringValue == "client-a" && change?["user_id"]?.stringValue == "alice")
        #expect(change?["record"]?["text"]?.stringValue == "hello")
        feed = try await pull("3")
        #expect(feed["changes"]?.arrayValue?.map { $0["seq"]?.integerValue } == [4] && feed["more"]?.boolValue == false)
        _ = try await h.push([deleteMutation(5, id: "n1", base: 1)])
        feed = try await pull("4")
        #expect(feed["changes"]?[0]?["op"]?.stringValue == "delete" && feed["changes"]?[0]?["record"] == nil)
        // Newer than the layer: reset.
        feed = try await pull("99")
        #expect(feed["reset"]?.boolValue == true && feed["seq"]?.integerValue == 5)
        // Past the retention (5): the oldest changes are pruned; a pull from before them resets.
        for i in 6...12 { _ = try await h.push([putNote(i, id: "n\(i)")]) }
        feed = try await pull("0")
        #expect(feed["reset"]?.boolValue == true && feed["seq"]?.integerValue == 12)
        feed = try await pull("7")
        #expect(feed["changes"]?.arrayValue?.map { $0["seq"]?.integerValue } == [8, 9, 10])
        // Bad parameters.
        for q in [["since": "-1"], ["since": "x"], [:], ["since": "0", "wait": "61"], ["since": "0", "wait": "-1"], ["since": "0", "bogus": "1"]] {
            let r = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: q)
            #expect(r.status == 400 && errorCode(r) == "bad_request", "\(q)")
        }
    }

    @Test func longPollWakesOnAChange() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let start = Date()
        let waiting = Task {
            await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0", "wait": "60"])
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        _ = try await h.push([putNote(1, id: "n1")])
        let r = await waiting.value
        let elapsed = Date().timeIntervalSince(start)
        #expect(r.status == 200)
        #expect(try json(r)["changes"]?.arrayValue?.map { $0["id"]?.stringValue } == ["n1"])
        #expect(elapsed < 45, "woken by the push, not the 60 s timeout (a wide margin: this machine may be loaded)")
        // A change already there: answered at once.
        let at = Date()
        let r2 = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0", "wait": "60"])
        #expect(try json(r2)["changes"]?.arrayValue?.count == 1)
        #expect(Date().timeIntervalSince(at) < 45)
    }

    @Test func longPollTimesOut() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let start = Date()
        let r = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0", "wait": "0.5"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(r.status == 200)
        #expect(try json(r)["changes"]?.arrayValue?.isEmpty == true)
        #expect(elapsed >= 0.45)
    }

    @Test func shutdownWakesListenersAndRefusesRequests() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let waiting = Task {
            await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0", "wait": "60"])
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let start = Date()
        await h.service.shutdown()
        let r = await waiting.value
        #expect(r.status == 200)
        #expect(Date().timeIntervalSince(start) < 45)
        let health = await h.client("GET", "/healthz", token: nil)
        #expect(health.status == 503 && errorCode(health) == "unavailable")
    }

    @Test func listenerLimitAnswersAtOnce() async throws {
        var limits = SyncLimits()
        limits.maxListeners = 0
        let h = try await Harness(limits: limits)
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let start = Date()
        let r = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0", "wait": "60"])
        // Busy, never an empty 200 that reads as "nothing new" (issue 41).
        #expect(r.status == 503 && errorCode(r) == "busy")
        #expect(r.header("Retry-After") == String(ListenerRegistry.busyRetryAfterSeconds))
        #expect(Date().timeIntervalSince(start) < 45)
        // A poll that does not wait is not a listener: it is answered as ever.
        let quick = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0"])
        #expect(quick.status == 200)
    }

    @Test func bearerTokenIsReadOnBytes() throws {
        #expect(try SyncService.bearerToken("Bearer a.b.c", maxTokenBytes: 10) == "a.b.c")
        #expect(try SyncService.bearerToken("bEaReR   a-_.B9.c  ", maxTokenBytes: 10) == "a-_.B9.c")
        #expect(try SyncService.bearerToken("Bearer aaaa.bb.cc", maxTokenBytes: 10) == "aaaa.bb.cc")  // exactly the limit
        for bad in ["Bearer", "Bearerabc", "Token a.b.c", "Beare a.b.c", "", "Bearér a.b.c", "Bearer abc",
                    "Bearer a.b", "Bearer a.b.c.d", "Bearer a.b+c", "Bearer a.b=.c", "Bearer a. b.c", "Bearer é.b.c"] {
            #expect(throws: SyncHTTPError.self) { try SyncService.bearerToken(bad, maxTokenBytes: 10) }
        }
        for tooLarge in ["Bearer \(String(repeating: "x", count: 11))", "Bearer \(String(repeating: "é", count: 6))",
                         "Bearer \(String(repeating: "x", count: 1 << 20))"] {
            do {
                _ = try SyncService.bearerToken(tooLarge, maxTokenBytes: 10)
                Issue.record("a token past the limit was taken")
            } catch {
                #expect(error.status == 401 && error.message.contains("larger than 10 bytes"))
            }
        }
    }
}

@Suite struct Restart {
    @Test func everythingAcknowledgedSurvivesAReopen() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        var h = try await Harness(dir: dir)
        var answers: [InstantJSONValue] = []
        for i in 1...20 {
            let r = try await h.push([putNote(i, id: "n\(i)", page: i % 2)])
            answers.append(try json(r))
        }
        _ = try await h.push([deleteMutation(21, id: "hl-1", base: 0)])
        let before = try await h.layer()
        // WAL mode: the log is beside the database while it is open.
        #expect(FileManager.default.fileExists(atPath: dir.path + "/quire.db-wal"))
        // The layer's record count follows puts and deletes: 4 + 20 - 1.
        let described = try json(await h.admin("GET", "/admin/documents/doc"))
        #expect(described["layers"]?[0]?["records"]?.integerValue == 23)
        #expect(described["layers"]?[0]?["seq"]?.integerValue == 21)
        await h.close()
        // Another service on the same file.
        h = try await Harness(upload: false, dir: dir)
        let after = try await h.layer()
        #expect(after == before)
        #expect(after["seq"]?.integerValue == 21)
        // Retries after the restart are answered from the store.
        for i in [1, 7, 20] {
            let r = try await h.push([putNote(i, id: "n\(i)", page: i % 2)])
            #expect(try json(r)["results"] == answers[i - 1]["results"])
        }
        #expect(try await h.layer()["seq"]?.integerValue == 21)
        await h.close()
    }
}
