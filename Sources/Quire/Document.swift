// The document and page functions of include/quire.h: argument checks and conversions
// only; the logic lives in QuireDocument.
import CQuire
import QuireDocument
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

// The literal must equal QUIRE_VERSION_STRING; the C tests compare the two.
@c @implementation
public func quire_version() -> UnsafePointer<CChar>? {
    UnsafePointer(versionString)
}

/// QUIRE_VERSION_STRING of the header this library was built with, as a C string made
/// once and never freed.
nonisolated(unsafe) private let versionString = strdup(QUIRE_VERSION_STRING)  // immutable after its one-time initialisation

@c @implementation
public func quire_version_number() -> Int32 {
    QUIRE_VERSION_MAJOR * 1_000_000 + QUIRE_VERSION_MINOR * 1000 + QUIRE_VERSION_PATCH
}

let openOptionsVersions = StructVersions<quire_open_options>(name: "options", sizes: [MemoryLayout<quire_open_options>.size])

var openOptionsDefaults: quire_open_options {
    quire_open_options(version: openOptionsVersions.current, password: nil, max_nesting_depth: 0, max_page_tree_depth: 0,
                       max_xref_chain: 0, max_objects: 0, max_stream_bytes: 0, max_total_decoded_bytes: 0,
                       max_decompression_ratio: 0, max_pages: 0)
}

@c @implementation
public func quire_open_options_init(_ options: UnsafeMutablePointer<quire_open_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_open_options_init") {
        try openOptionsVersions.initialize(options, version: version, defaults: openOptionsDefaults)
    }
}

/// The open options from the C struct, read by its version; 0 means the default.
func openOptions(_ pointer: UnsafePointer<quire_open_options>?) throws -> OpenOptions {
    var options = OpenOptions()
    guard let pointer else { return options }
    let c = try openOptionsVersions.read(pointer, defaults: openOptionsDefaults).value
    if let password = c.password { options.password = String(cString: password) }
    func set(_ value: some BinaryInteger, _ field: WritableKeyPath<PDFLimits, Int>) {
        if value != 0 { options.limits[keyPath: field] = Int(clamping: value) }
    }
    set(c.max_nesting_depth, \.maxNestingDepth)
    set(c.max_page_tree_depth, \.maxPageTreeDepth)
    set(c.max_xref_chain, \.maxXRefChain)
    set(c.max_objects, \.maxObjects)
    set(c.max_stream_bytes, \.maxStreamBytes)
    set(c.max_total_decoded_bytes, \.maxTotalDecodedBytes)
    set(c.max_decompression_ratio, \.maxDecompressionRatio)
    set(c.max_pages, \.maxPages)
    return options
}

/// The Document behind a handle.
@inline(__always)
func document(_ handle: OpaquePointer?) throws -> Document {
    let handle = try required(handle, "doc")
    let d = Unmanaged<Document>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    // A synced document: held until the C call returns (see HeldDocumentLocks).
    if let lock = d.sharedLock { HeldDocumentLocks.current.take(lock) }
    return d
}

func handle(_ document: Document) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(document).toOpaque())
}

@c @implementation
public func quire_document_open(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ path: UnsafePointer<CChar>?,
                                _ options: UnsafePointer<quire_open_options>?) -> Int32 {
    guarded("quire_document_open") {
        let out = try required(out, "out")
        let path = try required(path, "path")
        let opts = try openOptions(options)
        let d = try Document(buffer: ByteBuffer.read(cPath: path), options: opts)
        d.sourcePath = String(cString: path)
        out.pointee = handle(d)
    }
}

@c @implementation
public func quire_document_open_memory(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ data: UnsafeRawPointer?,
                                       _ size: Int, _ options: UnsafePointer<quire_open_options>?) -> Int32 {
    guarded("quire_document_open_memory") {
        let out = try required(out, "out")
        guard data != nil || size == 0 else { throw CallError(code: QUIRE_EINVAL, message: "data is NULL but size is \(size)") }
        // size_t arrives as Int: 2^63 and more is negative here.
        guard size >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "size \(UInt(bitPattern: size)) is larger than any buffer") }
        let opts = try openOptions(options)
        let buffer = data.map { ByteBuffer(copying: $0, count: size) } ?? ByteBuffer(copying: [UInt8]())
        out.pointee = handle(try Document(buffer: buffer, options: opts))
    }
}

let fileAccessVersions = StructVersions<quire_file_access>(name: "access", sizes: [MemoryLayout<quire_file_access>.size])

var fileAccessDefaults: quire_file_access {
    quire_file_access(version: fileAccessVersions.current, size: 0, read: nil, release: nil, payload: nil)
}

@c @implementation
public func quire_file_access_init(_ access: UnsafeMutablePointer<quire_file_access>?, _ version: UInt32) -> Int32 {
    guarded("quire_file_access_init") {
        try fileAccessVersions.initialize(access, version: version, defaults: fileAccessDefaults)
    }
}

/// A host's read callback as the lazy reader's source; calls `release` when the last
/// buffer reading through it is gone.
final class CallbackSource: RandomAccessSource, @unchecked Sendable {
    let access: quire_file_access
    let name = "the document through its read callback"
    private var failure: String? = nil  // read and written under the lazy buffer's lock

    init(_ access: quire_file_access) { self.access = access }

    deinit { access.release?(access.payload) }

    func read(into: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        guard let read = access.read, count > 0 else { return 0 }
        // At most 4 MiB a call: a whole-file read (repair) is asked for in pieces.
        let length = Swift.min(count, 4 << 20)
        let status = read(access.payload, UInt64(offset), into, length)
        if status != 0 {
            failure = "it returned \(status) for \(length) bytes at byte \(offset)"
            return -1
        }
        return length
    }

    var lastError: String? { failure }
}

@c @implementation
public func quire_document_open_callback(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ access: UnsafePointer<quire_file_access>?,
                                         _ options: UnsafePointer<quire_open_options>?) -> Int32 {
    guarded("quire_document_open_callback") {
        let out = try required(out, "out")
        let access = try fileAccessVersions.read(try required(access, "access"), defaults: fileAccessDefaults).value
        // From here on, the source owns the payload: every failure below releases it.
        let source = CallbackSource(access)
        guard access.read != nil else { throw CallError(code: QUIRE_EINVAL, message: "access->read is NULL") }
        guard access.size < UInt64(Int.max) else {
            throw CallError(code: QUIRE_EINVAL, message: "access->size \(access.size) is larger than any file")
        }
        let opts = try openOptions(options)
        out.pointee = handle(try Document(buffer: ByteBuffer.lazy(source, size: Int(access.size)), options: opts))
    }
}

@c @implementation
public func quire_document_close(_ doc: OpaquePointer?) {
    guard let doc else { return }
    Unmanaged<Document>.fromOpaque(UnsafeRawPointer(doc)).release()
}

@c @implementation
public func quire_document_page_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_page_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).pageCount())
    }
}

@c @implementation
public func quire_document_pdf_version(_ outMajor: UnsafeMutablePointer<Int32>?, _ outMinor: UnsafeMutablePointer<Int32>?,
                                       _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_pdf_version") {
        let major = try required(outMajor, "out_major")
        let minor = try required(outMinor, "out_minor")
        let version = try document(doc).pdfVersion()
        major.pointee = Int32(clamping: version.major)
        minor.pointee = Int32(clamping: version.minor)
    }
}

@c @implementation
public func quire_document_is_encrypted(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_is_encrypted") {
        let out = try required(out, "out")
        out.pointee = try document(doc).isEncrypted ? 1 : 0
    }
}

@c @implementation
public func quire_document_is_repaired(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_is_repaired") {
        let out = try required(out, "out")
        out.pointee = try document(doc).isRepaired ? 1 : 0
    }
}

@c @implementation
public func quire_document_warning_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_warning_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).warnings.count)
    }
}

/// `list[index]`, or an ERANGE error.
func element<T>(_ list: [T], _ index: Int32, _ what: String) throws -> T {
    guard index >= 0 && Int(index) < list.count else {
        throw CallError(code: QUIRE_ERANGE, message: "\(what) index \(index) is out of range (there are \(list.count))")
    }
    return list[Int(index)]
}

@c @implementation
public func quire_document_warning(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                   _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_document_warning") {
        _ = try required(outLen, "out_len")
        try copyOut(element(document(doc).warnings, index, "warning"), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_metadata_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_metadata_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).metadata().count)
    }
}

@c @implementation
public func quire_document_metadata_key(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                        _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_document_metadata_key") {
        _ = try required(outLen, "out_len")
        try copyOut(element(document(doc).metadata(), index, "metadata").key, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_metadata(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                    _ doc: OpaquePointer?, _ key: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_metadata") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        let key = String(cString: try required(key, "key"))
        guard let entry = try d.metadata().last(where: { $0.key == key }) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the document has no metadata entry '\(key)'")
        }
        try copyOut(entry.value, buf, bufSize, outLen)
    }
}

/// The page box a QUIRE_BOX_* value names.
func pageBox(_ box: quire_box) throws -> PageBox {
    switch box {
    case QUIRE_BOX_MEDIA: return .media
    case QUIRE_BOX_CROP: return .crop
    case QUIRE_BOX_BLEED: return .bleed
    case QUIRE_BOX_TRIM: return .trim
    case QUIRE_BOX_ART: return .art
    default: throw CallError(code: QUIRE_EINVAL, message: "box 0x\(String(box.rawValue, radix: 16)) is not one of the QUIRE_BOX_* values")
    }
}

/// The page at `index` of the document behind `handle`.
func page(_ handle: OpaquePointer?, _ index: Int32) throws -> Page {
    try document(handle).page(at: Int(index))
}

@c @implementation
public func quire_page_box(_ out: UnsafeMutablePointer<quire_rect>?, _ doc: OpaquePointer?, _ pageIndex: Int32,
                           _ box: quire_box) -> Int32 {
    guarded("quire_page_box") {
        let out = try required(out, "out")
        let r = try page(doc, pageIndex).box(pageBox(box))
        out.pointee = quire_rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top)
    }
}

@c @implementation
public func quire_page_rotation(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ pageIndex: Int32) -> Int32 {
    guarded("quire_page_rotation") {
        let out = try required(out, "out")
        out.pointee = Int32(try page(doc, pageIndex).rotation())
    }
}

@c @implementation
public func quire_page_annotation_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ pageIndex: Int32) -> Int32 {
    guarded("quire_page_annotation_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try page(doc, pageIndex).annotationCount())
    }
}
