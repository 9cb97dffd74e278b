import Dispatch
import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import QuireSyntax
import Synchronization

/// The sync service: the whole HTTP API of docs/sync-protocol.md as a router from
/// `SyncRequest` to `SyncResponse`, with no HTTP server in it.
///
/// Thread safety: a service is `Sendable` and meant to be shared. `handle` may run from
/// any number of tasks at once and `handleBlocking` from any number of threads: the state
/// it keeps is either immutable (configuration, keys) or behind a lock (the listeners, the
/// cache of documents' pages), and the store serializes its own transactions.
///
/// Nothing traps on what a request carries: every failure becomes a JSON error answer.
public final class SyncService: Sendable {
    let limits: SyncLimits
    let adminToken: String?
    let store: any SyncStore
    let verifier: JWTVerifier
    let listeners: ListenerRegistry
    let feeds: LayerFeeds
    let feedReads = SharedFeedReads()
    let checkers = Mutex<[String: AnnotationRecordChecker]>([:])
    let presence = PresenceRegistry()
    private let stopping = Mutex(false)
    /// When each document's attachments were last collected after an upload (seconds).
    let lastCollection = Mutex<[String: Int64]>([:])

    /// The time now, in whole seconds since 1970 (attachments' upload times).
    static func nowSeconds() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// Opens the store of `configuration.storeURL` (`sqlite:` built in, other schemes from
    /// `storeFactories`, keyed by the scheme: `"postgres"` for `postgres://...`) and loads
    /// the JWT keys. Throws `SyncConfigurationError` for a URL, a key or a store that does
    /// not work.
    public init(_ configuration: SyncConfiguration, storeFactories: [String: SyncStoreFactory] = [:]) throws {
        let url = configuration.storeURL
        guard let scheme = SyncService.storeScheme(of: url) else {
            throw SyncConfigurationError("the store URL \(url) has no scheme (sqlite:///path.db, sqlite::memory:, postgres://...)")
        }
        if let factory = storeFactories[scheme] {
            store = try factory(url)
        } else if scheme == "sqlite" {
            store = try SQLiteSyncStore(url: url)
        } else {
            throw SyncConfigurationError("no store for the scheme \(scheme) of \(url) (built in: sqlite)")
        }
        limits = configuration.limits
        let l = configuration.limits
        for (name, value, least) in [("max_upload_bytes", l.maxUploadBytes, 0), ("max_body_bytes", l.maxBodyBytes, 0),
                                     ("max_mutations_per_push", l.maxMutationsPerPush, 0), ("max_record_bytes", l.maxRecordBytes, 0),
                                     ("max_token_bytes", l.maxTokenBytes, 0), ("max_listeners", l.maxListeners, 0),
                                     ("max_wait_seconds", l.maxWaitSeconds, 0), ("change_retention", l.changeRetention, 1),
                                     ("max_changes_per_page", l.maxChangesPerPage, 1), ("answer_retention", l.answerRetention, 1),
                                     ("jwt_leeway_seconds", l.jwtLeewaySeconds, 0),
                                     ("max_attachment_bytes", l.maxAttachmentBytes, 0),
                                     ("attachment_grace_seconds", l.attachmentGraceSeconds, 0)] where value < least || value > Int(Int32.max) {
            throw SyncConfigurationError("the limit \(name) must be from \(least) to \(Int32.max), not \(value)")
        }
        if let token = configuration.adminToken, token.isEmpty {
            throw SyncConfigurationError("the admin token is empty (nil turns the admin API off)")
        }
        adminToken = configuration.adminToken
        verifier = try JWTVerifier(publicKeys: configuration.publicKeys, jwks: configuration.jwks,
                                   maxTokenBytes: configuration.limits.maxTokenBytes,
                                   leewaySeconds: configuration.limits.jwtLeewaySeconds)
        let listeners = ListenerRegistry(maxListeners: configuration.limits.maxListeners)
        self.listeners = listeners
        let feeds = LayerFeeds(pageSize: configuration.limits.maxChangesPerPage) {
            SyncService.closingMessage(SyncService.errorResponse(.unauthenticated("the token has expired")))
        }
        self.feeds = feeds
        store.observeChanges { document, layer, seq in
            // A change committed by another process: the live feeds read it from the store.
            feeds.announce(LayerFeeds.Key(document: document, layer: layer), seq: seq)
            listeners.notify(document: document, layer: layer, seq: seq)
        }
    }

    /// The scheme of a store URL, lowercase (`"postgres"` for `postgres://...`, `"sqlite"`
    /// for `sqlite::memory:`): what names its factory. Nil when the URL has no `:`.
    public static func storeScheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        return String(url[..<colon]).lowercased()
    }

    /// The request id an answer to `request` carries: the caller's when it is valid
    /// (`[A-Za-z0-9-]{1,64}`), else a new one.
    static func requestID(for request: SyncRequest) -> String {
        request.header("X-Request-Id").flatMap { SyncIDs.isValidRequestID($0) ? $0 : nil } ?? SyncIDs.randomHex()
    }

    /// An error answer in the core's shape (`{"error": {"code", "message"}}`, with
    /// `X-Request-Id`), for a host that must answer before the core sees the request (a
    /// body past its limit, a body that could not be read).
    public static func errorResponse(status: Int, code: String, message: String, for request: SyncRequest,
                                     extraHeaders: [(name: String, value: String)] = []) -> SyncResponse {
        var response = json(status, .object([("error", .object([("code", .string(code)), ("message", .string(message))]))]),
                            headers: extraHeaders)
        response.headers.append(("X-Request-Id", requestID(for: request)))
        return response
    }

    /// Answers one request. Never throws: every failure is a JSON error answer.
    public func handle(_ request: SyncRequest) async -> SyncResponse {
        let requestID = Self.requestID(for: request)
        var response: SyncResponse
        do {
            if let problem = request.queryError { throw SyncHTTPError.badRequest(problem) }
            response = try await route(request)
        } catch let e as SyncHTTPError {
            response = SyncService.errorResponse(e)
        } catch {
            response = SyncService.errorResponse(.internal("internal error: \(errorMessage(error))"))
        }
        response.headers.append(("X-Request-Id", requestID))
        return response
    }

    /// Answers one request on the calling thread, which blocks until the answer is ready
    /// (a long poll blocks it for up to its `wait`): for the C request handler, whose
    /// callers are threads of a non-Swift server. Not for a Swift concurrency task, whose
    /// thread it would take from the pool (call `handle` there).
    public func handleBlocking(_ request: SyncRequest) -> SyncResponse {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<SyncResponse?>(nil)
        Task {
            let r = await self.handle(request)
            box.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return box.withLock { $0 } ?? SyncService.errorResponse(.internal("no answer"))
    }

    /// Starts shutting down: wakes every listener (their long polls answer with what they
    /// have), and answers every later request 503 `unavailable` (`/healthz` included).
    public func shutdown() async {
        stopping.withLock { $0 = true }
        listeners.shutdown()
        feeds.shutdown()
    }

    /// Closes the store after `shutdown()`; the service answers nothing after it.
    public func close() async {
        await shutdown()
        await store.close()
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    // MARK: Routing

    private enum Route {
        case health
        case adminDocuments
        case adminDocument(String)
        case adminLayer(String, String)
        case adminLayerAction(String, String, String)
        case documentPDF(String)
        case layer(String, String)
        case layerPDF(String, String)
        case layerPresence(String, String)
        case changes(String, String)
        case mutations(String, String)
        case attachment(String, String)
        case adminCollectAttachments(String)
    }

    private func route(_ request: SyncRequest) async throws -> SyncResponse {
        guard request.path.hasPrefix("/") else { throw SyncHTTPError.notFound("no route \(request.path.prefix(200))") }
        let raw = request.path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var segments: [String] = []
        for s in raw {
            guard let decoded = percentDecoded(s) else { throw SyncHTTPError.badRequest("a malformed percent escape in the path") }
            if decoded.utf8.contains(0) { throw SyncHTTPError.badRequest(SyncRequest.nulInTarget) }
            segments.append(decoded)
        }
        let route: Route
        let allowed: [String]
        switch segments.count {
        case 1 where segments[0] == "healthz":
            (route, allowed) = (.health, ["GET"])
        case 2 where segments[0] == "admin" && segments[1] == "documents":
            (route, allowed) = (.adminDocuments, ["GET", "POST"])
        case 3 where segments[0] == "admin" && segments[1] == "documents":
            (route, allowed) = (.adminDocument(segments[2]), ["GET", "DELETE"])
        case 5 where segments[0] == "admin" && segments[1] == "documents" && segments[3] == "attachments"
            && segments[4] == "collect":
            (route, allowed) = (.adminCollectAttachments(segments[2]), ["POST"])
        case 5 where segments[0] == "admin" && segments[1] == "documents" && segments[3] == "layers":
            (route, allowed) = (.adminLayer(segments[2], segments[4]), ["DELETE"])
        case 6 where segments[0] == "admin" && segments[1] == "documents" && segments[3] == "layers":
            switch segments[5] {
            case "copy", "import": allowed = ["POST"]
            case "annotations", "pdf", "presence": allowed = ["GET"]
            default: throw SyncHTTPError.notFound("no route \(request.path.prefix(200))")
            }
            route = .adminLayerAction(segments[2], segments[4], segments[5])
        case 3 where segments[0] == "documents" && segments[2] == "pdf":
            (route, allowed) = (.documentPDF(segments[1]), ["GET"])
        case 4 where segments[0] == "documents" && segments[2] == "layers":
            (route, allowed) = (.layer(segments[1], segments[3]), ["GET"])
        case 5 where segments[0] == "documents" && segments[2] == "layers" && segments[4] == "presence":
            (route, allowed) = (.layerPresence(segments[1], segments[3]), ["GET"])
        case 5 where segments[0] == "documents" && segments[2] == "layers" && segments[4] == "pdf":
            (route, allowed) = (.layerPDF(segments[1], segments[3]), ["GET"])
        case 5 where segments[0] == "documents" && segments[2] == "layers" && segments[4] == "changes":
            (route, allowed) = (.changes(segments[1], segments[3]), ["GET"])
        case 5 where segments[0] == "documents" && segments[2] == "layers" && segments[4] == "mutations":
            (route, allowed) = (.mutations(segments[1], segments[3]), ["POST"])
        case 4 where segments[0] == "documents" && segments[2] == "attachments":
            (route, allowed) = (.attachment(segments[1], segments[3]), ["GET", "PUT"])
        default:
            throw SyncHTTPError.notFound("no route \(request.path.prefix(200))")
        }
        guard allowed.contains(request.method) else {
            var e = SyncHTTPError(405, "method_not_allowed", "\(request.method.prefix(20)) is not allowed here (\(allowed.joined(separator: ", ")))")
            e.headers = [("Allow", allowed.joined(separator: ", "))]
            throw e
        }
        if isStopping { throw SyncHTTPError.unavailable("the server is shutting down") }
        let isUpload: Bool
        switch route {
        case .adminDocuments where request.method == "POST": isUpload = true
        case .adminLayerAction(_, _, "import"): isUpload = true
        default: isUpload = false
        }
        var (maxBody, limitName) = isUpload ? (limits.maxUploadBytes, "max_upload_bytes") : (limits.maxBodyBytes, "max_body_bytes")
        if case .attachment = route { (maxBody, limitName) = (limits.maxAttachmentBytes, "max_attachment_bytes") }
        guard request.body.count <= maxBody else {
            throw SyncHTTPError.tooLarge("the body is larger than \(maxBody) bytes (\(limitName))")
        }
        switch route {
        case .health:
            return SyncService.json(200, .object([("status", .string("ok"))]))
        case .adminDocuments:
            try checkAdmin(request)
            return request.method == "POST" ? try await uploadDocument(request) : try await listDocuments()
        case .adminDocument(let doc):
            try checkAdmin(request)
            try checkID(doc, "document id")
            return request.method == "GET" ? try await describeDocument(doc) : try await deleteDocument(doc)
        case .adminLayer(let doc, let layer):
            try checkAdmin(request)
            try checkID(doc, "document id")
            try checkID(layer, "layer name")
            return try await deleteLayer(doc, layer)
        case .adminCollectAttachments(let doc):
            try checkAdmin(request)
            try checkID(doc, "document id")
            guard try await store.read({ tx in try await tx.document(doc) }) != nil else {
                throw SyncHTTPError.notFound("no document \(doc)")
            }
            let collected = try await collectAttachments(doc)
            return SyncService.json(200, .object([("collected", .array(collected.map { JSONOut.string($0) }))]))
        case .adminLayerAction(let doc, let layer, let action):
            try checkAdmin(request)
            try checkID(doc, "document id")
            try checkID(layer, "layer name")
            switch action {
            case "copy": return try await copyLayer(doc, layer, request)
            case "annotations": return try await layerAnnotations(doc, layer)
            case "pdf": return try await layerPDF(doc, layer, request)
            case "presence": return SyncResponse(status: 200, headers: [("Content-Type", "application/json")], body: presence.json(doc, layer))
            default: return try await importPDF(doc, layer, request)
            }
        case .documentPDF(let doc):
            let claims = try await authorize(request, document: doc, layer: nil, permission: "download")
            return try await downloadPDF(doc, request, rights: try claims.collaboration())
        case .layer(let doc, let layer):
            let claims = try await authorize(request, document: doc, layer: layer, permission: "read")
            return try await fetchLayer(doc, layer, rights: try claims.collaboration())
        case .layerPDF(let doc, let layer):
            let claims = try await authorize(request, document: doc, layer: layer, permission: "read")
            guard claims.allows("download") else { throw SyncHTTPError.forbidden("the token does not grant download") }
            return try await layerPDF(doc, layer, request, rights: try claims.collaboration())
        case .layerPresence(let doc, let layer):
            _ = try await authorize(request, document: doc, layer: layer, permission: "read")
            return SyncResponse(status: 200, headers: [("Content-Type", "application/json")], body: presence.json(doc, layer))
        case .changes(let doc, let layer):
            let claims = try await authorize(request, document: doc, layer: layer, permission: "read")
            return try await pullChanges(doc, layer, request, rights: try claims.collaboration())
        case .mutations(let doc, let layer):
            let claims = try await authorize(request, document: doc, layer: layer, permission: "write")
            return try await push(doc, layer, request, userID: claims.userID, rights: try claims.collaboration())
        case .attachment(let doc, let sha):
            let put = request.method == "PUT"
            _ = try await authorize(request, document: doc, layer: nil, permission: put ? "write" : "read")
            return put ? try await uploadAttachment(doc, sha, request) : try await downloadAttachment(doc, sha, request)
        }
    }

    // MARK: Authorization

    func checkID(_ id: String, _ what: String) throws {
        guard SyncIDs.isValid(id) else {
            throw SyncHTTPError.badRequest("invalid \(what) \"\(id.prefix(60))\": [A-Za-z0-9._-]{1,128}, not . or ..")
        }
    }

    private func checkAdmin(_ request: SyncRequest) throws {
        guard let token = adminToken else { throw SyncHTTPError.notFound("the admin API is off (no API token is configured)") }
        guard let header = request.header("Authorization") else {
            throw SyncHTTPError(401, "unauthenticated", "the admin API needs Authorization: Token <api token>")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "token",
              SyncService.constantTimeEqual(Array(parts[1].utf8), Array(token.utf8)) else {
            throw SyncHTTPError(401, "unauthenticated", "the API token is wrong")
        }
    }

    /// Compares in a time that depends on the lengths only.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return diff == 0
    }

    /// The verified claims of the request's bearer token, for this document and layer (nil:
    /// any layer) and permission.
    ///
    /// The header is read as UTF-8 bytes: its length is checked before anything else reads
    /// it, and the scheme and the spaces around the token are found byte by byte, so that
    /// refusing a header of `max_token_bytes` of garbage costs a copy of it, not a walk
    /// through its characters (once 0.2 µs a byte, issue 41).
    func authorize(_ request: SyncRequest, document: String, layer: String?, permission: String) async throws -> SyncClaims {
        guard let header = request.header("Authorization") else { throw SyncHTTPError.unauthenticated("no token (Authorization: Bearer <JWT>)") }
        let token = try Self.bearerToken(header, maxTokenBytes: limits.maxTokenBytes)
        let claims = try await verifier.verify(token)
        try checkID(document, "document id")
        if let layer { try checkID(layer, "layer name") }
        guard claims.documentID == document else { throw SyncHTTPError.forbidden("the token is for another document") }
        if let layer, claims.layer != layer { throw SyncHTTPError.forbidden("the token is for another layer") }
        guard claims.allows(permission) else { throw SyncHTTPError.forbidden("the token does not grant \(permission)") }
        return claims
    }

    /// The token of an `Authorization: Bearer <token>` header value (the scheme in any case,
    /// spaces around the token dropped), or 401 `unauthenticated`: not Bearer, or a token
    /// past `maxTokenBytes`. Reads bytes, never characters; the whole value is bounded first.
    static func bearerToken(_ header: String, maxTokenBytes: Int) throws(SyncHTTPError) -> String {
        let scheme: [UInt8] = Array("bearer".utf8)
        // The scheme, its space, and a little room for spaces around the token.
        guard header.utf8.count <= maxTokenBytes + scheme.count + 16 else {
            throw .unauthenticated("the token is larger than \(maxTokenBytes) bytes")
        }
        let bytes = Array(header.utf8)
        let space = UInt8(ascii: " ")
        guard bytes.count > scheme.count, bytes[scheme.count] == space,
              zip(bytes[..<scheme.count], scheme).allSatisfy({ $0 | 0x20 == $1 }) else {
            throw .unauthenticated("the Authorization header is not Bearer <JWT>")
        }
        var start = scheme.count + 1
        var end = bytes.count
        while start < end, bytes[start] == space { start += 1 }
        while end > start, bytes[end - 1] == space { end -= 1 }
        guard end - start <= maxTokenBytes else {
            throw .unauthenticated("the token is larger than \(maxTokenBytes) bytes")
        }
        // A JWS in compact form is three base64url parts joined by two dots (RFC 7515 §7.1):
        // anything else is refused here, in one pass over the bytes, before a parser
        // decodes any of it.
        var dots = 0
        for b in bytes[start..<end] {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            case UInt8(ascii: "."):
                dots += 1
            default:
                throw .unauthenticated("the token is not a JWT (three base64url parts joined by dots)")
            }
        }
        guard dots == 2 else { throw .unauthenticated("the token is not a JWT (three base64url parts joined by dots)") }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The user of a live connection's token that may read `layer` (presence).
    func presenceUser(_ request: SyncRequest, document: String, layer: String) async throws -> String? {
        if isStopping { throw SyncHTTPError.unavailable("the server is shutting down") }
        return try await authorize(request, document: document, layer: layer, permission: "read").userID
    }

    // MARK: Answers

    static func json(_ status: Int, _ body: JSONOut, headers: [(name: String, value: String)] = []) -> SyncResponse {
        SyncResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body.bytes)
    }

    static func errorResponse(_ e: SyncHTTPError) -> SyncResponse {
        var error: [(String, JSONOut)] = [("code", .string(e.code)), ("message", .string(e.message))]
        if !e.mutations.isEmpty { error.append(("mutations", .array(e.mutations.map(\.json)))) }
        return json(e.status, .object([("error", .object(error))]), headers: e.headers)
    }

    // MARK: Documents' pages

    /// What checking a record against document `id` needs (its pages), read from its PDF
    /// once per process and kept.
    func checker(for info: SyncDocumentInfo) async throws -> AnnotationRecordChecker {
        let key = info.id + "\u{0}" + info.sha256
        if let cached = checkers.withLock({ $0[key] }) { return cached }
        let id = info.id
        guard let pdf = try await store.read({ tx in try await tx.documentPDF(id) }) else {
            throw SyncHTTPError.notFound("no document \(id)")
        }
        let checker: AnnotationRecordChecker
        do {
            checker = try AnnotationRecordChecker(Document(data: pdf))
        } catch {
            throw SyncHTTPError.internal("the stored PDF of \(id) does not open: \(errorMessage(error))")
        }
        cacheChecker(checker, for: info)
        return checker
    }

    func cacheChecker(_ checker: AnnotationRecordChecker, for info: SyncDocumentInfo) {
        checkers.withLock { cache in
            if cache.count >= 1024 { cache.removeAll() }  // a bound, not a policy: rebuilt on demand
            cache[info.id + "\u{0}" + info.sha256] = checker
        }
    }
}
