// Bulk reads of include/quire.h (issue 17): what a viewer lists of every annotation of a
// page, in one call, laid out in the caller's buffer as pointers, structs, then strings.
// Conversions only: the values are those of QuireDocument's `Annotation`, as the per-field
// functions give them.
import CQuire
import QuireDocument
import QuireSyntax

/// The versions of `quire_annotation_info` (written by the library, so it has no _init).
let annotationInfoVersions = StructVersions<quire_annotation_info>(
    name: "quire_annotation_info",
    sizes: [MemoryLayout<quire_annotation_info>.offset(of: \quire_annotation_info.in_reply_to_id) ?? 0,
            MemoryLayout<quire_annotation_info>.size])

/// The strings of the infos, laid out once: each set string's UTF-8 and a NUL, in the order
/// of the struct's fields, annotation after annotation; `spans` holds, per annotation and
/// field, the string's offset in `area` and its length, or -1 for a string that is not set.
/// Dates are written as digits straight into the area (a String per date was most of the
/// cost of the call).
private struct StringArea {
    static let fields = 9
    var area: [UInt8] = []
    var spans: [(offset: Int, count: Int)] = []

    init(_ items: [Annotation]) {
        spans.reserveCapacity(items.count * StringArea.fields)
        area.reserveCapacity(items.count * 64)
        for a in items {
            add(a.subtype)
            add(a.contents)
            add(a.author)
            add(a.name)
            add(a.creationDate)
            add(a.modificationDate)
            add(a.state)
            add(a.stateModel)
            add(a.inReplyTo == nil ? a.inReplyToID : nil)
        }
    }

    private mutating func add(_ text: String?) {
        guard let text else { return spans.append((-1, 0)) }
        let offset = area.count
        area.append(contentsOf: text.utf8)
        spans.append((offset, area.count - offset))
        area.append(0)
    }

    private mutating func add(_ date: PDFDate?) {
        guard let date else { return spans.append((-1, 0)) }
        let offset = area.count
        date.appendDescription(to: &area)
        spans.append((offset, area.count - offset))
        area.append(0)
    }
}

/// What every bulk read (`quire_page_annotation_infos`, `quire_text_page_char_infos`)
/// checks before it writes: the struct version asked for (0 is QUIRE_EINVAL, one newer
/// than the library's QUIRE_EVERSION) and a count that fits the int32_t it reports.
func checkBulkRead(version: UInt32, current: UInt32, of structName: String, count: Int, of items: String) throws {
    guard version >= 1 else {
        throw CallError(code: QUIRE_EINVAL, message: "version is 0: pass \(structName.uppercased())_VERSION")
    }
    guard version <= current else {
        throw CallError(code: QUIRE_EVERSION, message: "\(structName) version \(version); this library knows versions 1 to \(current)")
    }
    guard count <= Int(Int32.max) else {
        throw CallError(code: QUIRE_ELIMIT, message: "\(count) \(items) do not fit an int32_t count")
    }
}

/// The length-query pattern of `quire_page_annotation_infos` and `quire_annotation_list_infos`
/// over `items`.
func copyOutInfos(_ items: [Annotation], _ buf: UnsafeMutableRawPointer?, _ bufSize: Int,
                  _ outLen: UnsafeMutablePointer<Int>?, _ outCount: UnsafeMutablePointer<Int32>?,
                  version: UInt32) throws {
    let outLen = try required(outLen, "out_len")
    let outCount = try required(outCount, "out_count")
    try checkBulkRead(version: version, current: annotationInfoVersions.current, of: "quire_annotation_info",
                      count: items.count, of: "annotations")
    let size = annotationInfoVersions.sizes[Int(version) - 1]
    let align = MemoryLayout<quire_annotation_info>.alignment
    let stride = (size + align - 1) / align * align
    let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
    let strings = StringArea(items)
    // The pointers, and a NULL after them (so a caller may also walk them to the NULL, and a
    // buffer always needs room, as a string's needs room for its NUL), then the structs,
    // then the strings.
    let stringsAt = (items.count + 1) * pointerSize + items.count * stride
    let needed = stringsAt + strings.area.count
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
    let area = buf + stringsAt
    strings.area.withUnsafeBytes { bytes in
        if let base = bytes.baseAddress, bytes.count > 0 { area.copyMemory(from: base, byteCount: bytes.count) }
    }
    func string(_ index: Int) -> (UnsafePointer<CChar>?, Int) {
        let span = strings.spans[index]
        guard span.offset >= 0 else { return (nil, 0) }
        return (UnsafePointer((area + span.offset).assumingMemoryBound(to: CChar.self)), span.count)
    }
    for (i, a) in items.enumerated() {
        let first = i * StringArea.fields
        var info = quire_annotation_info()
        info.version = version
        info.page_index = Int32(clamping: a.pageIndex)
        info.object_number = Int32(clamping: a.id?.number ?? 0)
        info.in_reply_to = Int32(clamping: a.inReplyTo?.number ?? 0)
        info.flags = Int32(clamping: a.flags)
        info.rect = quire_rect(left: a.rect.left, bottom: a.rect.bottom, right: a.rect.right, top: a.rect.top)
        (info.subtype, info.subtype_len) = string(first)
        (info.contents, info.contents_len) = string(first + 1)
        (info.author, info.author_len) = string(first + 2)
        (info.name, info.name_len) = string(first + 3)
        (info.creation_date, info.creation_date_len) = string(first + 4)
        (info.modification_date, info.modification_date_len) = string(first + 5)
        (info.state, info.state_len) = string(first + 6)
        (info.state_model, info.state_model_len) = string(first + 7)
        if version >= 2 { (info.in_reply_to_id, info.in_reply_to_id_len) = string(first + 8) }
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
