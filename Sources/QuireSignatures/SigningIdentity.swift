import Crypto
import CryptoExtras
import FoundationEssentials
import SwiftASN1
import X509

/// Why signing or reading a signature failed.
public enum SignatureError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The key or certificate could not be read (wrong format, wrong password, a key that
    /// does not match the certificate).
    case credentials(String)
    /// The key or algorithm is not one Quire signs with.
    case unsupported(String)
    /// The document or field cannot be signed as asked.
    case invalidField(String)
    /// A certification signature's permissions forbid the change.
    case docMDP(String)
    /// The time-stamping callback failed or its answer is not a usable token.
    case timestamp(String)
    /// The caller's callback asked to stop.
    case cancelled(String)

    public var description: String {
        switch self {
        case .credentials(let m), .unsupported(let m), .invalidField(let m), .docMDP(let m), .timestamp(let m),
             .cancelled(let m):
            return m
        }
    }
}

/// A signer: a private key (RSA of 2048 bits or more, ECDSA on P-256 or P-384), its
/// certificate, and the other certificates of its chain to embed.
public struct SigningIdentity: @unchecked Sendable {
    public let certificate: Certificate
    /// Intermediate (and possibly root) certificates, embedded in the signature so that a
    /// validator can build the chain.
    public let chain: [Certificate]
    /// The signer's common name (CN), if its certificate has one.
    public var commonName: String? { certificate.subject.commonName }
    let privateKey: Certificate.PrivateKey
    /// The kind of key, for the signature algorithm.
    let keyKind: KeyKind

    enum KeyKind: Equatable {
        case rsa(bits: Int)
        case p256, p384
    }

    /// A key and certificates already parsed. The key must match the certificate.
    init(privateKey: Certificate.PrivateKey, kind: KeyKind, certificates: [Certificate]) throws {
        let publicKey = privateKey.publicKey
        guard let leaf = certificates.first(where: { $0.publicKey == publicKey }) else {
            throw SignatureError.credentials(certificates.isEmpty ? "no certificate was given with the key"
                                             : "none of the certificates is the key's (their public keys differ)")
        }
        self.privateKey = privateKey
        self.keyKind = kind
        self.certificate = leaf
        self.chain = certificates.filter { $0 != leaf }
    }

    /// From PEM text holding the private key (PKCS#8 `PRIVATE KEY`, `RSA PRIVATE KEY`,
    /// `EC PRIVATE KEY`, or an `ENCRYPTED PRIVATE KEY` with `password`: PBES2 with PBKDF2
    /// and AES-CBC) and the certificates (`CERTIFICATE`), in one text or two: the signer's
    /// certificate is the one whose public key is the key's; the others are its chain.
    public init(pem: String, certificatesPEM: String? = nil, password: String? = nil) throws {
        var documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pem)
            if let certificatesPEM { documents += try PEMDocument.parseMultiple(pemString: certificatesPEM) }
        } catch {
            throw SignatureError.credentials("the PEM text cannot be read: \(error)")
        }
        var key: (Certificate.PrivateKey, KeyKind)? = nil
        var certificates: [Certificate] = []
        for doc in documents {
            switch doc.discriminator {
            case "CERTIFICATE":
                do {
                    certificates.append(try Certificate(derEncoded: doc.derBytes))
                } catch {
                    throw SignatureError.credentials("a PEM CERTIFICATE cannot be read: \(error)")
                }
            case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
                guard key == nil else { throw SignatureError.credentials("the PEM text holds more than one private key") }
                key = try Self.privateKey(der: doc.derBytes, discriminator: doc.discriminator)
            case "ENCRYPTED PRIVATE KEY":
                guard key == nil else { throw SignatureError.credentials("the PEM text holds more than one private key") }
                guard let password else { throw SignatureError.credentials("the private key is encrypted: give its password") }
                let der = try PKCS5.decryptPrivateKeyInfo(doc.derBytes[...], password: Array(password.utf8))
                key = try Self.privateKey(der: der, discriminator: "PRIVATE KEY")
            default:
                continue
            }
        }
        guard let (privateKey, kind) = key else { throw SignatureError.credentials("the PEM text holds no private key") }
        try self.init(privateKey: privateKey, kind: kind, certificates: certificates)
    }

    /// From a PKCS#12 file (`.p12`, `.pfx`) protected by `password`, as OpenSSL 3 and
    /// Python's `cryptography` write it: PBES2 (PBKDF2 with HMAC-SHA-1/256/384/512, AES-CBC).
    /// The legacy PKCS#12 ciphers (RC2, 3DES) are refused: swift-crypto has neither. The
    /// file's MAC is not checked (its key derivation is PKCS#12's own, which no maintained
    /// Swift library implements): a wrong password fails the decryption instead, and the key
    /// must match a certificate.
    public init(pkcs12 bytes: [UInt8], password: String) throws {
        let bags = try PKCS12.read(bytes, password: Array(password.utf8))
        guard let der = bags.keys.first else { throw SignatureError.credentials("the PKCS#12 file holds no private key") }
        guard bags.keys.count == 1 else { throw SignatureError.credentials("the PKCS#12 file holds more than one private key") }
        let (privateKey, kind) = try Self.privateKey(der: der, discriminator: "PRIVATE KEY")
        let certificates = try bags.certificates.map { der -> Certificate in
            do { return try Certificate(derEncoded: der) } catch {
                throw SignatureError.credentials("a certificate of the PKCS#12 file cannot be read: \(error)")
            }
        }
        try self.init(privateKey: privateKey, kind: kind, certificates: certificates)
    }

    /// The certificates of PEM text (trust roots, say), in order.
    public static func certificates(pem: String) throws -> [Certificate] {
        do {
            return try PEMDocument.parseMultiple(pemString: pem).filter { $0.discriminator == "CERTIFICATE" }
                .map { try Certificate(derEncoded: $0.derBytes) }
        } catch {
            throw SignatureError.credentials("the PEM certificates cannot be read: \(error)")
        }
    }

    /// A private key from its DER: RSA (2048 bits or more) or ECDSA on P-256 or P-384.
    static func privateKey(der: [UInt8], discriminator: String) throws -> (Certificate.PrivateKey, KeyKind) {
        let pem = PEMDocument(type: discriminator, derBytes: der).pemString
        if discriminator != "EC PRIVATE KEY", let rsa = try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem) {
            guard rsa.keySizeInBits >= 2048 else {
                throw SignatureError.unsupported("an RSA key of \(rsa.keySizeInBits) bits: Quire signs with 2048 bits or more")
            }
            return (Certificate.PrivateKey(rsa), .rsa(bits: rsa.keySizeInBits))
        }
        if discriminator != "RSA PRIVATE KEY" {
            if let p256 = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return (Certificate.PrivateKey(p256), .p256) }
            if let p384 = try? P384.Signing.PrivateKey(pemRepresentation: pem) { return (Certificate.PrivateKey(p384), .p384) }
            if (try? P521.Signing.PrivateKey(pemRepresentation: pem)) != nil {
                throw SignatureError.unsupported("an ECDSA key on P-521: Quire signs with RSA, P-256 or P-384")
            }
        }
        throw SignatureError.unsupported("the private key is not RSA, P-256 or P-384 (or cannot be read)")
    }

    /// The signature algorithm for `digest` with this key.
    func signatureAlgorithm(_ digest: DigestAlgorithm) throws -> (Certificate.SignatureAlgorithm, AlgorithmID) {
        switch (keyKind, digest) {
        case (.rsa, .sha256): return (.sha256WithRSAEncryption, AlgorithmID(OID.sha256WithRSA, parameters: try ASN1Any(erasing: ASN1Null())))
        case (.rsa, .sha384): return (.sha384WithRSAEncryption, AlgorithmID(OID.sha384WithRSA, parameters: try ASN1Any(erasing: ASN1Null())))
        case (.rsa, .sha512): return (.sha512WithRSAEncryption, AlgorithmID(OID.sha512WithRSA, parameters: try ASN1Any(erasing: ASN1Null())))
        case (.p256, .sha256), (.p384, .sha256): return (.ecdsaWithSHA256, AlgorithmID(OID.ecdsaWithSHA256))
        case (.p256, .sha384), (.p384, .sha384): return (.ecdsaWithSHA384, AlgorithmID(OID.ecdsaWithSHA384))
        case (.p256, .sha512), (.p384, .sha512): return (.ecdsaWithSHA512, AlgorithmID(OID.ecdsaWithSHA512))
        case (_, .sha1): throw SignatureError.unsupported("SHA-1 is not a digest Quire signs with")
        }
    }

    /// A typical signature value's size in bytes, to reserve room for it.
    var signatureSize: Int {
        switch keyKind {
        case .rsa(let bits): return (bits + 7) / 8
        case .p256: return 72
        case .p384: return 104
        }
    }
}

// MARK: PKCS#5 PBES2 and PKCS#12

/// PBES2 (RFC 8018 §6.2) with PBKDF2 and AES-CBC: the encryption of PKCS#8 keys in PEM and
/// in PKCS#12 files. The primitives are swift-crypto's; only the parameters are read here.
enum PKCS5 {
    static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 13]
    static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 12]
    static let hmacSHA1: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 7]
    static let hmacSHA256: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 9]
    static let hmacSHA384: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 10]
    static let hmacSHA512: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 11]
    static let aes128CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 2]
    static let aes192CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 22]
    static let aes256CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 42]
    /// PBKDF2 iterations past this are refused: a hostile file would otherwise take hours.
    static let maxIterations = 10_000_000

    /// The PrivateKeyInfo inside an EncryptedPrivateKeyInfo (RFC 5208 §6).
    static func decryptPrivateKeyInfo(_ der: ArraySlice<UInt8>, password: [UInt8]) throws -> [UInt8] {
        do {
            let node = try BER.parse(der)
            return try DER.sequence(node, identifier: .sequence) { nodes in
                let algorithm = try AlgorithmID(derEncoded: &nodes)
                let data = try ASN1OctetString(berEncoded: &nodes).bytes
                return try decrypt(data, algorithm: algorithm, password: password)
            }
        } catch let e as SignatureError {
            throw e
        } catch {
            throw SignatureError.credentials("the encrypted private key cannot be read: \(error)")
        }
    }

    /// `data` decrypted with `algorithm` (PBES2 only) and `password`.
    static func decrypt(_ data: ArraySlice<UInt8>, algorithm: AlgorithmID, password: [UInt8]) throws -> [UInt8] {
        guard algorithm.algorithm == pbes2, let params = algorithm.parameters else {
            throw SignatureError.unsupported("the key is encrypted with \(algorithm.algorithm), not PBES2 (re-export it with "
                                             + "AES: openssl pkcs12 -export -keypbe AES-256-CBC -certpbe AES-256-CBC)")
        }
        var coder = DER.Serializer()
        try coder.serialize(params)
        let node = try BER.parse(coder.serializedBytes)
        let (kdf, scheme) = try DER.sequence(node, identifier: .sequence) { nodes in
            (try AlgorithmID(derEncoded: &nodes), try AlgorithmID(derEncoded: &nodes))
        }
        guard kdf.algorithm == pbkdf2, let kdfParams = kdf.parameters else {
            throw SignatureError.unsupported("PBES2 with a key derivation other than PBKDF2 (\(kdf.algorithm))")
        }
        var kcoder = DER.Serializer()
        try kcoder.serialize(kdfParams)
        let knode = try BER.parse(kcoder.serializedBytes)
        let (salt, iterations, prf) = try DER.sequence(knode, identifier: .sequence) { nodes in
            let salt = try ASN1OctetString(berEncoded: &nodes).bytes
            let iterations = try Int(berEncoded: &nodes)
            var prf = hmacSHA1
            while let n = nodes.next() {
                if n.identifier == .sequence { prf = try AlgorithmID(derEncoded: n).algorithm }
            }
            return (salt, iterations, prf)
        }
        guard iterations > 0 && iterations <= maxIterations else {
            throw SignatureError.unsupported("PBKDF2 with \(iterations) iterations (at most \(maxIterations))")
        }
        let hash: KDF.Insecure.PBKDF2.HashFunction
        switch prf {
        case hmacSHA1: hash = .insecureSHA1
        case hmacSHA256: hash = .sha256
        case hmacSHA384: hash = .sha384
        case hmacSHA512: hash = .sha512
        default: throw SignatureError.unsupported("PBKDF2 with the pseudo-random function \(prf)")
        }
        let keyLength: Int
        switch scheme.algorithm {
        case aes128CBC: keyLength = 16
        case aes192CBC: keyLength = 24
        case aes256CBC: keyLength = 32
        default: throw SignatureError.unsupported("PBES2 with the cipher \(scheme.algorithm) (AES-CBC only)")
        }
        guard let ivAny = scheme.parameters else { throw SignatureError.credentials("AES-CBC without an IV") }
        let iv = try ASN1OctetString(berASN1Any: ivAny).bytes
        let key = try KDF.Insecure.PBKDF2.deriveKey(from: password, salt: salt, using: hash, outputByteCount: keyLength,
                                                     unsafeUncheckedRounds: iterations)
        let plain: [UInt8]
        do {
            plain = Array(try AES._CBC.decrypt(data, using: key, iv: AES._CBC.IV(ivBytes: iv)))
        } catch {
            throw SignatureError.credentials("the private key cannot be decrypted: wrong password?")
        }
        // A wrong password passes the padding check about once in 256 tries, and what it
        // gives is no ASN.1: the same answer then, not "a key Quire does not support".
        guard (try? BER.parse(plain)) != nil else {
            throw SignatureError.credentials("the private key cannot be decrypted: wrong password?")
        }
        return plain
    }
}

/// The bags of a PKCS#12 file (RFC 7292): its private keys (PKCS#8 DER) and certificates.
enum PKCS12 {
    static let keyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 1]
    static let shroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 2]
    static let certBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 3]
    static let x509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 22, 1]
    static let encryptedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 6]

    static func read(_ bytes: [UInt8], password: [UInt8]) throws -> (keys: [[UInt8]], certificates: [[UInt8]]) {
        var keys: [[UInt8]] = []
        var certificates: [[UInt8]] = []
        do {
            let pfx = try BER.parse(bytes)
            let authSafe = try DER.sequence(pfx, identifier: .sequence) { nodes -> ArraySlice<UInt8> in
                let version = try Int(berEncoded: &nodes)
                guard version == 3 else { throw SignatureError.credentials("a PKCS#12 file of version \(version), not 3") }
                guard let ci = nodes.next() else { throw SignatureError.credentials("no authSafe") }
                while nodes.next() != nil {}  // macData: see SigningIdentity.init(pkcs12:password:)
                return try dataContent(ci)
            }
            let contents = try BER.parse(authSafe)
            guard case .constructed(let infos) = contents.content else { throw SignatureError.credentials("no AuthenticatedSafe") }
            for info in infos {
                let safeContents: [UInt8]
                let type = try DER.sequence(info, identifier: .sequence) { nodes in
                    let t = try ASN1ObjectIdentifier(berEncoded: &nodes)
                    while nodes.next() != nil {}
                    return t
                }
                if type == OID.data {
                    safeContents = Array(try dataContent(info))
                } else if type == encryptedData {
                    safeContents = try decryptedContent(info, password: password)
                } else {
                    continue  // enveloped data: public-key protected, not supported
                }
                try readBags(safeContents, password: password, keys: &keys, certificates: &certificates)
            }
        } catch let e as SignatureError {
            throw e
        } catch {
            throw SignatureError.credentials("the PKCS#12 file cannot be read: \(error)")
        }
        return (keys, certificates)
    }

    /// The OCTET STRING of a ContentInfo of type id-data.
    static func dataContent(_ node: ASN1Node) throws -> ArraySlice<UInt8> {
        try DER.sequence(node, identifier: .sequence) { nodes in
            _ = try ASN1ObjectIdentifier(berEncoded: &nodes)
            return try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { try ASN1OctetString(berEncoded: $0).bytes }
        }
    }

    /// The decrypted content of a ContentInfo of type EncryptedData (RFC 5652 §8).
    static func decryptedContent(_ node: ASN1Node, password: [UInt8]) throws -> [UInt8] {
        try DER.sequence(node, identifier: .sequence) { nodes in
            _ = try ASN1ObjectIdentifier(berEncoded: &nodes)
            return try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                try DER.sequence(node, identifier: .sequence) { nodes in
                    _ = try Int(berEncoded: &nodes)
                    guard let eci = nodes.next() else { throw SignatureError.credentials("no EncryptedContentInfo") }
                    return try DER.sequence(eci, identifier: .sequence) { nodes in
                        _ = try ASN1ObjectIdentifier(berEncoded: &nodes)
                        let algorithm = try AlgorithmID(derEncoded: &nodes)
                        guard let content = nodes.next() else { throw SignatureError.credentials("no encrypted content") }
                        let data = try ASN1OctetString(berEncoded: content, withIdentifier: content.identifier).bytes
                        return try PKCS5.decrypt(data, algorithm: algorithm, password: password)
                    }
                }
            }
        }
    }

    static func readBags(_ der: [UInt8], password: [UInt8], keys: inout [[UInt8]], certificates: inout [[UInt8]]) throws {
        let node = try BER.parse(der)
        guard case .constructed(let bags) = node.content else { return }
        for bag in bags {
            try DER.sequence(bag, identifier: .sequence) { nodes in
                let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
                try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { value in
                    switch type {
                    case keyBag:
                        keys.append(Array(value.encodedBytes))
                    case shroudedKeyBag:
                        keys.append(try PKCS5.decryptPrivateKeyInfo(value.encodedBytes, password: password))
                    case certBag:
                        try DER.sequence(value, identifier: .sequence) { nodes in
                            let certType = try ASN1ObjectIdentifier(berEncoded: &nodes)
                            let der = try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) {
                                try ASN1OctetString(berEncoded: $0).bytes
                            }
                            if certType == x509Certificate { certificates.append(Array(der)) }
                        }
                    default:
                        break
                    }
                }
                while nodes.next() != nil {}  // bag attributes
            }
        }
    }
}
