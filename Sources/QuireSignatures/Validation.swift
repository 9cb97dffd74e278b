import FoundationEssentials
import QuireDocument
import QuireSyntax
import SwiftASN1
import X509

/// A specific reason a signature is not valid (or is valid with a caveat).
public enum SignatureProblem: Sendable, Equatable, CustomStringConvertible {
    /// The signature dictionary is missing /ByteRange or /Contents, or they are malformed.
    case malformed(String)
    /// /ByteRange does not start at 0, reaches past the file, or leaves out more than the
    /// /Contents hex string.
    case byteRange(String)
    /// The bytes the signature covers are not the ones that were signed (a byte changed).
    case digestMismatch
    /// The signature value does not verify with the signer's key.
    case signatureInvalid(String)
    /// /Contents is not a CMS SignedData Quire can read.
    case cmsUnreadable(String)
    /// An algorithm or form Quire does not check.
    case unsupported(String)
    /// The signer's certificate does not chain to a trust root.
    case untrusted(String)
    /// A certificate of the chain was not valid at the signing time.
    case expired(String)
    /// The signer's certificate may not sign (its key usage).
    case keyUsage(String)
    /// The signature dictionary is not in the revision the signature covers (the
    /// signature is over another revision).
    case notInSignedRevision(String)
    /// The document was changed after the signature in a way its DocMDP permissions (or,
    /// for an approval signature, the rules of incremental signing) do not allow.
    case disallowedChange(ModificationKind, permission: DocMDPPermission?)
    /// The time-stamp token is not over this signature, does not verify, or its authority
    /// is not trusted.
    case timestamp(String)
    /// A weak algorithm (SHA-1).
    case weakAlgorithm(String)
    /// The signature does not follow the PAdES baseline profile its /SubFilter claims.
    case profile(String)

    public var description: String {
        switch self {
        case .malformed(let m): return "malformed signature dictionary: \(m)"
        case .byteRange(let m): return "bad /ByteRange: \(m)"
        case .digestMismatch: return "the signed bytes were changed (digest mismatch)"
        case .signatureInvalid(let m): return "invalid signature: \(m)"
        case .cmsUnreadable(let m): return "unreadable CMS: \(m)"
        case .unsupported(let m): return "unsupported: \(m)"
        case .untrusted(let m): return "untrusted: \(m)"
        case .expired(let m): return "expired: \(m)"
        case .keyUsage(let m): return "key usage: \(m)"
        case .notInSignedRevision(let m): return "signature over another revision: \(m)"
        case .disallowedChange(let kind, let p):
            return "changed after signing (\(kind)) " + (p.map { "against DocMDP P=\($0.rawValue)" } ?? "in a way no signature allows")
        case .timestamp(let m): return "time stamp: \(m)"
        case .weakAlgorithm(let m): return "weak algorithm: \(m)"
        case .profile(let m): return "PAdES profile: \(m)"
        }
    }

    /// Whether the problem makes the signature invalid (weak algorithms and profile
    /// deviations are reported without invalidating it).
    public var isFatal: Bool {
        switch self {
        case .weakAlgorithm, .profile: return false
        default: return true
        }
    }
}

/// How much of the file a signature covers.
public enum SignatureCoverage: String, Sendable {
    /// The whole file but /Contents.
    case entireFile
    /// A whole earlier revision: later revisions were appended after it.
    case entireRevision
    /// Something else (not a revision boundary).
    case partial
}

/// The time-stamp token of a signature (PAdES B-T).
public struct TimestampReport: Sendable {
    /// The time the authority vouches for.
    public let time: Date
    /// The token is over this signature's value and verifies.
    public let intact: Bool
    /// The authority's certificate chains to the trust roots and may time-stamp.
    public let trusted: Bool
    public let authority: String?
}

/// An object changed after a signature, and what kind of change it is.
public struct ChangedObject: Sendable, Equatable, CustomStringConvertible {
    public let object: Int
    public let kind: ModificationKind
    public var description: String { "object \(object): \(kind)" }
}

/// One signature of a document, validated.
public struct SignatureReport: @unchecked Sendable {
    /// The signature field's full name and object.
    public let fieldName: String
    public let field: ObjectID
    /// The signature dictionary (nil when the field's /V is direct).
    public let signatureObject: ObjectID?
    public let subFilter: String?
    /// The signer's certificate, when the CMS could be read.
    public let signer: Certificate?
    /// The signer's common name.
    public var signerName: String? { signer?.subject.commonName }
    /// The signing time the signer claims (/M, or the signing-time attribute).
    public let claimedTime: Date?
    public let timestamp: TimestampReport?
    public let digest: DigestAlgorithm?
    /// The DocMDP permissions of a certification signature (nil: an approval signature).
    public let certification: DocMDPPermission?
    public let byteRange: [Int]
    public let coverage: SignatureCoverage
    /// The digest over /ByteRange is the signed one.
    public let intact: Bool
    /// The signature value verifies with the signer's key.
    public let signatureValid: Bool
    /// The signer's chain reaches a trust root and was valid at the signing time.
    public let trusted: Bool
    /// The widest change made after this signature (nil: none).
    public let modification: ModificationKind?
    /// The objects changed after it, each with its class.
    public let changedObjects: [ChangedObject]
    /// The changes after it are allowed (by its DocMDP, or for an approval signature: no
    /// change beyond form filling, annotations and signing).
    public let changesAllowed: Bool
    /// The PAdES baseline level it meets (B-B, B-T), for an ETSI.CAdES.detached signature.
    public let padesLevel: String?
    /// Everything found wrong, each specific.
    public let problems: [SignatureProblem]

    /// Intact, valid, trusted, and nothing after it that it does not allow.
    public var isValid: Bool { !problems.contains(where: \.isFatal) }
}

/// What to validate against.
public struct ValidationOptions: @unchecked Sendable {
    /// The certificates a chain must reach (the test CA, a company root, ...).
    public var trustRoots: [Certificate]
    /// Intermediates to use besides those the signature embeds.
    public var intermediates: [Certificate] = []
    /// Validate at this time instead of the signing time (the time stamp's if there is a
    /// valid one, else the claimed one).
    public var time: Date? = nil

    public init(trustRoots: [Certificate]) {
        self.trustRoots = trustRoots
    }
}

/// Limits of validation.
public enum ValidationLimits {
    /// The most signature fields validated per document.
    public static let maxSignatures = 1_000
}

extension Document {
    /// Every signed signature field of the document, validated: integrity (the digest
    /// over /ByteRange), coverage and what changed after each signature (classified by
    /// DocMDP), the CMS signature, and the signer's chain against `options.trustRoots` at
    /// the signing time. Unsaved changes are not looked at: the file's bytes are.
    public func signatures(_ options: ValidationOptions) throws -> [SignatureReport] {
        let bytes = try file.buffer.withBytes(loading: [0..<file.buffer.count]) { Array($0) }
        var reports: [SignatureReport] = []
        let revisions = RevisionCache(bytes: bytes, limits: self.options.limits)
        for field in try formFields() where field.type == .signature {
            guard let fieldDict = try dictionary(.reference(field.id)), let v = fieldDict["V"] else { continue }
            guard reports.count < ValidationLimits.maxSignatures else {
                throw PDFError(limit: "max_signatures", ValidationLimits.maxSignatures, "the signatures validated")
            }
            guard let sig = try dictionary(v) else { continue }
            reports.append(try validate(field: field, signature: sig, ref: v.reference, bytes: bytes, revisions: revisions, options))
        }
        return reports
    }

    private func validate(field: FormField, signature sig: PDFDictionary, ref: ObjectID?, bytes: [UInt8],
                          revisions: RevisionCache, _ options: ValidationOptions) throws -> SignatureReport {
        var problems: [SignatureProblem] = []
        let subFilter = try sig["SubFilter"].map(resolve)?.name?.value
        let claimedM = try sig["M"].map(resolve)?.string.flatMap { PDFDate($0.text) }
        let permission = try Document.docMDPPermission(of: sig, in: self)
        func report(signer: Certificate? = nil, claimed: Date? = nil, timestamp: TimestampReport? = nil, digest: DigestAlgorithm? = nil,
                    range: [Int] = [], coverage: SignatureCoverage = .partial, intact: Bool = false, signatureValid: Bool = false,
                    trusted: Bool = false, modification: ModificationKind? = nil, changes: [ChangedObject] = [],
                    allowed: Bool = false, pades: String? = nil) -> SignatureReport {
            SignatureReport(fieldName: field.name, field: field.id, signatureObject: ref, subFilter: subFilter, signer: signer,
                            claimedTime: claimed ?? claimedM.map { Date(timeIntervalSince1970: Double($0.secondsSinceEpoch)) },
                            timestamp: timestamp, digest: digest, certification: permission, byteRange: range,
                            coverage: coverage, intact: intact, signatureValid: signatureValid, trusted: trusted,
                            modification: modification, changedObjects: changes, changesAllowed: allowed, padesLevel: pades, problems: problems)
        }
        // /ByteRange and /Contents.
        guard let rangeItems = try sig["ByteRange"].map(resolve)?.array, rangeItems.count == 4 else {
            problems.append(.malformed("/ByteRange is not an array of four integers"))
            return report()
        }
        let range = try rangeItems.map { try resolve($0).integer.flatMap { Int(exactly: $0) } ?? -1 }
        guard let contents = try sig["Contents"].map(resolve)?.string?.bytes else {
            problems.append(.malformed("/Contents is not a string"))
            return report(range: range)
        }
        let (start1, len1, start2, len2) = (range[0], range[1], range[2], range[3])
        guard start1 == 0, len1 >= 0, start2 >= len1, len2 >= 0, start2 <= bytes.count, len2 <= bytes.count - start2 else {
            problems.append(.byteRange("\(range) does not start at 0 or does not lie within the file of \(bytes.count) bytes"))
            return report(range: range)
        }
        let signedEnd = start2 + len2
        // The gap must be exactly the hex string of /Contents. When it holds more (a signature
        // wrapping attack, as the corpus's siwa.pdf: other bytes hidden in the hole), the
        // signature covers less than the file or revision: partial, as pyHanko's UNCLEAR.
        let gapIsContents = Self.gapIsContents(bytes, from: len1, to: start2, contents: contents)
        if !gapIsContents {
            problems.append(.byteRange("the bytes it leaves out (\(len1)..<\(start2)) are not exactly the /Contents hex string"))
        }
        let coverage: SignatureCoverage
        if !gapIsContents {
            coverage = .partial
        } else if signedEnd == bytes.count {
            coverage = .entireFile
        } else if revisions.isRevisionEnd(signedEnd) {
            coverage = .entireRevision
        } else {
            coverage = .partial
            problems.append(.byteRange("it ends at byte \(signedEnd), which is not the end of a revision"))
        }
        // The CMS.
        let data: SignedData
        do {
            data = try SignedData(contentInfo: contents[...])
        } catch {
            problems.append(.cmsUnreadable(String(describing: error)))
            return report(range: range, coverage: coverage)
        }
        if let sf = subFilter, sf != SignatureSubFilter.pades.rawValue && sf != SignatureSubFilter.pkcs7.rawValue {
            problems.append(.unsupported("the /SubFilter \(sf)"))
            return report(range: range, coverage: coverage)
        }
        let first = bytes[0..<len1]
        let second = bytes[start2..<signedEnd]
        let check = CMSVerifier.check(data, digestOf: { d in d.digest([first, second]) }, content: { Array(first) + Array(second) })
        problems += check.problems
        // The signing time: the signing-time attribute, else /M.
        var claimed: Date? = nil
        if let info = data.signerInfos.first, let st = info.attribute(OID.signingTime), let v = st.values.first {
            if let t = try? UTCTime(asn1Any: v) { claimed = Date(t) } else if let g = try? GeneralizedTime(asn1Any: v) { claimed = Date(g) }
        }
        // The time-stamp token.
        var timestamp: TimestampReport? = nil
        if let info = data.signerInfos.first, let attr = info.unsignedAttribute(OID.signatureTimeStampToken), let token = attr.values.first {
            timestamp = checkTimestamp(token, over: Array(info.signature), options: options, problems: &problems)
        }
        // The chain, at the signing time.
        var trusted = false
        if let signer = check.signer {
            let time = options.time ?? (timestamp?.intact == true ? timestamp?.time : nil) ?? claimed
                ?? claimedM.map { Date(timeIntervalSince1970: Double($0.secondsSinceEpoch)) } ?? Date()
            let chainProblems = CMSVerifier.chain(leaf: signer, intermediates: data.certificates + options.intermediates,
                                                  roots: options.trustRoots, at: time)
            problems += chainProblems
            if let ku = try? signer.extensions.keyUsage, !ku.digitalSignature && !ku.nonRepudiation {
                problems.append(.keyUsage("the signer's certificate allows neither digitalSignature nor nonRepudiation"))
            }
            trusted = chainProblems.isEmpty
        }
        // PAdES: signing-certificate(-v2) naming the signer, no signing-time attribute.
        var pades: String? = nil
        if subFilter == SignatureSubFilter.pades.rawValue, let info = data.signerInfos.first {
            var ok = true
            if let attr = info.attribute(OID.signingCertificateV2), let v = attr.values.first, let signer = check.signer {
                if !((try? SigningCertificateV2(any: v))?.names(signer) ?? false) {
                    problems.append(.signatureInvalid("the signing-certificate-v2 attribute names another certificate"))
                    ok = false
                }
            } else if info.attribute(OID.signingCertificate) == nil {
                problems.append(.profile("no signing-certificate-v2 attribute"))
                ok = false
            }
            if info.attribute(OID.signingTime) != nil {
                problems.append(.profile("a signing-time attribute, which PAdES forbids"))
                ok = false
            }
            if ok { pades = timestamp?.intact == true ? "B-T" : "B-B" }
        }
        // The signature dictionary must be in the revision it signs.
        if let ref, coverage == .entireRevision || coverage == .entireFile {
            if let old = revisions.document(endingAt: signedEnd), let oldSig = try? old.dictionary(try old.object(ref.number)) {
                if oldSig["Contents"] != sig["Contents"] || oldSig["ByteRange"] != sig["ByteRange"] {
                    problems.append(.notInSignedRevision("the signed revision's object \(ref) holds another signature"))
                }
            } else if coverage == .entireRevision {
                problems.append(.notInSignedRevision("object \(ref) is not in the signed revision"))
            }
        }
        // A CMS made over an earlier revision's bytes, moved into a later signature dictionary.
        if let ref, !check.intact, let md = check.messageDigest, let digest = check.digest {
            for end in revisions.revisionEnds() where end < bytes.count {
                guard let old = revisions.document(endingAt: end), let oldSig = try? old.dictionary(try old.object(ref.number)),
                      oldSig["ByteRange"] != sig["ByteRange"],
                      let items = oldSig["ByteRange"]?.array, items.count == 4 else { continue }
                let r = items.map { $0.integer.flatMap { Int(exactly: $0) } ?? -1 }
                guard r[0] == 0, r[1] >= 0, r[2] >= r[1], r[3] >= 0, r[2] <= end, r[3] <= end - r[2] else { continue }
                if digest.digest([bytes[0..<r[1]], bytes[r[2]..<(r[2] + r[3])]]) == md {
                    problems.append(.notInSignedRevision("its CMS was made over the bytes of an earlier revision (/ByteRange \(r)), not these"))
                    break
                }
            }
        }
        // What changed after it.
        var modification: ModificationKind? = nil
        var changes: [ChangedObject] = []
        if coverage == .entireRevision, let old = revisions.document(endingAt: signedEnd) {
            var classifier = ChangeClassifier(old: old, new: self)
            modification = try classifier.widestChange()
            changes = classifier.changes.map { ChangedObject(object: $0.object, kind: $0.kind) }
        }
        let allowed: Bool
        if let m = modification {
            allowed = permission.map { m.isAllowed(by: $0) } ?? (m != .other)
            if !allowed { problems.append(.disallowedChange(m, permission: permission)) }
        } else {
            allowed = true
        }
        return report(signer: check.signer, claimed: claimed, timestamp: timestamp, digest: check.digest, range: range,
                      coverage: coverage, intact: check.intact, signatureValid: check.signatureValid, trusted: trusted,
                      modification: modification, changes: changes, allowed: allowed, pades: pades)
    }

    /// Whether bytes `from..<to` are `<hex>` and the hex is `contents` (hex digits of
    /// `contents`, then optionally more zero padding is not allowed: exactly its bytes).
    static func gapIsContents(_ bytes: [UInt8], from: Int, to: Int, contents: [UInt8]) -> Bool {
        guard to - from >= 2, bytes[from] == UInt8(ascii: "<"), bytes[to - 1] == UInt8(ascii: ">") else { return false }
        var decoded: [UInt8] = []
        decoded.reserveCapacity((to - from) / 2)
        var high: UInt8? = nil
        for b in bytes[(from + 1)..<(to - 1)] {
            let v: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = b - UInt8(ascii: "A") + 10
            case 0x20, 0x0A, 0x0D, 0x09, 0x0C, 0x00: continue
            default: return false
            }
            if let h = high { decoded.append(h << 4 | v); high = nil } else { high = v }
        }
        if let h = high { decoded.append(h << 4) }
        return decoded == contents
    }

    private func checkTimestamp(_ token: ASN1Any, over signature: [UInt8], options: ValidationOptions,
                                problems: inout [SignatureProblem]) -> TimestampReport? {
        var coder = DER.Serializer()
        guard (try? coder.serialize(token)) != nil, let data = try? SignedData(contentInfo: coder.serializedBytes[...]),
              data.contentType == OID.tstInfo, let content = data.content, let info = try? TSTInfo(der: content) else {
            problems.append(.timestamp("the time-stamp token cannot be read"))
            return nil
        }
        let time = Date(info.genTime)
        var intact = info.imprint.hash == info.imprint.algorithm.digest(signature)[...]
        if !intact { problems.append(.timestamp("the token's message imprint is not this signature's")) }
        let check = CMSVerifier.check(data, digestOf: { $0.digest([content]) }, content: { Array(content) })
        if !(check.intact && check.signatureValid) {
            intact = false
            problems.append(.timestamp("the token's own signature does not verify"))
        }
        var trusted = false
        if let tsa = check.signer {
            let chain = CMSVerifier.chain(leaf: tsa, intermediates: data.certificates + options.intermediates,
                                          roots: options.trustRoots, at: time)
            let eku = (try? tsa.extensions.extendedKeyUsage)??.contains(.timeStamping) ?? false
            if !chain.isEmpty { problems.append(.timestamp("the authority is not trusted: \(chain.map(\.description).joined(separator: "; "))")) }
            if !eku { problems.append(.timestamp("the authority's certificate is not for time stamping")) }
            trusted = chain.isEmpty && eku
        }
        return TimestampReport(time: time, intact: intact, trusted: trusted, authority: check.signer?.subject.commonName)
    }
}

/// The earlier revisions of a file, opened once each: where they end, and each as a
/// document of its own.
final class RevisionCache {
    let bytes: [UInt8]
    let limits: PDFLimits
    private var opened: [Int: Document?] = [:]

    init(bytes: [UInt8], limits: PDFLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Whether a revision ends at `end`: the bytes before it end with `%%EOF` and an
    /// optional end of line.
    func isRevisionEnd(_ end: Int) -> Bool {
        guard end >= 5, end <= bytes.count else { return false }
        var e = end
        if e > 0 && bytes[e - 1] == 0x0A { e -= 1 }
        if e > 0 && bytes[e - 1] == 0x0D { e -= 1 }
        return e >= 5 && bytes[(e - 5)..<e].elementsEqual("%%EOF".utf8)
    }

    /// Where each revision ends (after its `%%EOF` and end of line), in order.
    func revisionEnds() -> [Int] {
        var ends: [Int] = []
        let marker = Array("%%EOF".utf8)
        var i = 0
        while i + marker.count <= bytes.count {
            if bytes[i] == marker[0] && bytes[i..<(i + marker.count)].elementsEqual(marker) {
                var e = i + marker.count
                if e < bytes.count && bytes[e] == 0x0D { e += 1 }
                if e < bytes.count && bytes[e] == 0x0A { e += 1 }
                ends.append(e)
                i = e
            } else {
                i += 1
            }
        }
        return ends
    }

    /// The file's first `end` bytes, opened as a document (nil if they do not open).
    func document(endingAt end: Int) -> Document? {
        if let d = opened[end] { return d }
        let d = try? Document(buffer: ByteBuffer(copying: bytes[0..<end]), options: OpenOptions(limits: limits))
        opened[end] = d
        return d
    }
}
