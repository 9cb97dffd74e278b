import Testing
import QuireDocument
import QuireSyntax
import QuireFuzzSupport
import QuireTestSupport

// Inputs from the complexity audit (docs/audits/2026-11-21-complexity.md) that made one call
// take seconds to minutes in a file or JSON document of a few hundred kilobytes. Each test
// feeds the audit's input at a size that took minutes in a debug build when the work was
// quadratic (a second or less now), and checks that the result is right. The suite's time
// limit turns a regression into a failure rather than a hang.

private func open(_ bytes: [UInt8], password: String? = nil) throws -> Document {
    try Document(data: bytes, options: OpenOptions(password: password))
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite("Super-linear inputs", .timeLimit(.minutes(1)))
struct SuperLinearTests {
    static let keys = 40_000

    /// `/k000000 <value> /k000001 <value> ...`: K keys of about ten bytes each.
    static func entries(_ count: Int, value: String) -> String {
        (0..<count).map { "/k\($0) \(value)" }.joined(separator: " ")
    }

    @Test func trailerWithManyKeysOpens() throws {
        // Finding 8: each trailer key was looked up and appended by a scan of the keys
        // merged so far (440 KB: 18.5 s in a release build).
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        b.finishWithTable(trailer: "/Root 1 0 R " + Self.entries(Self.keys, value: "1"))
        let doc = try open(b.bytes)
        #expect(try doc.pageCount() == 1)
        #expect(doc.file.trailer.count == Self.keys + 2)  // with /Size
        #expect(doc.file.trailer[PDFName("k\(Self.keys - 1)")] == .integer(1))
        Fuzzing.walk(doc)
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func encryptedDictionaryWithManyStringsSavesAndReads() throws {
        // Finding 10: decrypting (and encrypting) a dictionary set each value with a scan of
        // the keys (40,000 strings: 9.1 s to open in a release build, 0.08 s unencrypted).
        // Finding 11: a full save rebuilt each dictionary the same way (8.4 s).
        let doc = try Document(path: corpusDirectory! + "/qpdf/qpdf/qtest/qpdf/enc-R2,V1,U=view,O=master.pdf",
                               options: OpenOptions(password: "view"))
        // Encryption and decryption are slow in a debug build, and ten times slower under
        // ASan (20,000 keys took 14 s, and 177 s under ASan): a size that checks the
        // results; the quadratic dictionary copy itself is what trailerWithManyKeysOpens
        // and DictionaryTests check.
        let keys = 2_000
        let strings = PDFDictionary((0..<keys).map { (PDFName("k\($0)"), PDFObject.string(PDFString(text: "v\($0)"))) })
        let id = try doc.addObject(.dictionary(strings))
        try doc.setObject(doc.file.trailer["Root"]!.reference!.number,
                          .dictionary({ var c = try doc.catalog(); c["Big"] = .reference(id); return c }()))
        for mode in [SaveMode.incremental, .full(objectStreams: false), .full(objectStreams: true)] {
            let saved = try doc.saved(mode)
            #expect(!String(decoding: saved, as: UTF8.self).contains("(v\(keys - 1))"))  // encrypted
            let reread = try open(saved, password: "view")
            let big = try #require(try reread.resolve(reread.catalog()["Big"] ?? .null).dictionary)
            #expect(big.count == keys)
            #expect(big[PDFName("k\(keys - 1)")]?.string?.bytes == bytes("v\(keys - 1)"))
        }
    }

    @Test func repairScanOfManyXRefStreamCandidatesWithoutEndstream() throws {
        // Finding 9: with no cross-reference, each `/XRef` object header without
        // `endstream` searched to the end of the file, twice (20,000 of them, 529 KB: 18 s).
        var text = "%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            + "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
            + "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >> endobj\n"
        for k in 0..<20_000 { text += "\(10 + k) 0 obj<</XRef>>stream\n" }
        let doc = try open(bytes(text))
        #expect(doc.file.isRepaired)
        #expect(try doc.pageCount() == 1)
        #expect(doc.file.objectNumbers.count >= 20_003)
    }

    @Test func streamsWithoutLengthEndAtTheirOwnEndstream() throws {
        // The offsets of `endstream` and `endobj` are indexed after a few searches: every
        // stream, before and after the switch, still ends at the first `endstream` after its
        // data, and the last streams, with no `endstream` after them, end at their `endobj`.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        let n = 40
        for k in 0..<n {
            if k >= n - 3 {
                b.object(10 + k, "<< /Length 999999 >>\nstream\nnone \(k)")  // no endstream
            } else {
                b.object(10 + k, "<< >>\nstream\ndata \(k)\nendstream")
            }
        }
        b.finishWithTable()
        let doc = try open(b.bytes)
        for k in 0..<n {
            guard case .stream(let s) = try doc.object(10 + k) else {
                Issue.record("object \(10 + k) is not a stream")
                continue
            }
            // (The builder ends the object with "\nendobj"; the end-of-line marker before it
            // is not data, as PDFium reads it.)
            let expected = k >= n - 3 ? "none \(k)" : "data \(k)"
            #expect(String(decoding: try doc.streamData(s, decoded: false), as: UTF8.self) == expected, "object \(10 + k)")
        }
    }

    @Test func repairScanOfManyTrailerKeywords() throws {
        // Finding 12: the scan parsed a trailer at every `trailer` keyword, and one in a
        // comment inside a trailer was parsed again, to the end of the file (20,000: 2.65 s).
        // Unterminated strings after each keyword do the same without a valid trailer.
        let head = "%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            + "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
            + "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >> endobj\n"
        let comments = head + "trailer<<\n" + String(repeating: "%trailer<<\n", count: 40_000) + "/Root 1 0 R /Mark 7>>\n"
        let doc = try open(bytes(comments))
        #expect(doc.file.isRepaired)
        #expect(doc.file.trailer["Mark"] == .integer(7))
        #expect(try doc.pageCount() == 1)

        // The last trailer wins, and an earlier one supplies the keys it lacks. Broken
        // trailers between them (an unterminated string reads to the end of the file) are
        // parsed from the last backwards until four times the file has been read: with a
        // few, the early trailer is still reached; with 40,000, it is given up.
        for (count, early) in [(10, true), (40_000, false)] {
            let broken = head + "trailer<< /Root 1 0 R /Early 1 >>\n" + String(repeating: "trailer<<(\n", count: count)
                + "trailer<< /Root 1 0 R /Late 2 >>\n"
            let repaired = try open(bytes(broken))
            #expect(repaired.file.trailer["Late"] == .integer(2))
            #expect((repaired.file.trailer["Early"] == .integer(1)) == early)
            #expect(try repaired.pageCount() == 1)
        }
    }

    // MARK: The model across changes

    /// A document of `pages` pages under one node, each page its own object (4...).
    static func pagesDocument(_ pages: Int, catalogExtra: String = "", objects: [(Int, String)] = []) -> [UInt8] {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R \(catalogExtra) >>")
        b.object(2, "<< /Type /Pages /Kids [\((0..<pages).map { "\(4 + $0) 0 R" }.joined(separator: " "))] /Count \(pages) /MediaBox [0 0 612 792] >>")
        for k in 0..<pages { b.object(4 + k, "<< /Type /Page /Parent 2 0 R >>") }
        for (n, body) in objects { b.object(n, body) }
        b.finishWithTable()
        return b.bytes
    }

    @Test func thePageTreeFollowsEveryKindOfChange() throws {
        // The page tree is kept across changes to objects it did not read, and a page
        // changed outside what the walk reads is updated in place; any other change to a
        // page or a node reads the tree again.
        let doc = try open(Self.pagesDocument(3, objects: [(20, "[0 0 100 100]")]))
        #expect(try doc.page(at: 1).box(.media) == Rect(left: 0, bottom: 0, right: 612, top: 792))
        // An annotation on page 2: the page's /Annots changes in place.
        let a = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 1, rect: Rect(left: 1, bottom: 1, right: 9, top: 9)))
        #expect(try doc.page(at: 1).dictionary["Annots"]?.array == [.reference(try #require(a.id))])
        #expect(try doc.annotations(onPage: 1).count == 1 && doc.annotations(onPage: 0).isEmpty)
        // Its own media box, and then one through an indirect array.
        try doc.setValue(.array([.integer(0), .integer(0), .integer(200), .integer(300)]), forKey: "MediaBox", inObject: 5)
        #expect(try doc.page(at: 1).box(.media) == Rect(left: 0, bottom: 0, right: 200, top: 300))
        try doc.setValue(.reference(ObjectID(20, 0)), forKey: "MediaBox", inObject: 5)
        #expect(try doc.page(at: 1).box(.media) == Rect(left: 0, bottom: 0, right: 100, top: 100))
        try doc.setObject(20, .array([.integer(0), .integer(0), .integer(50), .integer(50)]))
        #expect(try doc.page(at: 1).box(.media) == Rect(left: 0, bottom: 0, right: 50, top: 50))
        // The node's inherited media box reaches the other pages.
        try doc.setValue(.array([.integer(0), .integer(0), .integer(10), .integer(20)]), forKey: "MediaBox", inObject: 2)
        #expect(try doc.page(at: 0).box(.media) == Rect(left: 0, bottom: 0, right: 10, top: 20))
        // A page that becomes a node, a node's kids, a kids array made indirect, a page
        // deleted, a new object that a dangling kid pointed at.
        let pageIDs = (0..<3).map { PDFObject.reference(ObjectID(4 + $0, 0)) }
        try doc.setValue(.array([pageIDs[1]]), forKey: "Kids", inObject: 2)
        #expect(try doc.pages().map { $0.id?.number } == [5])
        let kids = try doc.addObject(.array(pageIDs))
        try doc.setValue(.reference(kids), forKey: "Kids", inObject: 2)
        #expect(try doc.pages().count == 3)
        try doc.setObject(kids.number, .array(Array(pageIDs.prefix(2))))
        #expect(try doc.pages().map { $0.id?.number } == [4, 5])
        try doc.setObject(4, .dictionary(PDFDictionary([("Type", .name("Pages")), ("Kids", .array([pageIDs[1]]))])))
        #expect(try doc.pages().map { $0.id?.number } == [5, 5])
        try doc.setObject(4, .dictionary(PDFDictionary([("Type", .name("Page"))])))
        #expect(try doc.pages().map { $0.id?.number } == [4, 5])
        try doc.deleteObject(5)
        #expect(try doc.pages().map { $0.id?.number } == [4])
        let next = doc.file.nextObjectNumber + 10
        try doc.setObject(kids.number, .array([pageIDs[0], .reference(ObjectID(next, 0))]))
        #expect(try doc.pages().count == 1)
        while try doc.addObject(.dictionary(PDFDictionary([("Type", .name("Page"))]))).number < next {}
        #expect(try doc.pages().map { $0.id?.number } == [4, next])
        Fuzzing.walk(doc)
    }

    @Test func importingThousandsOfNamedRecordsIsLinear() throws {
        // Finding 6: each record read the page's annotations again (to check its name) and
        // wrote the page's /Annots again, and the change log kept every version of it:
        // 2,000 named records took 18 s, 8,000 records 856 MB.
        let n = 3_000
        let doc = try open(Self.pagesDocument(2))
        let records = (0..<n).map { i in
            #"{"v":1,"type":"pspdfkit/note","pageIndex":0,"bbox":[1,1,10,10],"text":"x","name":"n\#(i)"}"#
        }
        let made = try doc.importAnnotationsJSON(bytes(#"{"annotations":["# + records.joined(separator: ",") + "]}"))
        #expect(made.count == n && made.last?.name == "n\(n - 1)")
        #expect(try doc.annotations(onPage: 0).map(\.name) == (0..<n).map { "n\($0)" })
        // One entry per object in the log of the import's batch: the page once.
        var entries: [Int: Int] = [:]
        for case .setObject(let id, _) in doc.changeLog { entries[id.number, default: 0] += 1 }
        #expect(entries[4] == 1)
        #expect(entries.values.allSatisfy { $0 == 1 })
        // And again, updating every one of them with a reply to the first.
        let first = try #require(made.first?.id)
        let updates = (0..<n).map { i in
            #"{"v":1,"type":"pspdfkit/note","pageIndex":0,"bbox":[2,2,10,10],"text":"y","name":"n\#(i)"\#(i > 0 ? #","quire":{"inReplyTo":"n0"}"# : "")}"#
        }
        let updated = try doc.importAnnotationsJSON(bytes(#"{"annotations":["# + updates.joined(separator: ",") + "]}"))
        #expect(updated.map(\.id) == made.map(\.id))
        #expect(try doc.replies(to: first).count == n - 1)
        #expect(try doc.annotations(onPage: 0).allSatisfy { $0.contents == "y" })
    }

    @Test func movingAndListingThousandsOfBookmarks() throws {
        // Finding 5: a move rewrote the whole store once per bookmark whose sort key
        // changed (4,000 bookmarks: 43 s and 6.4 GB). Finding 7: each listing by index
        // sorted every bookmark again.
        let n = 4_000
        let entries = (0..<n).map { "<< /ID (b\($0)) /A << /S /URI /URI (u) >> >>" }.joined(separator: " ")
        let doc = try open(Self.pagesDocument(1, catalogExtra: "/QUIR_Bookmarks 3 0 R",
                                              objects: [(3, "<< /Version 1 /Bookmarks [\(entries)] >>")]))
        try doc.bookmarks.move(identifier: "b0", to: n - 1)
        let order = try doc.bookmarks.bookmarks(sortedBy: .custom)
        #expect(order.map(\.identifier) == (1..<n).map { "b\($0)" } + ["b0"])
        #expect(order.map(\.sortKey) == (0..<n).map { Optional($0) })
        for i in stride(from: 0, to: n, by: 1) {
            #expect(try doc.bookmarks.bookmarks(sortedBy: .pageBased)[i].identifier == order[i].identifier)
        }
        // One version of the store in the log, and it reads back.
        #expect(doc.changeLog.filter { if case .setObject(let id, _) = $0 { return id.number == 3 } else { return false } }.count == 1)
        let reread = try open(try doc.saved(.incremental))
        #expect(try reread.bookmarks.bookmarks(sortedBy: .custom).map(\.identifier) == order.map(\.identifier))
    }

    /// `i` in five digits: names that sort as numbers.
    static func padded(_ i: Int) -> String {
        let digits = String(i)
        return String(repeating: "0", count: Swift.max(0, 5 - digits.count)) + digits
    }

    @Test func thousandsOfLinksToNamedDestinations() throws {
        // Finding 14: each link's named destination walked the whole name tree (8,000
        // links and names: 5.4 s in a release build).
        let n = 8_000
        let names = (0..<n).map { "(n\(Self.padded($0))) [4 0 R /Fit]" }.joined(separator: " ")
        let links = (0..<n).map { "<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /Dest (n\(Self.padded(n - 1 - $0))) >>" }
        var objects = [(3, "<< /Dests << /Names [\(names)] >> >>")]
        objects.append((6, "[" + links.joined(separator: " ") + "]"))
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R /Names 3 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [4 0 R 5 0 R] /Count 2 >>")
        b.object(4, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots 6 0 R >>")
        b.object(5, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
        for (n, body) in objects { b.object(n, body) }
        b.finishWithTable()
        let doc = try open(b.bytes)
        let annotations = try doc.annotations(onPage: 0)
        #expect(annotations.count == n)
        #expect(annotations.allSatisfy { $0.destination?.pageIndex == 0 })
        #expect(try doc.resolveNamedDestination("n00042")?.pageIndex == 0)
        #expect(try doc.resolveNamedDestination("missing") == nil)
    }
}
