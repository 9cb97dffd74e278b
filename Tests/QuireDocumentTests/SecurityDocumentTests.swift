import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

// Expected values read once with pikepdf 10.17.0 (qpdf), opening each file with the same
// password: `len(pdf.pages)` and `pdf.docinfo`. Passwords: see SecurityTests.swift.

@Suite("Encrypted documents", .enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
struct EncryptedDocumentTests {
    private func open(_ path: String, _ password: String? = nil) throws -> Document {
        try Document(path: corpusDirectory! + "/" + path, options: OpenOptions(password: password))
    }

    @Test func pagesAndMetadataDecrypt() throws {
        for password in ["view", "master"] {
            let doc = try open("qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf", password)
            #expect(doc.isEncrypted)
            #expect(try doc.pageCount() == 30)
            let metadata = try doc.metadata()
            #expect(metadata.contains { $0.key == "ModDate" && $0.value == "D:20031010180940-03'00'" })
            #expect(metadata.contains { $0.key == "CreationDate" && $0.value == "D:20031010180432-03'00'" })
            #expect(!doc.warnings.contains { $0.contains("encrypted") })
        }
        let r6 = try open("pypdf/resources/encryption/r6-both-passwords.pdf", "foo")
        #expect(try r6.pageCount() == 1)
        let metadata = try r6.metadata()
        #expect(metadata.contains { $0.key == "Author" && $0.value == "cheng" })
        #expect(metadata.contains { $0.key == "Creator" && $0.value == "WPS Writer" })
    }

    @Test func wrongPassword() throws {
        do {
            _ = try open("qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf", "nope")
            Issue.record("opened with a wrong password")
        } catch let e as PDFError {
            #expect(e.kind == .password)
        }
    }

    /// An encrypted file with object streams whose cross-reference is lost: the scan reads
    /// the object streams decrypted. (pikepdf, on the intact file: 30 pages, this /ModDate.)
    @Test func rebuiltWithObjectStreams() throws {
        let buffer = try ByteBuffer.read(path: corpusDirectory! + "/qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,O=master.pdf")
        var bytes = buffer.copyBytes()
        let keyword = Array("startxref".utf8)
        let at = try #require((0...(bytes.count - keyword.count)).last { Array(bytes[$0..<($0 + keyword.count)]) == keyword })
        bytes = Array(bytes[..<at]) + Array("startxref\n999999999\n%%EOF\n".utf8)
        let doc = try Document(data: bytes, options: OpenOptions(password: "master"))
        #expect(doc.isRepaired)
        #expect(try doc.pageCount() == 30)
        #expect(try doc.metadata().contains { $0.key == "ModDate" && $0.value == "D:20121229171351-05'00'" })
    }

    /// Only the attachments are encrypted: PDFium opens the document without the password
    /// and counts 30 pages (the corpus manifest's PDFium page count).
    @Test func attachmentsOnly() throws {
        let doc = try open("qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=attachment,encrypted-attachments.pdf")
        #expect(try doc.pageCount() == 30)
    }
}
