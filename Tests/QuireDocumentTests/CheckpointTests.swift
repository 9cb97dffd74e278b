import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under /tmp for one test's files.
func temporaryDirectory() throws -> String {
    var template = Array("/tmp/quire-checkpoint-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
    #expect(made != nil)
    return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func fileBytes(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buffer, 1, buffer.count, f)
        if n == 0 { break }
        out += buffer[0..<n]
    }
    return out
}

func writeBytes(_ bytes: [UInt8], _ path: String) {
    let f = fopen(path, "wb")
    _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    fclose(f)
}

@Suite("Checkpoints")
struct CheckpointTests {
    /// A two-page PDF at a path of its own, and a checkpoint directory.
    func setup() throws -> (pdf: String, directory: String) {
        let dir = try temporaryDirectory()
        let doc = try documentWithPages(2)
        let pdf = dir + "/doc.pdf"
        try doc.save(to: pdf, mode: .full(objectStreams: false))
        return (pdf, dir + "/checkpoints")
    }

    func note(_ text: String, page: Int = 0) -> Annotation {
        var a = Annotation(subtype: "Text", pageIndex: page, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        a.contents = text
        return a
    }

    func contents(_ doc: Document) throws -> [String] {
        try (0..<doc.pageCount()).flatMap { try doc.annotations(onPage: $0) }.compactMap(\.contents).sorted()
    }

    @Test func immediateCheckpointsSurviveWithoutASave() throws {
        let (pdf, dir) = try setup()
        do {
            let doc = try Document(path: pdf)
            #expect(try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir)) == false)
            try doc.addAnnotation(note("one"))
            try doc.addAnnotation(note("two", page: 1))
            try doc.bookmarks.add(Bookmark(pageIndex: 1, name: "mark"))
            // The process "dies": the document goes away unsaved, its checkpoint stays.
        }
        let reopened = try Document(path: pdf)
        #expect(try contents(reopened).isEmpty)
        #expect(try reopened.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir, existing: .load)))
        #expect(reopened.hasUnsavedChanges)
        #expect(try contents(reopened) == ["one", "two"])
        #expect(try reopened.bookmarks.bookmarks().map(\.name) == ["mark"])
        // More changes continue the same checkpoint; a save empties it.
        try reopened.addAnnotation(note("three"))
        try reopened.save(to: pdf)
        #expect(!reopened.hasUnsavedChanges)
        reopened.stopCheckpointing()
        let third = try Document(path: pdf)
        #expect(try third.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)) == false)
        #expect(try contents(third) == ["one", "three", "two"])
        #expect(!third.hasUnsavedChanges)
    }

    @Test func aSecondDocumentWithTheSameUIDIsRefused() throws {
        let (pdf, dir) = try setup()
        let first = try Document(path: pdf)
        try first.startCheckpointing(CheckpointOptions(directory: dir))
        let second = try Document(path: pdf)
        #expect(throws: PDFError.self) { try second.startCheckpointing(CheckpointOptions(directory: dir)) }
        do {
            try second.startCheckpointing(CheckpointOptions(directory: dir))
        } catch let e as PDFError {
            #expect(e.kind == .busy)
        }
        first.stopCheckpointing()
        try second.startCheckpointing(CheckpointOptions(directory: dir))  // free again
    }

    @Test func aTornLastRecordAndAnUnfinishedGroupAreDropped() throws {
        let (pdf, dir) = try setup()
        var path = ""
        do {
            let doc = try Document(path: pdf)
            try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir))
            try doc.addAnnotation(note("kept"))
            try doc.addAnnotation(note("torn"))
            path = try #require(doc.checkpointPath)
            doc.stopCheckpointing()
        }
        let full = try #require(fileBytes(path))
        // Cut inside the last group: the "torn" annotation is a group of several records.
        for cut in [3, 40, 200] {
            writeBytes(Array(full.dropLast(cut)), path)
            let doc = try Document(path: pdf)
            #expect(try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)))
            #expect(try contents(doc) == ["kept"], "cut \(cut)")
            doc.stopCheckpointing()
        }
        // A flipped byte inside the last record fails its checksum the same way.
        var flipped = full
        flipped[flipped.count - 12] ^= 0xFF
        writeBytes(flipped, path)
        let doc = try Document(path: pdf)
        #expect(try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)))
        #expect(try contents(doc) == ["kept"])
    }

    @Test func aCheckpointOfAnotherVersionIsRefused() throws {
        let (pdf, dir) = try setup()
        do {
            let doc = try Document(path: pdf)
            try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir))
            try doc.addAnnotation(note("for the old version"))
            doc.stopCheckpointing()
        }
        // Someone else changes the file.
        let other = try Document(path: pdf)
        try other.addAnnotation(note("elsewhere"))
        try other.save(to: pdf)
        let doc = try Document(path: pdf)
        #expect(throws: PDFError.self) {
            try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .load))
        }
        do {
            try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .load))
        } catch let e as PDFError {
            #expect(e.kind == .stale)
        }
        #expect(try contents(doc) == ["elsewhere"])
        // Refusing keeps it (and says it is stale); only discarding throws it away.
        do {
            try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .refuse))
            Issue.record("a stale checkpoint was replaced")
        } catch let e as PDFError {
            #expect(e.kind == .stale)
        }
        #expect(try doc.inspectCheckpoint(CheckpointOptions(directory: dir)).state == .stale)
        try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .discard))
    }

    @Test func aCrashBetweenRenameAndCleanupIsRecognised() throws {
        let (pdf, dir) = try setup()
        let doc = try Document(path: pdf)
        try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir))
        try doc.addAnnotation(note("saved"))
        let path = try #require(doc.checkpointPath)
        let beforeSave = try #require(fileBytes(path))
        try doc.save(to: pdf)
        doc.stopCheckpointing()
        let saved = try #require(fileBytes(pdf))

        // The process died after the rename, before the checkpoint was replaced: the old
        // checkpoint and the marker the save wrote first. Its changes are in the file.
        var marker: [UInt8] = []
        JournalCodec.frame([UInt8(ascii: "V")] + JournalCodec.sha256(saved), to: &marker)
        writeBytes(beforeSave + marker, path)
        let recovered = try Document(path: pdf)
        #expect(try recovered.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)) == false)
        #expect(try contents(recovered) == ["saved"])  // once, not twice
        #expect(!recovered.hasUnsavedChanges)
        recovered.stopCheckpointing()

        // Without the marker, the checkpoint belongs to the old version: refused.
        writeBytes(beforeSave, path)
        let reopened = try Document(path: pdf)
        #expect(throws: PDFError.self) {
            try reopened.startCheckpointing(CheckpointOptions(directory: dir, existing: .load))
        }
        #expect(try contents(reopened) == ["saved"])
    }

    @Test func manualCheckpointsWriteOnlyWhenAsked() throws {
        let (pdf, dir) = try setup()
        let doc = try Document(path: pdf)
        try doc.startCheckpointing(CheckpointOptions(strategy: .manual, directory: dir))
        let path = try #require(doc.checkpointPath)
        let empty = try #require(fileBytes(path)).count
        try doc.addAnnotation(note("pending"))
        #expect(try #require(fileBytes(path)).count == empty)
        try doc.checkpoint()
        #expect(try #require(fileBytes(path)).count > empty)
        doc.stopCheckpointing()
        let reopened = try Document(path: pdf)
        try reopened.startCheckpointing(CheckpointOptions(directory: dir, existing: .load))
        #expect(try contents(reopened) == ["pending"])
    }

    @Test func timedCheckpointsWriteInTheBackground() throws {
        let (pdf, dir) = try setup()
        let doc = try Document(path: pdf)
        try doc.startCheckpointing(CheckpointOptions(strategy: .timed(seconds: 0.05), directory: dir))
        let path = try #require(doc.checkpointPath)
        let empty = try #require(fileBytes(path)).count
        try doc.addAnnotation(note("later"))
        var grew = false
        for _ in 0..<200 where !grew {  // up to 10 s; typically 50 ms
            usleep(50_000)
            grew = (fileBytes(path)?.count ?? 0) > empty
        }
        #expect(grew)
    }

    @Test func encryptedDocumentsKeepTheirCheckpointsSealed() throws {
        let corpus = try #require(corpusDirectory)
        let dir = try temporaryDirectory()
        let pdf = dir + "/enc.pdf"
        writeBytes(try #require(fileBytes(corpus + "/qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf")), pdf)
        do {
            let doc = try Document(path: pdf, options: OpenOptions(password: "view"))
            try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/cp"))
            try doc.addAnnotation(note("top secret remark"))
            let journalPath = try #require(doc.checkpointPath)
            let journal = try #require(fileBytes(journalPath))
            #expect(journal.firstRange(of: Array("top secret".utf8)) == nil)
            doc.stopCheckpointing()
        }
        let reopened = try Document(path: pdf, options: OpenOptions(password: "view"))
        #expect(try reopened.startCheckpointing(CheckpointOptions(directory: dir + "/cp", existing: .load)))
        #expect(try contents(reopened) == ["top secret remark"])
    }

    @Test func memoryDocumentsNeedAUID() throws {
        let dir = try temporaryDirectory()
        let doc = try documentWithPages(1)
        #expect(throws: PDFError.self) { try doc.startCheckpointing(CheckpointOptions(directory: dir)) }
        #expect(throws: PDFError.self) { try doc.startCheckpointing(CheckpointOptions(directory: dir, uid: "../escape")) }
        try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir, uid: "memory-doc"))
        try doc.addAnnotation(note("from memory"))
        doc.stopCheckpointing()
        let again = try documentWithPages(1)
        #expect(try again.startCheckpointing(CheckpointOptions(directory: dir, uid: "memory-doc", existing: .load)))
        #expect(try contents(again) == ["from memory"])
    }

    /// Edits one annotation 2,000 times (2 KB of text each) with `strategy`: the journal
    /// must stay under 2 MiB (it is compacted), and recovery gives the last edit.
    func checkCompaction(_ strategy: CheckpointOptions.Strategy, label: String) throws {
        let (pdf, dir) = try setup()
        let doc = try Document(path: pdf)
        try doc.startCheckpointing(CheckpointOptions(strategy: strategy, directory: dir))
        var a = try doc.addAnnotation(note(label))
        let padding = String(repeating: "x", count: 2_000)
        for k in 0..<2_000 {
            a.contents = "\(label) \(k) \(padding)"
            try doc.updateAnnotation(a)
        }
        try doc.checkpoint()
        let path = try #require(doc.checkpointPath)
        let size = try #require(fileBytes(path)).count
        #expect(size < 2 << 20, "the journal is \(size) bytes after 2,000 edits of one annotation")
        doc.stopCheckpointing()
        let reopened = try Document(path: pdf)
        try reopened.startCheckpointing(CheckpointOptions(directory: dir, existing: .load))
        #expect(try contents(reopened) == ["\(label) 1999 \(padding)"])
    }

    @Test func theJournalIsCompactedAndStaysSmall() throws {
        try checkCompaction(.immediate, label: "edit")
    }

    @Test func changesMadeBeforeCheckpointingStartsAreKept() throws {
        let (pdf, dir) = try setup()
        do {
            let doc = try Document(path: pdf)
            try doc.addAnnotation(note("before"))
            try doc.startCheckpointing(CheckpointOptions(strategy: .manual, directory: dir))
            try doc.addAnnotation(note("after"))
            try doc.checkpoint()
        }
        let reopened = try Document(path: pdf)
        try reopened.startCheckpointing(CheckpointOptions(directory: dir, existing: .load))
        #expect(try contents(reopened) == ["after", "before"])
    }

    @Test func timedCheckpointsAreCompactedToo() throws {
        try checkCompaction(.timed(seconds: 0.01), label: "timed")
    }

    @Test func saveAsMovesAPathCheckpointToTheNewFile() throws {
        let (pdf, dir) = try setup()
        let copy = pdf + ".copy.pdf"
        let doc = try Document(path: pdf)
        try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir))
        try doc.addAnnotation(note("before save-as"))
        let oldPath = try #require(doc.checkpointPath)
        try doc.save(to: copy, mode: .incremental)
        let newPath = try #require(doc.checkpointPath)
        #expect(newPath != oldPath)
        #expect(fileBytes(oldPath) == nil)  // its changes are in the copy
        try doc.addAnnotation(note("after save-as"))
        doc.stopCheckpointing()
        let reopened = try Document(path: copy)
        #expect(try reopened.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)))
        #expect(try contents(reopened) == ["after save-as", "before save-as"])
        let original = try Document(path: pdf)
        #expect(try original.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)) == false)
        #expect(try contents(original).isEmpty)
        #expect(throws: PDFError.self) { try Document(path: pdf).startCheckpointing(CheckpointOptions(directory: "")) }
    }

    @Test func anAsynchronousCheckpointEndsBeforeTheDocumentCloses() throws {
        let (pdf, dir) = try setup()
        final class Outcome: @unchecked Sendable { var errors: [PDFError?] = [] }
        let outcome = Outcome()
        do {
            let doc = try Document(path: pdf)
            try doc.startCheckpointing(CheckpointOptions(strategy: .manual, directory: dir))
            try doc.addAnnotation(note("async"))
            try doc.checkpoint { outcome.errors.append($0) }
        }  // closed at once: the checkpoint still completes
        #expect(outcome.errors.count == 1 && outcome.errors[0] == nil)
        let reopened = try Document(path: pdf)
        #expect(try reopened.startCheckpointing(CheckpointOptions(directory: dir, existing: .load)))
        #expect(try contents(reopened) == ["async"])
    }

    @Test func checkpointsOlderThanAWeekAreCleanedUp() throws {
        let (pdf, dir) = try setup()
        _ = mkdir(dir, 0o700)
        let old = dir + "/0123456789abcdef.qcheckpoint", recent = dir + "/fedcba9876543210.qcheckpoint"
        writeBytes(Array("old".utf8), old)
        writeBytes(Array("recent".utf8), recent)
        var times = [timeval(tv_sec: time(nil) - 8 * 24 * 3600, tv_usec: 0), timeval(tv_sec: time(nil) - 8 * 24 * 3600, tv_usec: 0)]
        #expect(utimes(old, &times) == 0)
        let doc = try Document(path: pdf)
        try doc.startCheckpointing(CheckpointOptions(directory: dir))
        #expect(fileBytes(old) == nil)
        #expect(fileBytes(recent) != nil)
    }
}
