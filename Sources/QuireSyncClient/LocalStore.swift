import QuireDocument
import QuireSync
import QuireSyntax

// The local store of one (document, layer): a SQLite file in WAL mode with
// synchronous=FULL, through the sync core's SQLite wrapper. Every write is one
// transaction, durable when it returns.
//
// Tables:
//   meta(key, value)        client_id, cursor (the feed position pulled), next_client_seq,
//                           downloaded ("1" once the layer was fetched)
//   records(id, revision, json)   the server's records as last known (what was pulled or
//                           acknowledged), the base of rebasing
//   outbox(client_seq, id, op, base, json)   mutations with their idempotency key,
//                           written before they are sent: a retry sends the same ones
//   pending(ord, id, op, base, chained, json)   the local changes not yet in the outbox,
//                           one row per record id (its latest local state), in the order
//                           of their first change; `chained` = made while the same id was
//                           in the outbox (its base is that mutation's answer)

/// One pending or outgoing local change.
public struct LocalMutation: Sendable, Equatable {
    public var clientSeq: Int64?
    public var id: String
    /// "put" or "delete".
    public var op: String
    public var baseRevision: Int64?
    public var record: [UInt8]?
}

final class LocalStore: @unchecked Sendable {
    let path: String
    /// nil once closed (the connection closes when released).
    private var connection: SQLiteConnection?
    private var db: SQLiteConnection {
        get throws {
            guard let connection else { throw SyncClientError(.state, "the local store \(path) is closed") }
            return connection
        }
    }
    /// Serializes every use of the connection (the caller's thread while it edits, the
    /// descriptor's worker while it syncs).
    let lock = RecursiveLock()

    static let schemaVersion = "1"

    init(path: String) throws {
        self.path = path
        do {
            let opened = try SQLiteConnection(path: path)
            opened.setBusyTimeout(milliseconds: 10_000)
            connection = opened
            try db.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            try db.execute("""
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS records(id TEXT PRIMARY KEY, revision INTEGER NOT NULL, json BLOB NOT NULL);
                CREATE TABLE IF NOT EXISTS outbox(client_seq INTEGER PRIMARY KEY, id TEXT NOT NULL, op TEXT NOT NULL,
                                                  base INTEGER, json BLOB);
                CREATE TABLE IF NOT EXISTS pending(ord INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
                                                   op TEXT NOT NULL, base INTEGER, chained INTEGER NOT NULL, json BLOB);
                """)
            if try meta("schema") == nil { try setMeta(["schema": Self.schemaVersion]) }
            guard try meta("schema") == Self.schemaVersion else {
                throw SyncClientError(.storage, "the local store \(path) has another schema version")
            }
        } catch let e as SyncClientError {
            throw e
        } catch {
            throw SyncClientError(.storage, "the local store \(path) cannot be opened: \(error)")
        }
    }

    func close() { lock.withLock { connection = nil } }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE ... COMMIT), durable on return.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            do {
                try db.execute("BEGIN IMMEDIATE")
            } catch {
                throw SyncClientError(.storage, "the local store cannot begin a transaction: \(error)")
            }
            do {
                let result = try body()
                try db.execute("COMMIT")
                return result
            } catch {
                try? db.execute("ROLLBACK")
                if let e = error as? SyncClientError { throw e }
                throw SyncClientError(.storage, "the local store failed: \(error)")
            }
        }
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            do { return try body() } catch let e as SyncClientError { throw e } catch {
                throw SyncClientError(.storage, "the local store failed: \(error)")
            }
        }
    }

    // MARK: meta

    func meta(_ key: String) throws -> String? {
        try wrap { try db.query("SELECT value FROM meta WHERE key = ?", [.text(key)]) { $0.text(0) }.first }
    }

    func setMeta(_ values: [String: String]) throws {
        try wrap {
            for (k, v) in values.sorted(by: { $0.key < $1.key }) {
                try db.run("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           [.text(k), .text(v)])
            }
        }
    }

    var cursor: Int64 { get throws { Int64(try meta("cursor") ?? "0") ?? 0 } }
    var downloaded: Bool { get throws { try meta("downloaded") == "1" } }

    // MARK: records

    func records() throws -> [(id: String, revision: Int64, json: [UInt8])] {
        try wrap { try db.query("SELECT id, revision, json FROM records ORDER BY rowid") { ($0.text(0), $0.integer(1), $0.blob(2)) } }
    }

    func record(_ id: String) throws -> (revision: Int64, json: [UInt8])? {
        try wrap { try db.query("SELECT revision, json FROM records WHERE id = ?", [.text(id)]) { ($0.integer(0), $0.blob(1)) }.first }
    }

    func putRecord(_ id: String, revision: Int64, json: [UInt8]) throws {
        try wrap {
            try db.run("INSERT INTO records(id, revision, json) VALUES(?, ?, ?) ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, json = excluded.json",
                       [.text(id), .integer(revision), .blob(json)])
        }
    }

    func deleteRecord(_ id: String) throws {
        try wrap { try db.run("DELETE FROM records WHERE id = ?", [.text(id)]) }
    }

    func deleteAllRecords() throws {
        try wrap { try db.run("DELETE FROM records") }
    }

    // MARK: pending and outbox

    func outbox() throws -> [LocalMutation] {
        try wrap {
            try db.query("SELECT client_seq, id, op, base, json FROM outbox ORDER BY client_seq") {
                LocalMutation(clientSeq: $0.integer(0), id: $0.text(1), op: $0.text(2),
                              baseRevision: $0.isNull(3) ? nil : $0.integer(3), record: $0.optionalBlob(4))
            }
        }
    }

    func pending() throws -> [LocalMutation] {
        try wrap {
            try db.query("SELECT id, op, base, json FROM pending ORDER BY ord") {
                LocalMutation(clientSeq: nil, id: $0.text(0), op: $0.text(1),
                              baseRevision: $0.isNull(2) ? nil : $0.integer(2), record: $0.optionalBlob(3))
            }
        }
    }

    func pendingCount() throws -> Int {
        try wrap {
            let p = try db.query("SELECT count(*) FROM pending") { $0.integer(0) }.first ?? 0
            let o = try db.query("SELECT count(*) FROM outbox") { $0.integer(0) }.first ?? 0
            return Int(p + o)
        }
    }

    /// The ids with a local change not yet answered (pending or in the outbox).
    func locallyChangedIDs() throws -> Set<String> {
        try wrap {
            Set(try db.query("SELECT id FROM pending UNION SELECT id FROM outbox") { $0.text(0) })
        }
    }

    private func inOutbox(_ id: String) throws -> Bool {
        try !db.query("SELECT 1 FROM outbox WHERE id = ? LIMIT 1", [.text(id)]) { $0.integer(0) }.isEmpty
    }

    /// Records a local change of record `id` (nil json: deleted), inside the caller's
    /// transaction.
    func recordLocalChange(_ id: String, json: [UInt8]?) throws {
        try wrap {
            let op = json == nil ? "delete" : "put"
            let existing = try db.query("SELECT op, base, chained FROM pending WHERE id = ?", [.text(id)]) {
                (op: $0.text(0), base: $0.isNull(1) ? nil : Optional($0.integer(1)), chained: $0.integer(2) != 0)
            }.first
            if let existing {
                // A record created locally and deleted before it left: nothing for the server.
                if op == "delete", existing.base == nil, !existing.chained, try record(id) == nil {
                    try db.run("DELETE FROM pending WHERE id = ?", [.text(id)])
                    return
                }
                try db.run("UPDATE pending SET op = ?, json = ? WHERE id = ?",
                           [.text(op), json.map { .blob($0) } ?? .null, .text(id)])
                return
            }
            let chained = try inOutbox(id)
            let base: Int64? = chained ? nil : try record(id)?.revision
            try db.run("INSERT INTO pending(id, op, base, chained, json) VALUES(?, ?, ?, ?, ?)",
                       [.text(id), .text(op), base.map { .integer($0) } ?? .null, .integer(chained ? 1 : 0),
                        json.map { .blob($0) } ?? .null])
        }
    }

    /// Moves every pending change whose id is not in the outbox into it, with the next
    /// client sequence numbers, ordered so that a record comes after the records it names
    /// (`order`). Call it inside ``transaction(_:)``.
    func sealPending(order: ([LocalMutation]) -> [LocalMutation]) throws {
        try wrap {
            let rows = try db.query("SELECT id, op, base, chained, json FROM pending WHERE id NOT IN (SELECT id FROM outbox) ORDER BY ord") {
                (LocalMutation(clientSeq: nil, id: $0.text(0), op: $0.text(1), baseRevision: $0.isNull(2) ? nil : $0.integer(2),
                               record: $0.optionalBlob(4)), $0.integer(3) != 0)
            }
            guard !rows.isEmpty else { return }
            // Never below a client_seq already used (the outbox's are the latest).
            let used = try db.query("SELECT max(client_seq) FROM outbox") { $0.isNull(0) ? 0 : $0.integer(0) }.first ?? 0
            var next = Swift.max(Int64(try meta("next_client_seq") ?? "1") ?? 1, used == .max ? .max : used + 1)
            // A store whose sequence is exhausted (damaged, or edited by hand) is refused
            // rather than trapping on the overflow of `next`.
            guard used < .max, next <= Int64.max - Int64(rows.count) else {
                throw SyncClientError(.storage, "the local store's client sequence is exhausted (\(next)): remove the layer's local storage")
            }
            var mutations: [LocalMutation] = []
            for (m, chained) in rows {
                var m = m
                // Chained: based on the answer of the mutation that was in the outbox.
                if chained { m.baseRevision = try record(m.id)?.revision }
                mutations.append(m)
            }
            for m in order(mutations) {
                try db.run("INSERT INTO outbox(client_seq, id, op, base, json) VALUES(?, ?, ?, ?, ?)",
                           [.integer(next), .text(m.id), .text(m.op), m.baseRevision.map { .integer($0) } ?? .null,
                            m.record.map { .blob($0) } ?? .null])
                try db.run("DELETE FROM pending WHERE id = ?", [.text(m.id)])
                next += 1
            }
            try setMeta(["next_client_seq": String(next)])
        }
    }

    func removeFromOutbox(_ clientSeq: Int64) throws {
        try wrap { try db.run("DELETE FROM outbox WHERE client_seq = ?", [.integer(clientSeq)]) }
    }

    /// After the outbox mutation of `id` was accepted: a chained pending change of it is
    /// now based on `revision` (nil: the record was deleted).
    func rebaseChained(_ id: String, revision: Int64?) throws {
        try wrap {
            try db.run("UPDATE pending SET chained = 0, base = ? WHERE id = ? AND chained = 1",
                       [revision.map { .integer($0) } ?? .null, .text(id)])
        }
    }

    /// Drops the pending change of `id`; returns whether there was one.
    @discardableResult
    func dropPending(_ id: String) throws -> Bool {
        try wrap {
            let had = try !db.query("SELECT 1 FROM pending WHERE id = ?", [.text(id)]) { $0.integer(0) }.isEmpty
            try db.run("DELETE FROM pending WHERE id = ?", [.text(id)])
            return had
        }
    }

    /// The local view: the server's records with the outbox and the pending changes on
    /// top, in the order of the records, then of the local creations.
    func localView() throws -> [(id: String, json: [UInt8])] {
        try wrap {
            var order: [String] = []
            var view: [String: [UInt8]?] = [:]
            for r in try records() {
                order.append(r.id)
                view[r.id] = .some(r.json)
            }
            for m in try outbox() + pending() {
                if view[m.id] == nil { order.append(m.id) }
                view[m.id] = .some(m.op == "put" ? m.record : nil)
            }
            return order.compactMap { id in (view[id] ?? nil).map { (id, $0) } }
        }
    }
}
