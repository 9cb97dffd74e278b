// Checkpoints of include/quire.h: conversions only; the checkpointer lives in
// QuireDocument/Checkpoints.
import CQuire
import QuireDocument

func checkpointOptions(_ pointer: UnsafePointer<quire_checkpoint_options>?) throws -> CheckpointOptions {
    var options = CheckpointOptions()
    guard let c = pointer?.pointee else { return options }
    guard c.version == QUIRE_CHECKPOINT_OPTIONS_VERSION else {
        throw CallError(code: QUIRE_EINVAL, message: "options->version is \(c.version); this library knows \(QUIRE_CHECKPOINT_OPTIONS_VERSION)")
    }
    switch c.strategy {
    case QUIRE_CHECKPOINT_MANUAL: options.strategy = .manual
    case QUIRE_CHECKPOINT_IMMEDIATE: options.strategy = .immediate
    case QUIRE_CHECKPOINT_TIMED:
        guard c.interval_seconds.isFinite, c.interval_seconds >= 0.01, c.interval_seconds <= 86_400 else {
            throw CallError(code: QUIRE_EINVAL, message: "interval_seconds \(c.interval_seconds) is not between 0.01 and 86400")
        }
        options.strategy = .timed(seconds: c.interval_seconds)
    default:
        throw CallError(code: QUIRE_EINVAL, message: "strategy \(c.strategy) is not a QUIRE_CHECKPOINT_* value")
    }
    options.directory = c.directory.map { String(cString: $0) }
    options.uid = c.uid.map { String(cString: $0) }
    options.loadIfAvailable = c.load_if_available != 0
    return options
}

@c @implementation
public func quire_document_start_checkpoints(_ outLoaded: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?,
                                             _ options: UnsafePointer<quire_checkpoint_options>?) -> Int32 {
    guarded("quire_document_start_checkpoints") {
        let d = try document(doc)
        let loaded = try d.startCheckpointing(try checkpointOptions(options))
        outLoaded?.pointee = loaded ? 1 : 0
    }
}

@c @implementation
public func quire_document_stop_checkpoints(_ doc: OpaquePointer?, _ remove: Int32) -> Int32 {
    guarded("quire_document_stop_checkpoints") {
        try document(doc).stopCheckpointing(removingCheckpoint: remove != 0)
    }
}

@c @implementation
public func quire_document_checkpoint(_ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_checkpoint") {
        try document(doc).checkpoint()
    }
}

@c @implementation
public func quire_document_checkpoint_async(_ doc: OpaquePointer?, _ done: quire_checkpoint_done_fn?,
                                            _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_document_checkpoint_async") {
        let d = try document(doc)
        nonisolated(unsafe) let payload = payload  // the caller's, handed back as it is
        try d.checkpoint { error in
            done?(error.map { status(of: $0.kind) } ?? QUIRE_OK, payload)
        }
    }
}

@c @implementation
public func quire_document_checkpoint_path(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                           _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_checkpoint_path") {
        _ = try required(outLen, "out_len")
        guard let path = try document(doc).checkpointPath else {
            throw CallError(code: QUIRE_ESTATE, message: "checkpointing has not started for this document")
        }
        try copyOut(path, buf, bufSize, outLen)
    }
}
