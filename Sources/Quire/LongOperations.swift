// Long operations (include/quire.h, "Long operations: progress and cancellation"): the
// progress callback of every options struct made into the model's ProgressHandler, the
// export and import of annotations in a format, the text of a document, and what the
// build is. Conversions only: the operations are the model's.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(QuireSyncHTTP)
import QuireSyncHTTP
#endif

/// A C progress callback, as every options struct declares it.
typealias CProgress = @convention(c) (UInt64, UInt64, UnsafeMutableRawPointer?) -> Int32

/// The model's progress handler for the caller's `callback` and `payload` (nil for a NULL
/// callback): a non-zero answer throws QUIRE_EUSER, whose message says that `operation`
/// was cancelled and what became of it (`outcome`).
func progressHandler(_ callback: CProgress?, _ payload: UnsafeMutableRawPointer?,
                     _ operation: String, _ outcome: String) -> ProgressHandler? {
    guard let callback else { return nil }
    nonisolated(unsafe) let payload = payload  // the caller's, handed back as it is
    return { done, total in
        guard callback(UInt64(clamping: done), UInt64(clamping: total), payload) == 0 else {
            throw CallError(code: QUIRE_EUSER, message: "the progress callback returned non-zero: the \(operation) was cancelled; \(outcome)")
        }
    }
}

/// Hands `bytes` to the caller's `write` in consecutive pieces of at most 1 MiB (no call
/// for no bytes).
func deliver(_ bytes: [UInt8], to write: quire_write_fn, _ payload: UnsafeMutableRawPointer?, _ what: String) throws {
    let piece = 1 << 20
    try bytes.withUnsafeBytes { all in
        guard let base = all.baseAddress else { return }
        var offset = 0
        while offset < all.count {
            let n = Swift.min(piece, all.count - offset)
            guard write(base + offset, n, payload) == 0 else {
                throw CallError(code: QUIRE_EUSER, message: "the write callback returned non-zero after \(offset) of \(all.count) bytes; \(what) stopped")
            }
            offset += n
        }
    }
}

/// A format of the header, for an export (`exporting`) or an import.
private enum AnnotationFormat {
    case json, jsonInstantComments, xfdf

    init(_ format: quire_annotation_format, exporting: Bool) throws {
        switch format {
        case QUIRE_FORMAT_JSON: self = .json
        case QUIRE_FORMAT_JSON_INSTANT_COMMENTS where exporting: self = .jsonInstantComments
        case QUIRE_FORMAT_JSON_INSTANT_COMMENTS:
            throw CallError(code: QUIRE_EINVAL, message: "options.format QUIRE_FORMAT_JSON_INSTANT_COMMENTS is for exports; an import of QUIRE_FORMAT_JSON reads Instant comments")
        case QUIRE_FORMAT_XFDF: self = .xfdf
        default:
            throw CallError(code: QUIRE_EINVAL, message: "options.format 0x\(String(format.rawValue, radix: 16)) is not a QUIRE_FORMAT_* value")
        }
    }
}

// MARK: Exporting

let exportOptionsVersions = StructVersions<quire_export_options>(name: "options", sizes: [MemoryLayout<quire_export_options>.size])

private var exportOptionsDefaults: quire_export_options {
    quire_export_options(version: exportOptionsVersions.current, format: QUIRE_FORMAT_JSON, page_index: -1,
                         progress: nil, progress_payload: nil)
}

@c @implementation
public func quire_export_options_init(_ options: UnsafeMutablePointer<quire_export_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_export_options_init") {
        try exportOptionsVersions.initialize(options, version: version, defaults: exportOptionsDefaults)
    }
}

@c @implementation
public func quire_document_export_annotations(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_export_options>?,
                                              _ write: quire_write_fn?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_document_export_annotations") {
        let d = try document(doc)
        let write = try required(write, "write")
        let o = try options.map { try exportOptionsVersions.read($0, defaults: exportOptionsDefaults).value } ?? exportOptionsDefaults
        let format = try AnnotationFormat(o.format, exporting: true)
        let progress = progressHandler(o.progress, o.progress_payload, "export", "nothing was written")
        let bytes: [UInt8]
        switch format {
        case .json, .jsonInstantComments:
            guard o.page_index >= -1 else { throw CallError(code: QUIRE_ERANGE, message: "options.page_index \(o.page_index) is not a page (or -1 for every page)") }
            let page = o.page_index == -1 ? nil : Int(o.page_index)
            if let page { _ = try d.page(at: page) }
            bytes = try d.exportAnnotationsJSON(page: page, prettyPrinted: true, instantComments: format == .jsonInstantComments,
                                                progress: progress)
        case .xfdf:
            guard o.page_index == -1 else {
                throw CallError(code: QUIRE_EINVAL, message: "options.page_index is \(o.page_index): XFDF exports the whole document (-1)")
            }
            bytes = Array(try d.exportXFDF(progress: progress).utf8)
        }
        try deliver(bytes, to: write, payload, "the export")
    }
}

// MARK: Importing

let importOptionsVersions = StructVersions<quire_import_options>(name: "options", sizes: [MemoryLayout<quire_import_options>.size])

private var importOptionsDefaults: quire_import_options {
    quire_import_options(version: importOptionsVersions.current, format: QUIRE_FORMAT_JSON, progress: nil, progress_payload: nil)
}

@c @implementation
public func quire_import_options_init(_ options: UnsafeMutablePointer<quire_import_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_import_options_init") {
        try importOptionsVersions.initialize(options, version: version, defaults: importOptionsDefaults)
    }
}

@c @implementation
public func quire_document_import_annotations(_ outCount: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?,
                                              _ options: UnsafePointer<quire_import_options>?,
                                              _ data: UnsafeRawPointer?, _ length: Int) -> Int32 {
    guarded("quire_document_import_annotations") {
        let d = try document(doc)
        guard data != nil || length == 0 else { throw CallError(code: QUIRE_EINVAL, message: "data is NULL but length is \(UInt(bitPattern: length))") }
        // A size_t past SSIZE_MAX arrives negative: refused, never a copy of that count.
        guard length >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "length \(UInt(bitPattern: length)) is too large") }
        let o = try options.map { try importOptionsVersions.read($0, defaults: importOptionsDefaults).value } ?? importOptionsDefaults
        let format = try AnnotationFormat(o.format, exporting: false)
        let progress = progressHandler(o.progress, o.progress_payload, "import", "nothing was imported")
        let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        let count: Int
        switch format {
        case .json, .jsonInstantComments: count = try d.importAnnotationsJSON(bytes, progress: progress).count
        case .xfdf: count = try d.importXFDF(bytes, progress: progress)
        }
        outCount?.pointee = Int32(clamping: count)
    }
}

// MARK: Flattening

let flattenOptionsVersions = StructVersions<quire_flatten_options>(name: "options", sizes: [MemoryLayout<quire_flatten_options>.size])

var flattenOptionsDefaults: quire_flatten_options {
    quire_flatten_options(version: flattenOptionsVersions.current, subtypes: nil, keep_links: 1, progress: nil, progress_payload: nil)
}

@c @implementation
public func quire_flatten_options_init(_ options: UnsafeMutablePointer<quire_flatten_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_flatten_options_init") {
        try flattenOptionsVersions.initialize(options, version: version, defaults: flattenOptionsDefaults)
    }
}

// MARK: The text of a document

let textOptionsVersions = StructVersions<quire_text_options>(name: "options", sizes: [MemoryLayout<quire_text_options>.size])

private var textOptionsDefaults: quire_text_options {
    quire_text_options(version: textOptionsVersions.current, progress: nil, progress_payload: nil)
}

@c @implementation
public func quire_text_options_init(_ options: UnsafeMutablePointer<quire_text_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_text_options_init") {
        try textOptionsVersions.initialize(options, version: version, defaults: textOptionsDefaults)
    }
}

@c @implementation
public func quire_document_text(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_text_options>?,
                                _ write: quire_write_fn?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_document_text") {
        let d = try document(doc)
        let write = try required(write, "write")
        let o = try options.map { try textOptionsVersions.read($0, defaults: textOptionsDefaults).value } ?? textOptionsDefaults
        let text = try d.documentText(progress: progressHandler(o.progress, o.progress_payload, "text extraction", "nothing was written"))
        try deliver(Array(text.utf8), to: write, payload, "the text")
    }
}

// MARK: The build

/// What this library was built with (see quire_build_info).
let libraryFeatures: [String: Bool] = {
    #if canImport(QuireSyncHTTP)
    let http = true
    #else
    let http = false
    #endif
    return ["sync_service": true, "sync_client": http, "tls": http, "postgresql": isPostgresFlavour]
}()

/// What quire_build_info says beyond the model's keys: the flavour's own soname.
var libraryBuildInfoExtra: [String: InstantJSONValue] {
    guard isPostgresFlavour else { return [:] }
    return ["soname": .string("libquire-postgres.so.\(BuildInfo.abi(of: QUIRE_VERSION_STRING).abi)")]
}

@c @implementation
public func quire_build_info(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?) -> Int32 {
    guarded("quire_build_info") {
        _ = try required(outLen, "out_len")
        try copyOut(BuildInfo.json(version: QUIRE_VERSION_STRING, features: libraryFeatures, extra: libraryBuildInfoExtra).text, buf, bufSize, outLen)
    }
}
