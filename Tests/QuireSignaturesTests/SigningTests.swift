import Foundation
import QuireDocument
import QuireSignatures
import QuireSyntax
import SwiftASN1
import Testing
import X509

// Signing and validation (issue 37), end to end on real bytes: a fresh test CA, Quire signs,
// Quire validates, and each kind of tampering is reported as its specific problem. The
// peers' verdicts on the same files (pyHanko, PDFium, pdfsig) are checked by
// Tests/python/test_signatures.py.

@Suite("Signing") struct SigningTests {
    let pki: TestPKI

    init() throws { pki = try TestPKI() }

    func sign(_ pdf: [UInt8], _ configure: (inout SigningOptions) -> Void = { _ in }) throws -> [UInt8] {
        let doc = try Document(data: pdf)
        var options = SigningOptions(identity: try pki.identity())
        configure(&options)
        return try doc.signed(options)
    }

    func reports(_ pdf: [UInt8], roots: [Certificate]? = nil) throws -> [SignatureReport] {
        try Document(data: pdf).signatures(ValidationOptions(trustRoots: roots ?? [pki.root]))
    }

    @Test func padesInvisibleIsValidAndAppendsOnly() throws {
        let pdf = onePagePDF()
        let signed = try sign(pdf) { $0.look = .invisible }
        #expect(Array(signed.prefix(pdf.count)) == pdf, "the earlier revision is byte-identical")
        let r = try #require(try reports(signed).first)
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.isValid && r.intact && r.signatureValid && r.trusted)
        #expect(r.coverage == .entireFile)
        #expect(r.subFilter == "ETSI.CAdES.detached")
        #expect(r.padesLevel == "B-B")
        #expect(r.signerName == "Alice Signer")
        #expect(r.byteRange[0] == 0 && r.byteRange[2] + r.byteRange[3] == signed.count)
    }

    @Test(arguments: [
        (TestPKI.KeyType.p256, DigestAlgorithm.sha384, SignatureSubFilter.pkcs7),
        (.p384, .sha512, .pades), (.rsa2048, .sha512, .pkcs7), (.p256, .sha256, .pades),
    ])
    func keysAndDigests(key: TestPKI.KeyType, digest: DigestAlgorithm, subFilter: SignatureSubFilter) throws {
        let doc = try Document(data: onePagePDF())
        var options = SigningOptions(identity: try pki.identity(key: key))
        options.digest = digest
        options.subFilter = subFilter
        options.rect = Rect(left: 72, bottom: 72, right: 300, top: 140)
        options.reason = "Approved"
        options.location = "Zürich"
        let signed = try doc.signed(options)
        let r = try #require(try reports(signed).first)
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.digest == digest)
        #expect(r.subFilter == subFilter.rawValue)
        // The visible appearance is there.
        let after = try Document(data: signed)
        let widget = try #require(try after.formFields().first { $0.type == .signature }?.widgets.first)
        #expect(widget.rect.width > 200)
    }

    @Test func signsAnExistingFieldAndReservesWhatFits() throws {
        // A first signature makes the field; a second document signs a field it names.
        let doc = try Document(data: onePagePDF())
        var options = SigningOptions(identity: try pki.identity())
        options.fieldName = "Approval"
        options.rect = Rect(left: 10, bottom: 10, right: 200, top: 60)
        let once = try doc.signed(options)
        var second = SigningOptions(identity: try pki.identity("Bob Second", key: .p256))
        second.rect = Rect(left: 220, bottom: 10, right: 400, top: 60)
        let twice = try Document(data: once).signed(second)
        let rs = try reports(twice)
        #expect(rs.count == 2)
        #expect(rs.allSatisfy { $0.isValid }, "\(rs.map(\.problems))")
        let first = try #require(rs.first { $0.fieldName == "Approval" })
        #expect(first.coverage == .entireRevision)
        #expect(first.modification == .formFilling)
        // Signing a field that is signed already is refused.
        var again = SigningOptions(identity: try pki.identity())
        again.fieldName = "Approval"
        #expect(throws: PDFError.self) { try Document(data: twice).signed(again) }
    }

    @Test func annotationAfterAnApprovalSignatureKeepsItValid() throws {
        let signed = try sign(onePagePDF())
        let doc = try Document(data: signed)
        var note = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 120, top: 120))
        note.contents = "Looks good"
        try doc.addAnnotation(note)
        let saved = try doc.saved(.incremental)
        #expect(Array(saved.prefix(signed.count)) == signed)
        let r = try #require(try reports(saved).first)
        #expect(r.isValid, "\(r.problems) \(r.changedObjects)")
        #expect(r.coverage == .entireRevision)
        #expect(r.modification == .annotations)
    }

    @Test func certificationP1RefusesAnnotationsAndReportsThem() throws {
        let certified = try sign(onePagePDF()) { $0.certification = .noChanges }
        let doc = try Document(data: certified)
        #expect(try doc.certification()?.permission == .noChanges)
        let note = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 120, top: 120))
        #expect(throws: PDFError.self) { try doc.addAnnotation(note) }
        #expect(!doc.hasUnsavedChanges)
        // Warned, then made anyway: the validation says which change broke what.
        doc.signatureGuard = .warn
        try doc.addAnnotation(note)
        #expect(doc.warnings.contains { $0.contains("DocMDP") })
        #expect(try doc.certificationBrokenByUnsavedChanges() == .annotations)
        let saved = try doc.saved(.incremental)
        let r = try #require(try reports(saved).first)
        #expect(!r.isValid)
        #expect(r.problems.contains(.disallowedChange(.annotations, permission: .noChanges)), "\(r.problems)")
        #expect(r.intact && r.signatureValid && r.trusted)
    }

    @Test func certificationP2AllowsFormFillingButNotAnnotations() throws {
        let certified = try sign(onePagePDF()) { $0.certification = .formFilling }
        let doc = try Document(data: certified)
        let note = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 100, bottom: 100, right: 120, top: 120))
        #expect(throws: PDFError.self) { try doc.addAnnotation(note) }
        // A second (approval) signature is allowed under P=2.
        var second = SigningOptions(identity: try pki.identity("Bob Second", key: .p256))
        second.rect = Rect(left: 220, bottom: 10, right: 400, top: 60)
        let twice = try doc.signed(second)
        let rs = try reports(twice)
        #expect(rs.count == 2 && rs.allSatisfy(\.isValid), "\(rs.map(\.problems))")
        // A certification cannot come second.
        var late = SigningOptions(identity: try pki.identity())
        late.certification = .annotations
        #expect(throws: PDFError.self) { try Document(data: twice).signed(late) }
    }

    @Test func changedByteIsADigestMismatch() throws {
        var signed = try sign(onePagePDF())
        let r0 = try #require(try reports(signed).first)
        // A byte of the page's text, inside the first signed range.
        let text = Array("Signed by Quire".utf8)
        let at = try #require(
            signed.indices.first { signed[$0..<Swift.min($0 + text.count, signed.count)].elementsEqual(text) }
        )
        #expect(at < r0.byteRange[1])
        signed[at] = UInt8(ascii: "Z")
        let r = try #require(try reports(signed).first)
        #expect(!r.isValid)
        #expect(!r.intact)
        #expect(r.problems.contains(.digestMismatch))
    }

    @Test func byteRangeThatSkipsBytesIsReported() throws {
        var signed = try sign(onePagePDF())
        let r0 = try #require(try reports(signed).first)
        // Rewrite /ByteRange (same length) so that its gap starts 10 bytes early.
        let old = Array("[\(r0.byteRange.map(String.init).joined(separator: " "))]".utf8)
        let at = try #require(
            signed.indices.first { signed[$0..<Swift.min($0 + old.count, signed.count)].elementsEqual(old) }
        )
        var changed = Array("[0 \(r0.byteRange[1] - 10) \(r0.byteRange[2]) \(r0.byteRange[3])]".utf8)
        changed += [UInt8](repeating: 0x20, count: old.count - changed.count)
        signed.replaceSubrange(at..<(at + old.count), with: changed)
        let r = try #require(try reports(signed).first)
        #expect(!r.isValid)
        #expect(r.problems.contains { if case .byteRange = $0 { return true } else { return false } }, "\(r.problems)")
        // The ten bytes left out are signed by nobody: the signature no longer covers the
        // whole file (pyHanko: UNCLEAR), whatever its digest says.
        #expect(r.coverage == .partial)
    }

    @Test func certificateNotChainedIsUntrusted() throws {
        let signed = try sign(onePagePDF())
        let other = try TestPKI(name: "Another Root")
        let r = try #require(try reports(signed, roots: [other.root]).first)
        #expect(!r.isValid && r.intact && r.signatureValid && !r.trusted)
        #expect(r.problems.contains { if case .untrusted = $0 { return true } else { return false } }, "\(r.problems)")
    }

    @Test func expiredCertificateIsExpired() throws {
        let now = Date()
        let identity = try pki.identity("Old Signer", notBefore: now - 86400 * 30, notAfter: now - 86400 * 2)
        let doc = try Document(data: onePagePDF())
        let signed = try doc.signed(SigningOptions(identity: identity))
        let r = try #require(try reports(signed).first)
        #expect(!r.isValid)
        #expect(r.problems.contains { if case .expired = $0 { return true } else { return false } }, "\(r.problems)")
    }

    @Test func signatureOverAnotherRevisionIsReported() throws {
        // The signature dictionary rewritten in a later revision, to claim the whole file
        // with the CMS made for the first revision.
        let signed = try sign(onePagePDF())
        let doc = try Document(data: signed)
        let r0 = try #require(try doc.signatures(ValidationOptions(trustRoots: [pki.root])).first)
        let sigNumber = try #require(r0.signatureObject?.number)
        var sig = try #require(try doc.object(sigNumber).dictionary)
        sig["Reason"] = .string(PDFString(text: "moved"))
        try doc.setObject(sigNumber, .dictionary(sig))
        var forged = try doc.saved(.incremental)
        // Its /ByteRange made to cover the new file but its /Contents.
        let contentsHex = Array("/Contents <".utf8)
        let lastContents = try #require(
            stride(from: forged.count - contentsHex.count, through: signed.count, by: -1)
                .first { forged[$0..<($0 + contentsHex.count)].elementsEqual(contentsHex) }
        )
        let lt = lastContents + contentsHex.count - 1
        let gt = try #require(forged[lt...].firstIndex(of: UInt8(ascii: ">")))
        let oldRange = Array("[\(r0.byteRange.map(String.init).joined(separator: " "))]".utf8)
        let rangeAt = try #require(
            stride(from: forged.count - oldRange.count, through: signed.count, by: -1)
                .first { forged[$0..<($0 + oldRange.count)].elementsEqual(oldRange) }
        )
        var newRange = Array("[0 \(lt) \(gt + 1) \(forged.count - gt - 1)]".utf8)
        #expect(newRange.count <= oldRange.count + 1)
        if newRange.count > oldRange.count { return }  // lengths grew past the old text: cannot happen for these sizes
        newRange += [UInt8](repeating: 0x20, count: oldRange.count - newRange.count)
        forged.replaceSubrange(rangeAt..<(rangeAt + oldRange.count), with: newRange)
        let r = try #require(try reports(forged).first)
        #expect(!r.isValid)
        #expect(
            r.problems.contains { if case .notInSignedRevision = $0 { return true } else { return false } },
            "\(r.problems)"
        )
    }

    @Test func timeStampFromALocalAuthorityIsBT() throws {
        let tsa = try LocalTSA(pki: pki)
        let signed = try sign(onePagePDF()) { $0.timestamp = tsa.callback }
        let r = try #require(try reports(signed).first)
        #expect(r.problems.isEmpty, "\(r.problems)")
        #expect(r.padesLevel == "B-T")
        let ts = try #require(r.timestamp)
        #expect(ts.intact && ts.trusted)
        #expect(abs(ts.time.timeIntervalSinceNow) < 600)
    }

    @Test func timeStampCallbackFailureLeavesTheDocumentAsItWas() throws {
        let doc = try Document(data: onePagePDF())
        var options = SigningOptions(identity: try pki.identity())
        options.timestamp = { _ in throw PDFError(.io, "no network in tests") }
        #expect(throws: PDFError.self) { try doc.signed(options) }
        #expect(!doc.hasUnsavedChanges)
        #expect(try doc.formFields().isEmpty)
    }

    /// A wrong password passes AES-CBC's padding check about once in 256 tries and gives
    /// bytes that are no key: that is a wrong password too, never "a key Quire does not
    /// support" (the C test of a wrong password failed so, once in a few hundred runs).
    @Test func everyWrongPasswordIsAWrongPassword() throws {
        let dir = try temporaryDirectory()
        let (keyPEM, cert) = try pki.signer("Dave PKCS8")
        let plain = dir.appendingPathComponent("k.pem")
        try keyPEM.write(to: plain, atomically: true, encoding: .utf8)
        let encrypted = try run(
            "openssl",
            [
                "pkcs8", "-topk8", "-in", plain.path, "-v2", "aes-256-cbc", "-iter", "1",
                "-passout", "pass:secret",
            ]
        )
        let keyText = String(decoding: encrypted, as: UTF8.self)
        let certPEM = try cert.serializeAsPEM().pemString
        _ = try SigningIdentity(pem: keyText + "\n" + certPEM, password: "secret")
        var other: [String] = []
        for k in 0..<3000 {
            do {
                _ = try SigningIdentity(pem: keyText + "\n" + certPEM, password: "wrong-\(k)")
                other.append("wrong-\(k) opened the key")
            } catch SignatureError.credentials {
            } catch {
                other.append("wrong-\(k): \(error)")
            }
        }
        #expect(other.isEmpty, "\(other.prefix(3))")
    }

    @Test func pkcs12FromOpenSSL() throws {
        let dir = try temporaryDirectory()
        let (keyPEM, cert) = try pki.signer("Carol PKCS12")
        try keyPEM.write(to: dir.appendingPathComponent("k.pem"), atomically: true, encoding: .utf8)
        try (try cert.serializeAsPEM().pemString + "\n").write(
            to: dir.appendingPathComponent("c.pem"),
            atomically: true,
            encoding: .utf8
        )
        try (pki.rootPEM + "\n").write(to: dir.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        let p12 = dir.appendingPathComponent("id.p12")
        try run(
            "openssl",
            [
                "pkcs12", "-export", "-inkey", dir.appendingPathComponent("k.pem").path,
                "-in", dir.appendingPathComponent("c.pem").path, "-certfile", dir.appendingPathComponent("ca.pem").path,
                "-keypbe", "AES-256-CBC", "-certpbe", "AES-256-CBC", "-macalg", "sha256",
                "-passout", "pass:s3cret", "-out", p12.path,
            ]
        )
        let bytes = Array(try Data(contentsOf: p12))
        let identity = try SigningIdentity(pkcs12: bytes, password: "s3cret")
        #expect(identity.certificate == cert)
        #expect(identity.chain == [pki.root])
        #expect(throws: (any Error).self) { try SigningIdentity(pkcs12: bytes, password: "wrong") }
        let signed = try Document(data: onePagePDF()).signed(SigningOptions(identity: identity))
        let r = try #require(try reports(signed).first)
        #expect(r.isValid, "\(r.problems)")
    }

    @Test func weakOrWrongKeysAreRefused() throws {
        let k = try _RSAKeyPEM(bits: 1024)
        #expect(throws: (any Error).self) { try SigningIdentity(pem: k) }
        let (keyPEM, _) = try pki.signer()
        let (_, otherCert) = try pki.signer("Mallory")
        #expect(throws: (any Error).self) {
            try SigningIdentity(pem: keyPEM, certificatesPEM: try otherCert.serializeAsPEM().pemString)
        }
    }

    @Test func hostileContentsNeverCrash() throws {
        let signed = try sign(onePagePDF())
        let r0 = try #require(try reports(signed).first)
        var rng = SystemRandomNumberGenerator()
        let start = r0.byteRange[1] + 1
        let end = r0.byteRange[2] - 1
        for trial in 0..<60 {
            var bytes = signed
            // Random hex, a truncated CMS, or flipped bits inside the real one.
            for i in stride(from: start, to: end, by: 2)
            where trial % 3 == 0 || Int.random(in: 0..<40, using: &rng) == 0 {
                let v = UInt8.random(in: 0...255, using: &rng)
                let hex = Array(String(format: "%02X", v).utf8)
                bytes[i] = hex[0]
                bytes[i + 1] = hex[1]
            }
            if trial % 3 == 1 {
                for i in stride(from: start + Int.random(in: 0..<(end - start), using: &rng) & ~1, to: end, by: 1) {
                    bytes[i] = UInt8(ascii: "0")
                }
            }
            let r = try #require(try reports(bytes).first)
            if bytes != signed { #expect(!r.isValid || r.problems.isEmpty) }
        }
    }
}

/// An RSA key of `bits` bits in PEM, made by OpenSSL (swift-crypto refuses to make one
/// under 2048 bits, which is what the test needs).
func _RSAKeyPEM(bits: Int) throws -> String {
    String(
        decoding: try run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)"]),
        as: UTF8.self
    )
}
