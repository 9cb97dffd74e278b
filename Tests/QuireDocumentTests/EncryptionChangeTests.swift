import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

@Suite("Encrypting, changing and removing encryption")
struct EncryptionChangeTests {
    func refused(_ kind: PDFErrorKind, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("not refused")
        } catch let e as PDFError {
            #expect(e.kind == kind, "\(e)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(arguments: [NewEncryption.Method.aes256, .aes128])
    func encryptOpensWithEachPasswordOnly(_ method: NewEncryption.Method) throws {
        let doc = try Document(data: richDocumentBytes())
        let facts = try PageFacts(doc)
        try doc.setEncryption(NewEncryption(method: method, userPassword: "user", ownerPassword: "owner",
                                            permissions: [.print, .fillForms]))
        #expect(doc.hasUnsavedChanges)
        // An incremental update cannot change the encryption.
        refused(.state) { _ = try doc.saved(.incremental) }
        let bytes = try doc.saved(.full(objectStreams: method == .aes256))
        for password in ["user", "owner"] {
            let opened = try Document(data: bytes, options: OpenOptions(password: password))
            #expect(opened.isEncrypted)
            #expect(opened.file.security?.method == (method == .aes256 ? "AES-256" : "AES-128"))
            #expect(opened.file.security?.revision == (method == .aes256 ? 6 : 4))
            #expect(opened.file.security?.authenticatedAsOwner == (password == "owner"))
            #expect(NewEncryption.Permissions(pValue: opened.file.security?.permissions ?? 0) == [.print, .fillForms])
            #expect(try PageFacts(opened) == facts)
        }
        refused(.password) { _ = try Document(data: bytes) }
        refused(.password) { _ = try Document(data: bytes, options: OpenOptions(password: "wrong")) }
    }

    @Test func theDocumentContinuesEncryptedAndSavesIncrementally() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/doc.pdf"
        writeBytes(richDocumentBytes(), path)
        let doc = try Document(path: path)
        try doc.setEncryption(NewEncryption(userPassword: "u", ownerPassword: "o"))
        try doc.save(to: path, mode: .full(objectStreams: false))
        #expect(doc.isEncrypted && !doc.hasUnsavedChanges && doc.pendingEncryptionChange == nil)
        #expect(doc.options.password == "o")
        // Incremental saves and checkpoints work on the encrypted result.
        try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/checkpoints"))
        try doc.deletePages([0])
        try doc.save(to: path)
        let again = try Document(path: path, options: OpenOptions(password: "u"))
        #expect(try PageFacts(again).texts == ["A2", "A3", "A4"])
        try again.rotatePages([0], by: 1)
        try again.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/checkpoints2"))
        try again.rotatePages([1], by: 1)
        again.stopCheckpointing()
        let recovered = try Document(path: path, options: OpenOptions(password: "u"))
        #expect(try recovered.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/checkpoints2")))
        #expect(try PageFacts(recovered).rotations == [90, 180, 90])
    }

    @Test func changingAnEncryptionNeedsTheOwnerPassword() throws {
        let doc = try Document(data: richDocumentBytes())
        try doc.setEncryption(NewEncryption(method: .aes128, userPassword: "u", ownerPassword: "o"))
        let bytes = try doc.saved(.full(objectStreams: false))
        let asUser = try Document(data: bytes, options: OpenOptions(password: "u"))
        refused(.password) { try asUser.setEncryption(nil) }
        refused(.password) { try asUser.setEncryption(nil, ownerPassword: "u2") }
        refused(.password) { try asUser.setEncryption(NewEncryption(userPassword: "x"), ownerPassword: "wrong") }
        #expect(!asUser.hasUnsavedChanges)
        try asUser.setEncryption(NewEncryption(userPassword: "new", ownerPassword: "newowner"), ownerPassword: "o")
        let changed = try asUser.saved(.full(objectStreams: false))
        refused(.password) { _ = try Document(data: changed, options: OpenOptions(password: "u")) }
        let reopenedNew = try Document(data: changed, options: OpenOptions(password: "new"))
        #expect(reopenedNew.file.security?.revision == 6)
        #expect(try PageFacts(reopenedNew) == PageFacts(try Document(data: richDocumentBytes())))
        // Removed with the owner password (opened as the owner: no password needed).
        let asOwner = try Document(data: changed, options: OpenOptions(password: "newowner"))
        try asOwner.setEncryption(nil)
        let plain = try Document(data: try asOwner.saved(.full(objectStreams: false)))
        #expect(!plain.isEncrypted)
        #expect(try PageFacts(plain) == PageFacts(try Document(data: richDocumentBytes())))
    }

    @Test func passwordsAreChecked() throws {
        let doc = try Document(data: richDocumentBytes())
        refused(.invalidArgument) { try doc.setEncryption(NewEncryption(method: .aes128, userPassword: "日本")) }
        refused(.invalidArgument) { try doc.setEncryption(NewEncryption(method: .aes128, userPassword: String(repeating: "x", count: 33))) }
        refused(.invalidArgument) { try doc.setEncryption(NewEncryption(userPassword: String(repeating: "x", count: 128))) }
        #expect(!doc.hasUnsavedChanges)
        // A Unicode password with AES-256.
        try doc.setEncryption(NewEncryption(userPassword: "pässwörd€"))
        let opened = try Document(data: try doc.saved(.full(objectStreams: false)), options: OpenOptions(password: "pässwörd€"))
        #expect(try opened.pageCount() == 4)
    }

    /// Every permission combination reads back as written.
    @Test func permissionsRoundTrip() throws {
        for p in [NewEncryption.Permissions.all, [], [.print], [.copy, .extractForAccessibility], [.annotate, .assemble, .printHighQuality]] {
            #expect(NewEncryption.Permissions(pValue: p.pValue) == p)
            #expect(p.pValue & 0b11 == 0 && p.pValue & 0xC0 == 0xC0 && p.pValue < 0)
        }
    }

    @Test func aSyncedDocumentRefusesPageOperationsAndEncryption() throws {
        let doc = try Document(data: richDocumentBytes())
        doc.structureLockReason = "synced"
        refused(.state) { try doc.deletePages([0]) }
        refused(.state) { try doc.setEncryption(NewEncryption()) }
        refused(.state) { try doc.rotatePages([0], by: 1) }
        #expect(!doc.hasUnsavedChanges)
    }
}
