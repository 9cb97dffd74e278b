import QuireSyncProtocol
// Storage behind a small protocol: a store runs transactions, and a transaction reads and
// writes documents, layers, records, changes and idempotency answers. Every rule of the
// model (first writer wins, idempotency, validation, retention) is the core's
// (SyncService); a store only keeps what it is told, atomically. The SQLite store is
// SQLiteSyncStore; a PostgreSQL store lives in its own module and registers through
// `SyncService.init(_:storeFactories:)`.

/// A document as the store keeps it (its PDF bytes are read apart, by `documentPDF`).
public struct SyncDocumentInfo: Sendable, Equatable {
    /// `[A-Za-z0-9._-]{1,128}`, not `.` or `..`.
    public var id: String
    /// The SHA-256 of the PDF, lowercase hexadecimal.
    public var sha256: String
    public var pages: Int
    /// The size of the PDF in bytes.
    public var bytes: Int
    /// The upload time, ISO 8601 in UTC (`2026-11-24T13:55:03Z`).
    public var created: String

    public init(id: String, sha256: String, pages: Int, bytes: Int, created: String) {
        self.id = id
        self.sha256 = sha256
        self.pages = pages
        self.bytes = bytes
        self.created = created
    }
}

/// A layer: its name, its sequence number and what its feed still holds.
public struct SyncLayerInfo: Sendable, Equatable {
    public var name: String
    /// The sequence number of its last change (0: none yet).
    public var seq: Int64
    /// The number of records.
    public var records: Int
    /// Every change up to this sequence number has been pruned (0: none): a pull from
    /// before it answers `reset`.
    public var prunedThrough: Int64
    /// The digest of its records at `seq` (``LayerDigest``), as the core last set it; nil
    /// for a layer of a store made before digests (the core computes it at its next write).
    public var digest: LayerDigest?

    public init(name: String, seq: Int64, records: Int, prunedThrough: Int64, digest: LayerDigest? = nil) {
        self.name = name
        self.seq = seq
        self.records = records
        self.prunedThrough = prunedThrough
        self.digest = digest
    }
}

/// A record of a layer with what the core needs to check others against it without
/// parsing its JSON again.
public struct SyncStoredRecord: Sendable, Equatable {
    /// Its key in the layer (the record's `id`).
    public var id: String
    /// The sequence number of the change that last wrote it (0: an initial record).
    public var revision: Int64
    public var pageIndex: Int
    /// `quire.inReplyTo`, `quire.popup`.
    public var inReplyTo: String?
    public var popup: String?
    /// The record: compact JSON, UTF-8.
    public var json: [UInt8]
    /// When each of its fields (``RecordFields``) last changed, as the core keeps it (a
    /// JSON object of revisions, `"*"` for the fields not named); nil when not kept (an
    /// initial record, or one written before field revisions were: every field is then
    /// taken as written at `revision`).
    public var fieldRevisions: [UInt8]?

    public init(id: String, revision: Int64, pageIndex: Int, inReplyTo: String?, popup: String?, json: [UInt8],
                fieldRevisions: [UInt8]? = nil) {
        self.id = id
        self.revision = revision
        self.pageIndex = pageIndex
        self.inReplyTo = inReplyTo
        self.popup = popup
        self.json = json
        self.fieldRevisions = fieldRevisions
    }
}

/// An attachment of a document (issue 33): the bytes of an image (or another file) that
/// records name by the lowercase hexadecimal SHA-256 of the bytes (`imageAttachmentId`,
/// `fileAttachmentId`).
public struct SyncAttachment: Sendable, Equatable {
    public var sha256: String
    public var contentType: String
    public var bytes: [UInt8]

    public init(sha256: String, contentType: String, bytes: [UInt8]) {
        self.sha256 = sha256
        self.contentType = contentType
        self.bytes = bytes
    }
}

/// `put` or `delete`.
public enum SyncOperation: String, Sendable, Equatable {
    case put, delete
}

/// One change of a layer's feed.
public struct SyncChange: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    public var op: SyncOperation
    /// The record written (compact JSON), for a put.
    public var record: [UInt8]?
    /// Who made it: the push's `client_id` and the JWT's `user_id` (nil for the admin API).
    public var clientID: String?
    public var userID: String?

    public init(seq: Int64, id: String, op: SyncOperation, record: [UInt8]?, clientID: String?, userID: String?) {
        self.seq = seq
        self.id = id
        self.op = op
        self.record = record
        self.clientID = clientID
        self.userID = userID
    }
}

/// The operations of one transaction. Obtained from `SyncStore.write` (all of them) or
/// `SyncStore.read` (the reading ones; a write there throws). A transaction is used by one
/// task, only inside the closure that received it.
public protocol SyncTransaction {
    // Documents
    func document(_ id: String) async throws -> SyncDocumentInfo?
    func documents() async throws -> [SyncDocumentInfo]
    /// The PDF's bytes.
    func documentPDF(_ id: String) async throws -> [UInt8]?
    /// The JSON array of the PDF's own annotation records, as given to `insertDocument`.
    func initialRecords(_ id: String) async throws -> [UInt8]?
    /// Adds a document; false (and nothing written) when the id exists.
    func insertDocument(_ info: SyncDocumentInfo, pdf: [UInt8], initialRecords: [UInt8]) async throws -> Bool
    /// Deletes a document and its layers; false when there was none.
    func deleteDocument(_ id: String) async throws -> Bool

    // Layers
    func layer(_ document: String, _ layer: String) async throws -> SyncLayerInfo?
    func layers(_ document: String) async throws -> [SyncLayerInfo]
    /// Creates a layer at sequence number 0 with `records` (in this order); the document
    /// exists and the layer does not.
    func createLayer(_ document: String, _ layer: String, records: [SyncStoredRecord]) async throws
    /// Deletes a layer with its records, changes and answers; false when there was none.
    func deleteLayer(_ document: String, _ layer: String) async throws -> Bool
    /// Keeps `digest` as the layer's (``SyncLayerInfo/digest``): the core computes it.
    func setLayerDigest(_ document: String, _ layer: String, _ digest: LayerDigest) async throws

    // Records: in the order they were created (an update keeps a record's place).
    func record(_ document: String, _ layer: String, id: String) async throws -> SyncStoredRecord?
    func records(_ document: String, _ layer: String) async throws -> [SyncStoredRecord]

    // Changes
    /// Applies an accepted change: writes `record` (a put: insert or replace, revision
    /// `seq`) or removes record `id` (a delete), appends the change to the feed and sets
    /// the layer's sequence number to `change.seq` (the layer's seq + 1).
    func apply(_ document: String, _ layer: String, _ change: SyncChange, record: SyncStoredRecord?) async throws
    /// The changes after `seq`, in order, at most `limit`.
    func changes(_ document: String, _ layer: String, after seq: Int64, limit: Int) async throws -> [SyncChange]
    /// Removes the changes up to `seq` and records that the feed no longer holds them.
    func pruneChanges(_ document: String, _ layer: String, through seq: Int64) async throws

    // Idempotency answers
    func answer(_ document: String, _ layer: String, clientID: String, clientSeq: Int64) async throws -> [UInt8]?
    func saveAnswer(_ document: String, _ layer: String, clientID: String, clientSeq: Int64, answer: [UInt8]) async throws
    /// Removes the answers of `clientID` with a `client_seq` below `clientSeq`.
    func pruneAnswers(_ document: String, _ layer: String, clientID: String, below clientSeq: Int64) async throws

    // Attachments (content-addressed, per document; deleted with it or when collected)
    func attachment(_ document: String, sha256: String) async throws -> SyncAttachment?
    /// Keeps `attachment`, uploaded at `uploaded` (seconds since 1970); false when the
    /// document has it already, whose upload time then becomes `uploaded` (nothing else
    /// is written).
    func insertAttachment(_ document: String, _ attachment: SyncAttachment, uploaded: Int64) async throws -> Bool
    /// The ids of the document's attachments uploaded before `time` (seconds since 1970).
    func attachmentIDs(_ document: String, uploadedBefore time: Int64) async throws -> [String]
    /// Deletes the document's attachments `ids` (those it has).
    func deleteAttachments(_ document: String, _ ids: [String]) async throws
}

/// A store: transactions over documents, layers, records, changes and answers.
///
/// `write` runs its body in one transaction that commits when the body returns and rolls
/// back when it throws; it returns only after the commit is durable (SQLite:
/// `synchronous=FULL`), so that an answer built inside is given only for what is stored.
/// A store may run several writes' bodies in one transaction (group commit), each undone
/// alone when it throws; a body must not call the store itself (it would wait for itself).
/// `read` runs its body on a consistent snapshot.
public protocol SyncStore: Sendable {
    func write<T: Sendable>(_ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (any SyncTransaction) async throws -> T) async throws -> T
    /// Calls `observer` with (document, layer, seq) for changes committed by other
    /// processes sharing the store (PostgreSQL's LISTEN/NOTIFY), so that their listeners
    /// wake. A store without such notifications (SQLite) never calls it.
    func observeChanges(_ observer: @escaping @Sendable (_ document: String, _ layer: String, _ seq: Int64) -> Void)
    /// Closes the store; later calls throw.
    func close() async
}

/// A store's failure: a 500 (`internal`) for the caller, with this message. When a store
/// cannot be opened, `kind` says why, for the hosts' status codes (the C handler answers
/// QUIRE_EIO for `unavailable`, QUIRE_EFORMAT for `notAStore`).
public struct SyncStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// A failure of a store that works otherwise.
        case failed
        /// The store cannot be reached or opened: no such directory, no permission, a
        /// directory where the file should be, an I/O error.
        case unavailable
        /// The store's file is not a Quire store: not a database, or another program's.
        case notAStore
    }
    public var message: String
    public var kind: Kind
    public init(_ message: String, kind: Kind = .failed) {
        self.message = message
        self.kind = kind
    }
    public var description: String { message }
}
