import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Adds a Square annotation to page `index` through the low-level interface, the way the
/// annotation layer will: a new object, appended to the page's /Annots.
func addSquare(_ doc: Document, page index: Int, contents: String) throws {
    let page = try doc.page(at: index)
    let pageNumber = try #require(page.id?.number)
    let annot = try doc.addObject(.dictionary(PDFDictionary([
        ("Type", .name("Annot")), ("Subtype", .name("Square")),
        ("Rect", .array([.integer(10), .integer(10), .integer(60), .integer(60)])),
        ("Contents", .string(PDFString(text: contents))), ("P", .reference(ObjectID(pageNumber))),
    ])))
    var annots = try page.dictionary["Annots"].map(doc.resolve)?.array ?? []
    annots.append(.reference(annot))
    if case .reference(let arrayID)? = page.dictionary["Annots"] {
        try doc.setObject(arrayID.number, .array(annots))
    } else {
        try doc.setValue(.array(annots), forKey: "Annots", inObject: pageNumber)
    }
}

func annotationTotal(_ doc: Document) throws -> Int {
    try doc.pages().map { try $0.annotationCount() }.reduce(0, +)
}

func reopen(_ bytes: [UInt8], password: String? = nil) throws -> Document {
    try Document(data: bytes, options: OpenOptions(password: password))
}

@Suite("Editing and saving")
struct SavingTests {
    func sample() throws -> Document {
        try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 200] >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R >>")
            b.object(9, "<< /Title (Before) >>")
        }
    }

    @Test func changesAreSeenAndJournaled() throws {
        let doc = try sample()
        #expect(!doc.hasUnsavedChanges)
        try doc.setValue(.integer(90), forKey: "Rotate", inObject: 3)
        #expect(try doc.page(at: 0).rotation() == 90)  // the model sees the change at once
        let id = try doc.addObject(.string(PDFString(text: "new")))
        #expect(id.number == 10)
        try doc.deleteObject(9)
        #expect(try doc.object(9) == .null)
        #expect(doc.hasUnsavedChanges)
        #expect(doc.changeLog.count == 3)
        #expect((#expect(throws: PDFError.self) { try doc.setObject(500, .null) })?.kind == .range)
        #expect((#expect(throws: PDFError.self) { try doc.deleteObject(1) })?.kind == .invalidArgument)
        #expect((#expect(throws: PDFError.self) { try doc.setValue(.null, forKey: "X", inObject: 10) })?.kind == .invalidArgument)
    }

    @Test func incrementalSaveAppendsOnlyTheChange() throws {
        let doc = try sample()
        let original = doc.file.buffer.copyBytes()
        #expect(try doc.saved(.incremental) == original)  // no change, nothing appended
        try addSquare(doc, page: 0, contents: "note")
        let saved = try doc.saved(.incremental)
        #expect(Array(saved.prefix(original.count)) == original)
        #expect(saved.count - original.count < 1024)
        let reread = try reopen(saved)
        #expect(try annotationTotal(reread) == 1)
        #expect(!reread.isRepaired)
        #expect(reread.warnings.isEmpty)
    }

    @Test(arguments: [false, true])
    func fullSave(objectStreams: Bool) throws {
        let doc = try sample()
        try addSquare(doc, page: 0, contents: "kept")
        try doc.setValue(nil, forKey: "Info", inObject: 1)  // harmless: the catalog has no /Info
        let saved = try doc.saved(.full(objectStreams: objectStreams))
        let reread = try reopen(saved)
        #expect(try reread.pageCount() == 1)
        #expect(try annotationTotal(reread) == 1)
        #expect(reread.file.xrefForm == (objectStreams ? .stream : .table))
        let v = reread.pdfVersion()
        #expect(!objectStreams || (v.major, v.minor) >= (1, 5))
        #expect(try reread.metadata().first { $0.key == "Title" }?.value == "Before")
    }

    @Test func saveToPathIsAtomicAndContinues() throws {
        let directory = "/tmp/quire-saving-\(getpid())"
        mkdir(directory, 0o755)
        defer { _ = system("rm -rf \(directory)") }
        let path = directory + "/doc.pdf"
        let doc = try sample()
        try doc.save(to: path, mode: .full(objectStreams: false))
        #expect(!doc.hasUnsavedChanges)
        try addSquare(doc, page: 0, contents: "first")
        try doc.save(to: path)
        try addSquare(doc, page: 0, contents: "second")
        try doc.save(to: path)  // appends to what the previous save wrote
        let reread = try Document(path: path)
        #expect(try annotationTotal(reread) == 2)
        #expect(!reread.isRepaired)
        // Nothing is left beside the file.
        let listing = try #require(opendir(directory))
        defer { closedir(listing) }
        var names: [String] = []
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        #expect(names == ["doc.pdf"])
        // A directory that does not exist: an I/O error, and nothing written.
        #expect((#expect(throws: PDFError.self) { try doc.save(to: directory + "/missing/x.pdf") })?.kind == .io)
    }

    @Test func failingWriterKeepsTheChanges() throws {
        struct Stop: Error {}
        let doc = try sample()
        try addSquare(doc, page: 0, contents: "kept")
        #expect(throws: Stop.self) { try doc.save(through: { _ in throw Stop() }) }
        #expect(doc.hasUnsavedChanges)
        var out: [UInt8] = []
        try doc.save(through: { out += $0 })
        #expect(try annotationTotal(try reopen(out)) == 1)
    }
}

@Suite("Saving encrypted documents")
struct EncryptedSavingTests {
    // qpdf's test files; the passwords are in their names (user "view", owner "master").
    // R2 RC4-40, R3 RC4-128, and R6 AES-256.
    static let files = ["qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf",
                        "qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf",
                        "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf"]

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"), arguments: files)
    func incrementalStaysEncrypted(path: String) throws {
        let doc = try Document(path: corpusDirectory! + "/" + path, options: OpenOptions(password: "view"))
        let before = try annotationTotal(doc)
        try addSquare(doc, page: 0, contents: "secret note")
        let saved = try doc.saved(.incremental)
        #expect(!String(decoding: saved, as: UTF8.self).contains("secret note"))  // encrypted on disk
        #expect(throws: PDFError.self) { try reopen(saved) }  // still needs the password
        let reread = try reopen(saved, password: "view")
        #expect(try annotationTotal(reread) == before + 1)
        let annots = try reread.page(at: 0).annotationDictionaries()
        #expect(annots.last?.1["Contents"]?.string?.text == "secret note")
        #expect(try reread.metadata().count == (try doc.metadata()).count)
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"), arguments: files)
    func fullSaveReencryptsForNewNumbers(path: String) throws {
        let doc = try Document(path: corpusDirectory! + "/" + path, options: OpenOptions(password: "view"))
        let pages = try doc.pageCount()
        let metadata = try doc.metadata().map { "\($0.key)=\($0.value)" }
        let content = try doc.page(at: 0).dictionary["Contents"].map(doc.resolve)
        for objectStreams in [false, true] {
            let reread = try reopen(try doc.saved(.full(objectStreams: objectStreams)), password: "master")
            #expect(reread.isEncrypted)
            #expect(try reread.pageCount() == pages)
            #expect(try reread.metadata().map { "\($0.key)=\($0.value)" } == metadata)
            let newContent = try reread.page(at: 0).dictionary["Contents"].map(reread.resolve)
            if case .stream(let a)? = content, case .stream(let b)? = newContent {
                #expect(try reread.streamData(b, decoded: true) == (try doc.streamData(a, decoded: true)))
            }
        }
    }
}
