import FoundationEssentials
import JWTKit
import QuireSyncProtocol
import Synchronization

/// The live feeds of this process (issues 34 and 41): connections that follow a layer
/// (quire-server's WebSocket sessions) get each change committed here from memory, as the
/// push that made it publishes it, instead of one read of the store per connection and per
/// wake-up. A change is encoded once, when it is published; the `changes` message for the
/// followers of a layer that hold the same seq is built once and shared; a follower whose
/// token may not view every record gets its own, filtered as `GET .../changes` filters it.
///
/// What is kept per layer: the changes published here that some follower has not had yet,
/// and a floor below which this memory may lack changes. A follower is served from memory
/// only while its seq is at or above the floor and the changes after it come in order;
/// otherwise (a change committed by another process, or by a path that does not publish; a
/// layer deleted; a follower too far behind) it is told it is behind and reads the store,
/// as a long poll would, then follows again from the seq it read. Changes are delivered
/// only in order and each once: a change published before a lower one (two pushes of one
/// group commit resume in any order) waits for it.
final class LayerFeeds: Sendable {
    struct Key: Hashable {
        let document: String
        let layer: String
    }

    /// A change as published: its JSON in the feed's shape, encoded once.
    struct Entry {
        let change: SyncChange
        let json: [UInt8]
        /// The layer's digest after this change, when it ends a push (a feed answer ending
        /// here carries it, as `GET .../changes` does).
        let digest: LayerDigest?
    }

    /// How a follow ended.
    enum Outcome: Sendable {
        /// The follower must read the store after this seq (its changes are not all in memory).
        case behind(Int64)
        /// A closing message was sent (the token expired), or the connection went away.
        case ended
    }

    private struct Follower {
        var cursor: Int64
        let rights: CollaborationPermissions?
        /// When its token expires (seconds since 1970, the leeway included).
        let expires: Double
        let send: @Sendable (String, Bool) -> Void
        var continuation: CheckedContinuation<Outcome, Never>?
        /// Ended before it waited.
        var outcome: Outcome?
    }

    private struct LayerState {
        var entries: [Int64: Entry] = [:]
        /// Every change after `floor` published here is in `entries` (or still on its way).
        var floor: Int64 = 0
        var followers: [UInt64: Follower] = [:]
    }

    private struct State {
        var layers: [Key: LayerState] = [:]
        var nextID: UInt64 = 0
        /// Counts the layers deleted: a follower that read the store before a deletion
        /// reads it again.
        var epoch: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// The most changes one `changes` message carries (`max_changes_per_page`).
    let pageSize: Int
    /// The most changes kept for a layer's slowest follower; past it, the follower reads the store.
    static let maxEntries = 4096
    /// Answers what an expired token gets.
    let expired: @Sendable () -> String

    init(pageSize: Int, expired: @escaping @Sendable () -> String) {
        self.pageSize = max(1, pageSize)
        self.expired = expired
    }

    /// The number of connections following from memory now.
    var count: Int { state.withLock { s in s.layers.values.reduce(0) { $0 + $1.followers.count } } }

    /// The count of deletions so far: read before reading the store, handed to `follow`.
    var epoch: UInt64 { state.withLock { $0.epoch } }

    /// Follows the layer from `cursor` (the seq of the last change the follower has, read
    /// from the store when the count of deletions was `epoch`) until it must read the store
    /// again, its token expires, or the task is cancelled.
    func follow(
        _ key: Key,
        cursor: Int64,
        epoch: UInt64,
        rights: CollaborationPermissions?,
        expires: Double,
        now: @escaping @Sendable () -> Double,
        send: @escaping @Sendable (String, Bool) -> Void
    ) async -> Outcome {
        let id: UInt64? = state.withLock { s in
            if s.closed || s.epoch != epoch { return nil }
            // Memory may lack changes after `cursor` (published before it came, and dropped).
            if let layer = s.layers[key], cursor < layer.floor { return nil }
            s.nextID &+= 1
            var layer = s.layers[key] ?? LayerState(floor: cursor)
            layer.followers[s.nextID] = Follower(cursor: cursor, rights: rights, expires: expires, send: send)
            s.layers[key] = layer
            return s.nextID
        }
        guard let id else { return .behind(cursor) }
        // What was published after `cursor` before it came is delivered now.
        state.withLock { s in deliver(&s, key, now: now()) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Outcome, Never>) in
                let done = state.withLock { s -> Outcome? in
                    guard var f = s.layers[key]?.followers[id] else { return .ended }
                    if let outcome = f.outcome {
                        s.layers[key]?.followers[id] = nil
                        return outcome
                    }
                    f.continuation = c
                    s.layers[key]?.followers[id] = f
                    return nil
                }
                if let done { c.resume(returning: done) }
            }
        } onCancel: {
            end(key, id, .ended)
        }
    }

    /// Ends follower `id` with `outcome`: resumes it, or has it return at once when it waits.
    private func end(_ key: Key, _ id: UInt64, _ outcome: Outcome) {
        let c = state.withLock { s in Self.end(&s, key, id, outcome) }
        c?.resume(returning: outcome)
    }

    /// Removes follower `id` (or marks it to return `outcome` when it has not waited yet);
    /// the continuation to resume, outside the lock.
    private static func end(
        _ s: inout State,
        _ key: Key,
        _ id: UInt64,
        _ outcome: Outcome
    ) -> CheckedContinuation<Outcome, Never>? {
        guard var f = s.layers[key]?.followers[id] else { return nil }
        if let c = f.continuation {
            s.layers[key]?.followers[id] = nil
            return c
        }
        if f.outcome == nil { f.outcome = outcome }
        s.layers[key]?.followers[id] = f
        return nil
    }

    /// Changes committed on the layer by a push of this process: kept, and delivered to
    /// each follower that has every change before them. `changes` are in seq order.
    func publish(_ key: Key, _ changes: [SyncChange], digest: LayerDigest?, now: Double) {
        guard let last = changes.last else { return }
        var encoded: [(Int64, Entry)] = []
        encoded.reserveCapacity(changes.count)
        for c in changes {
            encoded.append(
                (
                    c.seq,
                    Entry(change: c, json: SyncService.changeJSON(c).bytes, digest: c.seq == last.seq ? digest : nil)
                )
            )
        }
        let resume = state.withLock { s -> [(CheckedContinuation<Outcome, Never>, Outcome)] in
            // A layer nobody follows keeps its floor: a follower that read the store before
            // these changes reads it again.
            var layer = s.layers[key] ?? LayerState(floor: (changes.first?.seq ?? 1) - 1)
            for (seq, entry) in encoded where seq > layer.floor { layer.entries[seq] = entry }
            s.layers[key] = layer
            return deliver(&s, key, now: now)
        }
        for (c, outcome) in resume { c.resume(returning: outcome) }
    }

    /// A change the layer's memory does not have (committed by another process, or by a
    /// path that does not publish): followers before it read the store.
    func announce(_ key: Key, seq: Int64) {
        let resume = state.withLock { s -> [(CheckedContinuation<Outcome, Never>, Outcome)] in
            var layer = s.layers[key] ?? LayerState(floor: seq)
            guard layer.entries[seq] == nil, seq >= layer.floor else { return [] }
            layer.floor = seq
            layer.entries = layer.entries.filter { $0.key > seq }
            s.layers[key] = layer
            var out: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
            for (id, f) in layer.followers where f.cursor < seq {
                if let c = Self.end(&s, key, id, .behind(f.cursor)) { out.append((c, .behind(f.cursor))) }
            }
            return out
        }
        for (c, outcome) in resume { c.resume(returning: outcome) }
    }

    /// The layer was deleted (or its document): every follower reads the store (and gets a
    /// reset there).
    func forget(document: String, layer: String?) {
        let resume = state.withLock { s -> [(CheckedContinuation<Outcome, Never>, Outcome)] in
            s.epoch &+= 1
            var out: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
            for key in s.layers.keys where key.document == document && (layer == nil || key.layer == layer) {
                for (id, f) in s.layers[key]?.followers ?? [:] {
                    if let c = Self.end(&s, key, id, .behind(f.cursor)) { out.append((c, .behind(f.cursor))) }
                }
                // Followers that have not waited yet return when they do; the layer's
                // memory is gone either way.
                s.layers[key]?.entries = [:]
                s.layers[key]?.floor = 0
            }
            return out
        }
        for (c, outcome) in resume { c.resume(returning: outcome) }
    }

    /// Shutting down: every follower reads the store (which answers 503 then).
    func shutdown() {
        let resume = state.withLock { s -> [(CheckedContinuation<Outcome, Never>, Outcome)] in
            s.closed = true
            var out: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
            for (key, layer) in s.layers {
                for (id, f) in layer.followers {
                    if let c = Self.end(&s, key, id, .behind(f.cursor)) { out.append((c, .behind(f.cursor))) }
                }
            }
            return out
        }
        for (c, outcome) in resume { c.resume(returning: outcome) }
    }

    /// Sends each follower of the layer the changes after its cursor that memory holds in
    /// order; the messages for followers at the same cursor that view everything are built
    /// once. Drops what every follower has; past `maxEntries` the slowest read the store.
    /// Returns the followers to resume (outside the lock).
    private func deliver(_ s: inout State, _ key: Key, now: Double) -> [(CheckedContinuation<Outcome, Never>, Outcome)]
    {
        guard var layer = s.layers[key] else { return [] }
        var out: [(CheckedContinuation<Outcome, Never>, Outcome)] = []
        var shared: [Int64: (text: [String], to: Int64)] = [:]
        var ended: [(UInt64, Outcome)] = []
        for (id, var f) in layer.followers where f.outcome == nil && layer.entries[f.cursor + 1] != nil {
            if f.expires <= now {
                f.send(expired(), true)
                ended.append((id, .ended))
                continue
            }
            let messages: (text: [String], to: Int64)
            if let rights = f.rights, !rights.viewsEverything {
                messages = Self.messages(layer.entries, after: f.cursor, pageSize: pageSize, rights: rights)
            } else if let built = shared[f.cursor] {
                messages = built
            } else {
                messages = Self.messages(layer.entries, after: f.cursor, pageSize: pageSize, rights: nil)
                shared[f.cursor] = messages
            }
            for text in messages.text { f.send(text, false) }
            f.cursor = messages.to
            layer.followers[id] = f
        }
        // What every follower has is dropped; a layer nobody follows keeps nothing (its
        // floor says how far memory went).
        let lowest = layer.followers.values.map(\.cursor).min() ?? Int64.max
        if layer.entries.keys.contains(where: { $0 <= lowest }) {
            let dropped = layer.entries.keys.filter { $0 <= lowest }
            layer.floor = max(layer.floor, dropped.max() ?? layer.floor)
            for seq in dropped { layer.entries[seq] = nil }
        }
        if layer.entries.count > Self.maxEntries {
            let kept = layer.entries.keys.sorted().suffix(Self.maxEntries)
            let cut = (kept.first ?? Int64.max) - 1
            layer.floor = max(layer.floor, cut)
            layer.entries = layer.entries.filter { $0.key > cut }
            for (id, f) in layer.followers where f.cursor < cut { ended.append((id, .behind(f.cursor))) }
        }
        s.layers[key] = layer
        for (id, outcome) in ended {
            if let c = Self.end(&s, key, id, outcome) { out.append((c, outcome)) }
        }
        return out
    }

    /// The `changes` messages for a follower at `cursor`: the changes held in order after
    /// it, at most `pageSize` a message (`more` on all but the last, each message's seq its
    /// last change's); the digest when the last change ends a push and the follower views
    /// everything. A change the follower may not view reaches it as a delete.
    static func messages(
        _ entries: [Int64: Entry],
        after cursor: Int64,
        pageSize: Int,
        rights: CollaborationPermissions?
    ) -> (text: [String], to: Int64) {
        var run: [Entry] = []
        var next = cursor + 1
        while let e = entries[next] {
            run.append(e)
            next += 1
        }
        var texts: [String] = []
        var start = 0
        while start < run.count {
            let page = run[start..<min(run.count, start + pageSize)]
            start += page.count
            let more = start < run.count
            var body: [UInt8] = Array("{\"type\":\"changes\",\"body\":{\"seq\":".utf8)
            body.append(contentsOf: String(page.last?.change.seq ?? cursor).utf8)
            body.append(contentsOf: ",\"changes\":[".utf8)
            for (i, e) in page.enumerated() {
                if i > 0 { body.append(UInt8(ascii: ",")) }
                if let rights, !rights.viewsEverything {
                    body.append(contentsOf: SyncService.changeJSON(SyncService.visible(e.change, to: rights)).bytes)
                } else {
                    body.append(contentsOf: e.json)
                }
            }
            body.append(contentsOf: "],\"more\":\(more)".utf8)
            if !more, rights.map({ $0.viewsEverything }) ?? true, let digest = page.last?.digest {
                body.append(contentsOf: ",\"digest\":\"\(digest.hex)\"".utf8)
            }
            body.append(contentsOf: "}}".utf8)
            texts.append(String(decoding: body, as: UTF8.self))
        }
        return (texts, cursor + Int64(run.count))
    }
}

extension SyncService {
    /// Seconds since 1970 now (a token's expiry is compared with it).
    static func now() -> Double { Date().timeIntervalSince1970 }

    /// The message that closes a live connection on `answer` (a token refused or expired,
    /// the server shutting down): `{"type": "error", "status", "body"}`.
    public static func closingMessage(_ answer: SyncResponse) -> String {
        "{\"type\":\"error\",\"status\":\(answer.status),\"body\":\(answer.body.isEmpty ? "null" : String(decoding: answer.body, as: UTF8.self))}"
    }

    /// Follows `layer`'s change feed for a live connection (quire-server's WebSocket,
    /// docs/sync-protocol.md) from `since`, until the task is cancelled, a reset is sent or
    /// the connection must close. `send(text, close)` hands over each message: `changes`
    /// messages (`{"type": "changes", "body": ...}`, the body as `GET .../changes` gives it
    /// to this token), and last, with `close` true, an `error` message (the token refused or
    /// expired, the server shutting down). `send` must not block: it is called while the
    /// layer's followers are served.
    ///
    /// The token is verified once, here (read on the layer); its expiry is checked before
    /// every message after. The first answer is read from the store at once (sent even when
    /// empty); after it, the changes committed by this process come from memory
    /// (``LayerFeeds``), and the store is read again only when memory lacks some.
    public func follow(
        document: String,
        layer: String,
        token: String,
        since start: Int64,
        send: @escaping @Sendable (String, Bool) -> Void
    ) async {
        let claims: SyncClaims
        let rights: CollaborationPermissions?
        do {
            if isStopping { throw SyncHTTPError.unavailable("the server is shutting down") }
            let request = SyncRequest(
                method: "GET",
                target: "/documents/\(document)/layers/\(layer)/changes",
                headers: [("Authorization", "Bearer " + token)],
                body: []
            )
            claims = try await authorize(request, document: document, layer: layer, permission: "read")
            rights = try claims.collaboration()
        } catch let e as SyncHTTPError {
            send(Self.closingMessage(Self.errorResponse(e)), true)
            return
        } catch {
            send(Self.closingMessage(Self.errorResponse(.internal("internal error: \(errorMessage(error))"))), true)
            return
        }
        let expires = claims.exp.value.timeIntervalSince1970 + verifier.leeway
        let key = LayerFeeds.Key(document: document, layer: layer)
        var since = start
        var first = true
        // How many times in a row memory refused the cursor that a store read without new
        // changes had just given (see `.behind` below).
        var refused = 0
        var progressed = false
        while !Task.isCancelled {
            let epoch = feeds.epoch
            let answer: FeedAnswer
            do {
                if isStopping { throw SyncHTTPError.unavailable("the server is shutting down") }
                if Self.now() >= expires { throw SyncHTTPError.unauthenticated("the token has expired") }
                answer = try await readFeed(document, layer, since: since)
            } catch let e as SyncHTTPError {
                send(Self.closingMessage(Self.errorResponse(e)), true)
                return
            } catch {
                send(Self.closingMessage(Self.errorResponse(.internal("internal error: \(errorMessage(error))"))), true)
                return
            }
            if Task.isCancelled { return }
            switch answer {
            case .reset:
                // The client refetches the layer, then subscribes again.
                send(
                    "{\"type\":\"changes\",\"body\":\(String(decoding: Self.feedBody(answer, rights: rights), as: UTF8.self))}",
                    false
                )
                return
            case .changes(let seq, let changes, let more, _):
                if !changes.isEmpty || first {
                    send(
                        "{\"type\":\"changes\",\"body\":\(String(decoding: Self.feedBody(answer, rights: rights), as: UTF8.self))}",
                        false
                    )
                }
                first = false
                progressed = !changes.isEmpty
                // A page of more: the next read starts after its last change.
                since = more ? (changes.last?.seq ?? seq) : seq
                if more { continue }
            }
            switch await feeds.follow(
                key,
                cursor: since,
                epoch: epoch,
                rights: rights,
                expires: expires,
                now: Self.now,
                send: send
            ) {
            case .behind(let cursor):
                // Refused at once at the cursor the store just gave, twice, with nothing new
                // in the store between: memory's floor is past the store's seq (a layer
                // deleted and made again while this process kept the old one's floor, or
                // a push of the old layer published after its deletion). Read the store
                // again after a pause, not at once: the connection then polls the store
                // (and gets every change from it) instead of spinning.
                refused = cursor == since && !progressed ? refused + 1 : 0
                if refused >= 2 { try? await Task.sleep(nanoseconds: 250_000_000) }
                since = cursor
            case .ended: return
            }
        }
    }
}
