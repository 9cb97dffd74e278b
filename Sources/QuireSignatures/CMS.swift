import Crypto
import SwiftASN1
import X509

// The Cryptographic Message Syntax of PDF signatures (RFC 5652 SignedData, detached), the
// ESS signing-certificate-v2 attribute (RFC 5035) and RFC 3161 time-stamp tokens, as
// swift-asn1 types: every byte is parsed and written by swift-asn1's BER/DER coders, keys
// and signatures are swift-crypto's through swift-certificates (X509), and certificate
// chains are checked by X509's Verifier.
//
// Why not swift-certificates' own CMS: its types (CMSSignedData, CMSSignerInfo,
// CMSAttribute) are internal, and its SPI signs with a fixed set of signed attributes
// (content-type, message-digest, signing-time): PAdES needs signing-certificate-v2 and no
// signing-time, and a time-stamp token is an unsigned attribute. So the structures are
// declared here, on the same coders, and swift-certificates' SPI verifier is used by the
// tests as a second opinion on what Quire writes.

/// Object identifiers of CMS, ESS, PAdES and RFC 3161.
enum OID {
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let tstInfo: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 16, 1, 4]
    static let contentType: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    static let messageDigest: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    static let signingTime: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    static let signingCertificate: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 16, 2, 12]
    static let signingCertificateV2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 16, 2, 47]
    static let signatureTimeStampToken: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 16, 2, 14]
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let sha1WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 5]
    static let sha256WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]
    static let sha384WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 12]
    static let sha512WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 13]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    static let ecdsaWithSHA384: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 3]
    static let ecdsaWithSHA512: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 4]
    static let timeStamping: ASN1ObjectIdentifier = [1, 3, 6, 1, 5, 5, 7, 3, 8]
}

/// A digest algorithm of a signature: SHA-256, SHA-384 or SHA-512 for signing; SHA-1 is
/// read (old signatures) and reported as weak.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case sha1 = "SHA-1", sha256 = "SHA-256", sha384 = "SHA-384", sha512 = "SHA-512"

    var oid: ASN1ObjectIdentifier {
        switch self {
        case .sha1: return OID.sha1
        case .sha256: return OID.sha256
        case .sha384: return OID.sha384
        case .sha512: return OID.sha512
        }
    }

    init?(oid: ASN1ObjectIdentifier) {
        guard let match = Self.allCases.first(where: { $0.oid == oid }) else { return nil }
        self = match
    }

    /// The digest of `parts`, in order.
    func digest<C: Collection>(_ parts: [C]) -> [UInt8] where C.Element == UInt8 {
        func run<H: HashFunction>(_ hasher: inout H) -> [UInt8] {
            for part in parts {
                if let done = part.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) {
                    _ = done
                } else {
                    hasher.update(data: Array(part))
                }
            }
            return Array(hasher.finalize())
        }
        switch self {
        case .sha1:
            var h = Insecure.SHA1()
            return run(&h)
        case .sha256:
            var h = SHA256()
            return run(&h)
        case .sha384:
            var h = SHA384()
            return run(&h)
        case .sha512:
            var h = SHA512()
            return run(&h)
        }
    }

    func digest(_ bytes: [UInt8]) -> [UInt8] { digest([bytes]) }
}

/// AlgorithmIdentifier (RFC 5280 §4.1.1.2): an OID and optional parameters, kept as read.
struct AlgorithmID: DERImplicitlyTaggable, Hashable {
    static var defaultIdentifier: ASN1Identifier { .sequence }
    var algorithm: ASN1ObjectIdentifier
    var parameters: ASN1Any?

    init(_ algorithm: ASN1ObjectIdentifier, parameters: ASN1Any? = nil) {
        self.algorithm = algorithm
        self.parameters = parameters
    }

    init(derEncoded node: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(node, identifier: identifier) { nodes in
            let algorithm = try ASN1ObjectIdentifier(berEncoded: &nodes)
            let parameters = nodes.next().map { ASN1Any(berEncoded: $0) }
            return AlgorithmID(algorithm, parameters: parameters)
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(algorithm)
            if let parameters { try coder.serialize(parameters) }
        }
    }

    /// A digest algorithm identifier: absent parameters, as RFC 5754 says to write them.
    static func digest(_ d: DigestAlgorithm) -> AlgorithmID { AlgorithmID(d.oid) }
}

/// Attribute (RFC 5652 §5.3): a type and a set of values, kept as read.
struct CMSAttr: DERImplicitlyTaggable, Hashable {
    static var defaultIdentifier: ASN1Identifier { .sequence }
    var type: ASN1ObjectIdentifier
    var values: [ASN1Any]

    init(_ type: ASN1ObjectIdentifier, _ values: [ASN1Any]) {
        self.type = type
        self.values = values
    }

    init(derEncoded node: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(node, identifier: identifier) { nodes in
            let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard let set = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "an attribute without values") }
            guard set.identifier == .set, case .constructed(let children) = set.content else {
                throw ASN1Error.unexpectedFieldType(set.identifier)
            }
            return CMSAttr(type, children.map { ASN1Any(berEncoded: $0) })
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(type)
            try coder.serializeSetOf(values)
        }
    }
}

/// IssuerAndSerialNumber (RFC 5652 §10.2.4).
struct IssuerAndSerial: DERImplicitlyTaggable, Hashable {
    static var defaultIdentifier: ASN1Identifier { .sequence }
    var issuer: DistinguishedName
    var serial: ArraySlice<UInt8>

    init(issuer: DistinguishedName, serial: ArraySlice<UInt8>) {
        self.issuer = issuer
        self.serial = serial
    }

    init(derEncoded node: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(node, identifier: identifier) { nodes in
            guard let issuerNode = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "no issuer") }
            let issuer = try DistinguishedName(derEncoded: issuerNode)
            // The serial's content octets as they are: old certificates have negative
            // serials, which an unsigned integer type refuses.
            guard let serialNode = nodes.next(), serialNode.identifier == .integer, case .primitive(let serial) = serialNode.content else {
                throw ASN1Error.invalidASN1Object(reason: "no serial number")
            }
            return IssuerAndSerial(issuer: issuer, serial: serial)
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(issuer)
            try coder.serialize(serial)
        }
    }
}

/// SignerIdentifier (RFC 5652 §5.3).
enum SignerID: Hashable {
    case issuerAndSerial(IssuerAndSerial)
    case subjectKeyIdentifier(ArraySlice<UInt8>)

    func matches(_ certificate: Certificate) -> Bool {
        switch self {
        case .issuerAndSerial(let s):
            // As integers: without the leading zero octets either side may carry.
            func trimmed(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> { b.drop { $0 == 0 } }
            return s.issuer == certificate.issuer && trimmed(s.serial) == trimmed(certificate.serialNumber.bytes)
        case .subjectKeyIdentifier(let k):
            return (try? certificate.extensions.subjectKeyIdentifier)??.keyIdentifier == k
        }
    }
}

/// SignerInfo (RFC 5652 §5.3). `signedAttrsEncoding` is the signed attributes as the
/// signer encoded them, retagged as a SET: what the signature covers.
struct SignerInfo {
    var version: Int
    var sid: SignerID
    var digestAlgorithm: AlgorithmID
    var signedAttrs: [CMSAttr]?
    var signedAttrsEncoding: [UInt8]?
    var signatureAlgorithm: AlgorithmID
    var signature: ArraySlice<UInt8>
    var unsignedAttrs: [CMSAttr]?

    static let signedAttrsTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    static let unsignedAttrsTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    init(sid: SignerID, digestAlgorithm: AlgorithmID, signedAttrs: [CMSAttr]?, signatureAlgorithm: AlgorithmID,
         signature: ArraySlice<UInt8>, unsignedAttrs: [CMSAttr]? = nil) {
        if case .subjectKeyIdentifier = sid { version = 3 } else { version = 1 }
        self.sid = sid
        self.digestAlgorithm = digestAlgorithm
        self.signedAttrs = signedAttrs
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
        self.unsignedAttrs = unsignedAttrs
    }

    init(node: ASN1Node) throws {
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard let sidNode = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "no signer identifier") }
            let sid: SignerID
            if sidNode.identifier == .sequence {
                sid = .issuerAndSerial(try IssuerAndSerial(derEncoded: sidNode))
            } else if sidNode.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                sid = .subjectKeyIdentifier(try ASN1OctetString(berEncoded: sidNode, withIdentifier: sidNode.identifier).bytes)
            } else {
                throw ASN1Error.unexpectedFieldType(sidNode.identifier)
            }
            let digestAlgorithm = try AlgorithmID(derEncoded: &nodes)
            var signedAttrs: [CMSAttr]? = nil
            var signedEncoding: [UInt8]? = nil
            var next = nodes.next()
            if let n = next, n.identifier == Self.signedAttrsTag {
                guard case .constructed(let children) = n.content else { throw ASN1Error.unexpectedFieldType(n.identifier) }
                signedAttrs = try children.map { try CMSAttr(derEncoded: $0) }
                // What the signature covers (RFC 5652 §5.4): the attributes' own encoding
                // under a SET tag, each attribute as the signer wrote it.
                var coder = DER.Serializer()
                coder.appendConstructedNode(identifier: .set) { coder in
                    for child in children { coder.serializeRawBytes(child.encodedBytes) }
                }
                signedEncoding = coder.serializedBytes
                next = nodes.next()
            }
            guard let algNode = next else { throw ASN1Error.invalidASN1Object(reason: "no signature algorithm") }
            let signatureAlgorithm = try AlgorithmID(derEncoded: algNode)
            let signature = try ASN1OctetString(berEncoded: &nodes).bytes
            var unsigned: [CMSAttr]? = nil
            if let n = nodes.next(), n.identifier == Self.unsignedAttrsTag, case .constructed(let children) = n.content {
                unsigned = try children.map { try CMSAttr(derEncoded: $0) }
            }
            var info = SignerInfo(sid: sid, digestAlgorithm: digestAlgorithm, signedAttrs: signedAttrs,
                                  signatureAlgorithm: signatureAlgorithm, signature: signature, unsignedAttrs: unsigned)
            info.version = version
            info.signedAttrsEncoding = signedEncoding
            return info
        }
    }

    func serialize(into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(version)
            switch sid {
            case .issuerAndSerial(let s): try coder.serialize(s)
            case .subjectKeyIdentifier(let k):
                try coder.serialize(ASN1OctetString(contentBytes: k), explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific)
            }
            try coder.serialize(digestAlgorithm)
            if let signedAttrs {
                try coder.appendConstructedNode(identifier: Self.signedAttrsTag) { coder in
                    for a in try Self.derSorted(signedAttrs) { coder.serializeRawBytes(a) }
                }
            }
            try coder.serialize(signatureAlgorithm)
            try coder.serialize(ASN1OctetString(contentBytes: signature))
            if let unsignedAttrs {
                try coder.appendConstructedNode(identifier: Self.unsignedAttrsTag) { coder in
                    for a in try Self.derSorted(unsignedAttrs) { coder.serializeRawBytes(a) }
                }
            }
        }
    }

    /// The DER of each attribute, in the order DER gives a SET OF (by encoding).
    static func derSorted(_ attrs: [CMSAttr]) throws -> [[UInt8]] {
        try attrs.map { a -> [UInt8] in
            var c = DER.Serializer()
            try c.serialize(a)
            return c.serializedBytes
        }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The DER SET of `attrs`: what a signature over signed attributes signs.
    static func signedAttributesDER(_ attrs: [CMSAttr]) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .set) { coder in
            for a in try derSorted(attrs) { coder.serializeRawBytes(a) }
        }
        return coder.serializedBytes
    }

    func attribute(_ type: ASN1ObjectIdentifier) -> CMSAttr? { signedAttrs?.first { $0.type == type } }
    func unsignedAttribute(_ type: ASN1ObjectIdentifier) -> CMSAttr? { unsignedAttrs?.first { $0.type == type } }
}

/// SignedData (RFC 5652 §5.1) inside its ContentInfo.
struct SignedData {
    var version: Int
    var digestAlgorithms: [AlgorithmID]
    var contentType: ASN1ObjectIdentifier
    var content: ArraySlice<UInt8>?
    /// The certificates that parsed (others, attribute certificates say, are skipped).
    var certificates: [Certificate]
    var signerInfos: [SignerInfo]

    static let zero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    static let one = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    init(digestAlgorithms: [AlgorithmID], contentType: ASN1ObjectIdentifier, content: ArraySlice<UInt8>?,
         certificates: [Certificate], signerInfos: [SignerInfo]) {
        // RFC 5652 §5.1: 1 for id-data with v1 signers only, 3 otherwise.
        version = contentType == OID.data && signerInfos.allSatisfy({ $0.version == 1 }) ? 1 : 3
        self.digestAlgorithms = digestAlgorithms
        self.contentType = contentType
        self.content = content
        self.certificates = certificates
        self.signerInfos = signerInfos
    }

    /// Parses a ContentInfo holding SignedData, BER or DER. Trailing zero bytes (the rest of
    /// a PDF's /Contents) are allowed; anything else after the ContentInfo is not.
    init(contentInfo bytes: ArraySlice<UInt8>) throws {
        let node = try SignedData.parseIgnoringPadding(bytes)
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard type == OID.signedData else {
                throw ASN1Error.invalidASN1Object(reason: "the content is \(type), not SignedData")
            }
            return try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                try SignedData(signedData: node)
            }
        }
    }

    private init(signedData node: ASN1Node) throws {
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard let algs = nodes.next(), algs.identifier == .set, case .constructed(let algNodes) = algs.content else {
                throw ASN1Error.invalidASN1Object(reason: "no digestAlgorithms")
            }
            let digestAlgorithms = try algNodes.map { try AlgorithmID(derEncoded: $0) }
            // EncapsulatedContentInfo
            guard let eci = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "no encapContentInfo") }
            var contentType: ASN1ObjectIdentifier = OID.data
            var content: ArraySlice<UInt8>? = nil
            try DER.sequence(eci, identifier: .sequence) { nodes in
                contentType = try ASN1ObjectIdentifier(berEncoded: &nodes)
                content = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    try ASN1OctetString(berEncoded: node).bytes
                }
            }
            var certificates: [Certificate] = []
            var next = nodes.next()
            if let n = next, n.identifier == Self.zero {
                if case .constructed(let certNodes) = n.content {
                    for c in certNodes where c.identifier == .sequence {
                        if let cert = try? Certificate(derEncoded: Array(c.encodedBytes)) { certificates.append(cert) }
                    }
                }
                next = nodes.next()
            }
            if let n = next, n.identifier == Self.one { next = nodes.next() }  // CRLs: not used
            guard let infos = next, infos.identifier == .set, case .constructed(let infoNodes) = infos.content else {
                throw ASN1Error.invalidASN1Object(reason: "no signerInfos")
            }
            let signerInfos = try infoNodes.map { try SignerInfo(node: $0) }
            var data = SignedData(digestAlgorithms: digestAlgorithms, contentType: contentType, content: content,
                                  certificates: certificates, signerInfos: signerInfos)
            data.version = version
            return data
        }
    }

    /// The ContentInfo's DER.
    func contentInfoDER() throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(OID.signedData)
            try coder.appendConstructedNode(identifier: Self.zero) { coder in
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    try coder.serialize(version)
                    try coder.serializeSetOf(digestAlgorithms)
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        try coder.serialize(contentType)
                        if let content {
                            try coder.serialize(ASN1OctetString(contentBytes: content), explicitlyTaggedWithTagNumber: 0,
                                                tagClass: .contextSpecific)
                        }
                    }
                    if !certificates.isEmpty {
                        try coder.appendConstructedNode(identifier: Self.zero) { coder in
                            for c in certificates { try coder.serialize(c) }
                        }
                    }
                    try coder.appendConstructedNode(identifier: .set) { coder in
                        for s in signerInfos { try s.serialize(into: &coder) }
                    }
                }
            }
        }
        return coder.serializedBytes
    }

    /// The ContentInfo at the start of `bytes`, which may be followed by zero bytes. The
    /// parser refuses trailing bytes, and a ContentInfo may itself end in zeros (a BER
    /// end-of-contents, a signature value): so the zeros are taken back one at a time until
    /// the ContentInfo parses, at most 256 of them.
    static func parseIgnoringPadding(_ bytes: ArraySlice<UInt8>) throws -> ASN1Node {
        var end = bytes.endIndex
        while end > bytes.startIndex && bytes[end - 1] == 0 { end -= 1 }
        var lastError: any Error = ASN1Error.truncatedASN1Field()
        for extra in 0...256 {
            guard end + extra <= bytes.endIndex else { break }
            do {
                return try BER.parse(bytes[bytes.startIndex..<(end + extra)])
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}

// MARK: ESS signing-certificate-v2 (RFC 5035)

/// SigningCertificateV2 with one ESSCertIDv2: the SHA-256 of the signer's certificate
/// (the hash algorithm is then the default, left out as DER requires).
struct SigningCertificateV2 {
    var certHashes: [(algorithm: DigestAlgorithm, hash: ArraySlice<UInt8>)]

    init(certificate: Certificate) throws {
        var coder = DER.Serializer()
        try coder.serialize(certificate)
        certHashes = [(.sha256, DigestAlgorithm.sha256.digest(coder.serializedBytes)[...])]
    }

    init(any: ASN1Any) throws {
        var coder = DER.Serializer()
        try coder.serialize(any)
        let node = try BER.parse(coder.serializedBytes)
        certHashes = try DER.sequence(node, identifier: .sequence) { nodes in
            guard let certs = nodes.next(), case .constructed(let ids) = certs.content else {
                throw ASN1Error.invalidASN1Object(reason: "no certs in signing-certificate-v2")
            }
            return try ids.map { id in
                try DER.sequence(id, identifier: .sequence) { nodes in
                    var algorithm = DigestAlgorithm.sha256
                    var first = nodes.next()
                    if let f = first, f.identifier == .sequence {
                        let alg = try AlgorithmID(derEncoded: f)
                        guard let d = DigestAlgorithm(oid: alg.algorithm) else {
                            throw ASN1Error.invalidASN1Object(reason: "unknown certificate hash algorithm \(alg.algorithm)")
                        }
                        algorithm = d
                        first = nodes.next()
                    }
                    guard let h = first else { throw ASN1Error.invalidASN1Object(reason: "no certHash") }
                    while nodes.next() != nil {}
                    return (algorithm, try ASN1OctetString(berEncoded: h).bytes)
                }
            }
        }
    }

    func asn1Any() throws -> ASN1Any {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                for (algorithm, hash) in certHashes {
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        if algorithm != .sha256 { try coder.serialize(AlgorithmID.digest(algorithm)) }
                        try coder.serialize(ASN1OctetString(contentBytes: hash))
                    }
                }
            }
        }
        return ASN1Any(derEncoded: try DER.parse(coder.serializedBytes))
    }

    /// Whether `certificate` is the one named (any of the hashes matches).
    func names(_ certificate: Certificate) -> Bool {
        var coder = DER.Serializer()
        guard (try? coder.serialize(certificate)) != nil else { return false }
        let der = coder.serializedBytes
        return certHashes.contains { $0.algorithm.digest(der)[...] == $0.hash }
    }
}

// MARK: RFC 3161 time stamps

/// MessageImprint (RFC 3161 §2.4.1).
struct MessageImprint: Equatable {
    var algorithm: DigestAlgorithm
    var hash: ArraySlice<UInt8>

    init(algorithm: DigestAlgorithm, hash: ArraySlice<UInt8>) {
        self.algorithm = algorithm
        self.hash = hash
    }

    init(node: ASN1Node) throws {
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            let alg = try AlgorithmID(derEncoded: &nodes)
            guard let d = DigestAlgorithm(oid: alg.algorithm) else {
                throw ASN1Error.invalidASN1Object(reason: "unknown message imprint algorithm \(alg.algorithm)")
            }
            return MessageImprint(algorithm: d, hash: try ASN1OctetString(berEncoded: &nodes).bytes)
        }
    }

    func serialize(into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(AlgorithmID.digest(algorithm))
            try coder.serialize(ASN1OctetString(contentBytes: hash))
        }
    }
}

/// TimeStampReq (RFC 3161 §2.4.1), with a nonce and certReq set.
struct TimeStampRequest {
    var imprint: MessageImprint
    var nonce: ArraySlice<UInt8>

    func der() throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(1)
            try imprint.serialize(into: &coder)
            try coder.serialize(nonce)
            try coder.serialize(true)
        }
        return coder.serializedBytes
    }
}

/// The TimeStampToken of a TimeStampResp (RFC 3161 §2.4.2), or why there is none.
enum TimeStampResponse {
    /// The token's ContentInfo, as the TSA encoded it, out of a response whose status is
    /// granted (0) or grantedWithMods (1).
    static func token(fromResponse bytes: [UInt8]) throws -> [UInt8] {
        let node = try BER.parse(bytes)
        return try DER.sequence(node, identifier: .sequence) { nodes in
            guard let statusInfo = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "no status") }
            let status = try DER.sequence(statusInfo, identifier: .sequence) { nodes -> Int in
                let s = try Int(berEncoded: &nodes)
                while nodes.next() != nil {}
                return s
            }
            guard status == 0 || status == 1 else {
                throw SignatureError.timestamp("the time-stamping authority refused the request (PKIStatus \(status))")
            }
            guard let token = nodes.next() else { throw SignatureError.timestamp("the time-stamp response holds no token") }
            return Array(token.encodedBytes)
        }
    }
}

/// What a TSTInfo (RFC 3161 §2.4.2) says that validation uses.
struct TSTInfo {
    var imprint: MessageImprint
    var genTime: GeneralizedTime
    var nonce: ArraySlice<UInt8>?

    init(der bytes: ArraySlice<UInt8>) throws {
        let node = try BER.parse(bytes)
        self = try DER.sequence(node, identifier: .sequence) { nodes in
            _ = try Int(berEncoded: &nodes)
            _ = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard let mi = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "no messageImprint") }
            let imprint = try MessageImprint(node: mi)
            _ = try ArraySlice<UInt8>(berEncoded: &nodes)
            let genTime = try GeneralizedTime(berEncoded: &nodes)
            var nonce: ArraySlice<UInt8>? = nil
            while let n = nodes.next() {
                if n.identifier == .integer { nonce = try ArraySlice<UInt8>(berEncoded: n) }
            }
            return TSTInfo(imprint: imprint, genTime: genTime, nonce: nonce)
        }
    }

    private init(imprint: MessageImprint, genTime: GeneralizedTime, nonce: ArraySlice<UInt8>?) {
        self.imprint = imprint
        self.genTime = genTime
        self.nonce = nonce
    }
}
