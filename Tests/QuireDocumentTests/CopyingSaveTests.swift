import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The documents the tests save: built here, and from the corpus when it is there (an
/// encrypted one among them, opened with its user password).
private let sources: [String] = ["built: one page, a table", "built: object streams, an xref stream",
                                 "built: two revisions"]
    + (corpusDirectory == nil ? [] : ["qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf",
                                      "qpdf/qpdf/qtest/qpdf/enc-XI-R6,V5,U=view,O=master.pdf",
                                      "pdfium/testing/resources/annots.pdf"])

/// The bytes of source `name` and its password.
private func source(_ name: String) throws -> (bytes: [UInt8], password: String?) {
    var b = PDFBuilder()
    switch name {
    case "built: one page, a table":
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 200] >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R >>")
        b.finishWithTable()
    case "built: object streams, an xref stream":
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let objects = "<< /Type /Pages /Kids [3 0 R] /Count 1 >> << /Type /Page /Parent 2 0 R /MediaBox [0 0 9 9] >>"
        let header = "2 0 3 42 "
        b.stream(4, "/Type /ObjStm /N 2 /First \(header.utf8.count) /Filter /FlateDecode",
                 PDFBuilder.deflate(Array((header + objects).utf8)))
        b.finishWithXRefStream(number: 5, compressed: [2: (4, 0), 3: (4, 1)])
    case "built: two revisions":
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        b.finishWithTable()
        let prev = b.lastXRef
        let at = b.bytes.count
        b.append("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>\nendobj\n")
        let xref = b.bytes.count
        b.append("xref\n3 1\n" + String(repeating: "0", count: 10 - String(at).count) + "\(at) 00000 n \n")
        b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev \(prev) >>\nstartxref\n\(xref)\n%%EOF\n")
    default:
        let bytes = try #require(fileBytes(corpusDirectory! + "/" + name))
        return (bytes, name.contains("U=view") ? "view" : nil)
    }
    return (b.bytes, nil)
}

/// A directory of its own, with the source written to `in.pdf`.
private func setUp(_ name: String) throws -> (directory: String, path: String, password: String?) {
    let directory = try temporaryDirectory()
    let (bytes, password) = try source(name)
    writeBytes(bytes, directory + "/in.pdf")
    return (directory, directory + "/in.pdf", password)
}

private func names(in directory: String) -> [String] {
    guard let listing = opendir(directory) else { return [] }
    defer { closedir(listing) }
    var names: [String] = []
    while let entry = readdir(listing) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// Whether the kernel copied the prefix (how depends on the filesystem).
private func copied(_ doc: Document) -> Bool {
    doc.lastSavePrefixCopy == .kernelCopy || doc.lastSavePrefixCopy == .reflink
}

@Suite("Incremental saves that copy the original bytes in the kernel")
struct CopyingSaveTests {
    @Test(arguments: sources)
    func sameBytesAsWrittenFromMemory(name: String) throws {
        let (directory, path, password) = try setUp(name)
        defer { _ = system("rm -rf '\(directory)'") }
        let original = try #require(fileBytes(path))
        let doc = try Document(path: path, options: OpenOptions(password: password))
        #expect(doc.file.buffer.origin != nil)
        let before = try annotationTotal(doc)
        try addSquare(doc, page: 0, contents: "first")
        try doc.save(to: directory + "/out.pdf")
        #expect(copied(doc))
        // The bytes written from memory without the copy are the buffer the document
        // continues from (AES strings and streams of the update have random IVs, so a
        // second save(.incremental) would not give the same bytes): the original file and
        // the update.
        let saved = try #require(fileBytes(directory + "/out.pdf"))
        #expect(saved == doc.file.buffer.copyBytes())
        #expect(Array(saved.prefix(original.count)) == original)
        #expect(saved.count > original.count)
        // The next save copies from the file just saved.
        try addSquare(doc, page: 0, contents: "second")
        try doc.save(to: directory + "/out.pdf")
        #expect(copied(doc))
        let saved2 = try #require(fileBytes(directory + "/out.pdf"))
        #expect(saved2 == doc.file.buffer.copyBytes())
        #expect(Array(saved2.prefix(saved.count)) == saved)
        let reread = try Document(path: directory + "/out.pdf", options: OpenOptions(password: password))
        #expect(try annotationTotal(reread) == before + 2)
        // Over the file it was opened from.
        let again = try Document(path: path, options: OpenOptions(password: password))
        try addSquare(again, page: 0, contents: "in place")
        try again.save(to: path)
        #expect(copied(again))
        let saved3 = try #require(fileBytes(path))
        #expect(saved3 == again.file.buffer.copyBytes())
        #expect(Array(saved3.prefix(original.count)) == original)
        #expect(names(in: directory) == ["in.pdf", "out.pdf"])
    }

    @Test func sameBytesAsBeforeForDeterministicUpdates() throws {
        // Without AES, the update is the same bytes each time: the file equals what
        // saved(.incremental), the in-memory path, gives.
        for name in sources where !name.contains("R6") {
            let (directory, path, password) = try setUp(name)
            defer { _ = system("rm -rf '\(directory)'") }
            let doc = try Document(path: path, options: OpenOptions(password: password))
            try addSquare(doc, page: 0, contents: "note")
            let expected = try doc.saved(.incremental)
            try doc.save(to: directory + "/out.pdf")
            #expect(copied(doc))
            #expect(fileBytes(directory + "/out.pdf") == expected, "\(name)")
        }
    }

    /// `QUIRE_REFLINK_DIR`: a directory on a filesystem that shares blocks (XFS with
    /// reflink, Btrfs), where the copy must be a reflink. For example:
    /// `truncate -s 600M x.img && mkfs.xfs -m reflink=1 x.img && mount -o loop x.img /mnt`.
    static let reflinkDirectory: String? = getenv("QUIRE_REFLINK_DIR").map { String(cString: $0) }

    @Test(.enabled(if: reflinkDirectory != nil, "set QUIRE_REFLINK_DIR to a directory on XFS or Btrfs"))
    func reflinkWhereTheFilesystemSharesBlocks() throws {
        var template = Array((Self.reflinkDirectory! + "/quire-reflink-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        try #require(made != nil)
        defer { _ = system("rm -rf '\(directory)'") }
        let (bytes, _) = try source("built: two revisions")
        writeBytes(bytes, directory + "/in.pdf")
        let doc = try Document(path: directory + "/in.pdf")
        try addSquare(doc, page: 0, contents: "note")
        let expected = try doc.saved(.incremental)
        try doc.save(to: directory + "/out.pdf")
        #expect(doc.lastSavePrefixCopy == .reflink)
        #expect(fileBytes(directory + "/out.pdf") == expected)
        try addSquare(doc, page: 0, contents: "again")
        let expected2 = try doc.saved(.incremental)
        try doc.save(to: directory + "/out.pdf")
        #expect(doc.lastSavePrefixCopy == .reflink)
        #expect(fileBytes(directory + "/out.pdf") == expected2)
    }

    /// Ways the file on disk changes after it was opened.
    enum Change: String, CaseIterable, Sendable {
        case appended, rewrittenAtTheStart, rewrittenInTheMiddle, replacedByRename, removed, permissions
    }

    @Test(arguments: Change.allCases)
    func changedOnDiskFallsBackToThePlainCopy(change: Change) throws {
        let (directory, path, _) = try setUp("built: one page, a table")
        defer { _ = system("rm -rf '\(directory)'") }
        let doc = try Document(path: path)
        let original = try #require(fileBytes(path))
        try addSquare(doc, page: 0, contents: "note")
        let expected = try doc.saved(.incremental)
        // Past the coarsest timestamp granularity, so that a change shows in the times.
        usleep(50_000)
        var changed = original
        switch change {
        case .appended:
            writeBytes(original + Array("% more\n".utf8), path)
        case .rewrittenAtTheStart:
            changed[0] = UInt8(ascii: "X")
            writeBytes(changed, path)
        case .rewrittenInTheMiddle:
            // The same size, the same first and last 4 KB (the file is smaller: so the
            // middle byte is in both samples here; the times tell the change anyway).
            changed[changed.count / 2] ^= 0x20
            let f = open(path, O_WRONLY)
            _ = changed.withUnsafeBytes { pwrite(f, $0.baseAddress! + changed.count / 2, 1, off_t(changed.count / 2)) }
            close(f)
        case .replacedByRename:
            writeBytes(original, directory + "/copy.pdf")
            rename(directory + "/copy.pdf", path)
        case .removed:
            unlink(path)
        case .permissions:
            chmod(path, 0o600)
        }
        try doc.save(to: directory + "/out.pdf")
        #expect(doc.lastSavePrefixCopy == AtomicFile.PrefixCopy.none)
        #expect(fileBytes(directory + "/out.pdf") == expected)
        #expect(!names(in: directory).contains { $0.contains(".quire-") })
    }

    @Test func sameSizeChangeSeenByTheTimesAlone() throws {
        // A file larger than the two 4 KB samples, changed in the middle with the same
        // size: only its times say so.
        let directory = try temporaryDirectory()
        defer { _ = system("rm -rf '\(directory)'") }
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 200] >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R >>")
        b.object(4, "(\(String(repeating: "a", count: 20_000)))")
        b.finishWithTable()
        let path = directory + "/in.pdf"
        writeBytes(b.bytes, path)
        let doc = try Document(path: path)
        try addSquare(doc, page: 0, contents: "note")
        let expected = try doc.saved(.incremental)
        usleep(50_000)
        let middle = b.offsets[4]! + 10_000
        let f = open(path, O_WRONLY)
        _ = pwrite(f, "b", 1, off_t(middle))
        close(f)
        try doc.save(to: directory + "/out.pdf")
        #expect(doc.lastSavePrefixCopy == AtomicFile.PrefixCopy.none)
        #expect(fileBytes(directory + "/out.pdf") == expected)
        #expect(fileBytes(directory + "/out.pdf")?[middle] == UInt8(ascii: "a"))
    }

    @Test func onlyIncrementalSavesOfFilesCopy() throws {
        let (directory, path, _) = try setUp("built: one page, a table")
        defer { _ = system("rm -rf '\(directory)'") }
        // A full save writes everything from memory; the incremental save after it copies
        // from the file it wrote.
        let doc = try Document(path: path)
        try addSquare(doc, page: 0, contents: "note")
        try doc.save(to: directory + "/full.pdf", mode: .full(objectStreams: false))
        #expect(doc.lastSavePrefixCopy == AtomicFile.PrefixCopy.none)
        try addSquare(doc, page: 0, contents: "after")
        let expected = try doc.saved(.incremental)
        try doc.save(to: directory + "/full.pdf")
        #expect(copied(doc))
        #expect(fileBytes(directory + "/full.pdf") == expected)
        // A document from memory has no file to copy from.
        let memory = try Document(data: try #require(fileBytes(path)))
        #expect(memory.file.buffer.origin == nil)
        try addSquare(memory, page: 0, contents: "note")
        let fromMemory = try memory.saved(.incremental)
        try memory.save(to: directory + "/memory.pdf")
        #expect(memory.lastSavePrefixCopy == AtomicFile.PrefixCopy.none)
        #expect(fileBytes(directory + "/memory.pdf") == fromMemory)
        // Saved through a writer, the document continues from bytes no file holds.
        let streamed = try Document(path: path)
        try addSquare(streamed, page: 0, contents: "note")
        try streamed.save(through: { _ in })
        #expect(streamed.file.buffer.origin == nil)
    }

    @Test func aFIFOHasNoOrigin() throws {
        // A FIFO is no regular file: read, but there is nothing to copy from.
        let directory = try temporaryDirectory()
        defer { _ = system("rm -rf '\(directory)'") }
        let (bytes, _) = try source("built: one page, a table")
        let fifo = directory + "/fifo.pdf"
        mkfifo(fifo, 0o600)
        let writer = Thread { writeBytes(bytes, fifo) }
        writer.start()
        let doc = try Document(path: fifo)
        writer.join()
        #expect(doc.file.buffer.origin == nil)
        #expect(try doc.pageCount() == 1)
    }
}

/// A thread running `body` (pthreads, without Foundation).
private final class Thread {
    private let body: () -> Void
    private var thread: pthread_t = 0
    init(_ body: @escaping () -> Void) { self.body = body }
    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { context in
            let me = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
            me.body()
            return nil
        }, context)
    }
    func join() { pthread_join(thread, nil) }
}
