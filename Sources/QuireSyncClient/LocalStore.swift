import QuireDocument
import QuireSQLite
import QuireSyncProtocol
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
//   outbox(client_seq, id, op, base, json, changes)   mutations with their idempotency
//                           key, written before they are sent: a retry sends the same ones
//   pending(ord, id, op, base, chained, json, changes)   the local changes not yet in the
//                           outbox, one row per record id (its latest local state), in the
//                           order of their first change; `chained` = made while the same id
//                           was in the outbox (its base is that mutation's answer)
//   `changes`: the local change ids (one per document operation that changed records, from
//   meta next_change_id) that the row carries, comma-separated: what CHANGE_DROPPED names.
//   `fields`: the fields (RecordFields) the row's local changes changed, comma-separated
//   (NULL: not known, a row of a version 2 store): what a push names for a field-level merge.

/// One pending or outgoing local change.
public struct LocalMutation: Sendable, Equatable {
    public var clientSeq: Int64?
    public var id: String
    /// "put" or "delete".
    public var op: String
    public var baseRevision: Int64?
    public var record: [UInt8]?
    /// The local change ids it carries (``SyncDescriptor/lastChangeID``), oldest first.
    public var changes: [Int64] = []
    /// The fields (``RecordFields``) its local changes changed; nil when not known.
    public var fields: Set<String>? = nil
}

/// `fields` as stored: names joined by commas (field names have none); nil stays NULL.
func fieldsText(_ fields: Set<String>?) -> SQLiteValue { fields.map { .text($0.sorted().joined(separator: ",")) } ?? .null }
func fieldsSet(_ row: SQLiteRow, _ column: Int32) -> Set<String>? {
    row.optionalText(column).map { Set($0.split(separator: ",").map(String.init)) }
}

/// `changes` as stored: ids joined by commas.
func changeList(_ text: String) -> [Int64] { text.split(separator: ",").compactMap { Int64($0) } }
func changeText(_ changes: [Int64]) -> String { changes.map(String.init).joined(separator: ",") }

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

    /// 2: `changes` in pending and outbox; 3: `fields` (stores of versions 1 and 2 are
    /// migrated when opened).
    static let schemaVersion = "3"

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
                                                  base INTEGER, json BLOB, changes TEXT NOT NULL DEFAULT '', fields TEXT);
                CREATE TABLE IF NOT EXISTS pending(ord INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
                                                   op TEXT NOT NULL, base INTEGER, chained INTEGER NOT NULL, json BLOB,
                                                   changes TEXT NOT NULL DEFAULT '', fields TEXT);
                """)
            if try meta("schema") == nil { try setMeta(["schema": Self.schemaVersion]) }
            if try meta("schema") == "1" {
                // Version 1 (0.5's first stores): the change ids came with version 2.
                try transaction {
                    try db.execute("""
                        ALTER TABLE outbox ADD COLUMN changes TEXT NOT NULL DEFAULT '';
                        ALTER TABLE pending ADD COLUMN changes TEXT NOT NULL DEFAULT '';
                        """)
                    try setMeta(["schema": "2"])
                }
            }
            if try meta("schema") == "2" {
                // Version 2: the fields of field-level merges came with version 3 (NULL: not known).
                try transaction {
                    try db.execute("ALTER TABLE outbox ADD COLUMN fields TEXT; ALTER TABLE pending ADD COLUMN fields TEXT;")
                    try setMeta(["schema": "3"])
                }
            }
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

    /// Writes the server's record `id` at `revision` (`json` canonical, without
    /// `pdfObjectId`), keeping the records' digest (``digest()``) up to date, inside the
    /// caller's transaction.
    func putRecord(_ id: String, revision: Int64, json: [UInt8]) throws {
        try wrap {
            var d = try digest()
            if let old = try record(id) { d.toggle(id: id, revision: old.revision, record: old.json) }
            d.toggle(id: id, revision: revision, record: json)
            try db.run("INSERT INTO records(id, revision, json) VALUES(?, ?, ?) ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, json = excluded.json",
                       [.text(id), .integer(revision), .blob(json)])
            try setMeta(["digest": d.hex])
        }
    }

    func deleteRecord(_ id: String) throws {
        try wrap {
            guard let old = try record(id) else { return }
            var d = try digest()
            d.toggle(id: id, revision: old.revision, record: old.json)
            try db.run("DELETE FROM records WHERE id = ?", [.text(id)])
            try setMeta(["digest": d.hex])
        }
    }

    func deleteAllRecords() throws {
        try wrap {
            try db.run("DELETE FROM records")
            try setMeta(["digest": LayerDigest().hex])
        }
    }

    /// The digest of the server's records as this store holds them (``LayerDigest``): kept
    /// with every write, computed from the records when a store made before digests has
    /// none.
    func digest() throws -> LayerDigest {
        try wrap {
            if let text = try meta("digest"), let d = LayerDigest(hex: text) { return d }
            var d = LayerDigest()
            for r in try records() { d.toggle(id: r.id, revision: r.revision, record: r.json) }
            return d
        }
    }

    // MARK: pending and outbox

    func outbox() throws -> [LocalMutation] {
        try wrap {
            try db.query("SELECT client_seq, id, op, base, json, changes, fields FROM outbox ORDER BY client_seq") {
                LocalMutation(clientSeq: $0.integer(0), id: $0.text(1), op: $0.text(2),
                              baseRevision: $0.isNull(3) ? nil : $0.integer(3), record: $0.optionalBlob(4),
                              changes: changeList($0.text(5)), fields: fieldsSet($0, 6))
            }
        }
    }

    func pending() throws -> [LocalMutation] {
        try wrap {
            try db.query("SELECT id, op, base, json, changes, fields FROM pending ORDER BY ord") {
                LocalMutation(clientSeq: nil, id: $0.text(0), op: $0.text(1),
                              baseRevision: $0.isNull(2) ? nil : $0.integer(2), record: $0.optionalBlob(3),
                              changes: changeList($0.text(4)), fields: fieldsSet($0, 5))
            }
        }
    }

    /// A new local change id (1, 2, ...), inside the caller's transaction.
    func nextChangeID() throws -> Int64 {
        try wrap {
            let id = Int64(try meta("next_change_id") ?? "1") ?? 1
            guard id < Int64.max else { throw SyncClientError(.storage, "the local store's change ids are exhausted") }
            try setMeta(["next_change_id": String(id + 1)])
            return id
        }
    }

    /// The latest local change id given out (0: none yet).
    func lastChangeID() throws -> Int64 {
        try wrap { (Int64(try meta("next_change_id") ?? "1") ?? 1) - 1 }
    }

    /// The local change ids of `id`'s pending row (empty: none).
    func pendingChanges(_ id: String) throws -> [Int64] {
        try wrap {
            changeList(try db.query("SELECT changes FROM pending WHERE id = ?", [.text(id)]) { $0.text(0) }.first ?? "")
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

    /// Records a local change of record `id` (nil json: deleted), made by local change
    /// `change`, inside the caller's transaction.
    func recordLocalChange(_ id: String, json: [UInt8]?, change: Int64) throws {
        try wrap {
            let op = json == nil ? "delete" : "put"
            let existing = try db.query("SELECT op, base, chained, changes, json, fields FROM pending WHERE id = ?", [.text(id)]) {
                (op: $0.text(0), base: $0.isNull(1) ? nil : Optional($0.integer(1)), chained: $0.integer(2) != 0,
                 changes: $0.text(3), json: $0.optionalBlob(4), fields: fieldsSet($0, 5))
            }.first
            if let existing {
                // A record created locally and deleted before it left: nothing for the server.
                if op == "delete", existing.base == nil, !existing.chained, try record(id) == nil {
                    try db.run("DELETE FROM pending WHERE id = ?", [.text(id)])
                    return
                }
                // A record deleted and put again (an undo of the delete) has no fields to name:
                // it goes as a whole record.
                let fields = existing.op == "delete" ? nil
                    : existing.fields.map { $0.union(Self.changedFields(from: existing.json, to: json)) }
                try db.run("UPDATE pending SET op = ?, json = ?, changes = ?, fields = ? WHERE id = ?",
                           [.text(op), json.map { .blob($0) } ?? .null,
                            .text(changeText(changeList(existing.changes) + [change])), fieldsText(fields), .text(id)])
                return
            }
            let chained = try inOutbox(id)
            let base: Int64? = chained ? nil : try record(id)?.revision
            // What the user changed: from the record as the document showed it before.
            let before = chained ? try db.query("SELECT json FROM outbox WHERE id = ? ORDER BY client_seq DESC LIMIT 1", [.text(id)]) {
                $0.optionalBlob(0)
            }.first ?? nil : try record(id)?.json
            try db.run("INSERT INTO pending(id, op, base, chained, json, changes, fields) VALUES(?, ?, ?, ?, ?, ?, ?)",
                       [.text(id), .text(op), base.map { .integer($0) } ?? .null, .integer(chained ? 1 : 0),
                        json.map { .blob($0) } ?? .null, .text(String(change)),
                        fieldsText(Self.changedFields(from: before, to: json))])
        }
    }

    /// The fields that differ between two versions of a record (either absent: none).
    static func changedFields(from old: [UInt8]?, to new: [UInt8]?) -> Set<String> {
        guard let old, let new, let a = (try? InstantJSONValue(parsing: old))?.objectValue,
              let b = (try? InstantJSONValue(parsing: new))?.objectValue else { return [] }
        return RecordFields.changed(from: a, to: b)
    }

    /// After the outbox mutation of `id` was accepted as `merged` (a field-level merge):
    /// a chained pending change of it keeps the fields it changed and takes the others
    /// from `merged`, so that what the merge brought is not pushed back over.
    func rebasePending(_ id: String, on merged: [UInt8]) throws {
        try wrap {
            guard let row = try db.query("SELECT json, fields FROM pending WHERE id = ? AND op = 'put'", [.text(id)], {
                (json: $0.optionalBlob(0), fields: fieldsSet($0, 1))
            }).first, let json = row.json, let fields = row.fields,
                let mine = (try? InstantJSONValue(parsing: json))?.objectValue,
                let base = (try? InstantJSONValue(parsing: merged))?.objectValue else { return }
            let rebased = InstantJSONValue.object(RecordFields.taking(fields, from: mine, into: base)).canonicalBytes
            try db.run("UPDATE pending SET json = ? WHERE id = ?", [.blob(rebased), .text(id)])
        }
    }

    /// Moves every pending change whose id is not in the outbox into it, with the next
    /// client sequence numbers, ordered so that a record comes after the records it names
    /// (`order`). Call it inside ``transaction(_:)``.
    func sealPending(order: ([LocalMutation]) -> [LocalMutation]) throws {
        try wrap {
            let rows = try db.query("SELECT id, op, base, chained, json, changes, fields FROM pending WHERE id NOT IN (SELECT id FROM outbox) ORDER BY ord") {
                (LocalMutation(clientSeq: nil, id: $0.text(0), op: $0.text(1), baseRevision: $0.isNull(2) ? nil : $0.integer(2),
                               record: $0.optionalBlob(4), changes: changeList($0.text(5)), fields: fieldsSet($0, 6)), $0.integer(3) != 0)
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
                try db.run("INSERT INTO outbox(client_seq, id, op, base, json, changes, fields) VALUES(?, ?, ?, ?, ?, ?, ?)",
                           [.integer(next), .text(m.id), .text(m.op), m.baseRevision.map { .integer($0) } ?? .null,
                            m.record.map { .blob($0) } ?? .null, .text(changeText(m.changes)), fieldsText(m.fields)])
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

    /// Drops the pending change of `id`; returns the local change ids it carried.
    @discardableResult
    func dropPending(_ id: String) throws -> [Int64] {
        try wrap {
            let changes = try pendingChanges(id)
            try db.run("DELETE FROM pending WHERE id = ?", [.text(id)])
            return changes
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
