import FoundationEssentials
import QuireDocument
import QuireSyntax
import X509

/// The /SubFilter of a signature: how its /Contents is made.
public enum SignatureSubFilter: String, Sendable, CaseIterable {
    /// PAdES (ETSI EN 319 142-1): CMS detached with signing-certificate-v2 and no
    /// signing-time attribute; the time is the dictionary's /M (or a time-stamp token).
    case pades = "ETSI.CAdES.detached"
    /// The older PKCS#7 detached form that every reader knows, with a signing-time attribute.
    case pkcs7 = "adbe.pkcs7.detached"
}

/// How a signature looks on its page.
public enum SignatureLook: Sendable, Equatable {
    /// No appearance on the page (a field with an empty rectangle).
    case invisible
    /// A box with who signed, when, and the reason and location if given.
    case text
    /// The appearance of an ink annotation (what the Signature tool drew) above the text;
    /// the ink annotation itself is removed from the page.
    case ink(ObjectID)
}

/// What and how to sign.
public struct SigningOptions: @unchecked Sendable {
    /// The signer's key and certificates.
    public var identity: SigningIdentity
    /// An existing unsigned signature field to sign, by its full name; or, with `rect`,
    /// the name of the field to create (nil: `Signature1`, `Signature2`, ...).
    public var fieldName: String?
    /// The page of a new field (0-based).
    public var page: Int = 0
    /// The rectangle of a new field on `page`, in default user space; nil signs an
    /// invisible new field, unless `fieldName` names an existing field.
    public var rect: Rect?
    public var subFilter: SignatureSubFilter = .pades
    public var digest: DigestAlgorithm = .sha256
    /// The signer's name as the dictionary shows it (/Name); nil: the certificate's
    /// common name.
    public var name: String?
    public var reason: String?
    public var location: String?
    public var contactInfo: String?
    /// The claimed signing time (/M, and the signing-time attribute for adbe.pkcs7).
    public var signingTime: Date = Date()
    public var look: SignatureLook = .text
    /// Makes this a certification signature with these DocMDP permissions: only for the
    /// first signature of a document.
    public var certification: DocMDPPermission? = nil
    /// Adds a signature time-stamp token (PAdES B-T) from this callback.
    public var timestamp: TimeStampCallback? = nil
    /// The bytes reserved for /Contents; nil sizes it from the key, the certificates and
    /// the time stamp (and signing again with more room if the guess was short).
    public var reservedSize: Int? = nil

    public init(identity: SigningIdentity) {
        self.identity = identity
    }
}

/// Limits of signing.
public enum SigningLimits {
    /// The most bytes /Contents may reserve.
    public static let maxReservedSize = 1 << 20
}

extension Document {
    /// Signs as `options` say and saves to `path` (atomically, as ``save(to:mode:progress:)``):
    /// one incremental update holding the unsaved changes, the signature field (new, or
    /// the existing one named), its appearance and the signature dictionary, with /Contents
    /// sized to fit and /ByteRange covering the whole file but /Contents. Earlier bytes are
    /// left as they were. The document then continues from the signed file.
    ///
    /// All or nothing: a failure (the key, the time-stamping callback, a write) leaves the
    /// document as it was. Refused: an encrypted or repaired document (`unsupported`), a
    /// field that is signed already or not a signature field, a certification when the
    /// document has a signature already, and any signature when the document is certified
    /// with P=1 (`state`).
    public func sign(_ options: SigningOptions, to path: String) throws {
        try sign(options) { update in try saveFinished(update: update, to: path) }
    }

    /// Signs as ``sign(_:to:)`` does, saving through `write` (called with consecutive
    /// pieces of the signed file).
    public func sign(_ options: SigningOptions, through write: (UnsafeRawBufferPointer) throws -> Void) throws {
        try sign(options) { update in try saveFinished(update: update, through: write) }
    }

    /// The signed file's bytes (see ``sign(_:to:)``); the document continues from them.
    public func signed(_ options: SigningOptions) throws -> [UInt8] {
        var out: [UInt8] = []
        try sign(options, through: { out.append(contentsOf: $0) })
        return out
    }

    private func sign(_ options: SigningOptions, save: ([UInt8]) throws -> Void) throws {
        guard !isEncrypted else {
            throw PDFError(.unsupported, "signing an encrypted document is not supported (its /Contents would have to be left unencrypted)")
        }
        guard !isRepaired else {
            throw PDFError(.unsupported, "the document's cross-reference was rebuilt by repair: an incremental update cannot be appended to it; save it in full first")
        }
        if let cert = try certification(), cert.permission == .noChanges {
            throw PDFError(.state, "the document is certified with DocMDP P=1: no change is allowed after it, not even a signature")
        }
        var reserved = try options.reservedSize ?? estimatedSize(options)
        guard reserved > 0 && reserved <= SigningLimits.maxReservedSize else {
            throw PDFError(limit: "max_reserved_size", SigningLimits.maxReservedSize, "the bytes reserved for /Contents")
        }
        // A second try with the size the first one needed, when the estimate was short.
        for attempt in 0..<2 {
            do {
                try allOrNothing {
                    let sigID = try prepareSignature(options, reserved: reserved)
                    let update = try finishedUpdate(options, signature: sigID, reserved: reserved)
                    try save(update)
                }
                return
            } catch SigningRetry.needs(let size) where attempt == 0 && options.reservedSize == nil {
                reserved = size + 64
            } catch SigningRetry.needs(let size) {
                throw PDFError(.range, "the signature needs \(size) bytes of /Contents; \(reserved) were reserved")
            } catch let e as SignatureError {
                throw e.pdfError
            }
        }
    }

    /// A size for /Contents: a signature made with the real key over a dummy digest, plus
    /// room for a time-stamp token.
    private func estimatedSize(_ options: SigningOptions) throws -> Int {
        let probe = try CMSSigner.sign(documentDigest: options.digest.digest([UInt8]()), digest: options.digest,
                                       identity: options.identity, signingTime: options.subFilter == .pkcs7 ? options.signingTime : nil,
                                       timestamp: nil)
        return probe.count + 32 + (options.timestamp != nil ? 8192 : 0)
    }

    /// Makes the field, the widget's appearance and the signature dictionary with a
    /// /Contents of `reserved` zero bytes and a /ByteRange placeholder.
    private func prepareSignature(_ options: SigningOptions, reserved: Int) throws -> ObjectID {
        let fields = try formFields()
        let signedAlready = try fields.contains { f in
            guard f.type == .signature, let d = try dictionary(.reference(f.id)) else { return false }
            return d["V"] != nil
        }
        if options.certification != nil && signedAlready {
            throw PDFError(.state, "a certification signature must be the document's first signature; this one has signatures already")
        }
        // The field and its widget.
        var fieldID: ObjectID
        var widgetID: ObjectID
        var rect: Rect
        var pageIndex: Int
        if let name = options.fieldName, let field = fields.first(where: { $0.name == name }) {
            guard field.type == .signature else {
                throw PDFError(.invalidArgument, "field \"\(name)\" is a \(field.type.rawValue) field, not a signature field")
            }
            guard try dictionary(.reference(field.id))?["V"] == nil else {
                throw PDFError(.state, "field \"\(name)\" is signed already")
            }
            guard let widget = field.widgets.first else {
                throw PDFError(.invalidArgument, "signature field \"\(name)\" has no widget to sign on")
            }
            fieldID = field.id
            widgetID = widget.id
            rect = widget.rect
            pageIndex = widget.pageIndex ?? 0
        } else {
            var name = options.fieldName ?? ""
            if name.isEmpty {
                var n = 1
                while fields.contains(where: { $0.name == "Signature\(n)" }) { n += 1 }
                name = "Signature\(n)"
            }
            guard !name.contains(".") else {
                throw PDFError(.invalidArgument, "a new field's name cannot contain a period (\"\(name)\"): periods separate the parts of a full name")
            }
            pageIndex = options.page
            let page = try self.page(at: pageIndex)
            rect = options.look == .invisible ? Rect(left: 0, bottom: 0, right: 0, top: 0)
                : options.rect ?? Rect(left: 0, bottom: 0, right: 0, top: 0)
            var widget = PDFDictionary()
            widget["Type"] = .name("Annot")
            widget["Subtype"] = .name("Widget")
            widget["FT"] = .name("Sig")
            widget["T"] = .string(PDFString(text: name))
            widget["Rect"] = .array([.real(rect.left), .real(rect.bottom), .real(rect.right), .real(rect.top)])
            widget["F"] = .integer(132)  // Print and Locked
            if let p = page.id { widget["P"] = .reference(p) }
            let id = try addObject(.dictionary(widget))
            fieldID = id
            widgetID = id
            try appendToPageAnnots(page, id)
            try appendToFields(id)
        }
        // The appearance.
        if rect.width > 0 && rect.height > 0 && options.look != .invisible {
            let ap = try makeAppearance(options, rect: rect)
            try setValue(.dictionary(PDFDictionary([("N", .reference(ap))])), forKey: "AP", inObject: widgetID.number)
        } else if try dictionary(.reference(widgetID))?["AP"] == nil {
            let empty = try addStream(PDFDictionary([("Type", .name("XObject")), ("Subtype", .name("Form")),
                                                     ("BBox", .array([.integer(0), .integer(0), .integer(0), .integer(0)]))]), data: [])
            try setValue(.dictionary(PDFDictionary([("N", .reference(empty))])), forKey: "AP", inObject: widgetID.number)
        }
        _ = pageIndex
        // The signature dictionary.
        var sig = PDFDictionary()
        sig["Type"] = .name("Sig")
        sig["Filter"] = .name("Adobe.PPKLite")
        sig["SubFilter"] = .name(PDFName(options.subFilter.rawValue))
        sig["ByteRange"] = .array(Self.byteRangePlaceholder)
        sig["Contents"] = .string(PDFString(bytes: [UInt8](repeating: 0, count: reserved), isHex: true))
        sig["M"] = .string(PDFString(text: PDFDate(secondsSinceEpoch: Int(options.signingTime.timeIntervalSince1970.rounded(.down))).description))
        let name = options.name ?? options.identity.certificate.subject.commonName
        if let name { sig["Name"] = .string(PDFString(text: name)) }
        if let r = options.reason { sig["Reason"] = .string(PDFString(text: r)) }
        if let l = options.location { sig["Location"] = .string(PDFString(text: l)) }
        if let c = options.contactInfo { sig["ContactInfo"] = .string(PDFString(text: c)) }
        sig["Prop_Build"] = .dictionary(PDFDictionary([("App", .dictionary(PDFDictionary([("Name", .name("Quire"))])))]))
        if let p = options.certification {
            let params = PDFDictionary([("Type", .name("TransformParams")), ("P", .integer(Int64(p.rawValue))), ("V", .name("1.2"))])
            let ref = PDFDictionary([("Type", .name("SigRef")), ("TransformMethod", .name("DocMDP")), ("TransformParams", .dictionary(params))])
            sig["Reference"] = .array([.dictionary(ref)])
        }
        let sigID = try addObject(.dictionary(sig))
        try setValue(.reference(sigID), forKey: "V", inObject: fieldID.number)
        // The form's /SigFlags: signatures exist (1), append only (2).
        let acroFormNumber = try acroFormObject()
        try updateAcroForm(acroFormNumber) { form in form["SigFlags"] = .integer(3) }
        if options.certification != nil {
            guard let root = trailer["Root"]?.reference else { throw PDFError(.format, "the trailer's /Root is not a reference") }
            var perms = try dictionary(try catalog()["Perms"]) ?? PDFDictionary()
            perms["DocMDP"] = .reference(sigID)
            try setValue(.dictionary(perms), forKey: "Perms", inObject: root.number)
        }
        if case .ink(let ink) = options.look { try deleteAnnotation(ink) }
        return sigID
    }

    /// The incremental update with /ByteRange and /Contents filled in.
    private func finishedUpdate(_ options: SigningOptions, signature sigID: ObjectID, reserved: Int) throws -> [UInt8] {
        var update = try incrementalUpdate()
        let base = file.buffer.count
        let rangeText = Array(Serializer.bytes(of: .array(Self.byteRangePlaceholder)))
        guard let rangeAt = Self.uniqueIndex(of: rangeText, in: update) else {
            throw PDFError(.internal, "the signature's /ByteRange placeholder is not once in the update")
        }
        let contentsText = [UInt8(ascii: "<")] + [UInt8](repeating: UInt8(ascii: "0"), count: 2 * reserved) + [UInt8(ascii: ">")]
        guard let contentsAt = Self.uniqueIndex(of: contentsText, in: update) else {
            throw PDFError(.internal, "the signature's /Contents placeholder is not once in the update")
        }
        let gapStart = base + contentsAt
        let gapEnd = gapStart + contentsText.count
        let total = base + update.count
        let ranges = [0, gapStart, gapEnd, total - gapEnd]
        var filled = Array("[\(ranges.map(String.init).joined(separator: " "))]".utf8)
        guard filled.count <= rangeText.count else {
            throw PDFError(.limit, "the file is too large for the /ByteRange placeholder")
        }
        filled += [UInt8](repeating: 0x20, count: rangeText.count - filled.count)
        update.replaceSubrange(rangeAt..<(rangeAt + rangeText.count), with: filled)
        // The digest of everything but the hex string.
        let digest: [UInt8] = try file.buffer.withBytes(loading: [0..<base]) { prefix in
            options.digest.digest([Array(prefix), Array(update[0..<contentsAt]), Array(update[(contentsAt + contentsText.count)...])])
        }
        let cms = try CMSSigner.sign(documentDigest: digest, digest: options.digest, identity: options.identity,
                                     signingTime: options.subFilter == .pkcs7 ? options.signingTime : nil,
                                     timestamp: options.timestamp)
        guard cms.count <= reserved else { throw SigningRetry.needs(cms.count) }
        let hex = Array(cms.map { String($0, radix: 16, uppercase: true) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined().utf8)
        update.replaceSubrange((contentsAt + 1)..<(contentsAt + 1 + hex.count), with: hex)
        _ = sigID
        return update
    }

    /// [0 9999999999 9999999999 9999999999]: ten digits each, room for files up to 9 GB.
    static let byteRangePlaceholder: [PDFObject] = [.integer(0), .integer(9_999_999_999), .integer(9_999_999_999), .integer(9_999_999_999)]

    static func uniqueIndex(of needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        var found: Int? = nil
        var i = 0
        let first = needle[0]
        while i <= hay.count - needle.count {
            if hay[i] == first && hay[i..<(i + needle.count)].elementsEqual(needle) {
                if found != nil { return nil }
                found = i
                i += needle.count
            } else {
                i += 1
            }
        }
        return found
    }

    // MARK: The form

    /// Appends `id` to the /Annots of `page` (direct or indirect array, or a new one).
    private func appendToPageAnnots(_ page: Page, _ id: ObjectID) throws {
        guard let pageID = page.id else { throw PDFError(.format, "page \(page.index + 1) is not an indirect object") }
        if let r = page.dictionary["Annots"]?.reference, case .array(var items) = try object(r.number) {
            items.append(.reference(id))
            try setObject(r.number, .array(items))
        } else {
            var items = try page.dictionary["Annots"].map(resolve)?.array ?? []
            items.append(.reference(id))
            try setValue(.array(items), forKey: "Annots", inObject: pageID.number)
        }
    }

    /// The object number of the /AcroForm dictionary, made indirect (or created) if needed.
    private func acroFormObject() throws -> Int {
        guard let root = trailer["Root"]?.reference else { throw PDFError(.format, "the trailer's /Root is not a reference") }
        let catalog = try self.catalog()
        if let r = catalog["AcroForm"]?.reference, try dictionary(.reference(r)) != nil { return r.number }
        let form = try dictionary(catalog["AcroForm"]) ?? PDFDictionary([("Fields", .array([]))])
        let id = try addObject(.dictionary(form))
        try setValue(.reference(id), forKey: "AcroForm", inObject: root.number)
        return id.number
    }

    private func updateAcroForm(_ number: Int, _ change: (inout PDFDictionary) throws -> Void) throws {
        guard var form = try dictionary(.reference(ObjectID(number, 0))) else { throw PDFError(.format, "/AcroForm is not a dictionary") }
        try change(&form)
        try setObject(number, .dictionary(form))
    }

    /// Appends `id` to the form's /Fields.
    private func appendToFields(_ id: ObjectID) throws {
        let number = try acroFormObject()
        guard let form = try dictionary(try object(number)) else { throw PDFError(.format, "/AcroForm is not a dictionary") }
        if let r = form["Fields"]?.reference, case .array(var items) = try object(r.number) {
            items.append(.reference(id))
            try setObject(r.number, .array(items))
        } else {
            try updateAcroForm(number) { form in
                var items = try form["Fields"].map(resolve)?.array ?? []
                items.append(.reference(id))
                form["Fields"] = .array(items)
            }
        }
    }
}

enum SigningRetry: Error {
    case needs(Int)
}

extension SignatureError {
    /// The document layer's error of the same meaning (the C layer's statuses).
    public var pdfError: PDFError {
        switch self {
        case .credentials(let m): return PDFError(.invalidArgument, m)
        case .unsupported(let m): return PDFError(.unsupported, m)
        case .invalidField(let m): return PDFError(.invalidArgument, m)
        case .docMDP(let m): return PDFError(.state, m)
        case .timestamp(let m): return PDFError(.io, m)
        case .cancelled(let m): return PDFError(.invalidArgument, m)
        }
    }
}

extension DistinguishedName {
    /// The first common name (CN), if any.
    var commonName: String? {
        for rdn in self {
            for attribute in rdn where attribute.type == .RDNAttributeType.commonName {
                return String(describing: attribute.value)
            }
        }
        return nil
    }
}

extension Serializer {
    static func bytes(of object: PDFObject) -> [UInt8] {
        var out: [UInt8] = []
        write(object, to: &out)
        return out
    }
}
