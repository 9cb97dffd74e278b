// Digital signatures of include/quire/signatures.h: signing identities, signing, the
// signature guard, and validation reports. Conversions only: the rules are in
// QuireSignatures and QuireDocument (docs/signatures.md).
import CQuire
import FoundationEssentials
import QuireDocument
import QuireSignatures
import QuireSyntax
import SwiftASN1
import X509

// MARK: Signing identities

/// What a `quire_signing_identity *` points at.
final class SigningIdentityBox {
    let identity: SigningIdentity
    init(_ identity: SigningIdentity) { self.identity = identity }
}

func signingIdentity(_ handle: OpaquePointer?, _ name: StaticString = "identity") throws -> SigningIdentity {
    let handle = try required(handle, name)
    return Unmanaged<SigningIdentityBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().identity
}

/// `length` bytes at `pointer`, refusing NULL with a length and a length past SSIZE_MAX.
private func bytes(_ pointer: UnsafeRawPointer?, _ length: Int, _ name: String) throws -> [UInt8] {
    guard length >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "\(name)'s length \(UInt(bitPattern: length)) is too large") }
    guard length > 0 else { return [] }
    guard let pointer else { throw CallError(code: QUIRE_EINVAL, message: "\(name) is NULL") }
    return Array(UnsafeRawBufferPointer(start: pointer, count: length))
}

/// PEM text of `length` bytes (UTF-8; PEM is ASCII).
private func text(_ pointer: UnsafePointer<CChar>?, _ length: Int, _ name: String) throws -> String {
    String(decoding: try bytes(UnsafeRawPointer(pointer), length, name), as: UTF8.self)
}

@c @implementation
public func quire_signing_identity_from_pem(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ keyPEM: UnsafePointer<CChar>?,
                                            _ keyLen: Int, _ certsPEM: UnsafePointer<CChar>?, _ certsLen: Int,
                                            _ password: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_signing_identity_from_pem") {
        let out = try required(out, "out")
        _ = try required(keyPEM, "key_pem")
        let key = try text(keyPEM, keyLen, "key_pem")
        var certs: String? = nil
        if certsPEM != nil || certsLen != 0 { certs = try text(certsPEM, certsLen, "certs_pem") }
        let identity = try withSignatureErrors {
            try SigningIdentity(pem: key, certificatesPEM: certs, password: password.map { String(cString: $0) })
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(SigningIdentityBox(identity)).toOpaque())
    }
}

@c @implementation
public func quire_signing_identity_from_pkcs12(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ data: UnsafeRawPointer?,
                                               _ length: Int, _ password: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_signing_identity_from_pkcs12") {
        let out = try required(out, "out")
        _ = try required(data, "data")
        let file = try bytes(data, length, "data")
        let identity = try withSignatureErrors {
            try SigningIdentity(pkcs12: file, password: password.map { String(cString: $0) } ?? "")
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(SigningIdentityBox(identity)).toOpaque())
    }
}

@c @implementation
public func quire_signing_identity_free(_ identity: OpaquePointer?) {
    guard let identity else { return }
    Unmanaged<SigningIdentityBox>.fromOpaque(UnsafeRawPointer(identity)).release()
}

@c @implementation
public func quire_signing_identity_name(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                        _ identity: OpaquePointer?) -> Int32 {
    guarded("quire_signing_identity_name") {
        guard let name = try signingIdentity(identity).commonName else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the signer's certificate has no common name")
        }
        try copyOut(name, buf, bufSize, outLen)
    }
}

/// Runs `body`, giving a ``SignatureError`` the status of its meaning.
private func withSignatureErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as SignatureError {
        throw e.pdfError
    }
}

// MARK: Time stamps

/// What a `quire_timestamp_response *` points at, during one call of the callback.
final class TimeStampResponseBox {
    var bytes: [UInt8]? = nil
}

/// The most bytes a time-stamp response may have.
let maxTimeStampResponse = 1 << 20

@c @implementation
public func quire_timestamp_response_set(_ response: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int) -> Int32 {
    guarded("quire_timestamp_response_set") {
        let response = try required(response, "response")
        _ = try required(data, "data")
        guard length != 0 else { throw CallError(code: QUIRE_EINVAL, message: "the response is empty") }
        guard length > 0 && length <= maxTimeStampResponse else {
            throw CallError(code: QUIRE_ELIMIT, message: "the response has \(UInt(bitPattern: length)) bytes; the limit (max_timestamp_response) is \(maxTimeStampResponse)")
        }
        let box = Unmanaged<TimeStampResponseBox>.fromOpaque(UnsafeRawPointer(response)).takeUnretainedValue()
        box.bytes = try bytes(data, length, "data")
    }
}

// MARK: Signing

let signOptionsVersions = StructVersions<quire_sign_options>(name: "options", sizes: [MemoryLayout<quire_sign_options>.size])

var signOptionsDefaults: quire_sign_options {
    quire_sign_options(version: signOptionsVersions.current, identity: nil, field_name: nil, page: 0,
                       rect: quire_rect(left: 0, bottom: 0, right: 0, top: 0), format: QUIRE_SIGNATURE_PADES,
                       digest: QUIRE_DIGEST_SHA256, name: nil, reason: nil, location: nil, contact_info: nil,
                       signing_time: 0, look: QUIRE_SIGNATURE_LOOK_TEXT, ink_object: 0, certification: QUIRE_DOCMDP_NONE,
                       timestamp: nil, timestamp_payload: nil, reserved_size: 0)
}

@c @implementation
public func quire_sign_options_init(_ options: UnsafeMutablePointer<quire_sign_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_sign_options_init") {
        try signOptionsVersions.initialize(options, version: version, defaults: signOptionsDefaults)
    }
}

/// Whether the caller's time-stamping callback stopped the signing (QUIRE_EUSER).
private final class CancelFlag {
    var cancelled = false
}

/// The model's signing options from the caller's struct.
private func signingOptions(_ pointer: UnsafePointer<quire_sign_options>?, cancel: CancelFlag) throws -> SigningOptions {
    let pointer = try required(pointer, "options")
    let o = try signOptionsVersions.read(pointer, defaults: signOptionsDefaults).value
    var options = SigningOptions(identity: try signingIdentity(o.identity, "options->identity"))
    options.fieldName = o.field_name.map { String(cString: $0) }
    options.page = Int(o.page)
    let r = o.rect
    guard r.left.isFinite && r.bottom.isFinite && r.right.isFinite && r.top.isFinite else {
        throw CallError(code: QUIRE_EINVAL, message: "options->rect is not finite")
    }
    if r.right - r.left > 0 && r.top - r.bottom > 0 {
        options.rect = Rect(left: r.left, bottom: r.bottom, right: r.right, top: r.top)
    }
    switch o.format {
    case QUIRE_SIGNATURE_PADES: options.subFilter = .pades
    case QUIRE_SIGNATURE_PKCS7: options.subFilter = .pkcs7
    default: throw CallError(code: QUIRE_EINVAL, message: "options->format \(o.format.rawValue) is not a quire_signature_format")
    }
    switch o.digest {
    case QUIRE_DIGEST_SHA256: options.digest = .sha256
    case QUIRE_DIGEST_SHA384: options.digest = .sha384
    case QUIRE_DIGEST_SHA512: options.digest = .sha512
    default: throw CallError(code: QUIRE_EINVAL, message: "options->digest \(o.digest.rawValue) is not SHA-256, SHA-384 or SHA-512")
    }
    options.name = o.name.map { String(cString: $0) }
    options.reason = o.reason.map { String(cString: $0) }
    options.location = o.location.map { String(cString: $0) }
    options.contactInfo = o.contact_info.map { String(cString: $0) }
    if o.signing_time != 0 {
        // Years 1 to 9999: what /M can say.
        guard o.signing_time > -62_135_596_800 && o.signing_time < 253_402_300_800 else {
            throw CallError(code: QUIRE_EINVAL, message: "options->signing_time \(o.signing_time) is outside the years 1 to 9999")
        }
        options.signingTime = Date(timeIntervalSince1970: Double(o.signing_time))
    }
    switch o.look {
    case QUIRE_SIGNATURE_LOOK_TEXT: options.look = .text
    case QUIRE_SIGNATURE_LOOK_INVISIBLE: options.look = .invisible
    case QUIRE_SIGNATURE_LOOK_INK:
        guard o.ink_object > 0 else { throw CallError(code: QUIRE_EINVAL, message: "options->ink_object \(o.ink_object) is not an object number") }
        options.look = .ink(ObjectID(Int(o.ink_object), 0))
    default: throw CallError(code: QUIRE_EINVAL, message: "options->look \(o.look.rawValue) is not a quire_signature_look")
    }
    switch o.certification {
    case QUIRE_DOCMDP_NONE: options.certification = nil
    case QUIRE_DOCMDP_NO_CHANGES: options.certification = .noChanges
    case QUIRE_DOCMDP_FORM_FILLING: options.certification = .formFilling
    case QUIRE_DOCMDP_ANNOTATIONS: options.certification = .annotations
    default: throw CallError(code: QUIRE_EINVAL, message: "options->certification \(o.certification.rawValue) is not a quire_docmdp")
    }
    if let callback = o.timestamp {
        nonisolated(unsafe) let payload = o.timestamp_payload  // the caller's, handed back as it is
        options.timestamp = { request in
            let box = TimeStampResponseBox()
            let handle = OpaquePointer(Unmanaged.passRetained(box).toOpaque())
            defer { Unmanaged<TimeStampResponseBox>.fromOpaque(UnsafeRawPointer(handle)).release() }
            let status = request.withUnsafeBytes { callback(handle, $0.baseAddress, $0.count, payload) }
            guard status == 0 else {
                cancel.cancelled = true
                throw SignatureError.cancelled("the time-stamping callback returned \(status)")
            }
            guard let response = box.bytes else {
                throw SignatureError.timestamp("the time-stamping callback returned 0 without calling quire_timestamp_response_set")
            }
            return response
        }
    }
    guard o.reserved_size >= 0 else { throw CallError(code: QUIRE_EINVAL, message: "options->reserved_size is too large") }
    if o.reserved_size > 0 { options.reservedSize = o.reserved_size }
    return options
}

/// Signs with the caller's options; a stop asked by the time-stamping callback is
/// QUIRE_EUSER.
private func sign(_ doc: OpaquePointer?, _ pointer: UnsafePointer<quire_sign_options>?,
                  _ body: (Document, SigningOptions) throws -> Void) throws {
    let d = try document(doc)
    let cancel = CancelFlag()
    let options = try signingOptions(pointer, cancel: cancel)
    do {
        try body(d, options)
    } catch let e as PDFError where cancel.cancelled {
        throw CallError(code: QUIRE_EUSER, message: "\(e.message); the document is as it was")
    }
}

@c @implementation
public func quire_document_sign(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_sign_options>?,
                                _ path: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_document_sign") {
        let path = String(cString: try required(path, "path"))
        try sign(doc, options) { d, o in try d.sign(o, to: path) }
    }
}

@c @implementation
public func quire_document_sign_to_callback(_ doc: OpaquePointer?, _ options: UnsafePointer<quire_sign_options>?,
                                            _ write: quire_write_fn?, _ payload: UnsafeMutableRawPointer?) -> Int32 {
    guarded("quire_document_sign_to_callback") {
        let write = try required(write, "write")
        try sign(doc, options) { d, o in
            try d.sign(o, through: { piece in
                guard write(piece.baseAddress, piece.count, payload) == 0 else {
                    throw CallError(code: QUIRE_EUSER, message: "the write callback returned non-zero; the document is as it was")
                }
            })
        }
    }
}

// MARK: The Signature tool

@c @implementation
public func quire_tool_manager_set_signing(_ manager: OpaquePointer?, _ options: UnsafePointer<quire_sign_options>?,
                                           _ path: UnsafePointer<CChar>?) -> Int32 {
    guarded("quire_tool_manager_set_signing") {
        let box = try toolBox(manager)
        guard let options else {
            try box.run { $0.signDrawnSignatures(nil, to: "") }
            return
        }
        let path = String(cString: try required(path, "path"))
        let cancel = CancelFlag()
        let o = try signingOptions(options, cancel: cancel)
        try box.run { m in
            m.signDrawnSignatures(o, to: path)
            guard let sign = m.signatureSigner else { return }
            m.signatureSigner = { ink, field in
                cancel.cancelled = false
                do {
                    try sign(ink, field)
                } catch let e as PDFError where cancel.cancelled {
                    throw CallError(code: QUIRE_EUSER, message: "\(e.message); the field is not signed, the drawing stays")
                }
            }
        }
    }
}

// MARK: The signature guard

@c @implementation
public func quire_document_set_signature_guard(_ doc: OpaquePointer?, _ guardMode: quire_signature_guard) -> Int32 {
    guarded("quire_document_set_signature_guard") {
        let d = try document(doc)
        switch guardMode {
        case QUIRE_SIGNATURE_GUARD_REFUSE: d.signatureGuard = .refuse
        case QUIRE_SIGNATURE_GUARD_WARN: d.signatureGuard = .warn
        case QUIRE_SIGNATURE_GUARD_ALLOW: d.signatureGuard = .allow
        default: throw CallError(code: QUIRE_EINVAL, message: "guard \(guardMode.rawValue) is not a quire_signature_guard")
        }
    }
}

@c @implementation
public func quire_document_certification_broken(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_certification_broken") {
        let out = try required(out, "out")
        out.pointee = try document(doc).certificationBrokenByUnsavedChanges() != nil ? 1 : 0
    }
}

// MARK: Validation

let validationOptionsVersions = StructVersions<quire_validation_options>(name: "options", sizes: [MemoryLayout<quire_validation_options>.size])

var validationOptionsDefaults: quire_validation_options {
    quire_validation_options(version: validationOptionsVersions.current, trust_roots_pem: nil, trust_roots_len: 0,
                             intermediates_pem: nil, intermediates_len: 0, time: 0)
}

@c @implementation
public func quire_validation_options_init(_ options: UnsafeMutablePointer<quire_validation_options>?, _ version: UInt32) -> Int32 {
    guarded("quire_validation_options_init") {
        try validationOptionsVersions.initialize(options, version: version, defaults: validationOptionsDefaults)
    }
}

/// What a `quire_signature_list *` points at.
final class SignatureListBox {
    let reports: [SignatureReport]
    init(_ reports: [SignatureReport]) { self.reports = reports }
}

private func signatureList(_ handle: OpaquePointer?) throws -> [SignatureReport] {
    let handle = try required(handle, "list")
    return Unmanaged<SignatureListBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().reports
}

private func report(_ handle: OpaquePointer?, _ index: Int32) throws -> SignatureReport {
    let reports = try signatureList(handle)
    guard index >= 0 && Int(index) < reports.count else {
        throw CallError(code: QUIRE_ERANGE, message: "index \(index) is not a signature of the list (0 to \(reports.count - 1))")
    }
    return reports[Int(index)]
}

@c @implementation
public func quire_document_signatures(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ doc: OpaquePointer?,
                                      _ options: UnsafePointer<quire_validation_options>?) -> Int32 {
    guarded("quire_document_signatures") {
        let out = try required(out, "out")
        let d = try document(doc)
        let o = try options.map { try validationOptionsVersions.read($0, defaults: validationOptionsDefaults).value } ?? validationOptionsDefaults
        let roots = try text(o.trust_roots_pem, o.trust_roots_len, "options->trust_roots_pem")
        let intermediates = try text(o.intermediates_pem, o.intermediates_len, "options->intermediates_pem")
        var validation = ValidationOptions(trustRoots: try certificates(roots, "options->trust_roots_pem"))
        validation.intermediates = try certificates(intermediates, "options->intermediates_pem")
        if o.time != 0 { validation.time = Date(timeIntervalSince1970: Double(o.time)) }
        let reports = try d.signatures(validation)
        out.pointee = OpaquePointer(Unmanaged.passRetained(SignatureListBox(reports)).toOpaque())
    }
}

/// The certificates of PEM text (none for no text; text without one is refused).
private func certificates(_ pem: String, _ name: String) throws -> [Certificate] {
    guard !pem.isEmpty else { return [] }
    let found = try withSignatureErrors { try SigningIdentity.certificates(pem: pem) }
    guard !found.isEmpty else { throw CallError(code: QUIRE_EINVAL, message: "\(name) holds no PEM CERTIFICATE") }
    return found
}

@c @implementation
public func quire_signature_list_free(_ list: OpaquePointer?) {
    guard let list else { return }
    Unmanaged<SignatureListBox>.fromOpaque(UnsafeRawPointer(list)).release()
}

@c @implementation
public func quire_signature_list_count(_ out: UnsafeMutablePointer<Int32>?, _ list: OpaquePointer?) -> Int32 {
    guarded("quire_signature_list_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try signatureList(list).count)
    }
}

let signatureInfoVersions = StructVersions<quire_signature_info>(name: "out", sizes: [MemoryLayout<quire_signature_info>.size])

private func seconds(_ date: Date?) -> Int64 {
    guard let t = date?.timeIntervalSince1970, t.isFinite else { return 0 }
    return Int64(t.rounded(.down))
}

private func cDigest(_ d: DigestAlgorithm?) -> quire_digest_algorithm {
    switch d {
    case .sha1: return QUIRE_DIGEST_SHA1
    case .sha256: return QUIRE_DIGEST_SHA256
    case .sha384: return QUIRE_DIGEST_SHA384
    case .sha512: return QUIRE_DIGEST_SHA512
    case nil: return QUIRE_DIGEST_UNKNOWN
    }
}

private func cDocMDP(_ p: DocMDPPermission?) -> quire_docmdp {
    switch p {
    case .noChanges: return QUIRE_DOCMDP_NO_CHANGES
    case .formFilling: return QUIRE_DOCMDP_FORM_FILLING
    case .annotations: return QUIRE_DOCMDP_ANNOTATIONS
    case nil: return QUIRE_DOCMDP_NONE
    }
}

private func cModification(_ m: ModificationKind?) -> quire_modification {
    switch m {
    case .validationData: return QUIRE_MODIFICATION_VALIDATION_DATA
    case .formFilling: return QUIRE_MODIFICATION_FORM_FILLING
    case .annotations: return QUIRE_MODIFICATION_ANNOTATIONS
    case .other: return QUIRE_MODIFICATION_OTHER
    case nil: return QUIRE_MODIFICATION_NONE
    }
}

@c @implementation
public func quire_signature_list_info(_ out: UnsafeMutablePointer<quire_signature_info>?, _ list: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_signature_list_info") {
        let out = try required(out, "out")
        let r = try report(list, index)
        var info = quire_signature_info()
        info.valid = r.isValid ? 1 : 0
        info.intact = r.intact ? 1 : 0
        info.signature_valid = r.signatureValid ? 1 : 0
        info.trusted = r.trusted ? 1 : 0
        info.changes_allowed = r.changesAllowed ? 1 : 0
        switch r.coverage {
        case .entireFile: info.coverage = QUIRE_COVERAGE_ENTIRE_FILE
        case .entireRevision: info.coverage = QUIRE_COVERAGE_ENTIRE_REVISION
        case .partial: info.coverage = QUIRE_COVERAGE_PARTIAL
        }
        info.modification = cModification(r.modification)
        info.certification = cDocMDP(r.certification)
        info.digest = cDigest(r.digest)
        info.field_object = Int32(clamping: r.field.number)
        info.signature_object = Int32(clamping: r.signatureObject?.number ?? 0)
        info.claimed_time = seconds(r.claimedTime)
        if let t = r.timestamp {
            info.has_timestamp = 1
            info.timestamp_intact = t.intact ? 1 : 0
            info.timestamp_trusted = t.trusted ? 1 : 0
            info.timestamp_time = seconds(t.time)
        }
        let range = r.byteRange.prefix(4).map { Int64($0) } + [Int64](repeating: 0, count: max(0, 4 - r.byteRange.count))
        info.range1_offset = range[0]
        info.range1_length = range[1]
        info.range2_offset = range[2]
        info.range2_length = range[3]
        info.problem_count = Int32(clamping: r.problems.count)
        try signatureInfoVersions.write(info, to: out)
    }
}

@c @implementation
public func quire_signature_list_string(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                        _ list: OpaquePointer?, _ index: Int32, _ which: quire_signature_string) -> Int32 {
    guarded("quire_signature_list_string") {
        let r = try report(list, index)
        func found(_ s: String?, _ what: String) throws -> String {
            guard let s else { throw CallError(code: QUIRE_ENOTFOUND, message: "signature \(index) has no \(what)") }
            return s
        }
        switch which {
        case QUIRE_SIGNATURE_FIELD_NAME: try copyOut(r.fieldName, buf, bufSize, outLen)
        case QUIRE_SIGNATURE_SIGNER: try copyOut(try found(r.signerName, "signer's common name"), buf, bufSize, outLen)
        case QUIRE_SIGNATURE_SUBFILTER: try copyOut(try found(r.subFilter, "/SubFilter"), buf, bufSize, outLen)
        case QUIRE_SIGNATURE_PADES_LEVEL: try copyOut(try found(r.padesLevel, "PAdES level"), buf, bufSize, outLen)
        case QUIRE_SIGNATURE_TIMESTAMP_AUTHORITY:
            try copyOut(try found(r.timestamp?.authority, "time-stamping authority"), buf, bufSize, outLen)
        case QUIRE_SIGNATURE_CERTIFICATE:
            guard let signer = r.signer else { throw CallError(code: QUIRE_ENOTFOUND, message: "signature \(index) has no readable signer's certificate") }
            var serializer = DER.Serializer()
            try serializer.serialize(signer)
            try copyOut(bytes: serializer.serializedBytes, buf, bufSize, outLen)
        default: throw CallError(code: QUIRE_EINVAL, message: "\(which.rawValue) is not a quire_signature_string")
        }
    }
}

private func cProblem(_ p: SignatureProblem) -> quire_signature_problem {
    switch p {
    case .malformed: return QUIRE_PROBLEM_MALFORMED
    case .byteRange: return QUIRE_PROBLEM_BYTE_RANGE
    case .digestMismatch: return QUIRE_PROBLEM_DIGEST_MISMATCH
    case .signatureInvalid: return QUIRE_PROBLEM_SIGNATURE_INVALID
    case .cmsUnreadable: return QUIRE_PROBLEM_CMS_UNREADABLE
    case .unsupported: return QUIRE_PROBLEM_UNSUPPORTED
    case .untrusted: return QUIRE_PROBLEM_UNTRUSTED
    case .expired: return QUIRE_PROBLEM_EXPIRED
    case .keyUsage: return QUIRE_PROBLEM_KEY_USAGE
    case .notInSignedRevision: return QUIRE_PROBLEM_NOT_IN_SIGNED_REVISION
    case .disallowedChange: return QUIRE_PROBLEM_DISALLOWED_CHANGE
    case .timestamp: return QUIRE_PROBLEM_TIMESTAMP
    case .weakAlgorithm: return QUIRE_PROBLEM_WEAK_ALGORITHM
    case .profile: return QUIRE_PROBLEM_PROFILE
    }
}

@c @implementation
public func quire_signature_list_problem(_ outKind: UnsafeMutablePointer<quire_signature_problem>?, _ buf: UnsafeMutablePointer<CChar>?,
                                         _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?, _ list: OpaquePointer?,
                                         _ index: Int32, _ problem: Int32) -> Int32 {
    guarded("quire_signature_list_problem") {
        let r = try report(list, index)
        guard problem >= 0 && Int(problem) < r.problems.count else {
            throw CallError(code: QUIRE_ERANGE, message: "signature \(index) has \(r.problems.count) problems; \(problem) is not one")
        }
        let p = r.problems[Int(problem)]
        try copyOut(p.description, buf, bufSize, outLen)
        outKind?.pointee = cProblem(p)
    }
}
