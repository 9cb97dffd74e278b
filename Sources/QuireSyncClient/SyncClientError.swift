import QuireDocument

/// An error of the sync client, by kind (the C layer maps each kind to a status).
public struct SyncClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A bad argument: an unreadable token, an id with path characters, a bad URL.
        case invalidArgument
        /// The call does not fit the descriptor's state (no download yet, storage removed).
        case state
        /// A download is already running for this descriptor.
        case busy
        /// The server refused the token (401): reauthenticate.
        case authentication
        /// The server refused the call for this token (403), or the document is gone (404).
        case forbidden
        /// The server could not be reached or answered 5xx: retried on the next sync.
        case network
        /// The local store failed (SQLite, files).
        case storage
        /// The server's answer is not what the protocol says.
        case protocolError
        /// The build has no transport for this (QUIRE_NO_SERVER).
        case unsupported
    }
    public let kind: Kind
    public let message: String
    /// The server's `Retry-After` in seconds, when it answered 503 with one (a long poll
    /// past its `max_listeners`): the listener waits at least that long before polling again.
    public var retryAfterSeconds: Double?
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}

/// The recursive mutex of QuireDocument.
public typealias RecursiveLock = DocumentLock
