import QuireSyntax

// What a certification signature allows after it (ISO 32000-2 §12.8.2.2, DocMDP), read
// from the document's own dictionaries, and the guard that keeps Quire's own annotation and
// form APIs inside it. The cryptography (signing, checking a signature) is QuireSignatures';
// this part needs none: which changes a certification permits is a rule about the PDF,
// and the APIs that make those changes live here.

/// The changes a certification signature permits after it (its DocMDP /P).
public enum DocMDPPermission: Int, Sendable, Comparable, CaseIterable {
    /// No change at all (a later change invalidates the certification).
    case noChanges = 1
    /// Filling in forms, instantiating page templates, and signing.
    case formFilling = 2
    /// As `formFilling`, plus creating, deleting and changing annotations.
    case annotations = 3

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// What a change made through Quire's APIs is, in DocMDP's terms.
public enum ModificationKind: Int, Sendable, Comparable, CustomStringConvertible {
    /// A new document security store or its validation data (allowed under any /P).
    case validationData = 0
    /// Filling in a form field, or signing one.
    case formFilling = 2
    /// Creating, deleting or changing an annotation (a reply too).
    case annotations = 3
    /// Anything else: page content, flattening, document structure.
    case other = 4

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Whether a certification with `permission` allows this change.
    public func isAllowed(by permission: DocMDPPermission) -> Bool {
        switch self {
        case .validationData: return true
        case .formFilling: return permission >= .formFilling
        case .annotations: return permission >= .annotations
        case .other: return false
        }
    }

    public var description: String { text }

    var text: String {
        switch self {
        case .validationData: return "adding validation data"
        case .formFilling: return "filling in or signing a form field"
        case .annotations: return "changing annotations"
        case .other: return "changing the document"
        }
    }
}

/// What the annotation and form APIs do with a change that a certification signature's
/// DocMDP permissions forbid (the change would make the certification invalid).
public enum SignatureGuard: Sendable, Equatable {
    /// Refuse it: `PDFError(.state)` naming the certification (the default).
    case refuse
    /// Make it, and add a warning to the document's warnings.
    case warn
    /// Make it silently.
    case allow
}

/// A document's certification signature: its field and permission.
public struct Certification: Sendable, Equatable {
    /// The signature dictionary (the catalog's /Perms /DocMDP).
    public let signature: ObjectID?
    /// What it permits after it.
    public let permission: DocMDPPermission
}

extension Document {
    /// The document's certification signature, if the catalog's /Perms names one with a
    /// DocMDP transform (its /P, 2 when missing or not 1, 2 or 3, as ISO 32000-2 says).
    public func certification() throws -> Certification? {
        guard let perms = try dictionary(try catalog()["Perms"]), let value = perms["DocMDP"],
              let sig = try dictionary(value) else { return nil }
        return Certification(signature: value.reference, permission: try Self.docMDPPermission(of: sig, in: self) ?? .formFilling)
    }

    /// The /P of the DocMDP transform of signature dictionary `sig`, or nil when it has
    /// no DocMDP reference; 2 when /P is missing or out of range.
    public static func docMDPPermission(of sig: PDFDictionary, in document: Document) throws -> DocMDPPermission? {
        guard let refs = try document.resolve(sig["Reference"] ?? .null).array else { return nil }
        for ref in refs {
            guard let r = try document.dictionary(ref), try document.resolve(r["TransformMethod"] ?? .null).name == "DocMDP" else { continue }
            let params = try document.dictionary(r["TransformParams"])
            let p = try params?["P"].map(document.resolve)?.integer ?? 2
            return DocMDPPermission(rawValue: Int(p)) ?? .formFilling
        }
        return nil
    }

    /// Checks a change of `kind` against the certification signature, as
    /// ``signatureGuard`` says: throws `PDFError(.state)` (refuse), warns (warn), or
    /// lets it pass. Called by the annotation and form APIs before they change anything.
    func checkCertification(allows kind: ModificationKind) throws {
        guard signatureGuard != .allow, let cert = try certification(), !kind.isAllowed(by: cert.permission) else { return }
        let message = "the document is certified with DocMDP permission P=\(cert.permission.rawValue), which does not allow "
            + "\(kind.text): the change would invalidate the certification signature"
        switch signatureGuard {
        case .refuse: throw PDFError(.state, message + " (set the signature guard to warn or allow to make it anyway)")
        case .warn: file.warn(message)
        case .allow: break
        }
    }

    /// Whether the unsaved changes, saved, would break the certification's permissions:
    /// the kind of the widest change made since the last save, if it is not allowed.
    public func certificationBrokenByUnsavedChanges() throws -> ModificationKind? {
        guard let cert = try certification(), let kind = unsavedModificationKind, !kind.isAllowed(by: cert.permission) else {
            return nil
        }
        return kind
    }

    /// What the unsaved changes, saved incrementally, would do to the document's
    /// signatures, in a sentence; nil when no signature would become invalid. A change the
    /// certification's DocMDP does not allow breaks the certification; a change beyond form
    /// filling, annotations and signing ("other": flattening, page content) breaks every
    /// signature, approval signatures too (as pyHanko judges them). Used by the sync
    /// service's layer export (docs/sync-protocol.md) to say so.
    public func signatureBreakage() throws -> String? {
        guard let kind = unsavedModificationKind else { return nil }
        if let cert = try certification(), !kind.isAllowed(by: cert.permission) {
            return "\(kind.text) is not allowed by the certification signature (DocMDP P=\(cert.permission.rawValue)): it would become invalid"
        }
        guard kind == .other else { return nil }
        let signed = try formFields().filter { f in
            guard f.type == .signature else { return false }
            return try dictionary(.reference(f.id))?["V"] != nil
        }.count
        guard signed > 0 else { return nil }
        return "\(kind.text) after \(signed == 1 ? "a signature" : "\(signed) signatures") would make \(signed == 1 ? "it" : "them") invalid"
    }

    /// Notes that a change of `kind` was made (see ``certificationBrokenByUnsavedChanges()``).
    func noteModification(_ kind: ModificationKind) {
        if unsavedModificationKind.map({ $0 < kind }) ?? true { unsavedModificationKind = kind }
    }
}
