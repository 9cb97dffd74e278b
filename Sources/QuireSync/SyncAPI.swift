// The public types of the sync core: a request in, a response out, the configuration and
// its limits. The contract is docs/sync-protocol.md; hosts (quire-server on Hummingbird,
// the C request handler) translate their requests into `SyncRequest` and `SyncResponse`
// back, and hold no rule of their own.

/// One HTTP request, as the host received it.
public struct SyncRequest: Sendable {
    /// `GET`, `POST`, `DELETE`, ... (compared case-sensitively, as HTTP methods are).
    public var method: String
    /// The path without the query, still percent-encoded as it came (`/documents/a%2Fb/pdf`):
    /// the router decodes each segment after splitting, so an encoded `/` never splits one.
    public var path: String
    /// The query parameters, already percent-decoded by the host.
    public var query: [String: String]
    /// The header fields in order; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:],
                headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field named `name` (any case).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

/// One HTTP response: always a complete one (errors are JSON bodies with a 4xx or 5xx).
public struct SyncResponse: Sendable {
    public var status: Int
    /// Always has `X-Request-Id`, and `Content-Type` when there is a body.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field named `name` (any case).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

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
