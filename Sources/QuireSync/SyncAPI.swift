// The public types of the sync core: its configuration and limits. A request in and a
// response out (`SyncRequest`, `SyncResponse`) are the protocol's, in QuireSyncProtocol,
// which the client shares. The contract is docs/sync-protocol.md.

import QuireSyncProtocol

/// The named limits of docs/sync-protocol.md ("Limits").
public struct SyncLimits: Sendable, Equatable {
    /// The largest PDF upload (admin upload and import), in bytes: 256 MiB.
    public var maxUploadBytes: Int = 256 << 20
    /// The largest body of any other request, in bytes: 8 MiB.
    public var maxBodyBytes: Int = 8 << 20
    /// The most mutations in one push: 500.
    public var maxMutationsPerPush: Int = 500
    /// The largest record of a put, as stored (compact JSON), in bytes: 1 MiB.
    public var maxRecordBytes: Int = 1 << 20
    /// The largest JWT, in bytes: 8 KiB.
    public var maxTokenBytes: Int = 8 << 10
    /// The most long polls waiting at once in this process: 10,000. Past it a long poll
    /// answers at once, as if its wait had been 0.
    public var maxListeners: Int = 10_000
    /// The longest `wait` of a long poll, in seconds: 60. A larger `wait` is a 400.
    public var maxWaitSeconds: Int = 60
    /// The changes each layer keeps at least: 10,000. Older ones are pruned; a pull from
    /// before them answers `reset`.
    public var changeRetention: Int = 10_000
    /// The most changes in one answer of the feed: 1,000 (`"more": true` past it).
    public var maxChangesPerPage: Int = 1_000
    /// The idempotency answers kept per client and layer: the last 10,000 `client_seq`
    /// values (a retry of an older one is applied as a new mutation).
    public var answerRetention: Int = 10_000
    /// The seconds of leeway for `exp` and `nbf`: 60.
    public var jwtLeewaySeconds: Int = 60
    /// The largest attachment (an image of an image annotation, a file of a file
    /// attachment annotation) a client uploads, in bytes: 8 MiB (an image is at most the
    /// 16 MiB of `ImageAttachment.maxBytes` whatever this says, a file the 64 MiB of
    /// `Annotation.AttachedFile.maxBytes`).
    public var maxAttachmentBytes: Int = 8 << 20
    /// How long an attachment is kept after its upload (or its last upload again) before
    /// it may be collected when no record names it, in seconds: 3,600. A client uploads
    /// an attachment right before each push that names it, so a push in flight never
    /// loses its attachment while this exceeds the longest push (0 collects at once: for
    /// tests).
    public var attachmentGraceSeconds: Int = 3_600

    public init() {}
}

/// What a `SyncService` is made of.
public struct SyncConfiguration: Sendable {
    /// `sqlite:///abs/path/quire.db`, `sqlite::memory:`, or a scheme of a store factory
    /// (`postgres://...`).
    public var storeURL: String
    /// PEM texts of the public keys that verify JWTs (RSA, or EC P-256 / P-521).
    public var publicKeys: [String]
    /// A JWKS document's text (RSA and EC keys with a `kid`).
    public var jwks: String?
    /// The admin API's token (`Authorization: Token <token>`); nil: the admin API is off
    /// and answers 404.
    public var adminToken: String?
    public var limits: SyncLimits

    public init(storeURL: String, publicKeys: [String] = [], jwks: String? = nil,
                adminToken: String? = nil, limits: SyncLimits = SyncLimits()) {
        self.storeURL = storeURL
        self.publicKeys = publicKeys
        self.jwks = jwks
        self.adminToken = adminToken
        self.limits = limits
    }
}

/// A configuration that cannot start a service: a store URL of no known scheme, a key that
/// does not parse, a store that cannot open.
public struct SyncConfigurationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Makes the store of a store URL (the whole URL is passed). Registered by scheme in
/// `SyncService.init(_:storeFactories:)`; `sqlite` is built in.
public typealias SyncStoreFactory = @Sendable (String) throws -> any SyncStore
