import Testing
import QuireDocument
import QuireSyntax
import QuireFuzzSupport
import QuireTestSupport

// Damaged cross-references that PDFium and MuPDF open (issue 17): sections whose object
// numbers are absurd, and entries that point at themselves or loop. Each file is built
// here byte by byte; the page counts expected are those of the file's construction, and
// Tests/python/test_damaged_xref.py builds the same files and checks that PDFium (and,
// where it reads them, MuPDF) counts the same pages.

/// A catalog 1, a page tree 2 and `pages` pages 3, 4, ... (each 200 x 300).
private func pageObjects(_ b: inout PDFBuilder, pages: Int = 1) {
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    let kids = (0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " ")
    b.object(2, "<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>")
    for p in 0..<pages { b.object(3 + p, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>") }
}

/// A table entry `oooooooooo 00000 n`, or the free entry for nil.
private func entry(_ offset: Int?) -> String {
    guard let offset else { return "0000000000 65535 f \n" }
    return String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n"
}

/// One row of an xref stream with /W [1 4 2].
private enum Row {
    case free
    case at(Int)
    case compressed(stream: Int, index: Int)

    var bytes: [UInt8] {
        func be(_ v: Int, _ width: Int) -> [UInt8] { (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * (width - 1 - $0))) } }
        switch self {
        case .free: return [0] + be(0, 4) + be(65535, 2)
        case .at(let offset): return [1] + be(offset, 4) + be(0, 2)
        case .compressed(let stream, let index): return [2] + be(stream, 4) + be(index, 2)
        }
    }
}

/// Appends xref stream `number` with `rows` (object 0 onwards unless `extra` has /Index),
/// Flate-compressed, and its startxref.
private func xrefStream(_ b: inout PDFBuilder, number: Int, rows: [Row], extra: String = "/Size \(Int.max)") {
    let start = b.bytes.count
    b.offsets[number] = start
    let data = PDFBuilder.deflate(rows.flatMap(\.bytes))
    let size = extra.contains("/Size") ? "" : "/Size \(rows.count) "
    b.append("\(number) 0 obj\n<< /Type /XRef \(size)\(extra) /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length \(data.count) >>\nstream\n")
    b.bytes += data
    b.append("\nendstream\nendobj\nstartxref\n\(start)\n%%EOF\n")
}

/// Opens `bytes` and checks that it has `pages` pages that all load, 200 x 300.
private func expectPages(_ bytes: [UInt8], _ pages: Int, repaired: Bool = true, limits: PDFLimits = .default,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
    let doc = try Document(data: bytes, options: OpenOptions(limits: limits))
    #expect(try doc.pageCount() == pages, sourceLocation: sourceLocation)
    #expect(try doc.pages().count == pages, sourceLocation: sourceLocation)
    for page in try doc.pages() {
        #expect(try page.box(.media) == Rect(left: 0, bottom: 0, right: 200, top: 300), sourceLocation: sourceLocation)
    }
    #expect(doc.isRepaired == repaired, sourceLocation: sourceLocation)
    Fuzzing.walk(doc)
}

@Suite("Damaged cross-references that the peers open")
struct DamagedXRefTests {
    // MARK: Absurd numbers: repaired, not refused

    @Test func tableSubsectionStartingAtTwoToThe32() throws {
        var b = PDFBuilder()
        pageObjects(&b)
        let start = b.bytes.count
        b.append("xref\n0 4\n" + entry(nil) + (1...3).map { entry(b.offsets[$0]!) }.joined())
        b.append("4294967296 2\n" + entry(9) + entry(9))
        b.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n")
        try expectPages(b.bytes, 1)
    }

    @Test(arguments: ["/Size 300000000000000", "/Size 5 /Index [0 300000000000000]",
                      "/Size 5 /Index [0 5 4294967296 1]", "/Size 9223372036854775807"])
    func xrefStreamWithAbsurdSize(extra: String) throws {
        var b = PDFBuilder()
        pageObjects(&b)
        let rows: [Row] = [.free, .at(b.offsets[1]!), .at(b.offsets[2]!), .at(b.offsets[3]!), .at(b.bytes.count)]
        xrefStream(&b, number: 4, rows: rows, extra: extra)
        try expectPages(b.bytes, 1)
    }

    @Test func absurdSectionOlderInTheChain() throws {
        // The newest section is sound; the /Prev section it leads to is absurd.
        var b = PDFBuilder()
        pageObjects(&b)
        let old = b.bytes.count
        b.append("xref\n4294967296 1\n" + entry(9) + "trailer\n<< /Size 4 /Root 1 0 R >>\n")
        let new = b.bytes.count
        b.append("xref\n0 4\n" + entry(nil) + (1...3).map { entry(b.offsets[$0]!) }.joined())
        b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev \(old) >>\nstartxref\n\(new)\n%%EOF\n")
        try expectPages(b.bytes, 1)
    }

    @Test func theLimitHoldsForWhatRepairFinds() throws {
        // An absurd section sends the file to repair; the scan finds object 20 past a
        // max_objects of 10: the file is refused, as before, with the section's error.
        var b = PDFBuilder()
        pageObjects(&b)
        b.object(20, "(twenty)")
        let start = b.bytes.count
        b.append("xref\n4294967296 1\n" + entry(9) + "trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n")
        var limits = PDFLimits()
        limits.maxObjects = 10
        let error = #expect(throws: PDFError.self) { try Document(data: b.bytes, options: OpenOptions(limits: limits)) }
        #expect(error?.limitName == "max_objects")
        // Under the default limit, object 20 is just an object.
        try expectPages(b.bytes, 1)
    }

    // MARK: Entries that point at themselves, at other sections or at garbage

    @Test func everyEntryPointsAtTheTableItself() throws {
        var b = PDFBuilder()
        pageObjects(&b, pages: 3)
        let start = b.bytes.count
        b.append("xref\n0 6\n" + entry(nil) + String(repeating: entry(start), count: 5))
        b.append("trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n")
        try expectPages(b.bytes, 3)
    }

    @Test func everyEntryPointsAtTheXRefStreamItself() throws {
        var b = PDFBuilder()
        pageObjects(&b, pages: 2)
        let at = b.bytes.count
        xrefStream(&b, number: 5, rows: [.free] + Array(repeating: Row.at(at), count: 5), extra: "")
        try expectPages(b.bytes, 2)
    }

    @Test func entriesPointAtGarbageAndAtEachOther() throws {
        var b = PDFBuilder()
        pageObjects(&b, pages: 2)
        let garbage = b.bytes.count
        b.append("garbage that is not an object\n")
        // 1 at garbage, 2 at page 3's bytes, 3 at the tree's, 4 at the catalog's.
        b.finishWithTable()
        let swapped = [nil, garbage, b.offsets[3]!, b.offsets[2]!, b.offsets[1]!].map(entry).joined()
        let table = b.lastXRef
        b.bytes.removeSubrange(table...)
        b.append("xref\n0 5\n" + swapped + "trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n")
        try expectPages(b.bytes, 2)
    }

    @Test func updateWhoseEntriesPointAtTheSectionsOfTheFile() throws {
        // An incremental update whose entries for the catalog and the tree point at the
        // older table and at itself.
        var b = PDFBuilder()
        pageObjects(&b)
        b.finishWithTable()
        let older = b.lastXRef
        let newer = b.bytes.count
        b.append("xref\n1 2\n" + entry(older) + entry(newer))
        b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev \(older) >>\nstartxref\n\(newer)\n%%EOF\n")
        try expectPages(b.bytes, 1)
    }

    // MARK: Object streams that loop or are not streams

    /// Objects 2 (the tree) to 2 + `pages` (the pages) in object stream `stream`.
    private func packedTree(_ b: inout PDFBuilder, pages: Int, stream: Int) {
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " ")
        let bodies = ["<< /Type /Pages /Kids [\(kids)] /Count \(pages) >>"]
            + Array(repeating: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>", count: pages)
        var header = "", data = ""
        for (k, body) in bodies.enumerated() {
            header += "\(2 + k) \(data.utf8.count) "
            data += body + " "
        }
        b.stream(stream, "/Type /ObjStm /N \(bodies.count) /First \(header.utf8.count) /Filter /FlateDecode",
                 PDFBuilder.deflate(Array((header + data).utf8)))
    }

    @Test func treeSaidToBeInItself() throws {
        // Object 2 "is in object stream 2": it is found in object stream 6 by scanning.
        var b = PDFBuilder()
        packedTree(&b, pages: 3, stream: 6)
        let at = b.bytes.count
        xrefStream(&b, number: 7, rows: [.free, .at(b.offsets[1]!), .compressed(stream: 2, index: 0),
                                         .compressed(stream: 6, index: 1), .compressed(stream: 6, index: 2),
                                         .compressed(stream: 6, index: 3), .at(b.offsets[6]!), .at(at)], extra: "")
        try expectPages(b.bytes, 3)
        // The same with plain objects: object 2 found at its offset.
        var c = PDFBuilder()
        pageObjects(&c)
        let at2 = c.bytes.count
        xrefStream(&c, number: 4, rows: [.free, .at(c.offsets[1]!), .compressed(stream: 2, index: 0), .at(c.offsets[3]!), .at(at2)], extra: "")
        try expectPages(c.bytes, 1)
    }

    @Test func objectStreamsThatLoop() throws {
        // 2 in stream 5, 5 in stream 6, 6 in stream 5: none of it is read; the objects are
        // plain objects in the file.
        var b = PDFBuilder()
        pageObjects(&b)
        let at = b.bytes.count
        xrefStream(&b, number: 7, rows: [.free, .at(b.offsets[1]!), .compressed(stream: 5, index: 0), .at(b.offsets[3]!),
                                         .free, .compressed(stream: 6, index: 0), .compressed(stream: 5, index: 0), .at(at)], extra: "")
        try expectPages(b.bytes, 1)
    }

    @Test func treeInAnObjectStreamThatIsNotAStream() throws {
        var b = PDFBuilder()
        pageObjects(&b, pages: 2)
        let at = b.bytes.count
        xrefStream(&b, number: 5, rows: [.free, .at(b.offsets[1]!), .compressed(stream: 1, index: 0),
                                         .compressed(stream: 1, index: 1), .at(b.offsets[4]!), .at(at)], extra: "")
        try expectPages(b.bytes, 2)
    }

    @Test func objectMissingFromItsStream() throws {
        // The pages are said to be at indexes 7 and 8 of a stream of three objects with
        // other numbers: found by scanning the stream's header.
        var b = PDFBuilder()
        packedTree(&b, pages: 2, stream: 6)
        let at = b.bytes.count
        xrefStream(&b, number: 7, rows: [.free, .at(b.offsets[1]!), .compressed(stream: 6, index: 0),
                                         .compressed(stream: 8, index: 7), .compressed(stream: 8, index: 8),
                                         .free, .at(b.offsets[6]!), .at(at)], extra: "")
        try expectPages(b.bytes, 2)
    }

    @Test func aLimitOnThePageTreeRootIsNotDamage() throws {
        // The tree is in an object stream that decodes past max_stream_bytes: the file
        // opens unrepaired, and reading the pages meets the limit, as before the check of
        // /Pages at open.
        var b = PDFBuilder()
        packedTree(&b, pages: 2, stream: 6)
        b.finishWithXRefStream(number: 7, compressed: [2: (6, 0), 3: (6, 1), 4: (6, 2)])
        var limits = PDFLimits()
        limits.maxStreamBytes = 100
        let doc = try Document(data: b.bytes, options: OpenOptions(limits: limits))
        #expect(!doc.isRepaired)
        #expect((#expect(throws: PDFError.self) { try doc.pageCount() })?.limitName == "max_stream_bytes")
        try expectPages(b.bytes, 2, repaired: false)
    }

    @Test func freePageTreeRoot() throws {
        // The tree's entry is free: PDFium finds the tree by scanning (MuPDF counts 0).
        var b = PDFBuilder()
        pageObjects(&b)
        b.finishWithTable()
        let table = b.lastXRef
        b.bytes.removeSubrange(table...)
        b.append("xref\n0 4\n" + [nil, b.offsets[1]!, nil, b.offsets[3]!].map(entry).joined())
        b.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n\(table)\n%%EOF\n")
        try expectPages(b.bytes, 1)
    }

    // MARK: /Prev chains that loop

    @Test func prevChainsThatLoopThroughEntriesPointingAtThemselves() throws {
        // Section A (the newest) lists the catalog; its /Prev is B, which lists the tree and
        // the page at B's own offset, and whose /Prev is A again.
        var b = PDFBuilder()
        pageObjects(&b)
        let sectionB = b.bytes.count
        // /Prev written with 10 digits, so that B's length does not depend on A's offset.
        let bText = { (a: Int) in "xref\n2 2\n" + entry(sectionB) + entry(sectionB) + "trailer\n<< /Size 4 /Root 1 0 R /Prev \(entry(a).prefix(10)) >>\n" }
        let sectionA = sectionB + bText(0).utf8.count
        b.append(bText(sectionA))
        b.append("xref\n0 2\n" + entry(nil) + entry(b.offsets[1]!))
        b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev \(sectionB) >>\nstartxref\n\(sectionA)\n%%EOF\n")
        #expect(String(decoding: b.bytes[sectionA..<(sectionA + 4)], as: UTF8.self) == "xref")
        try expectPages(b.bytes, 1)
        // A section whose /Prev is itself, listing only the catalog.
        var c = PDFBuilder()
        pageObjects(&c)
        let at = c.bytes.count
        c.append("xref\n0 2\n" + entry(nil) + entry(c.offsets[1]!) + "trailer\n<< /Size 4 /Root 1 0 R /Prev \(at) >>\nstartxref\n\(at)\n%%EOF\n")
        try expectPages(c.bytes, 1)
    }

    // MARK: Object streams found by the repair's scan (issue 40)

    /// The catalog, the page tree, a page (200 x 300) and a note on it, all in object
    /// stream 5; the file's only cross-reference is stream 6, whose rows are given.
    private func everythingInAnObjectStream(rows: (Int) -> [Row], dataOverride: [UInt8]? = nil) -> [UInt8] {
        var b = PDFBuilder()
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Annots [4 0 R] >>",
            "<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (found) /NM (note-1) >>",
        ]
        var header = ""
        var body = ""
        for (k, o) in objects.enumerated() {
            header += "\(k + 1) \(body.utf8.count) "
            body += o + "\n"
        }
        b.stream(5, "/Type /ObjStm /N 4 /First \(header.utf8.count) /Filter /FlateDecode",
                 PDFBuilder.deflate(Array((header + body).utf8)))
        let start = b.bytes.count
        let data = dataOverride ?? PDFBuilder.deflate(rows(b.offsets[5]!).flatMap(\.bytes))
        b.append("6 0 obj\n<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length \(data.count) >>\nstream\n")
        b.bytes += data
        b.append("\nendstream\nendobj\nstartxref\n\(start)\n%%EOF\n")
        return b.bytes
    }

    /// Opens `bytes`, which must give one page of 200 x 300 with the note of
    /// ``everythingInAnObjectStream(rows:dataOverride:)`` on it, repaired.
    private func expectPageAndNote(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try expectPages(bytes, 1, sourceLocation: sourceLocation)
            let doc = try Document(data: bytes)
            let notes = try doc.annotations(onPage: 0)
            #expect(notes.map(\.contents) == ["found"], sourceLocation: sourceLocation)
            #expect(notes.first?.name == "note-1", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func emptyXRefStreamAndThePageTreeInAnObjectStream() throws {
        // Issue 40: the cross-reference stream says every object is free. The repair's scan
        // finds object stream 5, whose objects (the catalog, the tree, the page and its
        // note) were read through the damaged entries, which said "free", so none was
        // indexed: 0 pages, where PDFium and MuPDF find the page and its note.
        expectPageAndNote(everythingInAnObjectStream(rows: { _ in Array(repeating: .free, count: 7) }))
        // No rows at all (a stream of no data), and rows that point at garbage.
        expectPageAndNote(everythingInAnObjectStream(rows: { _ in [] }, dataOverride: []))
        expectPageAndNote(everythingInAnObjectStream(rows: { _ in Array(repeating: .at(3), count: 7) }))
        // The stream object itself listed at a wrong offset, its objects as in another stream.
        expectPageAndNote(everythingInAnObjectStream(rows: { _ in
            [.free, .compressed(stream: 6, index: 0), .compressed(stream: 6, index: 1), .compressed(stream: 6, index: 2),
             .compressed(stream: 6, index: 3), .at(1), .free]
        }))
    }

    @Test func scannedObjectStreamsKeepTheirLimits() throws {
        // The objects of a scanned object stream are indexed within the usual limits: a
        // stream that decodes past max_stream_bytes is not decoded, so its catalog is not
        // found (a format error, as for any file without one); under a limit it fits, it is.
        let bytes = everythingInAnObjectStream(rows: { _ in Array(repeating: .free, count: 7) })
        var limits = PDFLimits()
        limits.maxStreamBytes = 64
        let error = #expect(throws: PDFError.self) { try Document(data: bytes, options: OpenOptions(limits: limits)) }
        #expect(error?.kind == .format)
        limits.maxStreamBytes = 4096
        let doc = try Document(data: bytes, options: OpenOptions(limits: limits))
        #expect(try doc.pageCount() == 1)
    }
}
