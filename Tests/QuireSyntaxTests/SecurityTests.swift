import Testing
@testable import QuireSyntax
import QuireTestSupport

// Expected values of the corpus tests were read once with pikepdf 10.17.0 (qpdf), opening
// each file with the same password: `pdf.docinfo[...]`, `pdf.get_object(n, 0).read_bytes()`,
// `pdf.owner_password_matched`, `pdf.encryption.R/V/P/bits`. Object numbers are pikepdf's
// `objgen` of the page's /Contents or of the catalog's /Metadata. Passwords come from the
// file names (qpdf: `U=view,O=master`) or from the projects' own tests (pypdf's
// tests/test_encryption.py: "asdfzxcv", and "foo"/"bar" for r6-both-passwords.pdf;
// PDFium's embedder tests: "hôtel").

private let needsCorpus = Testing.ConditionTrait.enabled(if: corpusDirectory != nil, "needs ../shared/corpus")

private func open(_ path: String, _ password: String? = nil) throws -> PDFFile {
    try PDFFile(buffer: ByteBuffer.read(path: corpusDirectory! + "/" + path), password: password.map { Array($0.utf8) })
}

/// The decoded data of stream object `number`.
private func streamData(_ file: PDFFile, _ number: Int) throws -> [UInt8] {
    guard case .stream(let s) = try file.object(number) else {
        Issue.record("object \(number) is not a stream")
        return []
    }
    return try file.decodedData(s)
}

/// The text of an entry of the document information dictionary.
private func info(_ file: PDFFile, _ key: PDFName) throws -> String? {
    guard let value = try file.dictionary(file.trailer["Info"])?[key] else { return nil }
    return try file.object(for: value).string?.text
}

/// The error `body` throws, if it is a ``PDFError``.
private func pdfError(_ body: () throws -> Void) -> PDFError? {
    do { try body() } catch let e as PDFError { return e } catch { return nil }
    return nil
}

private let potato0 = Array("BT\n  /F1 24 Tf\n  72 720 Td\n  (Potato 0) Tj\nET\n".utf8)
private let helloWorld = Array("BT\n20 50 Td\n/F1 12 Tf\n(Hello, world!) Tj\n0 50 Td\n/F2 16 Tf\n(Goodbye, world!) Tj\nET\n".utf8)  // 83 bytes
private let wpsContentsPrefix = Array("q\r1 0 0 -1 0 841.9 cm\rq\r0 0 595.3 841.9 re\rW* n\r".utf8)

@Suite("Standard security handler, on the corpus (ISO 32000-2 §7.6)", needsCorpus)
struct SecurityCorpusTests {
    @Test func revision2RC4_40() throws {
        let path = "qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf"
        let user = try open(path, "view")
        let security = try #require(user.security)
        #expect(security.revision == 2 && security.version == 1)
        #expect(security.method == "RC4-40")
        #expect(security.permissions == -64)
        #expect(!security.authenticatedAsOwner)
        #expect(try streamData(user, 107) == potato0)
        #expect(try info(user, "ModDate") == "D:20031010180940-03'00'")
        let metadata = try streamData(user, 90)
        #expect(metadata.count == 770 && metadata.starts(with: Array("<?xpacket begin='' id='W5M0MpCehiHzreSzN".utf8)))
        // The encrypted bytes stay available.
        if case .stream(let s) = try user.object(107) { #expect(user.rawData(s) != potato0) }

        let owner = try open(path, "master")
        #expect(owner.security?.authenticatedAsOwner == true)
        #expect(try streamData(owner, 107) == potato0)
    }

    @Test func revision3RC4_128() throws {
        let owner = try open("qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf", "master")
        let security = try #require(owner.security)
        #expect(security.revision == 3 && security.version == 2)
        #expect(security.method == "RC4-128")
        #expect(security.permissions == -3104)
        #expect(security.authenticatedAsOwner)
        #expect(try streamData(owner, 107) == potato0)
        #expect(try info(owner, "ModDate") == "D:20031010181115-03'00'")

        let user = try open("qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf", "view")
        #expect(user.security?.authenticatedAsOwner == false)
        #expect(try info(user, "ModDate") == "D:20031010181115-03'00'")
    }

    @Test func revision4RC4() throws {
        let file = try open("pypdf/resources/encryption/r4-user-password.pdf", "asdfzxcv")
        let security = try #require(file.security)
        #expect(security.revision == 4 && security.version == 4)
        #expect(security.method == "RC4-128")
        // Written by `qpdf --encrypt "asdfzxcv" ""`: the owner password is the user one.
        #expect(security.authenticatedAsOwner)
        #expect(try info(file, "Author") == "cheng")
        #expect(try info(file, "Creator") == "WPS Writer")
        let contents = try streamData(file, 7)
        #expect(contents.count == 1042 && contents.starts(with: wpsContentsPrefix))
    }

    @Test func revision4AES128() throws {
        let file = try open("pypdf/resources/encryption/r4-aes-user-password.pdf", "asdfzxcv")
        let security = try #require(file.security)
        #expect(security.revision == 4 && security.method == "AES-128")
        #expect(try info(file, "Author") == "cheng")
        #expect(try info(file, "ModDate") == "D:20220414132421+05'24'")
        let contents = try streamData(file, 7)
        #expect(contents.count == 1042 && contents.starts(with: wpsContentsPrefix))

        // /V 4 without /Length in the /Encrypt dictionary: the key length comes from the
        // AESV2 crypt filter.
        let noLength = try open("pypdf/resources/encryption/r4-aes-v2-no-key-length.pdf")
        #expect(noLength.security?.method == "AES-128")
    }

    @Test func revision5() throws {
        let user = try open("pypdf/resources/encryption/r5-user-password.pdf", "asdfzxcv")
        let security = try #require(user.security)
        #expect(security.revision == 5 && security.version == 5 && security.method == "AES-256")
        #expect(!security.authenticatedAsOwner)
        #expect(try info(user, "Author") == "cheng")
        #expect(try streamData(user, 7).starts(with: wpsContentsPrefix))

        // Written with an empty owner password: "" opens it as the owner.
        let owner = try open("pypdf/resources/encryption/r5-user-password.pdf")
        #expect(owner.security?.authenticatedAsOwner == true)
        #expect(try info(owner, "Author") == "cheng")

        let ownerOnly = try open("pypdf/resources/encryption/r5-owner-password.pdf", "asdfzxcv")
        #expect(ownerOnly.security?.authenticatedAsOwner == true)
        #expect(try info(ownerOnly, "Author") == "cheng")
    }

    @Test func revision6() throws {
        let user = try open("pypdf/resources/encryption/r6-both-passwords.pdf", "foo")
        let security = try #require(user.security)
        #expect(security.revision == 6 && security.version == 5 && security.method == "AES-256")
        #expect(security.permissions == -4)
        #expect(!security.authenticatedAsOwner)
        #expect(try info(user, "Author") == "cheng")
        let contents = try streamData(user, 7)
        #expect(contents.count == 1042 && contents.starts(with: wpsContentsPrefix))

        let owner = try open("pypdf/resources/encryption/r6-both-passwords.pdf", "bar")
        #expect(owner.security?.authenticatedAsOwner == true)
        #expect(try streamData(owner, 7) == contents)

        let qpdf = try open("qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf", "view")
        #expect(qpdf.security?.permissions == -3076)
        #expect(try streamData(qpdf, 70) == potato0)
        #expect(try info(qpdf, "ModDate") == "D:20121229171620-05'00'")
        #expect(try streamData(qpdf, 59).count == 2988)
    }

    /// /R 5 and 6 passwords are UTF-8: PDFium's test files use "hôtel".
    @Test func unicodePasswords() throws {
        for path in ["pdfium/testing/resources/encrypted_hello_world_r5.pdf",
                     "pdfium/testing/resources/encrypted_hello_world_r6.pdf"] {
            let file = try open(path, "hôtel")
            #expect(try streamData(file, 4) == helloWorld, "\(path)")
        }
    }

    @Test func emptyPasswordOpensWithoutOne() throws {
        for path in ["pypdf/resources/encryption/r2-empty-password.pdf", "pypdf/resources/encryption/r3-empty-password.pdf",
                     "pypdf/resources/encryption/r5-empty-password.pdf", "pypdf/resources/encryption/r6-empty-password.pdf"] {
            let file = try open(path)
            #expect(file.security != nil, "\(path)")
            #expect(try info(file, "Author") == "cheng", "\(path)")
            #expect(try streamData(file, 7).starts(with: wpsContentsPrefix), "\(path)")
        }
    }

    @Test(arguments: [
        ("qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf", 2),
        ("qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf", 3),
        ("pypdf/resources/encryption/r4-user-password.pdf", 4),
        ("pypdf/resources/encryption/r4-aes-user-password.pdf", 4),
        ("pdfium/testing/resources/encrypted_hello_world_r5.pdf", 5),  // (r5-user-password.pdf opens with "" as owner)
        ("pypdf/resources/encryption/r6-both-passwords.pdf", 6),
    ])
    func wrongPassword(path: String, revision: Int) throws {
        for password: String? in [nil, "wrong"] {
            let error = pdfError { _ = try open(path, password) }
            #expect(error?.kind == .password, "\(path) \(password ?? "nil")")
            #expect(error?.message.contains("wrong password") == true)
            #expect(error?.message.contains("revision \(revision)") == true)
        }
    }

    /// /EncryptMetadata false: the metadata stream is stored in the clear.
    @Test func clearMetadata() throws {
        for (path, method) in [("qpdf/qpdf/qtest/qpdf/V4-clearmeta.pdf", "RC4-128"),
                               ("qpdf/qpdf/qtest/qpdf/V4-aes-clearmeta.pdf", "AES-128")] {
            let file = try open(path)
            let security = try #require(file.security)
            #expect(!security.encryptMetadata)
            #expect(security.method == method)
            #expect(try streamData(file, 40) == potato0)
            let metadata = try streamData(file, 3)
            #expect(metadata.count == 770 && metadata.starts(with: Array("<?xpacket begin='' id='W5M0MpCehiHzreSzN".utf8)))
        }
        // The same, with the metadata stream's own /Crypt filter naming /Identity.
        let file = try open("qpdf/qpdf/qtest/qpdf/metadata-crypt-filter.pdf")
        #expect(try streamData(file, 3).count == 770)
        #expect(try streamData(file, 40) == potato0)
    }

    /// Only embedded files encrypted (/StmF and /StrF /Identity, /EFF with /AuthEvent
    /// /EFOpen): the document opens without the password, as in PDFium; its attachments
    /// decrypt with it, through the /Crypt filter of their own /DecodeParms.
    @Test func encryptedAttachments() throws {
        let path = "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=attachment,encrypted-attachments.pdf"
        let with = try open(path, "attachment")
        #expect(with.security?.isAuthenticated == true)
        #expect(try streamData(with, 60) == Array("This is the first attachment.\n".utf8))
        #expect(try streamData(with, 88) == potato0)
        #expect(try streamData(with, 62).count == 2988)

        let without = try open(path)
        #expect(without.security?.isAuthenticated == false)
        #expect(try streamData(without, 88) == potato0)
        let error = pdfError { _ = try streamData(without, 60) }
        #expect(error?.kind == .password)
    }

    /// The /Encrypt dictionary is never decrypted: /O reads as written in the file. The
    /// file's /Encrypt misspells /Length (`/Wength`), so the default 40-bit key fails and
    /// the 128-bit one is tried, as qpdf manages.
    @Test func encryptDictionaryStaysRaw() throws {
        let file = try open("qpdf/qpdf/qtest/qpdf/bad-encryption-length.pdf")
        #expect(file.security?.method == "RC4-128")
        let o = try file.dictionary(file.trailer["Encrypt"])?["O"]?.string?.bytes
        #expect(o == hexBytes("77b8fb098022d3ab34237ea5643c08710ea5123fc5f88bf993a68cca5f12b40f"))
    }

    /// encryptString/encryptStream invert decryptString/decryptStream for each method.
    @Test(arguments: [
        ("qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf", "view", "RC4-40"),
        ("qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf", "view", "RC4-128"),
        ("pypdf/resources/encryption/r4-user-password.pdf", "asdfzxcv", "RC4-128"),
        ("pypdf/resources/encryption/r4-aes-user-password.pdf", "asdfzxcv", "AES-128"),
        ("pypdf/resources/encryption/r5-user-password.pdf", "asdfzxcv", "AES-256"),
        ("pypdf/resources/encryption/r6-both-passwords.pdf", "foo", "AES-256"),
    ])
    func roundTrip(path: String, password: String, method: String) throws {
        let security = try #require(try open(path, password).security)
        #expect(security.method == method)
        try checkRoundTrip(security, aes: method.hasPrefix("AES"))
    }
}

/// Round trips of strings and streams of several lengths through one handler.
private func checkRoundTrip(_ security: StandardSecurityHandler, aes: Bool) throws {
    for length in [0, 1, 15, 16, 17, 31, 32, 100, 4097] {
        let plain = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let id = ObjectID(12 + length, length % 3)
        let string = security.encryptString(plain, object: id)
        #expect(security.decryptString(string, object: id) == plain, "string of \(length) bytes")
        let stream = try security.encryptStream(plain, object: id)
        #expect(try security.decryptStream(stream, object: id) == plain, "stream of \(length) bytes")
        if aes {
            // A random IV, then the data padded to whole blocks.
            #expect(stream.count == 16 + (length / 16 + 1) * 16)
            #expect(try security.encryptStream(plain, object: id) != stream)
        } else {
            #expect(stream.count == length)
            if length > 0 { #expect(stream != plain) }
        }
        // Another object's key does not decrypt it.
        // Another object's key does not decrypt it (AES-256 has one key for all objects).
        if length >= 16 && security.method != "AES-256" {
            #expect(try security.decryptStream(stream, object: ObjectID(id.number + 1)) != plain)
        }
    }
}

private func hexBytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var high: UInt8? = nil
    for c in hex.utf8 {
        guard let v = Hex.value(c) else { continue }
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return out
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { b in
        let s = String(b, radix: 16)
        return s.count == 1 ? "0" + s : s
    }.joined()
}

@Suite("Standard security handler, without the corpus")
struct SecurityUnitTests {
    /// The usual RC4 test vectors (the ones Wikipedia's RC4 article lists).
    @Test func rc4KnownAnswers() {
        #expect(RC4.crypt(key: Array("Key".utf8), Array("Plaintext".utf8)) == hexBytes("bbf316e8d940af0ad3"))
        #expect(RC4.crypt(key: Array("Wiki".utf8), Array("pedia".utf8)) == hexBytes("1021bf0420"))
        #expect(RC4.crypt(key: Array("Secret".utf8), Array("Attack at dawn".utf8)) == hexBytes("45a01f645fc35b383552544b9bf5"))
        #expect(RC4.crypt(key: [], [1, 2, 3]).count == 3)  // an empty key does not trap
    }

    /// Malformed AES data never traps: it decrypts as far as whole blocks go.
    @Test func malformedAES() {
        let key = (0..<16).map { UInt8($0) }
        for length in 0..<80 {
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13) }
            let out = StandardSecurityHandler.aesDecrypt(key: key, data)
            if length < 16 { #expect(out == data) }
            if (16..<32).contains(length) { #expect(out.isEmpty) }
            #expect(out.count <= Swift.max(length - 16, length < 16 ? length : 0))
        }
        let plain = Array("a message of some length".utf8)
        let good = StandardSecurityHandler.aesEncrypt(key: key, plain)
        // A trailing partial block is dropped.
        #expect(StandardSecurityHandler.aesDecrypt(key: key, good + [1, 2, 3]) == plain)
        // Invalid padding is kept, not an error.
        let zeros = [UInt8](repeating: 0, count: 16)
        let noPad = CryptoPrimitives.aesCBCEncryptNoPadding(key: key, iv: zeros, zeros)!
        #expect(StandardSecurityHandler.aesDecrypt(key: key, zeros + noPad) == zeros)
        // A wrong key size is not a trap either.
        #expect(StandardSecurityHandler.aesDecrypt(key: [1, 2, 3], good) == good)
    }

    @Test func unsupportedHandlers() throws {
        for (dict, what) in [("/Filter /Adobe.PubSec /V 4 /R 4", "Adobe.PubSec"),
                             ("/Filter /Standard /V 3 /R 3 /O <00> /U <00> /P -4", "/V 3"),
                             ("/Filter /Standard /V 2 /R 7 /O <00> /U <00> /P -4", "/R 7")] {
            var b = PDFBuilder()
            minimalPages(&b)
            b.object(4, "<< \(dict) >>")
            b.finishWithTable(trailer: "/Root 1 0 R /Encrypt 4 0 R /ID [<00112233> <00112233>]")
            let error = pdfError { _ = try PDFFile(buffer: b.buffer) }
            #expect(error?.kind == .unsupported, "\(dict)")
            #expect(error?.message.contains(what) == true, "\(error?.message ?? "")")
        }
    }

    /// A revision 6 file made here, with the key material computed by Algorithms 8 and 9
    /// (§7.6.4.4.7–8) from the handler's own hash, and the objects encrypted with the
    /// handler: strings and streams decrypt, the /Identity crypt filter and the
    /// cross-reference stream are left alone, and malformed AES data does not trap.
    @Test func syntheticRevision6File() throws {
        let fileKey = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let zeroIV = [UInt8](repeating: 0, count: 16)
        let userPassword = Array("user".utf8), ownerPassword = Array("owner".utf8)
        let uvs = [UInt8](repeating: 1, count: 8), uks = [UInt8](repeating: 2, count: 8)
        let ovs = [UInt8](repeating: 3, count: 8), oks = [UInt8](repeating: 4, count: 8)
        let u = StandardSecurityHandler.hash(6, userPassword, salt: uvs, userKey: []) + uvs + uks
        let ue = try #require(CryptoPrimitives.aesCBCEncryptNoPadding(
            key: StandardSecurityHandler.hash(6, userPassword, salt: uks, userKey: []), iv: zeroIV, fileKey))
        let o = StandardSecurityHandler.hash(6, ownerPassword, salt: ovs, userKey: u) + ovs + oks
        let oe = try #require(CryptoPrimitives.aesCBCEncryptNoPadding(
            key: StandardSecurityHandler.hash(6, ownerPassword, salt: oks, userKey: u), iv: zeroIV, fileKey))
        let encrypt = "<< /Filter /Standard /V 5 /R 6 /Length 256 /P -1028 "
            + "/CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF /StdCF "
            + "/O <\(hex(o))> /U <\(hex(u))> /OE <\(hex(oe))> /UE <\(hex(ue))> >>"
        let encryptDictionary = try #require(try parse(encrypt).dictionary)
        let writer = try StandardSecurityHandler(encryptDictionary: encryptDictionary, documentID: [], password: userPassword)
        #expect(writer.isAuthenticated && !writer.authenticatedAsOwner)

        let title = Array("A secret title".utf8)
        let contents = Array("BT /F1 12 Tf (secret text) Tj ET".utf8)
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 5 0 R >>")
        b.object(4, "<< /Title <\(hex(writer.encryptString(title, object: ObjectID(4))))> /Keywords [<\(hex(writer.encryptString(Array("nested".utf8), object: ObjectID(4))))>] >>")
        b.stream(5, "", try writer.encryptStream(contents, object: ObjectID(5)))
        b.stream(6, "/Filter /Crypt /DecodeParms << /Name /Identity >>", Array("left in the clear".utf8))
        b.object(7, encrypt)
        b.stream(8, "", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21])  // malformed AES
        b.finishWithXRefStream(number: 9, trailer: "/Root 1 0 R /Info 4 0 R /Encrypt 7 0 R")

        let file = try PDFFile(buffer: b.buffer, password: userPassword)
        let security = try #require(file.security)
        #expect(security.method == "AES-256" && security.permissions == -1028 && !security.authenticatedAsOwner)
        #expect(try info(file, "Title") == "A secret title")
        #expect(try file.dictionary(file.trailer["Info"])?["Keywords"]?.array?.first?.string?.bytes == Array("nested".utf8))
        #expect(try streamData(file, 5) == contents)
        #expect(try streamData(file, 6) == Array("left in the clear".utf8))
        _ = try streamData(file, 8)
        // The /Encrypt dictionary reads as written.
        #expect(try file.dictionary(file.trailer["Encrypt"])?["U"]?.string?.bytes == u)
        try checkRoundTrip(security, aes: true)

        let owner = try PDFFile(buffer: b.buffer, password: ownerPassword)
        #expect(owner.security?.authenticatedAsOwner == true)
        #expect(try streamData(owner, 5) == contents)

        let error = pdfError { _ = try PDFFile(buffer: b.buffer, password: Array("nope".utf8)) }
        #expect(error?.kind == .password)
        #expect(error?.message.contains("revision 6") == true)
    }
}
