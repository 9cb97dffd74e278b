// Bulk reads of include/quire.h (issue 17): what a viewer lists of every annotation of a
// page, in one call, laid out in the caller's buffer as pointers, structs, then strings.
// Conversions only: the values are those of QuireDocument's `Annotation`, as the per-field
// functions give them.
import CQuire
import QuireDocument
import QuireSyntax

/// The versions of `quire_annotation_info` (written by the library, so it has no _init).
let annotationInfoVersions = StructVersions<quire_annotation_info>(
    name: "quire_annotation_info", sizes: [MemoryLayout<quire_annotation_info>.size])

/// The strings of one info, in the order of the struct's fields.
private func infoStrings(_ a: Annotation) -> (String, String?, String?, String?, String?, String?, String?, String?) {
    (a.subtype, a.contents, a.author, a.name, a.creationDate?.description, a.modificationDate?.description,
     a.state, a.stateModel)
}

/// Bytes of `text` in the string area: its UTF-8 and a NUL; nothing when unset.
@inline(__always)
private func areaBytes(_ text: String?) -> Int {
    guard let text else { return 0 }
    return text.utf8.count + 1
}

/// Writes `text` and a NUL at `cursor`, returns where it starts (NULL and 0 when unset) and
/// moves the cursor past it.
@inline(__always)
private func put(_ text: String?, _ cursor: inout UnsafeMutableRawPointer) -> (UnsafePointer<CChar>?, Int) {
    guard var text else { return (nil, 0) }
    let start = cursor
    let count = text.withUTF8 { bytes -> Int in
        if let base = bytes.baseAddress, bytes.count > 0 {
            start.copyMemory(from: UnsafeRawPointer(base), byteCount: bytes.count)
        }
        return bytes.count
    }
    start.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
    cursor = start + count + 1
    return (UnsafePointer(start.assumingMemoryBound(to: CChar.self)), count)
}

/// The length-query pattern of `quire_page_annotation_infos` and `quire_annotation_list_infos`
/// over `items`.
func copyOutInfos(_ items: [Annotation], _ buf: UnsafeMutableRawPointer?, _ bufSize: Int,
                  _ outLen: UnsafeMutablePointer<Int>?, _ outCount: UnsafeMutablePointer<Int32>?,
                  version: UInt32) throws {
    let outLen = try required(outLen, "out_len")
    let outCount = try required(outCount, "out_count")
    guard version >= 1 else {
        throw CallError(code: QUIRE_EINVAL, message: "version is 0: pass QUIRE_ANNOTATION_INFO_VERSION")
    }
    guard version <= annotationInfoVersions.current else {
        throw CallError(code: QUIRE_EVERSION,
                        message: "quire_annotation_info version \(version); this library knows versions 1 to \(annotationInfoVersions.current)")
    }
    guard items.count <= Int(Int32.max) else {
        throw CallError(code: QUIRE_ELIMIT, message: "\(items.count) annotations do not fit an int32_t count")
    }
    let size = annotationInfoVersions.sizes[Int(version) - 1]
    let align = MemoryLayout<quire_annotation_info>.alignment
    let stride = (size + align - 1) / align * align
    let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
    // The pointers, and a NULL after them (so a caller may also walk them to the NULL, and a
    // buffer always needs room, as a string's needs room for its NUL), then the structs.
    var needed = (items.count + 1) * pointerSize + items.count * stride
    for a in items {
        let s = infoStrings(a)
        needed += areaBytes(s.0) + areaBytes(s.1) + areaBytes(s.2) + areaBytes(s.3)
            + areaBytes(s.4) + areaBytes(s.5) + areaBytes(s.6) + areaBytes(s.7)
    }
    guard let buf else {
        guard bufSize == 0 else { throw CallError(code: QUIRE_EINVAL, message: "the buffer is NULL but its size is \(bufSize)") }
        outLen.pointee = needed
        outCount.pointee = Int32(items.count)
        return
    }
    guard Int(bitPattern: buf) % max(align, pointerSize) == 0 else {
        throw CallError(code: QUIRE_EINVAL, message: "the buffer is not aligned to \(max(align, pointerSize)) bytes (malloc's memory is)")
    }
    // As every length-query function: room for *out_len bytes and a NUL after them.
    guard bufSize > needed else {
        outLen.pointee = needed
        throw CallError(code: QUIRE_EBUFS, message: "a buffer of \(bufSize) bytes is too small; \(needed + 1) are needed")
    }
    let structs = buf + (items.count + 1) * pointerSize
    var cursor = structs + items.count * stride
    for (i, a) in items.enumerated() {
        let s = infoStrings(a)
        var info = quire_annotation_info()
        info.version = version
        info.page_index = Int32(clamping: a.pageIndex)
        info.object_number = Int32(clamping: a.id?.number ?? 0)
        info.in_reply_to = Int32(clamping: a.inReplyTo?.number ?? 0)
        info.flags = Int32(clamping: a.flags)
        info.rect = quire_rect(left: a.rect.left, bottom: a.rect.bottom, right: a.rect.right, top: a.rect.top)
        (info.subtype, info.subtype_len) = put(s.0, &cursor)
        (info.contents, info.contents_len) = put(s.1, &cursor)
        (info.author, info.author_len) = put(s.2, &cursor)
        (info.name, info.name_len) = put(s.3, &cursor)
        (info.creation_date, info.creation_date_len) = put(s.4, &cursor)
        (info.modification_date, info.modification_date_len) = put(s.5, &cursor)
        (info.state, info.state_len) = put(s.6, &cursor)
        (info.state_model, info.state_model_len) = put(s.7, &cursor)
        let slot = structs + i * stride
        withUnsafeBytes(of: &info) { source in
            if let base = source.baseAddress { slot.copyMemory(from: base, byteCount: size) }
        }
        buf.storeBytes(of: UnsafeRawPointer(slot), toByteOffset: i * pointerSize, as: UnsafeRawPointer.self)
    }
    buf.storeBytes(of: nil, toByteOffset: items.count * pointerSize, as: UnsafeRawPointer?.self)
    buf.storeBytes(of: 0, toByteOffset: needed, as: UInt8.self)
    outLen.pointee = needed
    outCount.pointee = Int32(items.count)
}

@c @implementation
public func quire_page_annotation_infos(_ buf: UnsafeMutableRawPointer?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                        _ outCount: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?, _ pageIndex: Int32,
                                        _ version: UInt32) -> Int32 {
    guarded("quire_page_annotation_infos") {
        _ = try required(outLen, "out_len")
        _ = try required(outCount, "out_count")
        let d = try document(doc)
        _ = try d.page(at: Int(pageIndex))
        try copyOutInfos(try d.annotations(onPage: Int(pageIndex)), buf, bufSize, outLen, outCount, version: version)
    }
}

@c @implementation
public func quire_page_annotations(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?, _ pageIndex: Int32) -> Int32 {
    guarded("quire_page_annotations") {
        let out = try required(out, "out")
        let d = try document(doc)
        _ = try d.page(at: Int(pageIndex))
        giveList(try d.annotations(onPage: Int(pageIndex)), out)
    }
}

@c @implementation
public func quire_annotation_list_infos(_ buf: UnsafeMutableRawPointer?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                        _ outCount: UnsafeMutablePointer<Int32>?, _ handle: OpaquePointer?,
                                        _ version: UInt32) -> Int32 {
    guarded("quire_annotation_list_infos") {
        try copyOutInfos(try list(handle).items, buf, bufSize, outLen, outCount, version: version)
    }
}
