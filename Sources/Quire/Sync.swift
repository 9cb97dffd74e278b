// The sync service's request handler of include/quire.h: conversions only; every rule of the
// protocol lives in QuireSync (docs/sync-protocol.md).
import CQuire
import CQuireLoad
import Dispatch
import QuireDocument
import QuireSync
import QuireSyncProtocol
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// A service handle: the SyncService and nothing else.
final class SyncServiceBox {
    let service: SyncService
    init(_ service: SyncService) { self.service = service }
}

/// A response handle: its status, and its headers and body copied into C memory that stays
/// put until the handle is freed.
final class SyncResponseBox {
    let status: Int32
    let names: [UnsafeMutablePointer<CChar>]
    let values: [UnsafeMutablePointer<CChar>]
    let body: UnsafeMutableRawPointer?
    let bodyLength: Int

    init(_ response: SyncResponse) {
        status = Int32(clamping: response.status)
        names = response.headers.map { strdup($0.name) }
        values = response.headers.map { strdup($0.value) }
        bodyLength = response.body.count
        if response.body.isEmpty {
            body = nil
        } else {
            let memory = malloc(response.body.count)
            response.body.withUnsafeBytes { raw in
                if let memory, let base = raw.baseAddress { memory.copyMemory(from: base, byteCount: raw.count) }
            }
            body = memory
        }
    }

    deinit {
        names.forEach { free($0) }
        values.forEach { free($0) }
        free(body)
    }
}

/// Version 1 ends with `max_upload_bytes`; 2 adds `max_attachment_bytes` and
/// `max_listeners`; 3 adds `attachment_grace_seconds`.
let syncConfigVersions = StructVersions<quire_sync_config>(
    name: "config",
    sizes: [MemoryLayout<quire_sync_config>.offset(of: \.max_attachment_bytes) ?? 0,
            MemoryLayout<quire_sync_config>.offset(of: \.attachment_grace_seconds) ?? 0,
            MemoryLayout<quire_sync_config>.size])

var syncConfigDefaults: quire_sync_config {
    quire_sync_config(version: syncConfigVersions.current, store: nil, public_keys: nil, public_key_count: 0,
                      jwks: nil, admin_token: nil, max_body_bytes: 0, max_upload_bytes: 0,
                      max_attachment_bytes: 0, max_listeners: 0, attachment_grace_seconds: 0)
}

/// The most `max_attachment_bytes` may be: the largest file a FileAttachment embeds.
let maxAttachmentBytesLimit = UInt64(Annotation.AttachedFile.maxBytes)

@c @implementation
public func quire_sync_config_init(_ config: UnsafeMutablePointer<quire_sync_config>?, _ version: UInt32) -> Int32 {
    guarded("quire_sync_config_init") {
        try syncConfigVersions.initialize(config, version: version, defaults: syncConfigDefaults)
    }
}

/// The store factories of this library: none in the default libquire (its services have
/// the core's built-in sqlite store), PostgresSyncStore's in the PostgreSQL flavour
/// (libquire-postgres), whose constructor set at load the registrar that
/// `quireload_register_stores` calls (Sources/CQuirePostgresFlavour). Made once, when first
/// needed (a service's open, quire_build_info), never while the loader runs constructors.
let libraryStoreFactories: [String: SyncStoreFactory] = {
    quireload_register_stores()
    return SyncStoreRegistry.factories
}()

/// Whether this library is its PostgreSQL flavour, libquire-postgres: the one whose load
/// registered a PostgreSQL store.
var isPostgresFlavour: Bool { libraryStoreFactories["postgres"] != nil }

/// The store URL schemes of the PostgreSQL flavour, which the default library names when it
/// is given one.
let postgresFlavourSchemes: Set<String> = ["postgres", "postgresql"]

func syncService(_ handle: OpaquePointer?) throws -> SyncService {
    let handle = try required(handle, "service")
    return Unmanaged<SyncServiceBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().service
}

func syncResponse(_ handle: OpaquePointer?) throws -> SyncResponseBox {
    let handle = try required(handle, "response")
    return Unmanaged<SyncResponseBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

@c @implementation
public func quire_sync_service_open(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ config: UnsafePointer<quire_sync_config>?) -> Int32 {
    guarded("quire_sync_service_open") {
        let out = try required(out, "out")
        let c = try syncConfigVersions.read(try required(config, "config"), defaults: syncConfigDefaults).value
        var keys: [String] = []
        if c.public_key_count > 0 {
            let list = try required(c.public_keys, "config->public_keys")
            for k in 0..<c.public_key_count {
                guard let key = list[k] else { throw CallError(code: QUIRE_EINVAL, message: "config->public_keys[\(k)] is NULL") }
                keys.append(String(cString: key))
            }
        }
        // No default store: one that loses everything on close is asked for by name.
        guard let store = c.store else {
            throw CallError(code: QUIRE_EINVAL, message: "config->store is NULL: name the store (sqlite:///path.db, sqlite://relative/path.db, or sqlite::memory: for one gone at close)")
        }
        let storeURL = String(cString: store)
        let factories = libraryStoreFactories
        if let scheme = SyncService.storeScheme(of: storeURL), factories[scheme] == nil, postgresFlavourSchemes.contains(scheme) {
            throw CallError(code: QUIRE_EUNSUPPORTED, message: """
                PostgreSQL needs libquire-postgres, the library's PostgreSQL flavour (make lib-postgres; \
                pkg-config quire-postgres; Python: QUIRE_LIBRARY=/path/to/libquire-postgres.so): \
                this libquire has the sqlite store only
                """)
        }
        var configuration = SyncConfiguration(storeURL: storeURL,
                                              publicKeys: keys, jwks: c.jwks.map { String(cString: $0) },
                                              adminToken: c.admin_token.map { String(cString: $0) })
        if c.max_body_bytes > 0 { configuration.limits.maxBodyBytes = Int(clamping: c.max_body_bytes) }
        if c.max_upload_bytes > 0 { configuration.limits.maxUploadBytes = Int(clamping: c.max_upload_bytes) }
        if c.max_attachment_bytes > maxAttachmentBytesLimit {
            throw CallError(code: QUIRE_EINVAL, message: "config->max_attachment_bytes is \(c.max_attachment_bytes), more than \(maxAttachmentBytesLimit) (64 MiB)")
        }
        if c.max_attachment_bytes > 0 { configuration.limits.maxAttachmentBytes = Int(c.max_attachment_bytes) }
        if c.max_listeners > UInt64(Int32.max) {
            throw CallError(code: QUIRE_EINVAL, message: "config->max_listeners is \(c.max_listeners), more than \(Int32.max)")
        }
        if c.max_listeners > 0 { configuration.limits.maxListeners = Int(c.max_listeners) }
        // 0: the default; QUIRE_SYNC_GRACE_NONE (-1): no grace at all.
        guard c.attachment_grace_seconds >= -1, c.attachment_grace_seconds <= Int64(Int32.max) else {
            throw CallError(code: QUIRE_EINVAL, message: "config->attachment_grace_seconds is \(c.attachment_grace_seconds): 0 for the default, -1 (QUIRE_SYNC_GRACE_NONE) for none, or 1 to \(Int32.max)")
        }
        if c.attachment_grace_seconds != 0 {
            configuration.limits.attachmentGraceSeconds = c.attachment_grace_seconds < 0 ? 0 : Int(c.attachment_grace_seconds)
        }
        let service: SyncService
        do {
            service = try SyncService(configuration, storeFactories: factories)
        } catch let e as SyncConfigurationError {
            throw CallError(code: QUIRE_EINVAL, message: e.message)
        } catch let e as SyncStoreError {
            throw CallError(code: e.kind == .notAStore ? QUIRE_EFORMAT : QUIRE_EIO, message: "the store cannot be opened: \(e)")
        } catch let e as PDFError {
            throw e
        } catch {
            throw CallError(code: QUIRE_EIO, message: "the store cannot be opened: \(error)")
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(SyncServiceBox(service)).toOpaque())
    }
}

@c @implementation
public func quire_sync_service_shutdown(_ service: OpaquePointer?) -> Int32 {
    guarded("quire_sync_service_shutdown") {
        let s = try syncService(service)
        let done = DispatchSemaphore(value: 0)
        Task {
            await s.shutdown()
            done.signal()
        }
        done.wait()
    }
}

/// Closes the store before it returns (SyncService.close: listeners woken, the SQLite file
/// closed and its WAL checkpointed), so that the host may reopen, copy or remove the file
/// at once; then drops the handle's reference.
@c @implementation
public func quire_sync_service_close(_ service: OpaquePointer?) {
    guard let service else { return }
    let s = Unmanaged<SyncServiceBox>.fromOpaque(UnsafeRawPointer(service)).takeRetainedValue().service
    let done = DispatchSemaphore(value: 0)
    Task {
        await s.close()
        done.signal()
    }
    done.wait()
}

@c @implementation
public func quire_sync_service_handle(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ service: OpaquePointer?,
                                      _ method: UnsafePointer<CChar>?, _ target: UnsafePointer<CChar>?,
                                      _ headers: UnsafePointer<quire_sync_header>?, _ headerCount: Int,
                                      _ body: UnsafeRawPointer?, _ bodyLength: Int) -> Int32 {
    guarded("quire_sync_service_handle") {
        let out = try required(out, "out")
        let s = try syncService(service)
        let request = try syncRequest(method, target, headers, headerCount, body, bodyLength)
        let response = s.handleBlocking(request)
        out.pointee = OpaquePointer(Unmanaged.passRetained(SyncResponseBox(response)).toOpaque())
    }
}

/// The request of the handler's C arguments, copied (the caller's memory is not kept).
func syncRequest(_ method: UnsafePointer<CChar>?, _ target: UnsafePointer<CChar>?,
                 _ headers: UnsafePointer<quire_sync_header>?, _ headerCount: Int,
                 _ body: UnsafeRawPointer?, _ bodyLength: Int) throws -> SyncRequest {
    let method = String(cString: try required(method, "method"))
    let target = String(cString: try required(target, "target"))
    guard headerCount >= 0, headers != nil || headerCount == 0 else {
        throw CallError(code: QUIRE_EINVAL, message: "headers is NULL but header_count is \(headerCount)")
    }
    guard bodyLength >= 0, body != nil || bodyLength == 0 else {
        throw CallError(code: QUIRE_EINVAL, message: "body is NULL but body_len is \(bodyLength)")
    }
    var list: [(name: String, value: String)] = []
    if let headers {
        for k in 0..<headerCount {
            guard let name = headers[k].name, let value = headers[k].value else {
                throw CallError(code: QUIRE_EINVAL, message: "headers[\(k)] has a NULL name or value")
            }
            list.append((String(cString: name), String(cString: value)))
        }
    }
    let bytes = body.map { Array(UnsafeRawBufferPointer(start: $0, count: bodyLength)) } ?? []
    return SyncRequest(method: method, target: target, headers: list, body: bytes)
}

/// A request handle of `quire_sync_service_handle_async`: the task that answers it, which
/// `quire_sync_call_cancel` cancels.
final class SyncCallBox: Sendable {
    let task: Task<Void, Never>
    init(_ task: Task<Void, Never>) { self.task = task }
}

/// The caller's completion and payload, handed to the task that answers (the payload is the
/// caller's pointer, passed back as it is).
struct SyncCompletion: @unchecked Sendable {
    let callback: quire_sync_completion
    let payload: UnsafeMutableRawPointer?
}

@c @implementation
public func quire_sync_service_handle_async(_ outCall: UnsafeMutablePointer<OpaquePointer?>?, _ service: OpaquePointer?,
                                            _ method: UnsafePointer<CChar>?, _ target: UnsafePointer<CChar>?,
                                            _ headers: UnsafePointer<quire_sync_header>?, _ headerCount: Int,
                                            _ body: UnsafeRawPointer?, _ bodyLength: Int,
                                            _ completion: quire_sync_completion?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_sync_service_handle_async") {
        let s = try syncService(service)
        let completion = SyncCompletion(callback: try required(completion, "completion"), payload: payload)
        let request = try syncRequest(method, target, headers, headerCount, body, bodyLength)
        // A task of the library's pool: a long poll waits in it without holding a thread,
        // and its cancellation ends the wait (SyncService.handle answers with what it has).
        let task = Task.detached {
            let response = await s.handle(request)
            let handle = OpaquePointer(Unmanaged.passRetained(SyncResponseBox(response)).toOpaque())
            completion.callback(handle, completion.payload)
        }
        if let outCall {
            outCall.pointee = OpaquePointer(Unmanaged.passRetained(SyncCallBox(task)).toOpaque())
        }
    }
}

@c @implementation
public func quire_sync_call_cancel(_ call: OpaquePointer?) -> Int32 {
    guarded("quire_sync_call_cancel") {
        let call = try required(call, "call")
        Unmanaged<SyncCallBox>.fromOpaque(UnsafeRawPointer(call)).takeUnretainedValue().task.cancel()
    }
}

@c @implementation
public func quire_sync_call_free(_ call: OpaquePointer?) {
    guard let call else { return }
    Unmanaged<SyncCallBox>.fromOpaque(UnsafeRawPointer(call)).release()
}

@c @implementation
public func quire_sync_response_status(_ out: UnsafeMutablePointer<Int32>?, _ response: OpaquePointer?) -> Int32 {
    guarded("quire_sync_response_status") {
        try required(out, "out").pointee = try syncResponse(response).status
    }
}

@c @implementation
public func quire_sync_response_header_count(_ out: UnsafeMutablePointer<Int>?, _ response: OpaquePointer?) -> Int32 {
    guarded("quire_sync_response_header_count") {
        try required(out, "out").pointee = try syncResponse(response).names.count
    }
}

@c @implementation
public func quire_sync_response_header(_ outName: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                       _ outValue: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
                                       _ response: OpaquePointer?, _ index: Int) -> Int32 {
    guarded("quire_sync_response_header") {
        let name = try required(outName, "out_name"), value = try required(outValue, "out_value")
        let r = try syncResponse(response)
        guard index >= 0 && index < r.names.count else {
            throw CallError(code: QUIRE_ERANGE, message: "index \(index) is out of range (the response has \(r.names.count) headers)")
        }
        name.pointee = UnsafePointer(r.names[index])
        value.pointee = UnsafePointer(r.values[index])
    }
}

@c @implementation
public func quire_sync_response_body(_ outData: UnsafeMutablePointer<UnsafeRawPointer?>?, _ outLength: UnsafeMutablePointer<Int>?,
                                     _ response: OpaquePointer?) -> Int32 {
    guarded("quire_sync_response_body") {
        let data = try required(outData, "out_data"), length = try required(outLength, "out_len")
        let r = try syncResponse(response)
        data.pointee = r.body.map { UnsafeRawPointer($0) }
        length.pointee = r.bodyLength
    }
}

@c @implementation
public func quire_sync_response_free(_ response: OpaquePointer?) {
    guard let response else { return }
    Unmanaged<SyncResponseBox>.fromOpaque(UnsafeRawPointer(response)).release()
}
