import Dispatch
import FoundationEssentials
import Synchronization
import SwiftASN1
import X509

/// What checking one SignerInfo of a SignedData found.
struct SignerCheck {
    var signer: Certificate?
    var digest: DigestAlgorithm?
    /// The message-digest attribute (or, without signed attributes, the signature) matches
    /// the content.
    var intact = false
    /// The signature value verifies with the signer's public key.
    var signatureValid = false
    /// The message-digest attribute's value.
    var messageDigest: [UInt8]? = nil
    var problems: [SignatureProblem] = []
}

enum CMSVerifier {
    /// Checks the single SignerInfo of `data` against the content: `digestOf` gives the
    /// content's digest with an algorithm, `content` the content itself (needed only
    /// without signed attributes).
    static func check(_ data: SignedData, digestOf: (DigestAlgorithm) -> [UInt8], content: () -> [UInt8]) -> SignerCheck {
        var result = SignerCheck()
        guard data.signerInfos.count == 1, let info = data.signerInfos.first else {
            result.problems.append(.cmsUnreadable("the CMS has \(data.signerInfos.count) signers, not one"))
            return result
        }
        guard let digest = DigestAlgorithm(oid: info.digestAlgorithm.algorithm) else {
            result.problems.append(.unsupported("the digest algorithm \(info.digestAlgorithm.algorithm)"))
            return result
        }
        result.digest = digest
        if digest == .sha1 { result.problems.append(.weakAlgorithm("SHA-1")) }
        let signed: [UInt8]
        if let attrs = info.signedAttrs, let encoding = info.signedAttrsEncoding {
            guard let md = attrs.first(where: { $0.type == OID.messageDigest }), md.values.count == 1,
                  let value = try? ASN1OctetString(berASN1Any: md.values[0]) else {
                result.problems.append(.cmsUnreadable("the signed attributes have no message digest"))
                return result
            }
            result.messageDigest = Array(value.bytes)
            result.intact = Array(value.bytes) == digestOf(digest)
            if !result.intact { result.problems.append(.digestMismatch) }
            signed = encoding
        } else {
            let bytes = content()
            result.intact = true  // decided by the signature itself
            signed = bytes
        }
        // Intactness is the digest's: decided before the certificate is looked for, so that a
        // certificate Quire cannot read does not hide a changed byte (or an intact file).
        guard let signer = data.certificates.first(where: { info.sid.matches($0) }) else {
            result.problems.append(.cmsUnreadable("the signer's certificate is not in the CMS (or cannot be read)"))
            return result
        }
        result.signer = signer
        guard let algorithm = signatureAlgorithm(info.signatureAlgorithm.algorithm, digest: digest) else {
            result.problems.append(.unsupported("the signature algorithm \(info.signatureAlgorithm.algorithm)"))
            return result
        }
        result.signatureValid = signer.publicKey.isValidSignature(Array(info.signature), for: signed, signatureAlgorithm: algorithm)
        if !result.signatureValid {
            if info.signedAttrs == nil { result.intact = false; result.problems.append(.digestMismatch) }
            else { result.problems.append(.signatureInvalid("the signature value does not verify with the signer's public key")) }
        }
        return result
    }

    /// X509's algorithm for a SignerInfo's signatureAlgorithm: a specific one as it says, a
    /// bare key type (rsaEncryption, id-ecPublicKey, as many signers write) with the digest.
    static func signatureAlgorithm(_ oid: ASN1ObjectIdentifier, digest: DigestAlgorithm) -> Certificate.SignatureAlgorithm? {
        switch oid {
        case OID.sha1WithRSA: return .sha1WithRSAEncryption
        case OID.sha256WithRSA: return .sha256WithRSAEncryption
        case OID.sha384WithRSA: return .sha384WithRSAEncryption
        case OID.sha512WithRSA: return .sha512WithRSAEncryption
        case OID.ecdsaWithSHA256: return .ecdsaWithSHA256
        case OID.ecdsaWithSHA384: return .ecdsaWithSHA384
        case OID.ecdsaWithSHA512: return .ecdsaWithSHA512
        case OID.rsaEncryption:
            switch digest {
            case .sha1: return .sha1WithRSAEncryption
            case .sha256: return .sha256WithRSAEncryption
            case .sha384: return .sha384WithRSAEncryption
            case .sha512: return .sha512WithRSAEncryption
            }
        case OID.ecPublicKey:
            switch digest {
            case .sha1: return nil
            case .sha256: return .ecdsaWithSHA256
            case .sha384: return .ecdsaWithSHA384
            case .sha512: return .ecdsaWithSHA512
            }
        default: return nil
        }
    }

    /// The chain of `leaf` to one of `roots` through `intermediates`, checked by X509's
    /// Verifier (RFC 5280) at `time`. When that fails, again at the middle of the leaf's
    /// validity: a chain that holds then but not at `time` is expired (or not yet valid)
    /// at `time`; one that fails both ways does not reach a root.
    static func chain(leaf: Certificate, intermediates: [Certificate], roots: [Certificate], at time: Date) -> [SignatureProblem] {
        guard !roots.isEmpty else { return [.untrusted("no trust roots were given")] }
        let rootStore = CertificateStore(roots)
        let intermediateStore = CertificateStore(intermediates)
        guard let atTime = validate(leaf, intermediateStore, rootStore, time) else {
            return [.untrusted("the chain could not be checked")]
        }
        guard case .couldNotValidate(let failures) = atTime else { return [] }
        let why = failures.first.map { String(describing: $0.policyFailureReason) } ?? "no chain to a trust root"
        let middle = leaf.notValidBefore + leaf.notValidAfter.timeIntervalSince(leaf.notValidBefore) / 2
        if let inside = validate(leaf, intermediateStore, rootStore, middle), case .validCertificate = inside {
            return [.expired("a certificate of the chain was not valid at \(time) (\(why))")]
        }
        return [.untrusted("the signer's certificate does not chain to a trust root (\(why))")]
    }

    private static func validate(_ leaf: Certificate, _ intermediates: CertificateStore, _ roots: CertificateStore,
                                 _ time: Date) -> CertificateValidationResult? {
        blocking { () async -> CertificateValidationResult in
            var verifier = Verifier(rootCertificates: roots) {
                RFC5280Policy(validationTime: time)
                ExtendedKeyUsageSeen()
            }
            return await verifier.validate(leaf: leaf, intermediates: intermediates)
        }
    }

    /// Runs `body` to completion on a thread of its own and waits for it: the X509
    /// Verifier is async (its stores may be), while Quire's API, like its C callers, is
    /// synchronous. The body never runs on the caller's thread, so a caller on a thread of
    /// Swift's cooperative pool does not wait on itself.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached(executorPreference: verifierExecutor) {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}

/// Says that a critical extended key usage is understood: the Verifier rejects a chain
/// with a critical extension no policy claims, and signers' and time-stamping
/// authorities' certificates mark theirs critical. What the usages must be is checked
/// against the certificate's role (a time-stamping authority must have timeStamping).
struct ExtendedKeyUsageSeen: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [ASN1ObjectIdentifier.X509ExtensionID.extendedKeyUsage]
    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult { .meetsPolicy }
}

/// The executor of ``CMSVerifier/blocking(_:)``: a serial queue of its own.
final class QueueExecutor: TaskExecutor, @unchecked Sendable {
    let queue = DispatchQueue(label: "quire.signatures.verifier")
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

let verifierExecutor = QueueExecutor()
