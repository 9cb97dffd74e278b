// Status codes and the per-thread last error of include/quire.h.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

/// The last error of one thread: its code and its message as a C string we own.
final class ErrorSlot {
    var code: Int32 = QUIRE_OK
    var message: UnsafeMutablePointer<CChar>? = nil
    deinit { free(message) }
}

/// One key for every thread's slot; the destructor releases a thread's slot when it exits.
let errorKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { raw in
        if let raw { Unmanaged<ErrorSlot>.fromOpaque(raw).release() }
    }
    return key
}()

func currentErrorSlot(create: Bool) -> ErrorSlot? {
    if let raw = pthread_getspecific(errorKey) {
        return Unmanaged<ErrorSlot>.fromOpaque(raw).takeUnretainedValue()
    }
    guard create else { return nil }
    let slot = ErrorSlot()
    pthread_setspecific(errorKey, Unmanaged.passRetained(slot).toOpaque())
    return slot
}

/// Records `message` as the calling thread's last error and returns `code`.
@discardableResult
func fail(_ code: Int32, _ message: String) -> Int32 {
    guard let slot = currentErrorSlot(create: true) else { return code }
    free(slot.message)
    slot.message = strdup(message)
    slot.code = code
    return code
}

func status(of kind: PDFErrorKind) -> Int32 {
    switch kind {
    case .invalidArgument: return QUIRE_EINVAL
    case .io: return QUIRE_EIO
    case .notFound: return QUIRE_ENOTFOUND
    case .format: return QUIRE_EFORMAT
    case .password: return QUIRE_EPASSWORD
    case .unsupported: return QUIRE_EUNSUPPORTED
    case .limit: return QUIRE_ELIMIT
    case .range: return QUIRE_ERANGE
    case .state: return QUIRE_ESTATE
    case .internal: return QUIRE_EINTERNAL
    case .disabled: return QUIRE_EDISABLED
    case .busy: return QUIRE_EBUSY
    case .stale: return QUIRE_ESTALE
    case .exists: return QUIRE_EEXIST
    case .version: return QUIRE_EVERSION
    }
}

/// An error of the C layer itself: a status and a message.
struct CallError: Error {
    let code: Int32
    let message: String
}

/// Runs `body`, turning every thrown error into a status and the last error message, so
/// no Swift error crosses the C boundary. `function` prefixes the message.
/// The document locks (``Document/sharedLock``) taken during the call are released when
/// it returns.
@inline(__always)
func guarded(_ function: StaticString, _ body: () throws -> Void) -> Int32 {
    let held = HeldDocumentLocks.current
    let mark = held.locks.count
    defer { held.release(downTo: mark) }
    do {
        try body()
        return QUIRE_OK
    } catch let e as PDFError {
        return fail(status(of: e.kind), "\(function): \(e.message)")
    } catch let e as CallError {
        return fail(e.code, "\(function): \(e.message)")
    } catch {
        return fail(QUIRE_EINTERNAL, "\(function): unexpected error: \(error)")
    }
}

/// `pointer`, or an EINVAL error naming the argument.
@inline(__always)
func required<T>(_ pointer: T?, _ name: StaticString) throws -> T {
    guard let pointer else { throw CallError(code: QUIRE_EINVAL, message: "\(name) is NULL") }
    return pointer
}

/// A static C string from a string literal (literals are NUL-terminated and immortal).
@inline(__always)
func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Copies `text`, as UTF-8, to the caller through the length-query pattern of the header.
func copyOut(_ text: String, _ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int,
             _ outLen: UnsafeMutablePointer<Int>?) throws {
    try copyOut(bytes: Array(text.utf8), buf, bufSize, outLen)
}

/// Copies `bytes` (binary-safe) to the caller through the length-query pattern: a NULL
/// buffer of size 0 asks for the length; a buffer too small gives QUIRE_EBUFS and is left
/// untouched; otherwise the bytes and a terminating NUL are written.
func copyOut(bytes: [UInt8], _ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int,
             _ outLen: UnsafeMutablePointer<Int>?) throws {
    // The same bytes seen as CChar: no converted copy (a 50 MB image's data was mapped to
    // a new array, then copied an element at a time).
    try bytes.withUnsafeBufferPointer { b in
        try b.withMemoryRebound(to: CChar.self) { c in
            try copyOut(c, buf, bufSize, outLen, terminator: 0, unit: "bytes")
        }
    }
}

/// The length-query pattern for any element type: `buf` NULL and `capacity` 0 report the
/// count in `*outCount`; too small a buffer gives QUIRE_EBUFS (with the count) and stays
/// untouched; otherwise the elements, then `terminator` if there is one, are written.
func copyOut<T>(_ elements: [T], _ buf: UnsafeMutablePointer<T>?, _ capacity: Int,
                _ outCount: UnsafeMutablePointer<Int>?, terminator: T?, unit: String) throws {
    try elements.withUnsafeBufferPointer { try copyOut($0, buf, capacity, outCount, terminator: terminator, unit: unit) }
}

func copyOut<T>(_ elements: UnsafeBufferPointer<T>, _ buf: UnsafeMutablePointer<T>?, _ capacity: Int,
                _ outCount: UnsafeMutablePointer<Int>?, terminator: T?, unit: String) throws {
    let outCount = try required(outCount, "out_len")
    let needed = elements.count + (terminator == nil ? 0 : 1)
    guard let buf else {
        guard capacity == 0 else { throw CallError(code: QUIRE_EINVAL, message: "the buffer is NULL but its size is \(capacity)") }
        outCount.pointee = elements.count
        return
    }
    guard capacity >= needed else {
        outCount.pointee = elements.count
        throw CallError(code: QUIRE_EBUFS, message: "a buffer of \(capacity) \(unit) is too small; \(needed) are needed")
    }
    if let base = elements.baseAddress, elements.count > 0 { buf.update(from: base, count: elements.count) }
    if let terminator { buf[elements.count] = terminator }
    outCount.pointee = elements.count
}

@c @implementation
public func quire_status_string(_ status: Int32) -> UnsafePointer<CChar>? {
    switch status {
    case QUIRE_OK: return cString("ok")
    case QUIRE_EINVAL: return cString("invalid argument")
    case QUIRE_ENOMEM: return cString("out of memory")
    case QUIRE_EIO: return cString("input/output error")
    case QUIRE_ENOTFOUND: return cString("not found")
    case QUIRE_EFORMAT: return cString("not a PDF or damaged beyond repair")
    case QUIRE_EPASSWORD: return cString("wrong password")
    case QUIRE_EUNSUPPORTED: return cString("unsupported feature")
    case QUIRE_ELIMIT: return cString("safety limit exceeded")
    case QUIRE_ERANGE: return cString("index out of range")
    case QUIRE_EBUFS: return cString("buffer too small")
    case QUIRE_EUSER: return cString("aborted by callback")
    case QUIRE_ESTATE: return cString("invalid state")
    case QUIRE_EINTERNAL: return cString("internal error")
    case QUIRE_EDISABLED: return cString("feature disabled for this document")
    case QUIRE_EBUSY: return cString("in use by another document")
    case QUIRE_ESTALE: return cString("saved state of a different version of the file")
    case QUIRE_EEXIST: return cString("saved state exists and was not replaced")
    case QUIRE_EVERSION: return cString("struct version newer than this library")
    case QUIRE_EAUTH: return cString("the sync server refused the token")
    case QUIRE_ENETWORK: return cString("the sync server cannot be reached")
    default: return cString("unknown status")
    }
}

@c @implementation
public func quire_last_error_message() -> UnsafePointer<CChar>? {
    if let message = currentErrorSlot(create: false)?.message { return UnsafePointer(message) }
    return cString("")
}

@c @implementation
public func quire_last_error_code() -> Int32 {
    currentErrorSlot(create: false)?.code ?? QUIRE_OK
}

@c @implementation
public func quire_clear_error() {
    guard let slot = currentErrorSlot(create: false) else { return }
    free(slot.message)
    slot.message = nil
    slot.code = QUIRE_OK
}

/// The shared document locks taken by the C call running on this thread (a per-thread
/// list, through pthread_getspecific): ``document(_:)`` takes a synced document's lock,
/// ``guarded(_:_:)`` releases it when the call returns, so that every call on a document
/// that the sync client also changes is serialized with the sync.
final class HeldDocumentLocks {
    var locks: [DocumentLock] = []

    func take(_ lock: DocumentLock) {
        lock.lock()
        locks.append(lock)
    }

    func release(downTo mark: Int) {
        while locks.count > mark, let lock = locks.popLast() { lock.unlock() }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<HeldDocumentLocks>.fromOpaque(pointer).release()
        }
        return key
    }()

    static var current: HeldDocumentLocks {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<HeldDocumentLocks>.fromOpaque(pointer).takeUnretainedValue()
        }
        let made = HeldDocumentLocks()
        pthread_setspecific(key, Unmanaged.passRetained(made).toOpaque())
        return made
    }
}
