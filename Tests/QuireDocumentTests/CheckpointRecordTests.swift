import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The checkpoint journal's records, one kind at a time, and what starting checkpoints does
/// with a checkpoint that exists (issue 14 and 24: a deletion record made every checkpoint
/// unloadable; starting without loading threw a checkpoint away).
@Suite("Checkpoint records")
struct CheckpointRecordTests {
    let file: PDFFile

    init() throws {
        file = try documentWithPages(1).file
    }

    func roundTrip(_ change: Change) throws -> Change {
        try CheckpointRecord.decode(try CheckpointRecord.encode(change, file: file))
    }

    @Test func aSetObjectRecordRoundTrips() throws {
        let dict = PDFDictionary([("Type", .name("Annot")), ("Contents", .string(PDFString(text: "héllo"))),
                                  ("Rect", .array([.integer(1), .real(2.5), .integer(3), .integer(4)])),
                                  ("P", .reference(ObjectID(3)))])
        for value: PDFObject in [.dictionary(dict), .integer(-7), .null, .bool(true), .name("X"), .array([])] {
            #expect(try roundTrip(.setObject(ObjectID(12, 3), value)) == .setObject(ObjectID(12, 3), value))
        }
    }

    @Test func aStreamRecordRoundTrips() throws {
        let data = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let stream = PDFStream(dictionary: PDFDictionary([("Length", .integer(5000))]), data: .bytes(data))
        let back = try roundTrip(.setObject(ObjectID(40), .stream(stream)))
        guard case .setObject(let id, .stream(let decoded)) = back else {
            Issue.record("not a stream: \(back)")
            return
        }
        #expect(id == ObjectID(40))
        #expect(decoded.dictionary == stream.dictionary)
        #expect(decoded.data == .bytes(data))
    }

    @Test func aDeletionRecordRoundTrips() throws {
        let record = try CheckpointRecord.encode(.deleteObject(ObjectID(77, 2)), file: file)
        #expect(record.count == 9)
        #expect(try CheckpointRecord.decode(record) == .deleteObject(ObjectID(77, 2)))
        // The largest numbers the format holds.
        #expect(try roundTrip(.deleteObject(ObjectID(Int(UInt32.max), 65535))) == .deleteObject(ObjectID(Int(UInt32.max), 65535)))
    }

    @Test func damagedRecordsAreFormatErrors() throws {
        let good = try CheckpointRecord.encode(.setObject(ObjectID(5), .integer(1)), file: file)
        let deletion = try CheckpointRecord.encode(.deleteObject(ObjectID(5)), file: file)
        var streamRecord = try CheckpointRecord.encode(
            .setObject(ObjectID(6), .stream(PDFStream(dictionary: PDFDictionary(), data: .bytes([1, 2])))), file: file)
        streamRecord[10] = 0xFF  // a dictionary length beyond the record
        let bad: [[UInt8]] = [
            [],                                  // empty
            Array(deletion.prefix(8)),           // a short head
            deletion + [0],                      // a deletion with a tail
            Array(good.prefix(9)),               // an object record without a value
            Array(good.prefix(9)) + [2, 0x31],   // an unknown value kind
            Array(good.prefix(10)) + Array("<< /A".utf8),  // an object that does not parse
            streamRecord,
            [UInt8(ascii: "X")] + Array(good.dropFirst()),  // not a change
        ]
        for record in bad {
            #expect(throws: PDFError.self) { _ = try CheckpointRecord.decode(record) }
        }
    }
}

@Suite("Checkpoint journals")
struct CheckpointJournalTests {
    func setup() throws -> (pdf: String, directory: String) {
        let dir = try temporaryDirectory()
        let pdf = dir + "/doc.pdf"
        try documentWithPages(2).save(to: pdf, mode: .full(objectStreams: false))
        return (pdf, dir + "/checkpoints")
    }

    func note(_ text: String, page: Int = 0) -> Annotation {
        var a = Annotation(subtype: "Text", pageIndex: page, rect: Rect(left: 10, bottom: 10, right: 30, top: 30))
        a.contents = text
        return a
    }

    /// Every object of `doc` that differs from the file, as the checkpoint would restore it.
    func state(_ doc: Document) throws -> [String] {
        var out: [String] = []
        for number in 1..<doc.objectCount {
            let value = doc.isInUse(number) ? try doc.object(number) : .null
            var bytes: [UInt8] = []
            if case .stream(let s) = value {
                Serializer.write(.dictionary(s.dictionary), to: &bytes)
                bytes += try doc.streamData(s, decoded: false)
            } else {
                bytes = Serializer.bytes(value)
            }
            out.append("\(number): " + String(decoding: bytes, as: UTF8.self))
        }
        return out
    }

    /// Makes a change of every kind the journal records: objects set (dictionaries,
    /// streams), objects deleted (annotations, their popups, plain objects), replies and
    /// review states, bookmarks; returns the expected state.
    func everyKindOfChange(_ doc: Document) throws -> [String] {
        let kept = try doc.addAnnotation(note("kept"))
        let gone = try doc.addAnnotation(note("deleted"))
        _ = try doc.addReply(to: try #require(kept.id), author: "Ann", contents: "a reply")
        _ = try doc.addStateReply(to: try #require(kept.id), author: "Bob", model: .review, state: "Accepted")
        try doc.deleteAnnotation(try #require(gone.id))
        var edited = kept
        edited.contents = "kept, edited"
        try doc.updateAnnotation(edited)
        let stream = try doc.addStream(PDFDictionary(), data: Array(repeating: 0x41, count: 3000))
        let plain = try doc.addObject(.dictionary(PDFDictionary([("Quire", .integer(1))])))
        let doomed = try doc.addObject(.integer(99))
        try doc.setObject(plain.number, .dictionary(PDFDictionary([("Quire", .integer(2)), ("S", .reference(stream))])))
        try doc.deleteObject(doomed.number)
        try doc.bookmarks.add(Bookmark(pageIndex: 1, name: "mark"))
        return try state(doc)
    }

    func checkLoads(strategy: CheckpointOptions.Strategy, encrypted: Bool) throws {
        var (pdf, dir) = try setup()
        var password: String? = nil
        if encrypted {
            let corpus = try #require(corpusDirectory)
            pdf = dir.replacing("/checkpoints", with: "") + "/enc.pdf"
            writeBytes(try #require(fileBytes(corpus + "/qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf")), pdf)
            password = "view"
        }
        let expected: [String]
        do {
            let doc = try Document(path: pdf, options: OpenOptions(password: password))
            try doc.startCheckpointing(CheckpointOptions(strategy: strategy, directory: dir))
            expected = try everyKindOfChange(doc)
            if strategy == .manual { try doc.checkpoint() }
            let journalPath = try #require(doc.checkpointPath)
            let journal = try #require(fileBytes(journalPath))
            if strategy != .timed(seconds: 0.05) { #expect(journal.count > 1000) }
            // The document goes away unsaved (the timed strategy writes what is pending).
        }
        let reopened = try Document(path: pdf, options: OpenOptions(password: password))
        let info = try reopened.inspectCheckpoint(CheckpointOptions(directory: dir))
        #expect(info.state == .changes)
        #expect(info.changedObjects > 5)
        #expect(try reopened.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir)))  // loads by default
        #expect(try state(reopened) == expected)
        #expect(try reopened.allAnnotations().compactMap(\.contents).contains("kept, edited"))
        #expect(try !reopened.allAnnotations().compactMap(\.contents).contains("deleted"))
        // A checkpoint that was loaded keeps loading after more changes (its deletions too).
        let edited = try reopened.allAnnotations().first { $0.contents == "kept, edited" }
        try reopened.deleteAnnotation(try #require(edited?.id))
        let after = try state(reopened)
        reopened.stopCheckpointing()
        let third = try Document(path: pdf, options: OpenOptions(password: password))
        #expect(try third.startCheckpointing(CheckpointOptions(directory: dir)))
        #expect(try state(third) == after)
    }

    @Test func aJournalWithEveryRecordKindLoads() throws {
        for strategy: CheckpointOptions.Strategy in [.immediate, .manual, .timed(seconds: 0.05)] {
            try checkLoads(strategy: strategy, encrypted: false)
        }
    }

    @Test func anEncryptedJournalWithEveryRecordKindLoads() throws {
        guard corpusDirectory != nil else { return }
        try checkLoads(strategy: .immediate, encrypted: true)
    }

    /// Crash with unsaved changes, then start checkpoints with every combination of
    /// options: only `.discard` loses the checkpoint.
    @Test func noOptionButDiscardLosesAnExistingCheckpoint() throws {
        let strategies: [CheckpointOptions.Strategy] = [.manual, .immediate, .timed(seconds: 0.05)]
        let policies: [ExistingCheckpoint] = [.load, .refuse, .discard]
        for strategy in strategies {
            for policy in policies {
                for explicitUID in [false, true] {
                    let (pdf, dir) = try setup()
                    let uid: String? = explicitUID ? "doc-uid" : nil
                    do {
                        let doc = try Document(path: pdf)
                        try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir, uid: uid))
                        try doc.addAnnotation(note("unsaved"))
                        let gone = try doc.addAnnotation(note("gone"))
                        try doc.deleteAnnotation(try #require(gone.id))
                    }
                    let doc = try Document(path: pdf)
                    let options = CheckpointOptions(strategy: strategy, directory: dir, uid: uid, existing: policy)
                    var loaded = false
                    var refused = false
                    do {
                        loaded = try doc.startCheckpointing(options)
                    } catch let e as PDFError {
                        #expect(e.kind == .exists && policy == .refuse, "\(strategy) \(policy): \(e)")
                        refused = true
                    }
                    #expect(loaded == (policy == .load))
                    #expect(refused == (policy == .refuse))
                    doc.stopCheckpointing()
                    // Whatever happened, a later start with loading finds the changes unless
                    // they were discarded (or loaded: then they are in this checkpoint still).
                    let later = try Document(path: pdf)
                    let recovered = try later.startCheckpointing(CheckpointOptions(directory: dir, uid: uid, existing: .load))
                    #expect(recovered == (policy != .discard), "\(strategy) \(policy) uid \(explicitUID)")
                    if recovered {
                        #expect(try later.allAnnotations().compactMap(\.contents) == ["unsaved"])
                    }
                }
            }
        }
    }

    @Test func refusingReplacesOnlyACheckpointWithNothingToRecover() throws {
        let (pdf, dir) = try setup()
        do {
            let doc = try Document(path: pdf)
            try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir))
            try doc.addAnnotation(note("saved"))
            try doc.save(to: pdf)
        }
        let doc = try Document(path: pdf)
        #expect(try doc.inspectCheckpoint(CheckpointOptions(directory: dir)).state == .empty)
        #expect(try doc.startCheckpointing(CheckpointOptions(directory: dir, existing: .refuse)) == false)
        #expect(try doc.inspectCheckpoint(CheckpointOptions(directory: dir)).inUse)
    }

    @Test func inspectionReportsWithoutChangingAnything() throws {
        let (pdf, dir) = try setup()
        let fresh = try Document(path: pdf)
        let none = try fresh.inspectCheckpoint(CheckpointOptions(directory: dir))
        #expect(none.state == .none && none.size == 0 && !none.inUse)
        do {
            let doc = try Document(path: pdf)
            try doc.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir))
            try doc.addAnnotation(note("one"))
            let live = try doc.inspectCheckpoint(CheckpointOptions(directory: dir))
            #expect(live.inUse && live.state == .changes)
        }
        let path = try fresh.inspectCheckpoint(CheckpointOptions(directory: dir)).path
        let before = try #require(fileBytes(path))
        let info = try fresh.inspectCheckpoint(CheckpointOptions(directory: dir))
        #expect(info.state == .changes && info.size == before.count && !info.inUse && info.modified > 1.7e9)
        #expect(fileBytes(path) == before)
        #expect(!fresh.hasUnsavedChanges)
        // Against another version of the file: stale; garbage: damaged.
        let other = try documentWithPages(3)
        try other.save(to: pdf, mode: .full(objectStreams: false))
        #expect(try Document(path: pdf).inspectCheckpoint(CheckpointOptions(directory: dir)).state == .stale)
        writeBytes(Array("QUIRECKP1\ngarbage".utf8), path)
        #expect(try Document(path: pdf).inspectCheckpoint(CheckpointOptions(directory: dir)).state == .damaged)
    }
}
