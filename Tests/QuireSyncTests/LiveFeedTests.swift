import Foundation
import QuireDocument
import QuireSyncProtocol
import QuireTestSupport
import Synchronization
import Testing

@testable import QuireSync

// The live feed of quire-server's WebSocket (SyncService.follow, LayerFeeds, issues 34 and
// 41): changes committed by this process reach followers from memory, encoded once per
// layer, in order and once each, filtered per token, and the store is read whenever memory
// may lack a change.

/// The messages a follower was handed.
final class Inbox: Sendable {
    private let messages = Mutex<[(text: String, close: Bool)]>([])

    var send: @Sendable (String, Bool) -> Void {
        { text, close in self.messages.withLock { $0.append((text, close)) } }
    }

    var all: [(text: String, close: Bool)] { messages.withLock { $0 } }

    /// The bodies of the `changes` messages.
    var bodies: [InstantJSONValue] {
        all.compactMap { m in
            guard let v = try? InstantJSONValue(parsing: Array(m.text.utf8)), v["type"]?.stringValue == "changes" else {
                return nil
            }
            return v["body"]
        }
    }

    /// The seqs of every change received, in order.
    var seqs: [Int64] { bodies.flatMap { $0["changes"]?.arrayValue ?? [] }.compactMap { $0["seq"]?.integerValue } }

    /// Waits (up to 10 s, a bound against a hang, not a measure) until `done` holds.
    func until(_ done: @escaping (Inbox) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(self), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(done(self), "messages: \(all.map(\.text))")
    }
}

@Suite struct LiveFeedTests {
    @Test func changesArriveFromMemoryAsTheFeedGivesThem() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let inbox = Inbox()
        let feed = Task {
            await h.service.follow(document: "doc", layer: "main", token: token, since: 0, send: inbox.send)
        }
        defer { feed.cancel() }
        // The first answer comes at once, even empty.
        try await inbox.until { $0.bodies.count == 1 }
        let start = inbox.bodies[0]["seq"]?.integerValue ?? -1
        for i in 1...5 { _ = try await h.push([putNote(i, id: "n\(i)")]) }
        _ = try await h.push([putNote(6, id: "n6"), putNote(7, id: "n7"), deleteMutation(8, id: "n1", base: start + 1)])
        try await inbox.until { $0.seqs.count == 8 }
        #expect(inbox.seqs == Array(start + 1...start + 8))
        #expect(h.service.feeds.count == 1)
        // Each message is what GET .../changes answers for the same seqs, digest included.
        var since = start
        for body in inbox.bodies.dropFirst() {
            let r = await h.client(
                "GET",
                "/documents/doc/layers/main/changes",
                token: token,
                query: ["since": String(since)]
            )
            let http = try json(r)
            let seq = body["seq"]?.integerValue ?? -1
            let n = body["changes"]?.arrayValue?.count ?? 0
            #expect(
                http["changes"]?.arrayValue?.prefix(n).map(\.canonicalText)
                    == body["changes"]?.arrayValue?.map(\.canonicalText)
            )
            #expect(body["more"]?.boolValue == false)
            since = seq
        }
        let layer = try await h.layer()
        #expect(inbox.bodies.last?["digest"]?.stringValue == layer["digest"]?.stringValue)
        #expect(inbox.all.allSatisfy { !$0.close })
    }

    @Test func aHiddenRecordReachesARightsFilteredFollowerAsADelete() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let full = try await sign(claims())
        var bobClaims = claims(user: "bob")
        bobClaims.collaboration_permissions = ["annotations:view:self", "comments:view:self", "annotations:edit:self"]
        let bob = try await sign(bobClaims)
        let (all, own) = (Inbox(), Inbox())
        let feeds = [
            Task { await h.service.follow(document: "doc", layer: "main", token: full, since: 0, send: all.send) },
            Task { await h.service.follow(document: "doc", layer: "main", token: bob, since: 0, send: own.send) },
        ]
        defer { for f in feeds { f.cancel() } }
        try await all.until { $0.bodies.count == 1 }
        try await own.until { $0.bodies.count == 1 }
        let start = all.bodies[0]["seq"]?.integerValue ?? -1
        _ = try await h.push([putNote(1, id: "alices")])  // alice's: bob may not view it
        _ = try await h.push([putNote(1, id: "bobs")], client: "client-b", token: bob)
        try await all.until { $0.seqs.count == 2 }
        try await own.until { $0.seqs.count == 2 }
        let mine = own.bodies.dropFirst().flatMap { $0["changes"]?.arrayValue ?? [] }
        #expect(mine.map { $0["op"]?.stringValue } == ["delete", "put"])
        #expect(mine.first?["id"]?.stringValue == "alices" && mine.first?["record"] == nil)
        #expect(own.bodies.dropFirst().allSatisfy { $0["digest"] == nil })
        let theirs = all.bodies.dropFirst().flatMap { $0["changes"]?.arrayValue ?? [] }
        #expect(
            theirs.map { $0["op"]?.stringValue } == ["put", "put"]
                && theirs.first?["record"]?["id"]?.stringValue == "alices"
        )
        #expect(all.bodies.last?["digest"]?.stringValue != nil)
        #expect(all.seqs == [start + 1, start + 2] && own.seqs == all.seqs)
    }

    @Test func aDeletedLayerResetsTheFollower() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        for i in 1...3 { _ = try await h.push([putNote(i, id: "n\(i)")]) }
        let inbox = Inbox()
        let feed = Task {
            await h.service.follow(document: "doc", layer: "main", token: token, since: 0, send: inbox.send)
        }
        defer { feed.cancel() }
        try await inbox.until { $0.seqs.count == 3 }
        #expect(await h.admin("DELETE", "/admin/documents/doc/layers/main").status == 204)
        try await inbox.until { $0.bodies.last?["reset"]?.boolValue == true }
        // The feed stops after a reset (the client refetches, then subscribes again).
        await feed.value
    }

    @Test func anExpiredTokenClosesTheFeed() async throws {
        var limits = SyncLimits()
        limits.jwtLeewaySeconds = 0
        let h = try await Harness(limits: limits)
        defer { Task { await h.finish() } }
        let token = try await sign(claims(expiresIn: 2))
        let inbox = Inbox()
        let feed = Task {
            await h.service.follow(document: "doc", layer: "main", token: token, since: 0, send: inbox.send)
        }
        try await inbox.until { $0.bodies.count == 1 }
        try await Task.sleep(for: .milliseconds(2500))
        _ = try await h.push([putNote(1, id: "late")])
        try await inbox.until { $0.all.last?.close == true }
        #expect(inbox.all.last?.text.contains("\"status\":401") == true)
        #expect(inbox.seqs.isEmpty)
        await feed.value
        // Refused at once when it has expired already, or is not a token for the layer.
        for bad in [token, try await sign(claims(layer: "other")), "garbage"] {
            let refused = Inbox()
            await h.service.follow(document: "doc", layer: "main", token: bad, since: 0, send: refused.send)
            #expect(refused.all.count == 1 && refused.all[0].close && refused.bodies.isEmpty)
        }
    }

    @Test func shutdownClosesTheFeed() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let inbox = Inbox()
        let feed = Task {
            await h.service.follow(document: "doc", layer: "main", token: token, since: 0, send: inbox.send)
        }
        try await inbox.until { $0.bodies.count == 1 }
        await h.service.shutdown()
        await feed.value
        #expect(inbox.all.last?.close == true && inbox.all.last?.text.contains("\"status\":503") == true)
    }
}

@Suite struct SharedLongPolls {
    /// Long polls woken by one change share one read (SharedFeedReads): each still gets
    /// the answer for its token (a record it may not view as a delete, no digest).
    /// Memory that kept a floor past the store's seq (a layer deleted and made again while
    /// this process kept the old one's floor, or an old push published after the deletion)
    /// refuses every cursor the store gives: the follower still gets each change, read from
    /// the store between pauses, not in a loop of reads.
    @Test func aFloorPastTheStoresSeqStillDeliversFromTheStore() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        let stale = SyncChange(
            seq: 100_000,
            id: "old",
            op: .put,
            record: Array("{\"id\":\"old\"}".utf8),
            clientID: "c",
            userID: nil
        )
        h.service.feeds.publish(LayerFeeds.Key(document: "doc", layer: "main"), [stale], digest: nil, now: 0)
        let inbox = Inbox()
        let feed = Task {
            await h.service.follow(document: "doc", layer: "main", token: token, since: 0, send: inbox.send)
        }
        defer { feed.cancel() }
        try await inbox.until { $0.bodies.count == 1 }
        let start = inbox.bodies[0]["seq"]?.integerValue ?? -1
        for i in 1...3 { _ = try await h.push([putNote(i, id: "f\(i)")]) }
        try await inbox.until { $0.seqs.count == 3 }
        #expect(inbox.seqs == Array(start + 1...start + 3))
    }

    @Test func wokenPollsShareOneReadAndKeepTheirRights() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let full = try await sign(claims())
        var bobClaims = claims(user: "bob")
        bobClaims.collaboration_permissions = ["annotations:view:self", "comments:view:self"]
        let bob = try await sign(bobClaims)
        let seq = try await h.layer()["seq"]?.integerValue ?? -1
        let query = ["since": String(seq), "wait": "20"]
        let polls = (0..<20).map { i in
            Task {
                await h.client("GET", "/documents/doc/layers/main/changes", token: i == 7 ? bob : full, query: query)
            }
        }
        // Every poll waits before the push (a bound, not a measure).
        let deadline = ContinuousClock.now + .seconds(10)
        while h.service.listeners.count < polls.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(h.service.listeners.count == polls.count)
        _ = try await h.push([putNote(1, id: "alices")])
        var answers: [InstantJSONValue] = []
        for p in polls { answers.append(try json(await p.value)) }
        for (i, a) in answers.enumerated() {
            let change = a["changes"]?[0]
            #expect(a["seq"]?.integerValue == seq + 1 && a["changes"]?.arrayValue?.count == 1)
            if i == 7 {
                #expect(change?["op"]?.stringValue == "delete" && change?["record"] == nil && a["digest"] == nil)
            } else {
                #expect(change?["op"]?.stringValue == "put" && a["digest"]?.stringValue != nil)
            }
        }
    }
}

@Suite struct LayerFeedsRules {
    let key = LayerFeeds.Key(document: "d", layer: "l")

    func change(_ seq: Int64) -> SyncChange {
        SyncChange(
            seq: seq,
            id: "r\(seq)",
            op: .put,
            record: Array("{\"id\":\"r\(seq)\"}".utf8),
            clientID: "c",
            userID: nil
        )
    }

    func feeds() -> LayerFeeds { LayerFeeds(pageSize: 2) { "{\"type\":\"error\",\"status\":401}" } }

    func seqs(_ inbox: Inbox) -> [Int64] { inbox.seqs }

    @Test func outOfOrderPublishesAreDeliveredInOrderOnce() async throws {
        let feeds = feeds()
        let inbox = Inbox()
        let task = Task {
            await feeds.follow(
                key,
                cursor: 0,
                epoch: feeds.epoch,
                rights: nil,
                expires: .infinity,
                now: { 0 },
                send: inbox.send
            )
        }
        try await Task.sleep(for: .milliseconds(50))
        feeds.publish(key, [change(3)], digest: nil, now: 0)
        feeds.publish(key, [change(2)], digest: nil, now: 0)
        #expect(inbox.all.isEmpty)  // 1 is not there yet
        feeds.publish(key, [change(1)], digest: nil, now: 0)
        feeds.publish(key, [change(2)], digest: nil, now: 0)  // again: not delivered twice
        try await inbox.until { $0.seqs.count == 3 }
        // Three changes, at most two a message (pageSize): two messages, `more` on the first.
        #expect(inbox.seqs == [1, 2, 3])
        #expect(inbox.bodies.map { $0["more"]?.boolValue } == [true, false])
        #expect(inbox.bodies.map { $0["seq"]?.integerValue } == [2, 3])
        task.cancel()
        if case .ended = await task.value {} else { Issue.record("a cancelled follow ends") }
    }

    @Test func aChangeMemoryLacksSendsTheFollowerToTheStore() async throws {
        let feeds = feeds()
        let inbox = Inbox()
        let task = Task {
            await feeds.follow(
                key,
                cursor: 4,
                epoch: feeds.epoch,
                rights: nil,
                expires: .infinity,
                now: { 0 },
                send: inbox.send
            )
        }
        try await Task.sleep(for: .milliseconds(50))
        feeds.announce(key, seq: 5)  // committed elsewhere
        guard case .behind(4) = await task.value else {
            Issue.record("behind at 4 expected")
            return
        }
        // A follower that read the store before 5 and comes now reads it again; after it, not.
        guard
            case .behind(4) = await feeds.follow(
                key,
                cursor: 4,
                epoch: feeds.epoch,
                rights: nil,
                expires: .infinity,
                now: { 0 },
                send: inbox.send
            )
        else {
            Issue.record("behind expected")
            return
        }
        // A follower that read the store before a deletion reads it again.
        let epoch = feeds.epoch
        feeds.forget(document: "d", layer: nil)
        guard
            case .behind(5) = await feeds.follow(
                key,
                cursor: 5,
                epoch: epoch,
                rights: nil,
                expires: .infinity,
                now: { 0 },
                send: inbox.send
            )
        else {
            Issue.record("behind expected after a deletion")
            return
        }
        #expect(inbox.all.isEmpty)
    }

    @Test func changesPublishedWhileNobodyFollowedAreReadFromTheStore() async throws {
        let feeds = feeds()
        feeds.publish(key, [change(1)], digest: nil, now: 0)
        let inbox = Inbox()
        // Read the store at 0 before 1 was published: memory no longer has 1.
        guard
            case .behind(0) = await feeds.follow(
                key,
                cursor: 0,
                epoch: feeds.epoch,
                rights: nil,
                expires: .infinity,
                now: { 0 },
                send: inbox.send
            )
        else {
            Issue.record("behind expected")
            return
        }
        let task = Task {
            await feeds.follow(
                key,
                cursor: 1,
                epoch: feeds.epoch,
                rights: nil,
                expires: .infinity,
                now: { 0 },
                send: inbox.send
            )
        }
        try await Task.sleep(for: .milliseconds(50))
        feeds.publish(key, [change(2)], digest: nil, now: 0)
        try await inbox.until { $0.seqs == [2] }
        #expect(feeds.count == 1)
        task.cancel()
        _ = await task.value
        #expect(feeds.count == 0)
    }
}
