import Synchronization

/// The long polls waiting in this process, by layer. A commit (here, or announced by the
/// store from another process) wakes the listeners of its layer that wait for a change
/// after an older sequence number; a timeout, the task's cancellation or `shutdown()` wakes
/// one too. Waking only resumes the waiting task, which then reads the changes from the
/// store: nothing is carried by the wake-up itself.
final class ListenerRegistry: Sendable {
    private struct Key: Hashable {
        let document: String
        let layer: String
    }

    private enum Entry {
        /// Registered, not waiting yet (its continuation is being made).
        case pending(Key, after: Int64)
        /// Woken before it waited: it returns at once when it tries to wait.
        case fired
        case waiting(Key, after: Int64, CheckedContinuation<Void, Never>)
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var byKey: [Key: Set<UInt64>] = [:]
        /// The highest sequence number announced per layer since start: a listener that
        /// registers after a change it has not read yet does not wait.
        var latest: [Key: Int64] = [:]
        var nextID: UInt64 = 0
        var closed = false

        mutating func remove(_ id: UInt64, _ entry: Entry) {
            switch entry {
            case .pending(let key, _), .waiting(let key, _, _):
                byKey[key]?.remove(id)
                if byKey[key]?.isEmpty == true { byKey[key] = nil }
            case .fired:
                break
            }
        }
    }

    private let state = Mutex(State())
    let maxListeners: Int
    /// The `Retry-After` of a long poll refused past `maxListeners`: long enough that the
    /// refused do not come back faster than listeners leave (a listener waits up to
    /// `max_wait_seconds`), short enough that a client is back soon after a slot frees.
    static let busyRetryAfterSeconds = 5

    init(maxListeners: Int) {
        self.maxListeners = maxListeners
    }

    /// The number of long polls waiting now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Waits until a change after `after` is announced for the layer, `seconds` pass, the
    /// task is cancelled or the registry shuts down. Returns at once when the registry is
    /// shut down or knows of such a change, and returns false at once, without waiting,
    /// when it already has `maxListeners` listeners (the caller answers "busy").
    @discardableResult
    func wait(document: String, layer: String, after: Int64, seconds: Double) async -> Bool {
        let key = Key(document: document, layer: layer)
        var full = false
        let id: UInt64? = state.withLock { s in
            guard !s.closed, (s.latest[key] ?? Int64.min) <= after else { return nil }
            guard s.entries.count < maxListeners else {
                full = true
                return nil
            }
            s.nextID &+= 1
            s.entries[s.nextID] = .pending(key, after: after)
            s.byKey[key, default: []].insert(s.nextID)
            return s.nextID
        }
        guard let id else { return !full }
        let nanoseconds = UInt64(max(0, min(seconds, 86_400)) * 1e9)
        let timer = Task { [self] in
            try? await Task.sleep(nanoseconds: nanoseconds)
            fire(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    guard case .pending(let key, let after)? = s.entries[id] else {
                        // Fired (or gone) before it could wait.
                        s.entries[id] = nil
                        return true
                    }
                    s.entries[id] = .waiting(key, after: after, c)
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            fire(id)
        }
        timer.cancel()
        state.withLock { s in
            if let entry = s.entries.removeValue(forKey: id) { s.remove(id, entry) }
        }
        return true
    }

    /// Wakes listener `id`.
    private func fire(_ id: UInt64) {
        let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
            switch s.entries[id] {
            case .waiting(let key, _, let c)?:
                s.entries[id] = nil
                s.byKey[key]?.remove(id)
                if s.byKey[key]?.isEmpty == true { s.byKey[key] = nil }
                return c
            case .pending(let key, _)?:
                s.byKey[key]?.remove(id)
                if s.byKey[key]?.isEmpty == true { s.byKey[key] = nil }
                s.entries[id] = .fired
                return nil
            case .fired?, nil:
                return nil
            }
        }
        c?.resume()
    }

    /// A change with sequence number `seq` is committed on the layer: wakes its listeners
    /// that wait for a change after an older one.
    func notify(document: String, layer: String, seq: Int64) {
        let key = Key(document: document, layer: layer)
        let woken = state.withLock { s -> [UInt64] in
            if (s.latest[key] ?? Int64.min) < seq { s.latest[key] = seq }
            guard let ids = s.byKey[key] else { return [] }
            return ids.filter { id in
                switch s.entries[id] {
                case .waiting(_, let after, _)?, .pending(_, let after)?: return after < seq
                default: return false
                }
            }
        }
        for id in woken { fire(id) }
    }

    /// The highest seq announced for the layer since start (nil: none).
    func latest(document: String, layer: String) -> Int64? {
        state.withLock { $0.latest[Key(document: document, layer: layer)] }
    }

    /// A layer was deleted (its seq starts again at 0): forgets what was announced of it.
    func forget(document: String, layer: String?) {
        state.withLock { s in
            s.latest = s.latest.filter { !($0.key.document == document && (layer == nil || $0.key.layer == layer)) }
        }
    }

    /// Wakes every listener; later waits return at once.
    func shutdown() {
        let ids = state.withLock { s -> [UInt64] in
            s.closed = true
            return Array(s.entries.keys)
        }
        for id in ids { fire(id) }
    }
}

/// The reads of woken long polls, shared (issue 41): a change wakes every long poll of its
/// layer at once, and those at the same seq need the same answer, so the first starts the
/// read and the others await it, instead of one store read and one encoding each. A long
/// poll joins a read only when the read started after a change past its seq was announced
/// (so the read sees it, and the answer is not empty); the read is forgotten once answered.
final class SharedFeedReads: Sendable {
    struct Key: Hashable {
        let document: String
        let layer: String
        let since: Int64
    }

    /// A read's answer, and its body for a token that views every record.
    struct Result: Sendable {
        let answer: SyncService.FeedAnswer
        let plainBody: [UInt8]
    }

    /// Each read in flight, with the highest seq announced when it started (it sees that one).
    private let reads = Mutex<[Key: (sees: Int64, task: Task<Result, any Error>)]>([:])

    /// The answer after `since`: a read in flight that sees a change past `since`, or a new
    /// one. `announced` gives the highest seq announced for the layer (nil: none yet).
    func read(
        _ document: String,
        _ layer: String,
        since: Int64,
        announced: @Sendable () -> Int64?,
        _ body: @escaping @Sendable () async throws -> SyncService.FeedAnswer
    ) async throws -> Result {
        let key = Key(document: document, layer: layer, since: since)
        let task = reads.withLock { reads in
            if let r = reads[key], r.sees > since { return r.task }
            let sees = announced() ?? Int64.min
            let task = Task { () async throws -> Result in
                let answer = try await body()
                return Result(answer: answer, plainBody: SyncService.feedBody(answer, rights: nil))
            }
            reads[key] = (sees, task)
            return task
        }
        defer {
            reads.withLock { reads in
                if reads[key]?.task == task { reads[key] = nil }
            }
        }
        return try await task.value
    }
}
