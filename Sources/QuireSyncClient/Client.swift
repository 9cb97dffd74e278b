import Dispatch
import QuireDocument
import QuireSyncProtocol
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

// The Instant-style sync client (docs/sync-client.md): a client per server and data
// directory, a descriptor per (document, layer), a local store per descriptor.

/// How the client reaches the server: one request, one answer, blocking the calling
/// thread (always a descriptor's worker or listener thread, never the caller's).
/// `SyncRequest.path` is the path of docs/sync-protocol.md (`/documents/...`); the
/// transport prefixes its base URL. A transport error (no connection, a timeout) throws.
public protocol SyncTransport: Sendable {
    func send(_ request: SyncRequest, timeoutSeconds: Int) throws -> SyncResponse
}

/// A transport that can also follow a layer over a WebSocket (quire-server's push
/// transport, docs/sync-protocol.md "WebSocket"): a listening descriptor uses it when the
/// server offers one, and long-polls when it does not.
public protocol SyncSocketTransport: SyncTransport {
    /// Opens the WebSocket of `path`, sends `hello` (a text message), then calls `onMessage`
    /// with each text message the server sends, on the calling thread, which it blocks
    /// until the connection ends (returns) or `shouldStop()` (checked at least every
    /// 100 ms) is true (closes it, returns). Throws ``SyncSocketUnavailable`` when the
    /// server answers the upgrade with anything but a WebSocket (it has none), and another
    /// error when the connection fails.
    func follow(path: String, hello: String, onMessage: (String) -> Void, shouldStop: () -> Bool) throws
}

/// The server has no WebSocket for the layer (it answered the upgrade with HTTP).
public struct SyncSocketUnavailable: Error, Sendable {
    public init() {}
}

/// A descriptor's state, as PSPDFKit Instant's `InstantDocumentState`.
public enum SyncState: Int, Sendable {
    /// Not downloaded (or its local storage was removed).
    case unknown = 0
    /// Downloaded, no local change waiting.
    case clean = 1
    /// Local changes wait to be pushed.
    case dirty = 2
    /// Pushing.
    case sendingChanges = 3
    /// Downloading or pulling.
    case receivingChanges = 4
    /// The server refused the document for good (deleted, or the token's permissions).
    case invalid = 5
    /// The server answered "reset": the layer is being fetched again.
    case needsReset = 6
}

/// What a descriptor reports, in order, on its event thread.
public enum SyncEvent: Sendable {
    case stateChanged(SyncState)
    /// Bytes received of the download so far, and the total when known (0: unknown).
    case downloadProgress(completed: Int64, total: Int64)
    case downloadFinished
    case downloadFailed(SyncClientError)
    case syncFinished
    case syncFailed(SyncClientError)
    /// The server changed these records of the editable document.
    case documentChanged([String])
    /// A local change was dropped: the server's record won (reason "conflict") or refused
    /// it ("invalid"); the document now shows the server's record.
    case changeDropped(SyncDroppedChange)
    /// The token expired or was refused, or there is none yet (after a restart): call
    /// ``SyncDescriptor/reauthenticate(token:)``.
    case authenticationNeeded
    case reauthenticationFinished
    case reauthenticationFailed(SyncClientError)
    /// The client's copy of these records differed from the server's (the layer's digest
    /// did not match after a pull): they were fetched again, and the document shows the
    /// server's records. Counted (``SyncDescriptor/repairs()``); never expected.
    case recordsRepaired([String], message: String)
    /// Who is connected to the layer now (quire-server's presence over its WebSocket,
    /// docs/sync-protocol.md "Presence"): the JSON array of members, each `user_id`,
    /// `client_id`, `since` and `cursor`. Only while listening over a WebSocket.
    case presenceChanged([UInt8])
}

/// What ``SyncEvent/changeDropped(_:)`` reports: which record, why, and which local
/// changes (``SyncDescriptor/lastChangeID``) it drops: every local change of that record
/// not yet acknowledged, the mutation refused and those made after it.
public struct SyncDroppedChange: Sendable, Equatable {
    /// The record.
    public var id: String
    /// "conflict" (another client changed or deleted it first), "invalid" (the server
    /// refused the record) or "forbidden" (the token's collaboration permissions do not
    /// allow it).
    public var reason: String
    public var message: String
    /// The refused mutation's client sequence number.
    public var clientSeq: Int64
    /// The local change ids dropped, oldest first.
    public var changes: [Int64]
    /// The fields (``RecordFields``) that lost to concurrent changes of other clients:
    /// for a field-level merge that kept the change's other fields (`reason` "conflict",
    /// the change itself stays applied but for these), or a conflict on those fields
    /// alone. Empty when the whole change was dropped for another reason.
    public var fields: [String]
    public init(id: String, reason: String, message: String, clientSeq: Int64, changes: [Int64], fields: [String] = []) {
        self.id = id
        self.reason = reason
        self.message = message
        self.clientSeq = clientSeq
        self.changes = changes
        self.fields = fields
    }
}

/// The client's settings.
public struct SyncClientConfiguration: Sendable {
    /// Seconds after a local change before the automatic sync; 0 turns it off.
    public var autoSyncDelay: Double = 1
    /// How long one long poll of the listener waits (≤ 60, the server's limit).
    public var listenWaitSeconds: Int = 25
    /// The timeout of other requests, in seconds.
    public var requestTimeoutSeconds: Int = 60
    public init() {}
}

/// A client of one sync server, with its local data directory.
public final class SyncClient: @unchecked Sendable {
    public let transport: any SyncTransport
    public let dataDirectory: String
    public let configuration: SyncClientConfiguration
    private let lock = RecursiveLock()
    private var descriptors: [String: SyncDescriptor] = [:]
    private var _eventHandler: (@Sendable (SyncDescriptor, SyncEvent) -> Void)?
    private var _tokenProvider: (@Sendable (SyncDescriptor) -> String?)?
    private var isClosed = false

    /// A client; `dataDirectory` is created if missing.
    public init(transport: any SyncTransport, dataDirectory: String, configuration: SyncClientConfiguration = SyncClientConfiguration()) throws {
        guard !dataDirectory.isEmpty else { throw SyncClientError(.invalidArgument, "the data directory is empty") }
        guard configuration.autoSyncDelay >= 0, configuration.autoSyncDelay <= 86_400 else {
            throw SyncClientError(.invalidArgument, "auto_sync_delay must be between 0 and 86400 seconds")
        }
        guard (1...60).contains(configuration.listenWaitSeconds) else {
            throw SyncClientError(.invalidArgument, "listen_wait_seconds must be between 1 and 60")
        }
        self.transport = transport
        self.dataDirectory = dataDirectory
        self.configuration = configuration
        try makeDirectories(dataDirectory + "/documents")
    }

    /// Called with every descriptor's events, on that descriptor's event thread.
    public var eventHandler: (@Sendable (SyncDescriptor, SyncEvent) -> Void)? {
        get { lock.withLock { _eventHandler } }
        set { lock.withLock { _eventHandler = newValue } }
    }

    /// Asked for a fresh token when a descriptor has none or the server refused its token,
    /// on that descriptor's worker thread; nil: none (the authentication event follows).
    public var tokenProvider: (@Sendable (SyncDescriptor) -> String?)? {
        get { lock.withLock { isClosed ? nil : _tokenProvider } }
        set { lock.withLock { _tokenProvider = newValue } }
    }

    func documentDirectory(_ document: String) -> String { dataDirectory + "/documents/" + document }

    /// The descriptor of the document and layer that `token` names (its claims are read,
    /// not verified: the server does that); the same object for the same pair.
    public func descriptor(forJWT token: String) throws -> SyncDescriptor {
        let claims = try SyncTokenClaims(token: token)
        return try descriptor(document: claims.documentID, layer: claims.layer)
    }

    /// The descriptor of `document` and `layer` (ids of the protocol).
    public func descriptor(document: String, layer: String) throws -> SyncDescriptor {
        guard SyncIDs.isValid(document), SyncIDs.isValid(layer) else {
            throw SyncClientError(.invalidArgument, "the document and layer must be ids ([A-Za-z0-9._-]{1,128})")
        }
        return try lock.withLock {
            let key = document + "/" + layer
            if let d = descriptors[key] { return d }
            let d = try SyncDescriptor(client: self, document: document, layer: layer)
            descriptors[key] = d
            return d
        }
    }

    /// The descriptors of every layer downloaded in the data directory.
    public func localDescriptors() throws -> [SyncDescriptor] {
        var out: [SyncDescriptor] = []
        for document in listDirectory(dataDirectory + "/documents") where SyncIDs.isValid(document) {
            for file in listDirectory(documentDirectory(document) + "/layers") where file.hasSuffix(".sqlite") {
                let layer = String(file.dropLast(7))
                if SyncIDs.isValid(layer) { out.append(try descriptor(document: document, layer: layer)) }
            }
        }
        return out
    }

    /// Removes a document's local storage: its PDF and every layer's store. Its
    /// descriptors go back to ``SyncState/unknown``.
    public func removeLocalStorage(document: String) throws {
        guard SyncIDs.isValid(document) else { throw SyncClientError(.invalidArgument, "the document must be an id") }
        let mine = lock.withLock { descriptors.values.filter { $0.documentID == document } }
        for d in mine { try d.removeLocalStorage() }
        try removeTree(documentDirectory(document))
    }

    /// Removes the cached PDFs of documents none of whose layers is stored; returns how
    /// many were removed.
    @discardableResult
    public func removeUnusedCache() throws -> Int {
        var removed = 0
        for document in listDirectory(dataDirectory + "/documents") where SyncIDs.isValid(document) {
            let layers = listDirectory(documentDirectory(document) + "/layers").filter { $0.hasSuffix(".sqlite") }
            if layers.isEmpty {
                try removeTree(documentDirectory(document))
                removed += 1
            }
        }
        return removed
    }

    /// Stops every descriptor's listening, waits for their work and the events already
    /// queued, and closes their stores: no event handler or token provider call starts
    /// after this returns (a listener's long poll still waiting ends on its own, quietly).
    public func close() {
        let all: [SyncDescriptor] = lock.withLock {
            isClosed = true
            let all = Array(descriptors.values)
            descriptors = [:]
            return all
        }
        for d in all { d.close() }
    }

    func emit(_ descriptor: SyncDescriptor, _ event: SyncEvent) {
        lock.withLock {
            guard !isClosed, let handler = _eventHandler else { return }
            descriptor.events.async { handler(descriptor, event) }
        }
    }
}
