// Checkpoints of include/quire.h: conversions only; the checkpointer lives in
// QuireDocument/Checkpoints.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

let checkpointOptionsVersions = StructVersions<quire_checkpoint_options>(
    name: "options",
    sizes: [MemoryLayout<quire_checkpoint_options>.offset(of: \.existing) ?? 0,
            MemoryLayout<quire_checkpoint_options>.size])

var checkpointOptionsDefaults: quire_checkpoint_options {
    quire_checkpoint_options(
        version: checkpointOptionsVersions.current, strategy: QUIRE_CHECKPOINT_MANUAL, interval_seconds: 10,
        directory: nil, uid: nil, load_if_available: 0, existing: QUIRE_CHECKPOINT_EXISTING_LOAD)
}

/// The directory and UID of the caller's options, all that inspecting a checkpoint reads
/// (the header says so: a strategy or interval that starting would refuse does not matter).
func checkpointLocation(_ pointer: UnsafePointer<quire_checkpoint_options>?) throws -> CheckpointOptions {
    var options = CheckpointOptions()
    guard let pointer else { return options }
    let c = try checkpointOptionsVersions.read(pointer, defaults: checkpointOptionsDefaults).value
    options.directory = c.directory.map { String(cString: $0) }
    options.uid = c.uid.map { String(cString: $0) }
    return options
}

func checkpointOptions(_ pointer: UnsafePointer<quire_checkpoint_options>?) throws -> CheckpointOptions {
    var options = CheckpointOptions()
    guard let pointer else { return options }
    let (c, version) = try checkpointOptionsVersions.read(pointer, defaults: checkpointOptionsDefaults)
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
    if version == 1 {
        // Version 1 libraries discarded an existing checkpoint when load_if_available was
        // 0; it is kept now (QUIRE_EEXIST) rather than lost.
        options.existing = c.load_if_available != 0 ? .load : .refuse
    } else {
        switch c.existing {
        case QUIRE_CHECKPOINT_EXISTING_LOAD: options.existing = .load
        case QUIRE_CHECKPOINT_EXISTING_REFUSE: options.existing = .refuse
        case QUIRE_CHECKPOINT_EXISTING_DISCARD: options.existing = .discard
        default:
            throw CallError(code: QUIRE_EINVAL, message: "existing \(c.existing.rawValue) is not a QUIRE_CHECKPOINT_EXISTING_* value")
        }
    }
    return options
}

@c @implementation
public func quire_checkpoint_options_init(_ options: UnsafeMutablePointer<quire_checkpoint_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_checkpoint_options_init") {
        try checkpointOptionsVersions.initialize(options, version: version, defaults: checkpointOptionsDefaults)
    }
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

let checkpointInfoVersions = StructVersions<quire_checkpoint_info>(
    name: "out", sizes: [MemoryLayout<quire_checkpoint_info>.size])

@c @implementation
public func quire_document_inspect_checkpoint(_ out: UnsafeMutablePointer<quire_checkpoint_info>?, _ doc: OpaquePointer?,
                                              _ options: UnsafePointer<quire_checkpoint_options>?) -> Int32 {
    guarded("quire_document_inspect_checkpoint") {
        let out = try required(out, "out")
        let d = try document(doc)
        let info = try d.inspectCheckpoint(try checkpointLocation(options))
        let state: quire_checkpoint_state
        switch info.state {
        case .none: state = QUIRE_CHECKPOINT_NONE
        case .empty: state = QUIRE_CHECKPOINT_EMPTY
        case .changes: state = QUIRE_CHECKPOINT_CHANGES
        case .stale: state = QUIRE_CHECKPOINT_STALE
        case .damaged: state = QUIRE_CHECKPOINT_DAMAGED
        }
        let value = quire_checkpoint_info(
            version: checkpointInfoVersions.current, state: state, size: UInt64(info.size),
            modified: info.modified, changed_objects: info.changedObjects, in_use: info.inUse ? 1 : 0)
        try checkpointInfoVersions.write(value, to: out)
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
