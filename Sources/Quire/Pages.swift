// The page operations and encryption functions of include/quire/pages.h and
// include/quire/encryption.h: argument checks and conversions only; the rules live in
// QuireDocument (Pages/, Document+Encryption.swift).
import CQuire
import QuireDocument
import QuireSyntax

/// A page operation's report behind a `quire_page_report` handle.
final class PageReportBox {
    let report: PageEditReport
    init(_ report: PageEditReport) { self.report = report }
}

func pageReport(_ handle: OpaquePointer?) throws -> PageEditReport {
    let handle = try required(handle, "report")
    return Unmanaged<PageReportBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().report
}

/// Hands `report` to the caller through `out` (NULL: not wanted).
func giveReport(_ report: PageEditReport, _ out: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let out else { return }
    out.pointee = OpaquePointer(Unmanaged.passRetained(PageReportBox(report)).toOpaque())
}

/// `count` page indices at `indices`, which must be there (a list of pages to act on).
func pageIndices(_ indices: UnsafePointer<Int32>?, _ count: Int) throws -> [Int] {
    guard count >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "count \(UInt(bitPattern: count)) is larger than any array") }
    guard count > 0 else { throw CallError(code: QUIRE_EINVAL, message: "count is 0: no pages were given") }
    let indices = try required(indices, "indices")
    return UnsafeBufferPointer(start: indices, count: count).map { Int($0) }
}

func rect(_ r: quire_rect) -> Rect {
    Rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top)
}

@c @implementation
public func quire_page_report_free(_ report: OpaquePointer?) {
    guard let report else { return }
    Unmanaged<PageReportBox>.fromOpaque(UnsafeRawPointer(report)).release()
}

@c @implementation
public func quire_page_report_renamed_count(_ out: UnsafeMutablePointer<Int32>?, _ report: OpaquePointer?) -> Int32 {
    guarded("quire_page_report_renamed_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try pageReport(report).renamedFields.count)
    }
}

@c @implementation
public func quire_page_report_renamed(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ report: OpaquePointer?, _ index: Int32, _ after: Int32) -> Int32 {
    guarded("quire_page_report_renamed") {
        _ = try required(outLen, "out_len")
        let rename = try element(pageReport(report).renamedFields, index, "renamed field")
        try copyOut(after != 0 ? rename.to : rename.from, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_page_report_warning_count(_ out: UnsafeMutablePointer<Int32>?, _ report: OpaquePointer?) -> Int32 {
    guarded("quire_page_report_warning_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try pageReport(report).warnings.count)
    }
}

@c @implementation
public func quire_page_report_warning(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                      _ report: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_page_report_warning") {
        _ = try required(outLen, "out_len")
        try copyOut(element(pageReport(report).warnings, index, "warning"), buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_insert_pages(_ doc: OpaquePointer?, _ index: Int32, _ count: Int32,
                                        _ mediaBox: UnsafePointer<quire_rect>?, _ rotation: Int32) -> Int32 {
    guarded("quire_document_insert_pages") {
        let d = try document(doc)
        try d.insertBlankPages(at: Int(index), count: Int(count), mediaBox: mediaBox.map { rect($0.pointee) } ?? .letter,
                               rotation: Int(rotation))
    }
}

@c @implementation
public func quire_document_delete_pages(_ outReport: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                        _ indices: UnsafePointer<Int32>?, _ count: Int) -> Int32 {
    guarded("quire_document_delete_pages") {
        let d = try document(doc)
        giveReport(try d.deletePages(try pageIndices(indices, count)), outReport)
    }
}

@c @implementation
public func quire_document_move_pages(_ doc: OpaquePointer?, _ indices: UnsafePointer<Int32>?, _ count: Int, _ to: Int32) -> Int32 {
    guarded("quire_document_move_pages") {
        let d = try document(doc)
        try d.movePages(try pageIndices(indices, count), to: Int(to))
    }
}

@c @implementation
public func quire_document_rotate_pages(_ doc: OpaquePointer?, _ indices: UnsafePointer<Int32>?, _ count: Int,
                                        _ quarterTurns: Int32) -> Int32 {
    guarded("quire_document_rotate_pages") {
        let d = try document(doc)
        try d.rotatePages(try pageIndices(indices, count), by: Int(quarterTurns))
    }
}

@c @implementation
public func quire_document_set_page_box(_ doc: OpaquePointer?, _ indices: UnsafePointer<Int32>?, _ count: Int,
                                        _ box: quire_box, _ r: UnsafePointer<quire_rect>?) -> Int32 {
    guarded("quire_document_set_page_box") {
        let d = try document(doc)
        let kind = try pageBox(box)
        try d.setPageBox(kind, r.map { rect($0.pointee) }, onPages: try pageIndices(indices, count))
    }
}

@c @implementation
public func quire_document_import_pages(_ outReport: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                        _ source: OpaquePointer?, _ indices: UnsafePointer<Int32>?, _ count: Int,
                                        _ at: Int32) -> Int32 {
    guarded("quire_document_import_pages") {
        let d = try document(doc)
        let s = try document(source)
        let chosen: [Int]?
        if indices == nil && count == 0 {
            chosen = nil
        } else {
            guard count != 0 else {
                throw CallError(code: QUIRE_EINVAL, message: "count is 0 with an indices array: no pages were given (NULL and 0 import every page)")
            }
            chosen = try pageIndices(indices, count)
        }
        giveReport(try d.importPages(from: s, pages: chosen, at: Int(at)), outReport)
    }
}

@c @implementation
public func quire_document_extract_pages(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                         _ indices: UnsafePointer<Int32>?, _ count: Int) -> Int32 {
    guarded("quire_document_extract_pages") {
        let out = try required(out, "out")
        let d = try document(doc)
        out.pointee = handle(try d.extractPages(try pageIndices(indices, count)))
    }
}

// MARK: Encryption

let encryptionOptionsVersions = StructVersions<quire_encryption_options>(
    name: "options", sizes: [MemoryLayout<quire_encryption_options>.size])

var encryptionOptionsDefaults: quire_encryption_options {
    quire_encryption_options(version: encryptionOptionsVersions.current, method: QUIRE_ENCRYPTION_AES_256,
                             user_password: nil, owner_password: nil, permissions: UInt32(QUIRE_PERMISSIONS_ALL),
                             encrypt_metadata: 1)
}

@c @implementation
public func quire_encryption_options_init(_ options: UnsafeMutablePointer<quire_encryption_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_encryption_options_init") {
        try encryptionOptionsVersions.initialize(options, version: version, defaults: encryptionOptionsDefaults)
    }
}

@c @implementation
public func quire_document_set_encryption(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_encryption_options>?,
                                          _ ownerPassword: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_set_encryption") {
        let d = try document(doc)
        let current = ownerPassword.map { String(cString: $0) }
        guard let options else {
            try d.setEncryption(nil, ownerPassword: current)
            return
        }
        let c = try encryptionOptionsVersions.read(options, defaults: encryptionOptionsDefaults).value
        let method: NewEncryption.Method
        switch c.method {
        case QUIRE_ENCRYPTION_AES_256: method = .aes256
        case QUIRE_ENCRYPTION_AES_128: method = .aes128
        case QUIRE_ENCRYPTION_RC4_40, QUIRE_ENCRYPTION_RC4_128:
            throw CallError(code: QUIRE_EUNSUPPORTED, message: "RC4 is broken and never used for new encryption: use QUIRE_ENCRYPTION_AES_256 or QUIRE_ENCRYPTION_AES_128")
        case QUIRE_ENCRYPTION_NONE, QUIRE_ENCRYPTION_IDENTITY:
            throw CallError(code: QUIRE_EUNSUPPORTED, message: "options.method does not encrypt: pass NULL options to remove the encryption")
        default:
            throw CallError(code: QUIRE_EINVAL, message: "options.method 0x\(String(c.method.rawValue, radix: 16)) is not a QUIRE_ENCRYPTION_* value")
        }
        let settings = NewEncryption(method: method, userPassword: c.user_password.map { String(cString: $0) } ?? "",
                                     ownerPassword: c.owner_password.map { String(cString: $0) } ?? "",
                                     permissions: NewEncryption.Permissions(rawValue: Int32(bitPattern: c.permissions) & NewEncryption.Permissions.all.rawValue),
                                     encryptMetadata: c.encrypt_metadata != 0)
        try d.setEncryption(settings, ownerPassword: current)
    }
}
