// The sync core's PostgreSQL store (docs/sync-protocol.md): several quire-server processes
// share one database, and LISTEN/NOTIFY wakes the long polls of every process. Built on
// postgres-nio; registered with the core through `SyncService(_:storeFactories:)` under
// the schemes `postgres` and `postgresql`:
//
//   SyncService(configuration, storeFactories: PostgresSyncStore.factories)
//
// The store keeps what the core tells it, atomically, as the SQLite store does; every rule
// (first writer wins, idempotency, validation, retention) is the core's. Two things are
// this store's own, because several processes write at once:
//
// - A write transaction takes a transaction-scoped advisory lock on the document before
//   it touches it (pg_advisory_xact_lock), so that writes to one document run one after
//   the other across processes. The core checks a push's idempotency answer and the
//   layer's seq inside the transaction, after that lock: two processes given the same
//   retry, or two pushes to one layer, never both apply. Reads take no lock (a snapshot).
// - A change's commit sends NOTIFY quire_changes with "document layer seq" (ids only; the
//   data is read from the tables), and each process LISTENs on one connection and passes
//   the ids to the core, which wakes that layer's listeners.

import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import QuireSync
import QuireSyncProtocol
import Synchronization

public final class PostgresSyncStore: SyncStore {
    /// The factories to give `SyncService`: `postgres://` and `postgresql://` URLs.
    public static let factories: [String: SyncStoreFactory] = [
        "postgres": { url in try PostgresSyncStore(url: url) },
        "postgresql": { url in try PostgresSyncStore(url: url) },
    ]

    /// The NOTIFY channel.
    static let channel = "quire_changes"

    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    /// nil while the schema migration runs; then its outcome.
    private let migration = Locked<Result<Void, SyncStoreError>?>(nil)
    private let listener = Mutex<Task<Void, Never>?>(nil)
    private let observers = Mutex<[@Sendable (String, String, Int64) -> Void]>([])
    private let closed = Mutex(false)

    /// Connects to `url`: `postgres://user[:password]@host[:port]/database`, with
    /// `?host=/socket/dir` for a Unix socket and `?sslmode=disable|prefer|require`
    /// (default `disable`). The connection and the schema migration happen in the
    /// background; the first transaction waits for them (and fails if they failed).
    public init(url: String, logger: Logger = Logger(label: "quire.postgres")) throws {
        let configuration = try PostgresURL(url).configuration()
        var logger = logger
        logger[metadataKey: "store"] = "postgres"
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        runner = Task { await client.run() }
        Task { [migration] in
            do {
                try await PostgresSyncStore.migrate(client, logger: logger)
                migration.withLock { $0 = .success(()) }
            } catch {
                migration.withLock { $0 = .failure(SyncStoreError(
                    "the PostgreSQL store could not start: \(PostgresSyncStore.describe(error))")) }
            }
        }
    }

    /// Waits (cancellably: awaiting a Task's value is not) until the schema is migrated.
    private func migrated() async throws {
        while true {
            switch migration.withLock({ $0 }) {
            case .success: return
            case .failure(let error): throw error
            case nil: try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    // MARK: SyncStore

    public func write<T: Sendable>(_ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL READ COMMITTED", writable: true, body)
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", writable: false, body)
    }

    public func observeChanges(_ observer: @escaping @Sendable (String, String, Int64) -> Void) {
        observers.withLock { $0.append(observer) }
        listener.withLock { task in
            guard task == nil, !closed.withLock({ $0 }) else { return }
            task = Task { await self.listen() }
        }
    }

    public func close() async {
        let wasClosed = closed.withLock { c in
            defer { c = true }
            return c
        }
        guard !wasClosed else { return }
        let task = listener.withLock { $0 }
        task?.cancel()
        await task?.value
        runner.cancel()
        await runner.value
    }

    // MARK: Transactions

    /// How long a transaction waits for a connection (and, at first, for the schema) before
    /// it fails: postgres-nio's pool retries an unreachable server forever, and a request
    /// must not hang with it (nor hold up a graceful shutdown).
    static let connectTimeout: Duration = .seconds(10)

    private func transaction<T: Sendable>(_ begin: PostgresQuery, writable: Bool,
                                          _ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T {
        guard !closed.withLock({ $0 }) else { throw SyncStoreError("the PostgreSQL store is closed") }
        try await Self.bounded(acquired: nil) { try await self.migrated() }
        let logger = self.logger
        let client = self.client
        let acquired = Flag()
        do {
            return try await Self.bounded(acquired: acquired) { try await client.withConnection { connection in
                acquired.set()
                try await connection.query(begin, logger: logger)
                let tx = PostgresTransaction(connection: connection, logger: logger, writable: writable)
                let result: T
                do {
                    result = try await body(tx)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
                try await connection.query("COMMIT", logger: logger)
                return result
            } }
        } catch let error as PSQLError {
            throw SyncStoreError("PostgreSQL: \(Self.describe(error))")
        }
    }

    private enum Outcome<T: Sendable>: Sendable {
        case value(T)
        case timerDone
    }

    /// Runs `operation`, failing after `connectTimeout` unless `acquired` was set by then
    /// (a connection was leased: the transaction then runs to its end, never cut off
    /// midway). With `acquired` nil, the whole operation is bounded.
    private static func bounded<T: Sendable>(acquired: Flag?,
                                             _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Outcome<T>.self) { group in
            group.addTask { .value(try await operation()) }
            group.addTask {
                try await Task.sleep(for: connectTimeout)
                if acquired?.isSet != true {
                    throw SyncStoreError("no connection to PostgreSQL within \(connectTimeout)")
                }
                return .timerDone
            }
            while let outcome = try await group.next() {
                if case .value(let value) = outcome {
                    group.cancelAll()
                    return value
                }
            }
            throw SyncStoreError("no answer from PostgreSQL")
        }
    }

    // MARK: LISTEN

    /// Listens on one connection for as long as the store is open, reconnecting after a
    /// failure; each notification wakes the observers with its ids.
    ///
    /// The commits of other processes while no LISTEN was active (before the first one, and
    /// between a lost connection and the next) sent notifications that nobody here heard:
    /// once LISTEN is active again, every layer's seq is read and handed to the observers,
    /// which wake the listeners behind it (a listener at that seq stays asleep). Without it a
    /// long poll waited out its whole wait, and a live feed until the layer's next change.
    private func listen() async {
        let logger = self.logger
        while !Task.isCancelled && !closed.withLock({ $0 }) {
            do {
                try await migrated()
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // On another connection: this one's last query stays its LISTEN (what
                        // an operator, and the tests, find it by in pg_stat_activity).
                        let rows = try await self.client.query("SELECT document, name, seq FROM quire_layers WHERE seq > 0",
                                                               logger: logger)
                        for try await (document, layer, seq) in rows.decode((String, String, Int64).self) {
                            self.deliver(document, layer, seq)
                        }
                        for try await notification in notifications {
                            self.deliver(notification.payload)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("LISTEN failed; listening again in 1 s", metadata: ["error": "\(Self.describe(error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func deliver(_ payload: String) {
        let parts = payload.split(separator: " ")
        guard parts.count == 3, let seq = Int64(parts[2]) else { return }
        deliver(String(parts[0]), String(parts[1]), seq)
    }

    private func deliver(_ document: String, _ layer: String, _ seq: Int64) {
        for observer in observers.withLock({ $0 }) {
            observer(document, layer, seq)
        }
    }

    // MARK: Schema

    /// The schema's versions, in order; a database at version N runs the ones after N, in
    /// one transaction under an advisory lock (processes starting together wait).
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE quire_documents (
                id TEXT PRIMARY KEY, sha256 TEXT NOT NULL, pages INTEGER NOT NULL, bytes BIGINT NOT NULL,
                created TEXT NOT NULL, pdf BYTEA NOT NULL, initial_records BYTEA NOT NULL)
            """,
            """
            CREATE TABLE quire_layers (
                document TEXT NOT NULL REFERENCES quire_documents (id) ON DELETE CASCADE,
                name TEXT NOT NULL, seq BIGINT NOT NULL DEFAULT 0, pruned_through BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (document, name))
            """,
            "CREATE SEQUENCE quire_record_position",
            """
            CREATE TABLE quire_records (
                document TEXT NOT NULL, layer TEXT NOT NULL, id TEXT NOT NULL,
                position BIGINT NOT NULL DEFAULT nextval('quire_record_position'),
                revision BIGINT NOT NULL, page_index INTEGER NOT NULL, in_reply_to TEXT, popup TEXT,
                json BYTEA NOT NULL,
                PRIMARY KEY (document, layer, id),
                FOREIGN KEY (document, layer) REFERENCES quire_layers (document, name) ON DELETE CASCADE)
            """,
            "CREATE INDEX quire_records_order ON quire_records (document, layer, position)",
            """
            CREATE TABLE quire_changes (
                document TEXT NOT NULL, layer TEXT NOT NULL, seq BIGINT NOT NULL, id TEXT NOT NULL,
                op TEXT NOT NULL, record BYTEA, client_id TEXT, user_id TEXT,
                PRIMARY KEY (document, layer, seq),
                FOREIGN KEY (document, layer) REFERENCES quire_layers (document, name) ON DELETE CASCADE)
            """,
            """
            CREATE TABLE quire_answers (
                document TEXT NOT NULL, layer TEXT NOT NULL, client_id TEXT NOT NULL, client_seq BIGINT NOT NULL,
                answer BYTEA NOT NULL,
                PRIMARY KEY (document, layer, client_id, client_seq),
                FOREIGN KEY (document, layer) REFERENCES quire_layers (document, name) ON DELETE CASCADE)
            """,
        ],
        // 2: each layer's digest (LayerDigest), set by the core; NULL until its next write.
        ["ALTER TABLE quire_layers ADD COLUMN digest BYTEA"],
        // 3: when each field of a record last changed (field-level merge), set by the core.
        ["ALTER TABLE quire_records ADD COLUMN field_revisions BYTEA"],
        // 4: attachments (images of image annotations, files of file attachments), by the
        // SHA-256 of their bytes.
        [
            """
            CREATE TABLE quire_attachments (
                document TEXT NOT NULL REFERENCES quire_documents (id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL, content_type TEXT NOT NULL, data BYTEA NOT NULL,
                PRIMARY KEY (document, sha256))
            """,
        ],
        // 5: when each attachment was last uploaded (seconds since 1970), for collection.
        ["ALTER TABLE quire_attachments ADD COLUMN uploaded BIGINT NOT NULL DEFAULT 0"],
    ]

    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                // Any constant key: only migrations take it.
                try await connection.query("SELECT pg_advisory_xact_lock(7150816104)", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS quire_schema (version INTEGER NOT NULL)", logger: logger)
                var version = 0
                for try await (v,) in try await connection.query("SELECT version FROM quire_schema", logger: logger)
                    .decode((Int,).self) {
                    version = v
                }
                guard version <= migrations.count else {
                    throw SyncStoreError("the database's schema is version \(version), newer than this quire-server (\(migrations.count))")
                }
                for steps in migrations[version...] {
                    for step in steps {
                        try await connection.query(step, logger: logger)
                    }
                }
                try await connection.query("DELETE FROM quire_schema", logger: logger)
                try await connection.query("INSERT INTO quire_schema (version) VALUES (\(migrations.count))", logger: logger)
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? PSQLError {
            if let message = e.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(e.serverInfo?[.sqlState] ?? "?"))"
            }
            return "\(e.code)"
        }
        return "\(error)"
    }
}

/// A value behind a lock, shareable by tasks (a Mutex itself cannot be captured).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// A flag set once, read from another task.
final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// One transaction on one leased connection.
final class PostgresTransaction: SyncTransaction, @unchecked Sendable {
    let connection: PostgresConnection
    let logger: Logger
    let writable: Bool
    /// The documents this transaction holds the advisory lock of (used by one task only).
    private var locked: Set<String> = []

    init(connection: PostgresConnection, logger: Logger, writable: Bool) {
        self.connection = connection
        self.logger = logger
        self.writable = writable
    }

    /// In a write transaction, waits for the document's lock before the first statement
    /// about it: what follows reads what the previous writer committed.
    private func lock(_ document: String) async throws {
        guard writable, !locked.contains(document) else { return }
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\("quire:" + document), 0))",
                                   logger: logger)
        locked.insert(document)
    }

    private func mustWrite() throws {
        guard writable else { throw SyncStoreError("a write in a read transaction") }
    }

    @discardableResult
    private func query(_ q: PostgresQuery) async throws -> PostgresRowSequence {
        try await connection.query(q, logger: logger)
    }

    private static func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }
    private static func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

    // MARK: Documents

    func document(_ id: String) async throws -> SyncDocumentInfo? {
        try await lock(id)
        let rows = try await query("SELECT id, sha256, pages, bytes, created FROM quire_documents WHERE id = \(id)")
        for try await (id, sha, pages, bytes, created) in rows.decode((String, String, Int, Int, String).self) {
            return SyncDocumentInfo(id: id, sha256: sha, pages: pages, bytes: bytes, created: created)
        }
        return nil
    }

    func documents() async throws -> [SyncDocumentInfo] {
        var out: [SyncDocumentInfo] = []
        let rows = try await query("SELECT id, sha256, pages, bytes, created FROM quire_documents ORDER BY created, id")
        for try await (id, sha, pages, bytes, created) in rows.decode((String, String, Int, Int, String).self) {
            out.append(SyncDocumentInfo(id: id, sha256: sha, pages: pages, bytes: bytes, created: created))
        }
        return out
    }

    func documentPDF(_ id: String) async throws -> [UInt8]? {
        try await lock(id)
        for try await (pdf,) in try await query("SELECT pdf FROM quire_documents WHERE id = \(id)").decode((ByteBuffer,).self) {
            return Self.bytes(pdf)
        }
        return nil
    }

    func initialRecords(_ id: String) async throws -> [UInt8]? {
        try await lock(id)
        let rows = try await query("SELECT initial_records FROM quire_documents WHERE id = \(id)")
        for try await (records,) in rows.decode((ByteBuffer,).self) {
            return Self.bytes(records)
        }
        return nil
    }

    func attachment(_ document: String, sha256: String) async throws -> SyncAttachment? {
        let rows = try await query("SELECT content_type, data FROM quire_attachments WHERE document = \(document) AND sha256 = \(sha256)")
        for try await (type, data) in rows.decode((String, ByteBuffer).self) {
            return SyncAttachment(sha256: sha256, contentType: type, bytes: Self.bytes(data))
        }
        return nil
    }

    func insertAttachment(_ document: String, _ a: SyncAttachment, uploaded: Int64) async throws -> Bool {
        try mustWrite()
        try await lock(document)
        let rows = try await query("""
            INSERT INTO quire_attachments (document, sha256, content_type, data, uploaded)
            VALUES (\(document), \(a.sha256), \(a.contentType), \(Self.buffer(a.bytes)), \(uploaded))
            ON CONFLICT (document, sha256) DO NOTHING RETURNING sha256
            """)
        for try await _ in rows { return true }
        let touched = try await query("""
            UPDATE quire_attachments SET uploaded = \(uploaded) WHERE document = \(document) AND sha256 = \(a.sha256)
            """)
        for try await _ in touched {}
        return false
    }

    func attachmentIDs(_ document: String, uploadedBefore time: Int64) async throws -> [String] {
        // The document's lock first (in a write: the collection's): an upload that refreshed
        // an attachment's time and committed while the collection waited for the lock is
        // seen (READ COMMITTED reads what committed before each statement), so the
        // attachment is no candidate.
        try await lock(document)
        let rows = try await query("""
            SELECT sha256 FROM quire_attachments WHERE document = \(document) AND uploaded < \(time) ORDER BY sha256
            """)
        var out: [String] = []
        for try await id in rows.decode(String.self) { out.append(id) }
        return out
    }

    func deleteAttachments(_ document: String, _ ids: [String]) async throws {
        try mustWrite()
        try await lock(document)
        for id in ids {
            let rows = try await query("DELETE FROM quire_attachments WHERE document = \(document) AND sha256 = \(id)")
            for try await _ in rows {}
        }
    }

    func insertDocument(_ info: SyncDocumentInfo, pdf: [UInt8], initialRecords: [UInt8]) async throws -> Bool {
        try mustWrite()
        try await lock(info.id)
        let rows = try await query("""
            INSERT INTO quire_documents (id, sha256, pages, bytes, created, pdf, initial_records)
            VALUES (\(info.id), \(info.sha256), \(info.pages), \(info.bytes), \(info.created),
                    \(Self.buffer(pdf)), \(Self.buffer(initialRecords)))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """)
        for try await _ in rows { return true }
        return false
    }

    func deleteDocument(_ id: String) async throws -> Bool {
        try mustWrite()
        try await lock(id)
        for try await _ in try await query("DELETE FROM quire_documents WHERE id = \(id) RETURNING id") {
            return true
        }
        return false
    }

    // MARK: Layers

    func layer(_ document: String, _ layer: String) async throws -> SyncLayerInfo? {
        try await lock(document)
        let rows = try await query("""
            SELECT l.name, l.seq, l.pruned_through,
                   (SELECT count(*) FROM quire_records r WHERE r.document = l.document AND r.layer = l.name), l.digest
            FROM quire_layers l WHERE l.document = \(document) AND l.name = \(layer)
            """)
        for try await (name, seq, pruned, count, digest) in rows.decode((String, Int64, Int64, Int64, ByteBuffer?).self) {
            return SyncLayerInfo(name: name, seq: seq, records: Int(count), prunedThrough: pruned,
                                 digest: digest.flatMap { LayerDigest(bytes: Self.bytes($0)) })
        }
        return nil
    }

    func layers(_ document: String) async throws -> [SyncLayerInfo] {
        try await lock(document)
        var out: [SyncLayerInfo] = []
        let rows = try await query("""
            SELECT l.name, l.seq, l.pruned_through,
                   (SELECT count(*) FROM quire_records r WHERE r.document = l.document AND r.layer = l.name), l.digest
            FROM quire_layers l WHERE l.document = \(document) ORDER BY l.name
            """)
        for try await (name, seq, pruned, count, digest) in rows.decode((String, Int64, Int64, Int64, ByteBuffer?).self) {
            out.append(SyncLayerInfo(name: name, seq: seq, records: Int(count), prunedThrough: pruned,
                                     digest: digest.flatMap { LayerDigest(bytes: Self.bytes($0)) }))
        }
        return out
    }

    func createLayer(_ document: String, _ layer: String, records: [SyncStoredRecord]) async throws {
        try mustWrite()
        try await lock(document)
        try await query("INSERT INTO quire_layers (document, name) VALUES (\(document), \(layer))")
        for r in records {
            try await putRecord(document, layer, r)
        }
    }

    func setLayerDigest(_ document: String, _ layer: String, _ digest: LayerDigest) async throws {
        try mustWrite()
        try await lock(document)
        try await query("UPDATE quire_layers SET digest = \(Self.buffer(digest.bytes)) WHERE document = \(document) AND name = \(layer)")
    }

    func deleteLayer(_ document: String, _ layer: String) async throws -> Bool {
        try mustWrite()
        try await lock(document)
        let rows = try await query("DELETE FROM quire_layers WHERE document = \(document) AND name = \(layer) RETURNING name")
        for try await _ in rows { return true }
        return false
    }

    // MARK: Records

    private func putRecord(_ document: String, _ layer: String, _ r: SyncStoredRecord) async throws {
        try await query("""
            INSERT INTO quire_records (document, layer, id, revision, page_index, in_reply_to, popup, json, field_revisions)
            VALUES (\(document), \(layer), \(r.id), \(r.revision), \(r.pageIndex), \(r.inReplyTo), \(r.popup),
                    \(Self.buffer(r.json)), \(r.fieldRevisions.map(Self.buffer)))
            ON CONFLICT (document, layer, id) DO UPDATE SET revision = EXCLUDED.revision,
                page_index = EXCLUDED.page_index, in_reply_to = EXCLUDED.in_reply_to, popup = EXCLUDED.popup,
                json = EXCLUDED.json, field_revisions = EXCLUDED.field_revisions
            """)
    }

    private func decodeRecords(_ rows: PostgresRowSequence) async throws -> [SyncStoredRecord] {
        var out: [SyncStoredRecord] = []
        for try await (id, revision, page, reply, popup, json, fields) in rows.decode(
            (String, Int64, Int, String?, String?, ByteBuffer, ByteBuffer?).self) {
            out.append(SyncStoredRecord(id: id, revision: revision, pageIndex: page, inReplyTo: reply, popup: popup,
                                        json: Self.bytes(json), fieldRevisions: fields.map(Self.bytes)))
        }
        return out
    }

    func record(_ document: String, _ layer: String, id: String) async throws -> SyncStoredRecord? {
        try await lock(document)
        return try await decodeRecords(query("""
            SELECT id, revision, page_index, in_reply_to, popup, json, field_revisions FROM quire_records
            WHERE document = \(document) AND layer = \(layer) AND id = \(id)
            """)).first
    }

    func records(_ document: String, _ layer: String) async throws -> [SyncStoredRecord] {
        try await lock(document)
        return try await decodeRecords(query("""
            SELECT id, revision, page_index, in_reply_to, popup, json, field_revisions FROM quire_records
            WHERE document = \(document) AND layer = \(layer) ORDER BY position
            """))
    }

    // MARK: Changes

    func apply(_ document: String, _ layer: String, _ change: SyncChange, record: SyncStoredRecord?) async throws {
        try mustWrite()
        try await lock(document)
        switch change.op {
        case .put:
            guard let record else { throw SyncStoreError("a put without its record") }
            try await putRecord(document, layer, record)
        case .delete:
            try await query("DELETE FROM quire_records WHERE document = \(document) AND layer = \(layer) AND id = \(change.id)")
        }
        try await query("""
            INSERT INTO quire_changes (document, layer, seq, id, op, record, client_id, user_id)
            VALUES (\(document), \(layer), \(change.seq), \(change.id), \(change.op.rawValue),
                    \(change.record.map(Self.buffer)), \(change.clientID), \(change.userID))
            """)
        try await query("UPDATE quire_layers SET seq = \(change.seq) WHERE document = \(document) AND name = \(layer)")
        // Delivered to every LISTENing process when (and only if) this transaction commits.
        try await query("SELECT pg_notify(\(PostgresSyncStore.channel), \("\(document) \(layer) \(change.seq)"))")
    }

    func changes(_ document: String, _ layer: String, after seq: Int64, limit: Int) async throws -> [SyncChange] {
        try await lock(document)
        var out: [SyncChange] = []
        let rows = try await query("""
            SELECT seq, id, op, record, client_id, user_id FROM quire_changes
            WHERE document = \(document) AND layer = \(layer) AND seq > \(seq) ORDER BY seq LIMIT \(limit)
            """)
        for try await (seq, id, op, record, client, user) in rows.decode(
            (Int64, String, String, ByteBuffer?, String?, String?).self) {
            guard let operation = SyncOperation(rawValue: op) else { throw SyncStoreError("unknown op \(op) in the feed") }
            out.append(SyncChange(seq: seq, id: id, op: operation, record: record.map(Self.bytes), clientID: client,
                                  userID: user))
        }
        return out
    }

    func pruneChanges(_ document: String, _ layer: String, through seq: Int64) async throws {
        try mustWrite()
        try await lock(document)
        try await query("DELETE FROM quire_changes WHERE document = \(document) AND layer = \(layer) AND seq <= \(seq)")
        try await query("""
            UPDATE quire_layers SET pruned_through = GREATEST(pruned_through, \(seq))
            WHERE document = \(document) AND name = \(layer)
            """)
    }

    // MARK: Answers

    func answer(_ document: String, _ layer: String, clientID: String, clientSeq: Int64) async throws -> [UInt8]? {
        try await lock(document)
        let rows = try await query("""
            SELECT answer FROM quire_answers
            WHERE document = \(document) AND layer = \(layer) AND client_id = \(clientID) AND client_seq = \(clientSeq)
            """)
        for try await (answer,) in rows.decode((ByteBuffer,).self) {
            return Self.bytes(answer)
        }
        return nil
    }

    func saveAnswer(_ document: String, _ layer: String, clientID: String, clientSeq: Int64, answer: [UInt8]) async throws {
        try mustWrite()
        try await lock(document)
        try await query("""
            INSERT INTO quire_answers (document, layer, client_id, client_seq, answer)
            VALUES (\(document), \(layer), \(clientID), \(clientSeq), \(Self.buffer(answer)))
            ON CONFLICT (document, layer, client_id, client_seq) DO UPDATE SET answer = EXCLUDED.answer
            """)
    }

    func pruneAnswers(_ document: String, _ layer: String, clientID: String, below clientSeq: Int64) async throws {
        try mustWrite()
        try await lock(document)
        try await query("""
            DELETE FROM quire_answers
            WHERE document = \(document) AND layer = \(layer) AND client_id = \(clientID) AND client_seq < \(clientSeq)
            """)
    }
}
