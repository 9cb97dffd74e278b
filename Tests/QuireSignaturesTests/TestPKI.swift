import Crypto
import CryptoExtras
import Foundation
import QuireDocument
import QuireSignatures
import QuireSyntax
import QuireTestSupport
import SwiftASN1
import X509

/// A test certificate authority, made fresh by each test run (no private key is checked
/// in): a root, signer certificates issued by it, and a time-stamping authority.
struct TestPKI {
    let rootKey: Certificate.PrivateKey
    let root: Certificate
    let name: DistinguishedName

    init(name: String = "Quire Test Root CA") throws {
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let dn = try DistinguishedName {
            OrganizationName("Quire tests")
            CommonName(name)
        }
        let now = Date()
        rootKey = key
        self.name = dn
        root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now - 86400 * 365, notValidAfter: now + 86400 * 365 * 10,
            issuer: dn, subject: dn, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: key.publicKey)
            },
            issuerPrivateKey: key)
    }

    enum KeyType { case rsa2048, p256, p384 }

    /// A signer: its key as PEM, and its certificate issued by this root.
    func signer(_ name: String = "Alice Signer", key type: KeyType = .rsa2048, notBefore: Date = Date() - 86400,
                notAfter: Date = Date() + 86400 * 365, timeStamping: Bool = false,
                keyUsage: KeyUsage = KeyUsage(digitalSignature: true, nonRepudiation: true)) throws -> (keyPEM: String, certificate: Certificate) {
        let keyPEM: String
        let publicKey: Certificate.PublicKey
        switch type {
        case .rsa2048:
            let k = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            keyPEM = k.pemRepresentation
            publicKey = Certificate.PublicKey(k.publicKey)
        case .p256:
            let k = P256.Signing.PrivateKey()
            keyPEM = k.pemRepresentation
            publicKey = Certificate.PublicKey(k.publicKey)
        case .p384:
            let k = P384.Signing.PrivateKey()
            keyPEM = k.pemRepresentation
            publicKey = Certificate.PublicKey(k.publicKey)
        }
        let subject = try DistinguishedName {
            OrganizationName("Quire tests")
            CommonName(name)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: self.name, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(keyUsage)
                if timeStamping { Critical(try ExtendedKeyUsage([.timeStamping])) }
                AuthorityKeyIdentifier(keyIdentifier: try root.extensions.subjectKeyIdentifier?.keyIdentifier)
            },
            issuerPrivateKey: rootKey)
        return (keyPEM, certificate)
    }

    func identity(_ name: String = "Alice Signer", key type: KeyType = .rsa2048, notBefore: Date = Date() - 86400,
                  notAfter: Date = Date() + 86400 * 365) throws -> SigningIdentity {
        let (keyPEM, certificate) = try signer(name, key: type, notBefore: notBefore, notAfter: notAfter)
        return try SigningIdentity(pem: keyPEM, certificatesPEM: try certificate.serializeAsPEM().pemString)
    }

    var rootPEM: String { (try? root.serializeAsPEM().pemString) ?? "" }
}

/// A one-page PDF with some text, made by hand as the other test suites make theirs.
func onePagePDF() -> [UInt8] {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
    b.stream(4, "<<>>", Array("BT /F1 24 Tf 72 700 Td (Signed by Quire) Tj ET".utf8))
    b.object(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    b.finishWithTable()
    return b.bytes
}

/// Runs a program and returns its standard output; throws with its standard error when it fails.
@discardableResult
func run(_ program: String, _ arguments: [String], input: Data? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
    process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
    let out = Pipe(), err = Pipe(), inp = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inp
    try process.run()
    if let input { inp.fileHandleForWriting.write(input) }
    try inp.fileHandleForWriting.close()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw PDFError(.io, "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
    }
    return data
}

/// A temporary directory for one test.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-sig-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A local time-stamping authority: OpenSSL's `ts -reply`, with a TSA certificate from
/// `pki`. Never the network.
struct LocalTSA {
    let directory: URL

    init(pki: TestPKI) throws {
        directory = try temporaryDirectory()
        let (keyPEM, cert) = try pki.signer("Quire Test TSA", key: .p256, timeStamping: true,
                                              keyUsage: KeyUsage(digitalSignature: true, nonRepudiation: true))
        try keyPEM.write(to: directory.appendingPathComponent("tsa.key"), atomically: true, encoding: .utf8)
        try (try cert.serializeAsPEM().pemString + "\n").write(to: directory.appendingPathComponent("tsa.pem"), atomically: true, encoding: .utf8)
        try (pki.rootPEM + "\n").write(to: directory.appendingPathComponent("root.pem"), atomically: true, encoding: .utf8)
        try "01\n".write(to: directory.appendingPathComponent("serial"), atomically: true, encoding: .utf8)
        let config = """
        [ tsa ]
        default_tsa = tsa_config
        [ tsa_config ]
        dir = \(directory.path)
        serial = $dir/serial
        signer_cert = $dir/tsa.pem
        certs = $dir/root.pem
        signer_key = $dir/tsa.key
        signer_digest = sha256
        default_policy = 1.2.3.4.1
        digests = sha256, sha384, sha512
        accuracy = secs:1
        ordering = no
        tsa_name = no
        ess_cert_id_chain = no
        ess_cert_id_alg = sha256
        """
        try config.write(to: directory.appendingPathComponent("tsa.cnf"), atomically: true, encoding: .utf8)
    }

    /// The callback: a TimeStampReq in, OpenSSL's TimeStampResp out.
    var callback: TimeStampCallback {
        let dir = directory
        return { request in
            let q = dir.appendingPathComponent("req-\(UUID().uuidString).tsq")
            let r = dir.appendingPathComponent("resp-\(UUID().uuidString).tsr")
            try Data(request).write(to: q)
            try run("openssl", ["ts", "-reply", "-config", dir.appendingPathComponent("tsa.cnf").path, "-queryfile", q.path,
                                "-out", r.path])
            return Array(try Data(contentsOf: r))
        }
    }
}
