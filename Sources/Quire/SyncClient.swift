// The sync client of include/quire.h (quire_client_*, quire_descriptor_*): conversions
// only; the client lives in QuireSyncClient, its HTTP transport in QuireSyncHTTP.
import CQuire
import Dispatch
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyntax
#if canImport(QuireSyncHTTP)
import QuireSyncHTTP
#endif
#if canImport(Glibc)
import Glibc
#endif

let clientConfigVersions = StructVersions<quire_client_config>(name: "config", sizes: [MemoryLayout<quire_client_config>.size])
let clientCallbacksVersions = StructVersions<quire_client_callbacks>(name: "callbacks", sizes: [MemoryLayout<quire_client_callbacks>.size])

var clientConfigDefaults: quire_client_config {
    quire_client_config(version: clientConfigVersions.current, server_url: nil, data_directory: nil,
                        auto_sync_delay: -1, listen_wait_seconds: 0, request_timeout_seconds: 0)
}

var clientCallbacksDefaults: quire_client_callbacks {
    quire_client_callbacks(version: clientCallbacksVersions.current, on_event: nil, token_provider: nil, payload: nil)
}

/// The status of a client error.
func status(of e: SyncClientError) -> Int32 {
    switch e.kind {
    case .invalidArgument: return QUIRE_EINVAL
    case .state: return QUIRE_ESTATE
    case .busy: return QUIRE_EBUSY
    case .authentication, .forbidden: return QUIRE_EAUTH
    case .network: return QUIRE_ENETWORK
    case .storage: return QUIRE_EIO
    case .protocolError: return QUIRE_EFORMAT
    case .unsupported: return QUIRE_EUNSUPPORTED
    }
}

/// Runs `body`, turning a client error into its status.
func clientCall(_ body: () throws -> Void) throws {
    do { try body() } catch let e as SyncClientError { throw CallError(code: status(of: e), message: e.message) }
}

func cState(_ s: SyncState) -> quire_sync_state {
    switch s {
    case .unknown: return QUIRE_SYNC_STATE_UNKNOWN
    case .clean: return QUIRE_SYNC_STATE_CLEAN
    case .dirty: return QUIRE_SYNC_STATE_DIRTY
    case .sendingChanges: return QUIRE_SYNC_STATE_SENDING
    case .receivingChanges: return QUIRE_SYNC_STATE_RECEIVING
    case .invalid: return QUIRE_SYNC_STATE_INVALID
    case .needsReset: return QUIRE_SYNC_STATE_NEEDS_RESET
    }
}

/// A descriptor handle: its descriptor, kept by its client's box (the handle's pointer
/// stays the same while the client lives).
final class DescriptorBox {
    let descriptor: SyncDescriptor
    init(_ descriptor: SyncDescriptor) { self.descriptor = descriptor }
}

/// A client handle: the client, the caller's callbacks and the descriptor handles.
final class ClientBox: @unchecked Sendable {
    let client: SyncClient
    let onEvent: quire_sync_event_fn?
    let tokenProvider: quire_token_provider_fn?
    let payload: UnsafeMutableRawPointer?
    private let lock = DocumentLock()
    private var boxes: [ObjectIdentifier: DescriptorBox] = [:]

    init(client: SyncClient, callbacks: quire_client_callbacks) {
        self.client = client
        onEvent = callbacks.on_event
        tokenProvider = callbacks.token_provider
        payload = callbacks.payload
    }

    func box(_ d: SyncDescriptor) -> DescriptorBox {
        lock.withLock {
            if let b = boxes[ObjectIdentifier(d)] { return b }
            let b = DescriptorBox(d)
            boxes[ObjectIdentifier(d)] = b
            return b
        }
    }

    func handle(_ d: SyncDescriptor) -> OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(box(d)).toOpaque())
    }

    /// Delivers `event` to the C callback, its strings alive for the call.
    func deliver(_ d: SyncDescriptor, _ event: SyncEvent) {
        guard let onEvent else { return }
        var owned: [UnsafeMutablePointer<CChar>] = []
        func c(_ s: String) -> UnsafePointer<CChar>? {
            guard let p = strdup(s) else { return nil }
            owned.append(p)
            return UnsafePointer(p)
        }
        defer { owned.forEach { free($0) } }
        var e = quire_sync_event(version: UInt32(QUIRE_SYNC_EVENT_VERSION), type: QUIRE_SYNC_EVENT_STATE_CHANGED,
                                 state: cState(d.state), status: QUIRE_OK, message: nil, record_id: nil, reason: nil,
                                 record_ids: nil, record_id_count: 0, completed: 0, total: 0,
                                 client_seq: 0, change_ids: nil, change_id_count: 0, fields: nil, field_count: 0,
                                 presence: nil)
        var ids: [UnsafePointer<CChar>?] = []
        var fields: [UnsafePointer<CChar>?] = []
        var changeIDs: [Int64] = []
        switch event {
        case .stateChanged(let s):
            e.type = QUIRE_SYNC_EVENT_STATE_CHANGED
            e.state = cState(s)
        case .downloadProgress(let completed, let total):
            e.type = QUIRE_SYNC_EVENT_DOWNLOAD_PROGRESS
            e.completed = completed
            e.total = total
        case .downloadFinished: e.type = QUIRE_SYNC_EVENT_DOWNLOAD_FINISHED
        case .downloadFailed(let error):
            e.type = QUIRE_SYNC_EVENT_DOWNLOAD_FAILED
            e.status = status(of: error)
            e.message = c(error.message)
        case .syncFinished: e.type = QUIRE_SYNC_EVENT_SYNC_FINISHED
        case .syncFailed(let error):
            e.type = QUIRE_SYNC_EVENT_SYNC_FAILED
            e.status = status(of: error)
            e.message = c(error.message)
        case .documentChanged(let changed):
            e.type = QUIRE_SYNC_EVENT_DOCUMENT_CHANGED
            ids = changed.map { c($0) }
            e.record_id_count = ids.count
        case .changeDropped(let dropped):
            e.type = QUIRE_SYNC_EVENT_CHANGE_DROPPED
            e.record_id = c(dropped.id)
            e.reason = c(dropped.reason)
            e.message = c(dropped.message)
            e.client_seq = dropped.clientSeq
            changeIDs = dropped.changes
            e.change_id_count = changeIDs.count
            fields = dropped.fields.map { c($0) }
            e.field_count = fields.count
        case .recordsRepaired(let repaired, let message):
            e.type = QUIRE_SYNC_EVENT_RECORDS_REPAIRED
            ids = repaired.map { c($0) }
            e.record_id_count = ids.count
            e.message = c(message)
        case .presenceChanged(let members):
            e.type = QUIRE_SYNC_EVENT_PRESENCE_CHANGED
            e.presence = c(String(decoding: members, as: UTF8.self))
        case .authenticationNeeded: e.type = QUIRE_SYNC_EVENT_AUTHENTICATION_NEEDED
        case .reauthenticationFinished: e.type = QUIRE_SYNC_EVENT_REAUTHENTICATION_FINISHED
        case .reauthenticationFailed(let error):
            e.type = QUIRE_SYNC_EVENT_REAUTHENTICATION_FAILED
            e.status = status(of: error)
            e.message = c(error.message)
        }
        let handle = handle(d)
        ids.withUnsafeBufferPointer { buffer in
            if !ids.isEmpty { e.record_ids = buffer.baseAddress }
            changeIDs.withUnsafeBufferPointer { changes in
                if !changeIDs.isEmpty { e.change_ids = changes.baseAddress }
                fields.withUnsafeBufferPointer { names in
                    if !fields.isEmpty { e.fields = names.baseAddress }
                    onEvent(handle, &e, payload)
                }
            }
        }
    }

    func freshToken(_ d: SyncDescriptor) -> String? {
        guard let tokenProvider, let p = tokenProvider(handle(d), payload) else { return nil }
        return String(cString: p)
    }

    func descriptors() -> [SyncDescriptor] { lock.withLock { boxes.values.map(\.descriptor) } }
}

func clientBox(_ handle: OpaquePointer?) throws -> ClientBox {
    let handle = try required(handle, "client")
    return Unmanaged<ClientBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

func descriptor(_ handle: OpaquePointer?) throws -> SyncDescriptor {
    let handle = try required(handle, "descriptor")
    return Unmanaged<DescriptorBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().descriptor
}

func jwtArgument(_ p: UnsafePointer<CChar>?) throws -> String {
    let p = try required(p, "jwt")
    guard strnlen(p, SyncTokenClaims.maxTokenBytes + 1) <= SyncTokenClaims.maxTokenBytes else {
        throw CallError(code: QUIRE_EINVAL, message: "the token is longer than \(SyncTokenClaims.maxTokenBytes) bytes")
    }
    return String(cString: p)
}

@c @implementation
public func quire_client_config_init(_ config: UnsafeMutablePointer<quire_client_config>?, _ version: UInt32) -> Int32 {
    guarded("quire_client_config_init") {
        try clientConfigVersions.initialize(config, version: version, defaults: clientConfigDefaults)
    }
}

@c @implementation
public func quire_client_callbacks_init(_ callbacks: UnsafeMutablePointer<quire_client_callbacks>?, _ version: UInt32) -> Int32 {
    guarded("quire_client_callbacks_init") {
        try clientCallbacksVersions.initialize(callbacks, version: version, defaults: clientCallbacksDefaults)
    }
}

@c @implementation
public func quire_client_open(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ config: UnsafePointer<quire_client_config>?,
                              _ callbacks: UnsafePointer<quire_client_callbacks>?) -> Int32 {
    guarded("quire_client_open") {
        let out = try required(out, "out")
        let c = try clientConfigVersions.read(try required(config, "config"), defaults: clientConfigDefaults).value
        let cb = try callbacks.map { try clientCallbacksVersions.read($0, defaults: clientCallbacksDefaults).value } ?? clientCallbacksDefaults
        let url = String(cString: try required(c.server_url, "config->server_url"))
        let directory = String(cString: try required(c.data_directory, "config->data_directory"))
        var configuration = SyncClientConfiguration()
        if c.auto_sync_delay >= 0 {
            guard c.auto_sync_delay.isFinite, c.auto_sync_delay <= 86_400 else {
                throw CallError(code: QUIRE_EINVAL, message: "auto_sync_delay \(c.auto_sync_delay) is not between 0 and 86400")
            }
            configuration.autoSyncDelay = c.auto_sync_delay
        } else if !c.auto_sync_delay.isFinite {
            throw CallError(code: QUIRE_EINVAL, message: "auto_sync_delay is not a number")
        }
        if c.listen_wait_seconds != 0 {
            guard (1...60).contains(c.listen_wait_seconds) else {
                throw CallError(code: QUIRE_EINVAL, message: "listen_wait_seconds \(c.listen_wait_seconds) is not between 1 and 60")
            }
            configuration.listenWaitSeconds = Int(c.listen_wait_seconds)
        }
        if c.request_timeout_seconds != 0 {
            guard (1...3600).contains(c.request_timeout_seconds) else {
                throw CallError(code: QUIRE_EINVAL, message: "request_timeout_seconds \(c.request_timeout_seconds) is not between 1 and 3600")
            }
            configuration.requestTimeoutSeconds = Int(c.request_timeout_seconds)
        }
        #if canImport(QuireSyncHTTP)
        try clientCall {
            let client = try SyncClient(transport: try HTTPTransport(baseURL: url), dataDirectory: directory, configuration: configuration)
            let box = ClientBox(client: client, callbacks: cb)
            // The closures keep the box alive while a call may still run; the cycle
            // (box, client, closures) is broken by quire_client_close.
            if cb.on_event != nil {
                client.eventHandler = { [box] d, e in box.deliver(d, e) }
            }
            if cb.token_provider != nil {
                client.tokenProvider = { [box] d in box.freshToken(d) }
            }
            out.pointee = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
        }
        #else
        _ = (url, directory, configuration, cb)
        throw CallError(code: QUIRE_EUNSUPPORTED, message: "this build of libquire has no HTTP client (built with QUIRE_NO_SERVER)")
        #endif
    }
}

@c @implementation
public func quire_client_close(_ client: OpaquePointer?) {
    guard let client else { return }
    let box = Unmanaged<ClientBox>.fromOpaque(UnsafeRawPointer(client))
    let b = box.takeUnretainedValue()
    b.client.close()
    b.client.eventHandler = nil
    b.client.tokenProvider = nil
    box.release()
}

@c @implementation
public func quire_client_descriptor_for_jwt(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ client: OpaquePointer?,
                                            _ jwt: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_client_descriptor_for_jwt") {
        let out = try required(out, "out")
        let b = try clientBox(client)
        let token = try jwtArgument(jwt)
        try clientCall { out.pointee = b.handle(try b.client.descriptor(forJWT: token)) }
    }
}

@c @implementation
public func quire_client_remove_document_storage(_ client: OpaquePointer?, _ documentID: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_client_remove_document_storage") {
        let b = try clientBox(client)
        let id = String(cString: try required(documentID, "document_id"))
        try clientCall { try b.client.removeLocalStorage(document: id) }
    }
}

@c @implementation
public func quire_client_remove_unused_cache(_ outRemoved: UnsafeMutablePointer<Int>?, _ client: OpaquePointer?) -> Int32 {
    guarded("quire_client_remove_unused_cache") {
        let b = try clientBox(client)
        try clientCall { outRemoved?.pointee = try b.client.removeUnusedCache() }
    }
}

@c @implementation
public func quire_descriptor_document_id(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                         _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_document_id") { try copyOut(try descriptor(d).documentID, buf, bufSize, outLen) }
}

@c @implementation
public func quire_descriptor_layer(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                   _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_layer") { try copyOut(try descriptor(d).layer, buf, bufSize, outLen) }
}

@c @implementation
public func quire_descriptor_state(_ out: UnsafeMutablePointer<quire_sync_state>?, _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_state") {
        let out = try required(out, "out")
        out.pointee = cState(try descriptor(d).state)
    }
}

@c @implementation
public func quire_descriptor_download(_ d: OpaquePointer?, _ jwt: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_descriptor_download") {
        let desc = try descriptor(d)
        let token = try jwtArgument(jwt)
        try clientCall { try desc.download(token: token) }
    }
}

@c @implementation
public func quire_descriptor_document(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_document") {
        let out = try required(out, "out")
        let desc = try descriptor(d)
        try clientCall { out.pointee = handle(try desc.editableDocument()) }
    }
}

@c @implementation
public func quire_descriptor_sync(_ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_sync") { try descriptor(d).sync() }
}

@c @implementation
public func quire_descriptor_sync_now(_ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_sync_now") {
        let desc = try descriptor(d)
        try clientCall { try desc.syncNow() }
    }
}

@c @implementation
public func quire_descriptor_download_now(_ d: OpaquePointer?, _ jwt: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_descriptor_download_now") {
        let desc = try descriptor(d)
        let token = try jwtArgument(jwt)
        try clientCall { try desc.downloadNow(token: token) }
    }
}

@c @implementation
public func quire_descriptor_wait_idle(_ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_wait_idle") {
        let desc = try descriptor(d)
        try clientCall { try desc.waitIdle() }
    }
}

@c @implementation
public func quire_descriptor_reauthenticate(_ d: OpaquePointer?, _ jwt: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_descriptor_reauthenticate") {
        let desc = try descriptor(d)
        let token = try jwtArgument(jwt)
        try clientCall { try desc.reauthenticate(token: token) }
    }
}

@c @implementation
public func quire_descriptor_set_auto_sync_delay(_ d: OpaquePointer?, _ seconds: Double) -> Int32 {
    guarded("quire_descriptor_set_auto_sync_delay") {
        let desc = try descriptor(d)
        guard seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
            throw CallError(code: QUIRE_EINVAL, message: "the delay \(seconds) is not between 0 and 86400 seconds")
        }
        desc.autoSyncDelay = seconds
    }
}

@c @implementation
public func quire_descriptor_set_listening(_ d: OpaquePointer?, _ on: Int32) -> Int32 {
    guarded("quire_descriptor_set_listening") {
        let desc = try descriptor(d)
        if on != 0 { desc.startListening() } else { desc.stopListening() }
    }
}

@c @implementation
public func quire_descriptor_pending_changes(_ out: UnsafeMutablePointer<Int>?, _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_pending_changes") {
        let out = try required(out, "out")
        let desc = try descriptor(d)
        try clientCall { out.pointee = try desc.pendingChanges() }
    }
}

@c @implementation
public func quire_descriptor_last_change_id(_ out: UnsafeMutablePointer<Int64>?, _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_last_change_id") {
        let out = try required(out, "out")
        let desc = try descriptor(d)
        try clientCall { out.pointee = desc.lastChangeID }
    }
}

@c @implementation
public func quire_descriptor_records_json(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                          _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_records_json") {
        let desc = try descriptor(d)
        try clientCall { try copyOut(bytes: try desc.recordsJSON(), buf, bufSize, outLen) }
    }
}

@c @implementation
public func quire_descriptor_repairs(_ out: UnsafeMutablePointer<Int64>?, _ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_repairs") {
        let out = try required(out, "out")
        let desc = try descriptor(d)
        try clientCall { out.pointee = try desc.repairs() }
    }
}

@c @implementation
public func quire_descriptor_remove_local_storage(_ d: OpaquePointer?) -> Int32 {
    guarded("quire_descriptor_remove_local_storage") {
        let desc = try descriptor(d)
        try clientCall { try desc.removeLocalStorage() }
    }
}
