import CSQLite
import QuireSQLite
import QuireSyncProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The default store: one SQLite database file (or one in memory), through the system
/// SQLite.
///
/// - **Durability.** WAL mode with `synchronous=FULL`: a transaction's COMMIT returns after
///   the WAL is synced, so `write` returns (and the core answers a push) only for what
///   survives a crash or a power cut.
/// - **Schema.** Versioned migrations in `PRAGMA user_version`, each applied in its own
///   transaction; a database from a newer Quire (a version this code does not know) is
///   refused rather than misread.
/// - **Concurrency.** One connection per store, and every transaction takes it in turn
///   through an asynchronous FIFO lock (a waiting task is suspended, not a blocked
///   thread). Serializing is what SQLite does to writers anyway (one writer at a time
///   per database), and one connection keeps the prepared statements in one cache; reads
///   wait behind a group of pushes, which takes about a millisecond per push plus one sync
///   of the WAL for the group (see `write`).
///   Transactions are short: the core opens the PDF and parses bodies before it takes a
///   transaction, and waits for long polls outside one. Other processes on the same file
///   are handled by SQLite's locks and a busy timeout (5 s); they are not woken by this
///   process's changes (use PostgreSQL for several processes).
public final class SQLiteSyncStore: SyncStore, @unchecked Sendable {
    // @unchecked: `connection` is used only while `lock` is held; `closed` is a Mutex.
    private let connection: SQLiteConnection
    private let lock = AsyncLock()
    private let closed = Mutex(false)

    /// The schema, one migration per version: migration i takes user_version i to i + 1.
    static let migrations: [String] = [
        """
        CREATE TABLE documents (
            id TEXT PRIMARY KEY,
            sha256 TEXT NOT NULL,
            pages INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            created TEXT NOT NULL,
            pdf BLOB NOT NULL,
            initial_records BLOB NOT NULL
        );
        CREATE TABLE layers (
            document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            seq INTEGER NOT NULL,
            pruned_through INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (document_id, name)
        );
        CREATE TABLE records (
            position INTEGER PRIMARY KEY,
            document_id TEXT NOT NULL,
            layer TEXT NOT NULL,
            id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            page INTEGER NOT NULL,
            in_reply_to TEXT,
            popup TEXT,
            json BLOB NOT NULL,
            UNIQUE (document_id, layer, id),
            FOREIGN KEY (document_id, layer) REFERENCES layers(document_id, name) ON DELETE CASCADE
        );
        CREATE TABLE changes (
            document_id TEXT NOT NULL,
            layer TEXT NOT NULL,
            seq INTEGER NOT NULL,
            id TEXT NOT NULL,
            op TEXT NOT NULL,
            record BLOB,
            client_id TEXT,
            user_id TEXT,
            PRIMARY KEY (document_id, layer, seq),
            FOREIGN KEY (document_id, layer) REFERENCES layers(document_id, name) ON DELETE CASCADE
        );
        CREATE TABLE answers (
            document_id TEXT NOT NULL,
            layer TEXT NOT NULL,
            client_id TEXT NOT NULL,
            client_seq INTEGER NOT NULL,
            answer BLOB NOT NULL,
            PRIMARY KEY (document_id, layer, client_id, client_seq),
            FOREIGN KEY (document_id, layer) REFERENCES layers(document_id, name) ON DELETE CASCADE
        );
        """,
        // 2: each layer's record count kept by triggers, so that reading a layer's state
        // (every push does) does not count its records.
        """
        ALTER TABLE layers ADD COLUMN record_count INTEGER NOT NULL DEFAULT 0;
        UPDATE layers SET record_count =
            (SELECT COUNT(*) FROM records r WHERE r.document_id = layers.document_id AND r.layer = layers.name);
        CREATE TRIGGER records_counted_in AFTER INSERT ON records BEGIN
            UPDATE layers SET record_count = record_count + 1 WHERE document_id = NEW.document_id AND name = NEW.layer;
        END;
        CREATE TRIGGER records_counted_out AFTER DELETE ON records BEGIN
            UPDATE layers SET record_count = record_count - 1 WHERE document_id = OLD.document_id AND name = OLD.layer;
        END;
        """,
        // 3: each layer's digest (LayerDigest), set by the core; NULL until its next write.
        """
        ALTER TABLE layers ADD COLUMN digest BLOB;
        """,
        // 4: when each field of a record last changed (field-level merge), set by the core.
        """
        ALTER TABLE records ADD COLUMN field_revisions BLOB;
        """,
        // 5: attachments (images of image annotations, files of file attachments), by the
        // SHA-256 of their bytes.
        """
        CREATE TABLE attachments (
            document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            sha256 TEXT NOT NULL,
            content_type TEXT NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY (document_id, sha256)
        );
        """,
        // 6: when each attachment was last uploaded (seconds since 1970), for collection;
        // those of a store made before are 0 (collectable once no record names them).
        """
        ALTER TABLE attachments ADD COLUMN uploaded INTEGER NOT NULL DEFAULT 0;
        """,
    ]

    /// Opens the store of `url`: `sqlite:///absolute/path.db`, `sqlite://relative/path.db`
    /// (from the working directory, as ``resolvedURL(_:)`` makes it) or `sqlite::memory:`.
    public convenience init(url: String) throws {
        let url = Self.resolvedURL(url)
        if url == "sqlite::memory:" {
            try self.init(path: ":memory:")
        } else if url.hasPrefix("sqlite://"), url.dropFirst("sqlite://".count).hasPrefix("/") {
            try self.init(path: String(url.dropFirst("sqlite://".count)))
        } else {
            throw SyncConfigurationError("a SQLite store URL is sqlite:///absolute/path.db, sqlite://relative/path.db or sqlite::memory:, not \(url)")
        }
    }

    /// `sqlite://relative/path` made absolute against the working directory of the moment
    /// (`sqlite://./quire.db` and `sqlite://quire.db` alike); every other URL unchanged.
    /// The one place that says what a relative store path means: quire-server and the C
    /// handler's hosts open the same file from the same directory.
    public static func resolvedURL(_ url: String) -> String {
        let prefix = "sqlite://"
        guard url.hasPrefix(prefix), !url.hasPrefix(prefix + "/"), url.count > prefix.count else { return url }
        var path = String(url.dropFirst(prefix.count))
        while path.hasPrefix("./") { path.removeFirst(2) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return url }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return prefix + (cwd == "/" ? "" : cwd) + "/" + path
    }

    /// `PRAGMA application_id` of a Quire store ("QUIR"), set by the first migration: a
    /// database with another program's id is refused instead of being written into.
    static let applicationID: Int64 = 0x5155_4952

    /// Opens (creating) the database at `path` and brings its schema up to date. Throws
    /// `SyncStoreError` of kind `unavailable` when the file cannot be opened (a missing
    /// directory, a directory, no permission) and `notAStore` when it is not a SQLite
    /// database or is another program's (tables of its own, another application id).
    public init(path: String) throws {
        do {
            connection = try SQLiteConnection(path: path)
            connection.setBusyTimeout(milliseconds: 5000)
            // Before anything writes (WAL mode rewrites the header): another program's file
            // is left exactly as it was.
            try checkOwnership(path: path)
            if path != ":memory:" {
                // WAL: readers do not block the writer and a commit is one append and one
                // sync. journal_mode answers a row, so it goes through query().
                let mode = try connection.query("PRAGMA journal_mode=WAL") { $0.text(0) }
                guard mode.first?.lowercased() == "wal" else {
                    throw SyncStoreError("SQLite refused WAL mode for \(path) (journal mode \(mode.first ?? "?"))",
                                         kind: .unavailable)
                }
            }
            try connection.execute("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
            try migrate(path: path)
        } catch let e as SQLiteError {
            // The primary result code: SQLITE_NOTADB (26) is a file that is not a database.
            let kind: SyncStoreError.Kind = e.code & 0xff == SQLITE_NOTADB ? .notAStore : .unavailable
            throw SyncStoreError("the SQLite store \(path): \(e)", kind: kind)
        }
    }

    /// Throws `notAStore` for another program's database: another application id, or
    /// tables of its own at schema version 0 (Quire's tables must not be added to it). Only
    /// reads. Returns the schema version.
    @discardableResult
    private func checkOwnership(path: String) throws -> Int {
        let version = Int(try connection.query("PRAGMA user_version") { $0.integer(0) }.first ?? 0)
        let application = try connection.query("PRAGMA application_id") { $0.integer(0) }.first ?? 0
        if application != 0 && application != Self.applicationID {
            throw SyncStoreError("\(path) is not a Quire store: it is another program's SQLite database "
                                 + "(application id \(application))", kind: .notAStore)
        }
        if version == 0 {
            let objects = try connection.query("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' LIMIT 3") { $0.text(0) }
            if !objects.isEmpty {
                throw SyncStoreError("\(path) is not a Quire store: it is another program's SQLite database "
                                     + "(it has \(objects.joined(separator: ", ")))", kind: .notAStore)
            }
        }
        return version
    }

    private func migrate(path: String) throws {
        while true {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                // Again inside the write transaction: another process may have written since.
                let version = try checkOwnership(path: path)
                if version == 0 { try connection.execute("PRAGMA application_id = \(Self.applicationID)") }
                if version == Self.migrations.count {
                    try connection.execute("COMMIT")
                    return
                }
                guard version >= 0 && version < Self.migrations.count else {
                    throw SyncStoreError("the database's schema version \(version) is newer than this Quire knows (\(Self.migrations.count))",
                                         kind: .notAStore)
                }
                try connection.execute(Self.migrations[version])
                try connection.execute("PRAGMA user_version = \(version + 1)")
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The schema version this code writes.
    public static var schemaVersion: Int { migrations.count }

    // MARK: Transactions

    /// A write waiting for the next group commit: `run` executes its body in the open
    /// transaction and says whether it succeeded and how to answer once the
    /// transaction's fate is known; `fail` answers it without running it.
    private struct PendingWrite: Sendable {
        let run: @Sendable (SQLiteTransaction) async -> (ok: Bool, finish: @Sendable ((any Error)?) -> Void)
        let fail: @Sendable (any Error) -> Void
    }

    private struct Pending {
        var queue: [PendingWrite] = []
        var leading = false
    }

    private let pending = Mutex(Pending())

    /// The most writes committed together.
    static let maxGroup = 256

    /// Runs `body` in a write transaction and returns once it is committed.
    ///
    /// **Group commit.** With `synchronous=FULL` a COMMIT costs one sync of the WAL (about
    /// 6 ms on the disks measured), which alone would cap a store at some 150 pushes a
    /// second whatever the CPU. So the writes waiting when a transaction starts are run
    /// together in it, each inside its own SAVEPOINT (a body that throws is rolled back to
    /// its savepoint alone, and its caller gets its error), and one COMMIT makes them all
    /// durable. No caller is answered before that COMMIT has returned; if it fails, every
    /// write of the group fails.
    public func write<T: Sendable>(_ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            let entry = PendingWrite(run: { tx in
                do {
                    let value = try await body(tx)
                    return (true, { failure in
                        if let failure { c.resume(throwing: failure) } else { c.resume(returning: value) }
                    })
                } catch {
                    return (false, { _ in c.resume(throwing: error) })
                }
            }, fail: { c.resume(throwing: $0) })
            let lead = pending.withLock { p -> Bool in
                p.queue.append(entry)
                if p.leading { return false }
                p.leading = true
                return true
            }
            if lead { Task { await self.commitGroups() } }
        }
    }

    /// Commits groups of waiting writes until none waits.
    private func commitGroups() async {
        while true {
            let group = pending.withLock { p -> [PendingWrite] in
                guard !p.queue.isEmpty else {
                    p.leading = false
                    return []
                }
                let g = Array(p.queue.prefix(Self.maxGroup))
                p.queue.removeFirst(g.count)
                return g
            }
            if group.isEmpty { return }
            await lock.lock()
            await commit(group)
            lock.unlock()
        }
    }

    private func commit(_ group: [PendingWrite]) async {
        if closed.withLock({ $0 }) {
            for w in group { w.fail(SyncStoreError("the store is closed")) }
            return
        }
        do {
            // IMMEDIATE: the write lock is taken now, so no write fails half-way for want
            // of it (another process holding it is waited for, up to the busy timeout).
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            for w in group { w.fail(error) }
            return
        }
        let tx = SQLiteTransaction(connection: connection, writable: true)
        var done: [(ok: Bool, finish: @Sendable ((any Error)?) -> Void)] = []
        var broken: (any Error)?
        for w in group {
            if let broken {
                w.fail(broken)
                continue
            }
            do {
                try connection.execute("SAVEPOINT write")
                let outcome = await w.run(tx)
                // A body that failed is undone alone. When SQLite itself has rolled the
                // whole transaction back (a full disk, an I/O error), ROLLBACK TO fails and
                // the group fails with it.
                if !outcome.ok { try connection.execute("ROLLBACK TO write") }
                try connection.execute("RELEASE write")
                done.append(outcome)
            } catch {
                broken = error
                w.fail(error)
            }
        }
        if broken == nil {
            do {
                try connection.execute("COMMIT")
            } catch {
                broken = error
            }
        }
        if let broken {
            try? connection.execute("ROLLBACK")
            for d in done { d.finish(d.ok ? broken : nil) }
        } else {
            for d in done { d.finish(nil) }
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T {
        await lock.lock()
        defer { lock.unlock() }
        guard !closed.withLock({ $0 }) else { throw SyncStoreError("the store is closed") }
        try connection.execute("BEGIN")
        let tx = SQLiteTransaction(connection: connection, writable: false)
        do {
            let result = try await body(tx)
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    public func observeChanges(_ observer: @escaping @Sendable (String, String, Int64) -> Void) {
        // One process per SQLite store is woken by the core itself.
    }

    /// Closes the database now (not when the last reference goes): a host that reopens,
    /// copies or removes the file after `close` finds it closed, its WAL checkpointed.
    public func close() async {
        await lock.lock()
        closed.withLock { $0 = true }
        connection.close()
        lock.unlock()
    }
}

/// A transaction on the store's connection (which the store's lock holds for it).
private struct SQLiteTransaction: SyncTransaction {
    let connection: SQLiteConnection
    let writable: Bool

    private func mustWrite() throws {
        guard writable else { throw SyncStoreError("a write in a read transaction") }
    }

    private func documentInfo(_ row: SQLiteRow) -> SyncDocumentInfo {
        SyncDocumentInfo(id: row.text(0), sha256: row.text(1), pages: Int(row.integer(2)), bytes: Int(row.integer(3)), created: row.text(4))
    }

    func document(_ id: String) async throws -> SyncDocumentInfo? {
        try connection.query("SELECT id, sha256, pages, bytes, created FROM documents WHERE id = ?", [.text(id)], documentInfo).first
    }

    func documents() async throws -> [SyncDocumentInfo] {
        try connection.query("SELECT id, sha256, pages, bytes, created FROM documents ORDER BY created, id", [], documentInfo)
    }

    func documentPDF(_ id: String) async throws -> [UInt8]? {
        try connection.query("SELECT pdf FROM documents WHERE id = ?", [.text(id)]) { $0.blob(0) }.first
    }

    func initialRecords(_ id: String) async throws -> [UInt8]? {
        try connection.query("SELECT initial_records FROM documents WHERE id = ?", [.text(id)]) { $0.blob(0) }.first
    }

    func insertDocument(_ info: SyncDocumentInfo, pdf: [UInt8], initialRecords: [UInt8]) async throws -> Bool {
        try mustWrite()
        try connection.run("""
            INSERT INTO documents (id, sha256, pages, bytes, created, pdf, initial_records) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO NOTHING
            """, [.text(info.id), .text(info.sha256), .integer(Int64(info.pages)), .integer(Int64(info.bytes)),
                  .text(info.created), .blob(pdf), .blob(initialRecords)])
        return connection.changes == 1
    }

    func attachment(_ document: String, sha256: String) async throws -> SyncAttachment? {
        try connection.query("SELECT content_type, data FROM attachments WHERE document_id = ? AND sha256 = ?",
                             [.text(document), .text(sha256)]) { row in
            SyncAttachment(sha256: sha256, contentType: row.text(0), bytes: row.blob(1))
        }.first
    }

    func insertAttachment(_ document: String, _ a: SyncAttachment, uploaded: Int64) async throws -> Bool {
        try mustWrite()
        try connection.run("""
            INSERT INTO attachments (document_id, sha256, content_type, data, uploaded) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (document_id, sha256) DO NOTHING
            """, [.text(document), .text(a.sha256), .text(a.contentType), .blob(a.bytes), .integer(uploaded)])
        if connection.changes == 1 { return true }
        try connection.run("UPDATE attachments SET uploaded = ? WHERE document_id = ? AND sha256 = ?",
                           [.integer(uploaded), .text(document), .text(a.sha256)])
        return false
    }

    func attachmentIDs(_ document: String, uploadedBefore time: Int64) async throws -> [String] {
        try connection.query("SELECT sha256 FROM attachments WHERE document_id = ? AND uploaded < ? ORDER BY sha256",
                             [.text(document), .integer(time)]) { $0.text(0) }
    }

    func deleteAttachments(_ document: String, _ ids: [String]) async throws {
        try mustWrite()
        for id in ids {
            try connection.run("DELETE FROM attachments WHERE document_id = ? AND sha256 = ?", [.text(document), .text(id)])
        }
    }

    func deleteDocument(_ id: String) async throws -> Bool {
        try mustWrite()
        try connection.run("DELETE FROM documents WHERE id = ?", [.text(id)])
        return connection.changes == 1
    }

    private func layerInfo(_ row: SQLiteRow) -> SyncLayerInfo {
        SyncLayerInfo(name: row.text(0), seq: row.integer(1), records: Int(row.integer(3)), prunedThrough: row.integer(2),
                      digest: row.optionalBlob(4).flatMap { LayerDigest(bytes: $0) })
    }

    func layer(_ document: String, _ layer: String) async throws -> SyncLayerInfo? {
        try connection.query("SELECT name, seq, pruned_through, record_count, digest FROM layers WHERE document_id = ? AND name = ?",
                             [.text(document), .text(layer)], layerInfo).first
    }

    func layers(_ document: String) async throws -> [SyncLayerInfo] {
        try connection.query("SELECT name, seq, pruned_through, record_count, digest FROM layers WHERE document_id = ? ORDER BY name",
                             [.text(document)], layerInfo)
    }

    func setLayerDigest(_ document: String, _ layer: String, _ digest: LayerDigest) async throws {
        try mustWrite()
        try connection.run("UPDATE layers SET digest = ? WHERE document_id = ? AND name = ?",
                           [.blob(digest.bytes), .text(document), .text(layer)])
    }

    func createLayer(_ document: String, _ layer: String, records: [SyncStoredRecord]) async throws {
        try mustWrite()
        try connection.run("INSERT INTO layers (document_id, name, seq, pruned_through) VALUES (?, ?, 0, 0)", [.text(document), .text(layer)])
        for r in records { try upsert(document, layer, r) }
    }

    func deleteLayer(_ document: String, _ layer: String) async throws -> Bool {
        try mustWrite()
        try connection.run("DELETE FROM layers WHERE document_id = ? AND name = ?", [.text(document), .text(layer)])
        return connection.changes == 1
    }

    private func storedRecord(_ row: SQLiteRow) -> SyncStoredRecord {
        SyncStoredRecord(id: row.text(0), revision: row.integer(1), pageIndex: Int(row.integer(2)),
                         inReplyTo: row.optionalText(3), popup: row.optionalText(4), json: row.blob(5),
                         fieldRevisions: row.optionalBlob(6))
    }

    func record(_ document: String, _ layer: String, id: String) async throws -> SyncStoredRecord? {
        try connection.query("""
            SELECT id, revision, page, in_reply_to, popup, json, field_revisions FROM records WHERE document_id = ? AND layer = ? AND id = ?
            """, [.text(document), .text(layer), .text(id)], storedRecord).first
    }

    func records(_ document: String, _ layer: String) async throws -> [SyncStoredRecord] {
        try connection.query("""
            SELECT id, revision, page, in_reply_to, popup, json, field_revisions FROM records WHERE document_id = ? AND layer = ? ORDER BY position
            """, [.text(document), .text(layer)], storedRecord)
    }

    private func upsert(_ document: String, _ layer: String, _ r: SyncStoredRecord) throws {
        // ON CONFLICT DO UPDATE keeps the row (and so its position): an update keeps its
        // record's place in the layer's order.
        try connection.run("""
            INSERT INTO records (document_id, layer, id, revision, page, in_reply_to, popup, json, field_revisions)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (document_id, layer, id) DO UPDATE SET
                revision = excluded.revision, page = excluded.page, in_reply_to = excluded.in_reply_to,
                popup = excluded.popup, json = excluded.json, field_revisions = excluded.field_revisions
            """, [.text(document), .text(layer), .text(r.id), .integer(r.revision), .integer(Int64(r.pageIndex)),
                  r.inReplyTo.map(SQLiteValue.text) ?? .null, r.popup.map(SQLiteValue.text) ?? .null, .blob(r.json),
                  r.fieldRevisions.map(SQLiteValue.blob) ?? .null])
    }

    func apply(_ document: String, _ layer: String, _ change: SyncChange, record: SyncStoredRecord?) async throws {
        try mustWrite()
        switch change.op {
        case .put:
            guard let record else { throw SyncStoreError("a put without its record") }
            try upsert(document, layer, record)
        case .delete:
            try connection.run("DELETE FROM records WHERE document_id = ? AND layer = ? AND id = ?", [.text(document), .text(layer), .text(change.id)])
        }
        try connection.run("""
            INSERT INTO changes (document_id, layer, seq, id, op, record, client_id, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(document), .text(layer), .integer(change.seq), .text(change.id), .text(change.op.rawValue),
                  change.record.map(SQLiteValue.blob) ?? .null, change.clientID.map(SQLiteValue.text) ?? .null,
                  change.userID.map(SQLiteValue.text) ?? .null])
        try connection.run("UPDATE layers SET seq = ? WHERE document_id = ? AND name = ?", [.integer(change.seq), .text(document), .text(layer)])
    }

    func changes(_ document: String, _ layer: String, after seq: Int64, limit: Int) async throws -> [SyncChange] {
        try connection.query("""
            SELECT seq, id, op, record, client_id, user_id FROM changes
            WHERE document_id = ? AND layer = ? AND seq > ? ORDER BY seq LIMIT ?
            """, [.text(document), .text(layer), .integer(seq), .integer(Int64(limit))]) { row in
            SyncChange(seq: row.integer(0), id: row.text(1), op: SyncOperation(rawValue: row.text(2)) ?? .put,
                       record: row.optionalBlob(3), clientID: row.optionalText(4), userID: row.optionalText(5))
        }
    }

    func pruneChanges(_ document: String, _ layer: String, through seq: Int64) async throws {
        try mustWrite()
        try connection.run("DELETE FROM changes WHERE document_id = ? AND layer = ? AND seq <= ?", [.text(document), .text(layer), .integer(seq)])
        try connection.run("UPDATE layers SET pruned_through = max(pruned_through, ?) WHERE document_id = ? AND name = ?",
                           [.integer(seq), .text(document), .text(layer)])
    }

    func answer(_ document: String, _ layer: String, clientID: String, clientSeq: Int64) async throws -> [UInt8]? {
        try connection.query("""
            SELECT answer FROM answers WHERE document_id = ? AND layer = ? AND client_id = ? AND client_seq = ?
            """, [.text(document), .text(layer), .text(clientID), .integer(clientSeq)]) { $0.blob(0) }.first
    }

    func saveAnswer(_ document: String, _ layer: String, clientID: String, clientSeq: Int64, answer: [UInt8]) async throws {
        try mustWrite()
        try connection.run("""
            INSERT INTO answers (document_id, layer, client_id, client_seq, answer) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """, [.text(document), .text(layer), .text(clientID), .integer(clientSeq), .blob(answer)])
    }

    func pruneAnswers(_ document: String, _ layer: String, clientID: String, below clientSeq: Int64) async throws {
        try mustWrite()
        try connection.run("DELETE FROM answers WHERE document_id = ? AND layer = ? AND client_id = ? AND client_seq < ?",
                           [.text(document), .text(layer), .text(clientID), .integer(clientSeq)])
    }
}

/// A lock for async code: `lock()` suspends the task (no thread blocks) until the holder
/// calls `unlock()`; waiters get it in the order they came.
final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var head = 0
    }
    private let state = Mutex(State())

    func lock() async {
        let acquired = state.withLock { s -> Bool in
            if s.locked { return false }
            s.locked = true
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if !s.locked {
                    s.locked = true
                    return true
                }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    func unlock() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.head < s.waiters.count else {
                s.locked = false
                s.waiters.removeAll(keepingCapacity: true)
                s.head = 0
                return nil
            }
            let c = s.waiters[s.head]
            s.head += 1
            if s.head > 64 && s.head * 2 > s.waiters.count {
                s.waiters.removeFirst(s.head)
                s.head = 0
            }
            return c  // the lock passes to it, still locked
        }
        next?.resume()
    }
}
