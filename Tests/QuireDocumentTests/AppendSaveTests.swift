import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport
#if canImport(Glibc)
import Glibc
#endif

// Appending an update in place (issue 17): what it writes, what it refuses, and the tail
// that never crosses a page. Killing it at random moments is Tests/python/test_append_in_place.py.

private func onePage() -> [UInt8] {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 200 200] >>")
    b.object(3, "<< /Type /Page /Parent 2 0 R >>")
    b.finishWithTable()
    return b.bytes
}

@Suite("Incremental saves appended in place")
struct AppendSaveTests {
    @Test func appendsTheUpdateAloneAndContinues() throws {
        let directory = try temporaryDirectory()
        defer { _ = system("rm -rf '\(directory)'") }
        let path = directory + "/in.pdf"
        writeBytes(onePage(), path)
        let original = try #require(fileBytes(path))
        var st = stat()
        #expect(stat(path, &st) == 0)
        let inode = st.st_ino
        let doc = try Document(path: path)
        // No changes: nothing written.
        try doc.saveAppendingInPlace(to: path)
        #expect(fileBytes(path) == original)
        for k in 0..<5 {
            try addSquare(doc, page: 0, contents: String(repeating: "x", count: 700 * k + 1))
            let before = try #require(fileBytes(path))
            try doc.saveAppendingInPlace(to: path)
            let after = try #require(fileBytes(path))
            // The old bytes stay, the same file (no rename), and the document continues
            // from exactly what the file holds.
            #expect(Array(after.prefix(before.count)) == before)
            #expect(after == doc.file.buffer.copyBytes())
            #expect(stat(path, &st) == 0 && st.st_ino == inode)
            #expect(!doc.hasUnsavedChanges)
            // The tail lies inside one 4 KB page.
            let tail = after.count - (try #require(lastStartXRef(after)))
            #expect((after.count - tail) / 4096 == (after.count - 1) / 4096)
            let reread = try Document(path: path)
            #expect(try annotationTotal(reread) == k + 1)
        }
        // The document's file after an atomic save is the one appended to next.
        try addSquare(doc, page: 0, contents: "atomic")
        try doc.save(to: path)
        try addSquare(doc, page: 0, contents: "appended")
        try doc.saveAppendingInPlace(to: path)
        #expect(try annotationTotal(try Document(path: path)) == 7)
    }

    @Test func refusesWhatItCannotAppendTo() throws {
        let directory = try temporaryDirectory()
        defer { _ = system("rm -rf '\(directory)'") }
        let path = directory + "/in.pdf"
        writeBytes(onePage(), path)
        // Another path than the document's file.
        let doc = try Document(path: path)
        try addSquare(doc, page: 0, contents: "a")
        #expect(throws: PDFError.self) { try doc.saveAppendingInPlace(to: directory + "/other.pdf") }
        #expect((try? doc.saveAppendingInPlace(to: directory + "/other.pdf")) == nil)
        #expect(fileBytes(directory + "/other.pdf") == nil)
        // Changed since it was read (another program appended to it): stale, nothing written.
        let changed = onePage() + Array("% another program\n".utf8)
        writeBytes(changed, path)
        do {
            try doc.saveAppendingInPlace(to: path)
            Issue.record("an append to a changed file was not refused")
        } catch let e as PDFError {
            #expect(e.kind == .stale, "\(e)")
        }
        #expect(fileBytes(path) == changed)
        #expect(doc.hasUnsavedChanges)
        // Same size, other bytes, times put back as they were: the sampled bytes differ.
        writeBytes(onePage(), path)
        let reopened = try Document(path: path)
        try addSquare(reopened, page: 0, contents: "b")
        var st = stat()
        #expect(stat(path, &st) == 0)
        var swapped = onePage()
        swapped[swapped.count - 20] = UInt8(ascii: "9") == swapped[swapped.count - 20] ? UInt8(ascii: "8") : UInt8(ascii: "9")
        writeBytes(swapped, path)
        var times = [st.st_atim, st.st_mtim]
        _ = utimensat(AT_FDCWD, path, &times, 0)
        #expect(throws: PDFError.self) { try reopened.saveAppendingInPlace(to: path) }
        #expect(fileBytes(path) == swapped)
        // A document read from memory has no file to append to.
        let memory = try Document(data: onePage())
        try addSquare(memory, page: 0, contents: "c")
        #expect(throws: PDFError.self) { try memory.saveAppendingInPlace(to: path) }
    }

    @Test func anotherAppenderMakesItBusy() throws {
        let directory = try temporaryDirectory()
        defer { _ = system("rm -rf '\(directory)'") }
        let path = directory + "/in.pdf"
        writeBytes(onePage(), path)
        let doc = try Document(path: path)
        try addSquare(doc, page: 0, contents: "a")
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        do {
            try doc.saveAppendingInPlace(to: path)
            Issue.record("an append while another process holds the lock was not refused")
        } catch let e as PDFError {
            #expect(e.kind == .busy, "\(e)")
        }
        close(fd)
        try doc.saveAppendingInPlace(to: path)
        #expect(try annotationTotal(try Document(path: path)) == 1)
    }

    @Test func paddingKeepsTheTailInOnePage() {
        for offset in [0, 1, 4000, 4064, 4065, 4095, 4096, 8191, 12_000] {
            for length in [1, 30, 100, 4096] {
                let pad = AppendInPlace.padding(beforeTailAt: offset, tailLength: length)
                let start = offset + pad
                #expect(start / 4096 == (start + length - 1) / 4096, "offset \(offset), length \(length)")
                #expect(pad < 4096)
            }
        }
    }
}

/// The offset of the last `startxref` in `bytes`.
private func lastStartXRef(_ bytes: [UInt8]) -> Int? {
    let keyword = Array("startxref".utf8)
    return stride(from: bytes.count - keyword.count, through: 0, by: -1).first {
        bytes[$0..<($0 + keyword.count)].elementsEqual(keyword)
    }
}
