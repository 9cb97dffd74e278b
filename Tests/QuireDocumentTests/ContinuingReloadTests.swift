import Foundation
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport
import Testing

/// After an incremental save the document continues from the file before the update and
/// the update's cross-reference section alone (issue 17: the save of one annotation to a
/// file of 39,000 objects read the whole cross-reference again). What it then reads must
/// be what a fresh open of the saved bytes reads, after any mix of additions, edits and
/// deletions, on real files.
@Suite struct ContinuingReloadTests {
    /// One random change: an annotation added, edited or deleted, or an object deleted
    /// or replaced (its /Length included when it is one), so that every kind of entry an
    /// update can hold is drawn.
    static func change(_ doc: Document, _ rng: inout SplitMix64) throws {
        let pages = try doc.pageCount()
        guard pages > 0 else { return }
        let page = Int.random(in: 0..<Swift.min(pages, 20), using: &rng)
        let existing = (try? doc.annotations(onPage: page)) ?? []
        switch Int.random(in: 0..<5, using: &rng) {
        case 0, 1:
            var a = Annotation(subtype: "Square", pageIndex: page, rect: Rect(left: 10, bottom: 10, right: 60, top: 60))
            a.contents = "added \(rng.next() % 1000)"
            _ = try doc.addAnnotation(a)
        case 2:
            guard var a = existing.randomElement(using: &rng), a.id != nil else { return }
            a.contents = "edited \(rng.next() % 1000)"
            try doc.updateAnnotation(a)
        case 3:
            guard let a = existing.randomElement(using: &rng), let id = a.id else { return }
            try doc.deleteAnnotation(id)
        default:
            // A low-level change of an object read before the save: replaced by an integer
            // (a stream's indirect /Length, if it was one) or deleted.
            let numbers = doc.file.objectNumbers
            guard let number = numbers.randomElement(using: &rng) else { return }
            if Bool.random(using: &rng) {
                try doc.setObject(number, .integer(Int64(rng.next() % 100)))
            } else {
                try doc.deleteObject(number)
            }
        }
    }

    @Test func continuingReadsWhatAFreshOpenReads() throws {
        let files = LazyReadingTests.corpusFiles(step: Int(ProcessInfo.processInfo.environment["QUIRE_CONTINUE_TEST_STEP"] ?? "") ?? 9)
        try #require(!files.isEmpty || corpusDirectory == nil)
        var continued = 0
        var differ: [String] = []
        for (k, path) in files.enumerated() {
            guard let data = FileManager.default.contents(atPath: path),
                  let doc = try? Document(data: [UInt8](data)) else { continue }
            var rng = SplitMix64(state: UInt64(k) &* 7919)
            for round in 0..<3 {
                _ = LazyReadingTests.summary(doc)  // read objects, so that there is a cache to carry over
                for _ in 0..<Int.random(in: 1...4, using: &rng) { try? Self.change(doc, &rng) }
                var saved: [UInt8] = []
                do {
                    try doc.save(mode: .incremental) { saved.append(contentsOf: $0) }
                } catch {
                    break  // a file Quire cannot save incrementally: not this test's subject
                }
                if doc.file.continuedFromPrevious { continued += 1 }
                guard let fresh = try? Document(data: saved) else {
                    print("fresh open failed: \(path) round \(round): \(String(describing: try? doc.pageCount())) \(doc.file.trailer)")
                    differ.append("\(path) round \(round): opens only continued")
                    _ = FileManager.default.createFile(atPath: NSTemporaryDirectory() + "continued-\(k).pdf", contents: Data(saved))
                    break
                }
                let (a, b) = (LazyReadingTests.summary(doc), LazyReadingTests.summary(fresh))
                if a != b || doc.file.startXRef != fresh.file.startXRef || doc.file.objectCount != fresh.file.objectCount
                    || doc.file.trailer != fresh.file.trailer || doc.file.nextObjectNumber != fresh.file.nextObjectNumber {
                    differ.append("\(path) round \(round)")
                    let x = a.split(separator: "\n"), y = b.split(separator: "\n")
                    print("startxref \(String(describing: doc.file.startXRef)) \(String(describing: fresh.file.startXRef)) objects \(doc.file.objectCount) \(fresh.file.objectCount) next \(doc.file.nextObjectNumber) \(fresh.file.nextObjectNumber) trailer \(doc.file.trailer == fresh.file.trailer) \(String(decoding: Serializer.bytes(.dictionary(doc.file.trailer)), as: UTF8.self)) \(String(decoding: Serializer.bytes(.dictionary(fresh.file.trailer)), as: UTF8.self))")
                    if let i = x.indices.first(where: { $0 >= y.count || x[$0] != y[$0] }) { print("continued: \(x[i])\nfresh:     \(i < y.count ? y[i] : "")") }
                    break
                }
            }
        }
        #expect(differ.isEmpty, "\(differ)")
        // The point of it: most saves continued (a repaired or encrypted file is read afresh).
        if corpusDirectory != nil { #expect(continued > files.count) }
    }

    @Test func aStreamWhoseLengthObjectChangesIsReadAgain() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /MediaBox [0 0 200 200] /Contents 4 0 R >>")
        b.offsets[4] = b.bytes.count
        b.append("4 0 obj\n<< /Length 5 0 R >>\nstream\n0123456789\nendstream\nendobj\n")
        b.object(5, "10")
        b.finishWithTable()
        let doc = try Document(data: b.bytes)
        guard case .stream(let before)? = try? doc.object(4) else { Issue.record("no stream"); return }
        #expect(try doc.streamData(before, decoded: false) == Array("0123456789".utf8))
        try doc.setObject(5, .integer(4))
        var saved: [UInt8] = []
        try doc.save(mode: .incremental) { saved.append(contentsOf: $0) }
        #expect(doc.file.continuedFromPrevious)
        // Read again, as a fresh open reads it (a /Length of 4 before no `endstream`: the
        // parser looks for the keyword), not the ten bytes read before the save.
        let fresh = try Document(data: saved)
        guard case .stream(let after)? = try? doc.object(4), case .stream(let expected)? = try? fresh.object(4) else {
            Issue.record("no stream")
            return
        }
        #expect(after.dictionary["Length"] == .reference(ObjectID(5)))
        #expect(try doc.object(5) == .integer(4))
        #expect(try doc.streamData(after, decoded: false) == fresh.streamData(expected, decoded: false))
        #expect(after.data == expected.data)
        #expect(LazyReadingTests.summary(doc) == LazyReadingTests.summary(fresh))
    }

    @Test func aFullSaveIsReadAfresh() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /MediaBox [0 0 200 200] >>")
        b.finishWithTable()
        let doc = try Document(data: b.bytes)
        try addSquare(doc, page: 0, contents: "one")
        try doc.save(mode: .incremental) { _ in }
        #expect(doc.file.continuedFromPrevious)
        try addSquare(doc, page: 0, contents: "two")
        try doc.save(mode: .full(objectStreams: false)) { _ in }
        #expect(!doc.file.continuedFromPrevious)
        #expect(try doc.annotations(onPage: 0).map(\.contents) == ["one", "two"])
    }
}
