import Testing
import QuireDocument
import QuireSyntax
import QuireFuzzSupport
import QuireTestSupport

// One test per limit and per kind of hostile structure that the README names, each with a
// file built to exceed it: each gives the named error or a clean recovery (a warning),
// never a trap or a hang. The tests that already existed elsewhere are listed here so
// that this file is the index:
//
// - nesting in the parser: LexerParserTests.nestingLimit
// - Flate bomb, one stream (max_decompression_ratio, max_stream_bytes): FilterTests.flateBomb
// - Flate bombs, document-wide (max_total_decoded_bytes): HybridAndTotalLimitTests
// - /Prev loop of classic tables: FileTests.prevLoopStops, RepairTests.prevLoopObjectsFoundByScanning
// - max_xref_chain: FileTests.xrefChainLimit; max_objects (lowered): FileTests.objectNumberLimit
// - page tree cycle, max_page_tree_depth, max_pages: PageTreeTests
// - outline cycles and limits: OutlineTests.cycleThroughNextIsCut, depthLimit, itemLimit
// - /IRT cycles made through the API: AnnotationTests.replyRules
// - a /Length shorter than the data: LexerParserTests.streamWithWrongLength
//
// Every document here is also walked with the fuzz targets' walk (QuireFuzzSupport), which
// reads everything the library reads.

/// A file of `objects` (number, body) with a catalog 1, a page tree 2 and a page 3 unless
/// the caller gives them.
private func file(_ objects: [(Int, String)], trailer: String = "/Root 1 0 R") -> [UInt8] {
    var b = PDFBuilder()
    let numbers = Set(objects.map(\.0))
    if !numbers.contains(1) { b.object(1, "<< /Type /Catalog /Pages 2 0 R >>") }
    if !numbers.contains(2) { b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>") }
    if !numbers.contains(3) { b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>") }
    for (n, body) in objects { b.object(n, body) }
    b.finishWithTable(trailer: trailer)
    return b.bytes
}

private func open(_ bytes: [UInt8], limits: PDFLimits = .default) throws -> Document {
    try Document(data: bytes, options: OpenOptions(limits: limits))
}

@Suite("Limits and hostile structure")
struct LimitTests {
    // MARK: max_nesting_depth

    @Test func nestingPastTheLimitInAFileReadsAsNullWithAWarning() throws {
        let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        let doc = try open(file([(4, deep), (5, "<< /Kept true >>")]))
        #expect(try doc.object(4) == .null)
        #expect(doc.warnings.contains { $0.contains("max_nesting_depth") })
        #expect(try doc.object(5).dictionary?["Kept"] == .bool(true))  // the rest reads
        #expect(try doc.pageCount() == 1)
        // Just inside the limit: read as it is.
        let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(try open(file([(4, ok)])).object(4).array != nil)
    }

    @Test func nestingFarPastTheRecursionCapDoesNotOverflowTheStack() throws {
        // Whatever the setting, the parser stops at PDFLimits.recursionCap: a million
        // brackets (and dictionaries) in the page itself cost a warning, not the stack.
        var limits = PDFLimits()
        limits.maxNestingDepth = Int.max
        let abyss = String(repeating: "[", count: 1_000_000)
        let dicts = String(repeating: "<< /A ", count: 200_000)
        let bytes = file([(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 1 1] /X \(abyss) >>"), (4, dicts)])
        let doc = try open(bytes, limits: limits)
        #expect(try doc.object(4) == .null)
        #expect(doc.warnings.contains { $0.contains("max_nesting_depth") })
        Fuzzing.walk(doc)

        // At the cap itself: the object reads, compares, saves and reads back (everything
        // that walks an object's nesting stays within a thread's stack).
        let atCap = String(repeating: "[", count: PDFLimits.recursionCap) + String(repeating: "]", count: PDFLimits.recursionCap)
        let capped = try open(file([(1, "<< /Type /Catalog /Pages 2 0 R /Deep 4 0 R >>"), (4, atCap)]), limits: limits)
        let value = try capped.object(4)
        #expect(value.array != nil)
        #expect(value == value)
        for mode in [SaveMode.full(objectStreams: true), .full(objectStreams: false)] {
            let reread = try open(try capped.saved(mode), limits: limits)
            let deep = try reread.resolve(try reread.catalog()["Deep"] ?? .null)
            #expect(deep == value)
        }
    }

    @Test func longArraysParseInLinearTime() throws {
        // qpdf's many-nulls.pdf took 115 s to open (instead of 0.16) after the parser
        // stopped recursing: each element appended to an array copied it. 300,000 nulls
        // and 300,000 small arrays: quick now, minutes when quadratic.
        let nulls = "[" + String(repeating: "null ", count: 300_000) + "]"
        let arrays = "[" + String(repeating: "[1] ", count: 300_000) + "]"
        let doc = try open(file([(4, nulls), (5, arrays)]))
        #expect(try doc.object(4).array?.count == 300_000)
        #expect(try doc.object(5).array?.count == 300_000)
    }

    @Test func bigDictionariesParseInLinearTime() throws {
        // 100,000 distinct keys (1.4 MB) took 56 s to read: each key searched the entries
        // before it. Duplicate keys keep the PDFDictionary setter's meaning: a later value
        // replaces the earlier in place, a null removes the entry, and a key set again
        // after its removal comes last.
        let keys = (0..<100_000).map { "/K\($0) \($0)" }.joined(separator: " ")
        let doc = try open(file([(4, "<< " + keys + " >>"), (5, "<< /A 1 /B 2 /C 5 /A 3 /B null /B 4 /D null >>")]))
        let big = try #require(try doc.object(4).dictionary)
        #expect(big.count == 100_000)
        #expect(big["K99999"] == .integer(99_999))
        let dup = try #require(try doc.object(5).dictionary)
        #expect(dup.keys == ["A", "C", "B"])
        #expect(dup["A"] == .integer(3) && dup["B"] == .integer(4) && dup["D"] == nil)
    }

    // MARK: Flate bombs

    /// 64 MiB of zeros in about 64 KB.
    static let bomb = PDFBuilder.deflate([UInt8](repeating: 0, count: 64 << 20))

    @Test func flateBombInAnObjectStreamLeavesItsObjectsUnreadable() throws {
        // The objects of the catalog's object stream cannot be decoded: the document does
        // not open (its catalog is in there), with the limit named, and never inflates more
        // than the limit allows.
        var b = PDFBuilder()
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        b.stream(5, "/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", Self.bomb)
        b.finishWithXRefStream(number: 6, compressed: [1: (stream: 5, index: 0)])
        var limits = PDFLimits()
        limits.maxStreamBytes = 16 << 20
        let error = #expect(throws: PDFError.self) {
            let doc = try open(b.bytes, limits: limits)
            _ = try doc.pageCount()
        }
        #expect(error?.kind == .limit || error?.kind == .format)
        #expect(error?.message.contains("max_stream_bytes") == true || error?.message.contains("max_decompression_ratio") == true)
    }

    @Test func flateBombAsAPageContentIsALimitErrorOnThatStreamOnly() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>")
        b.stream(4, "/Filter /FlateDecode", Self.bomb)
        b.finishWithTable()
        let doc = try open(b.bytes)
        guard case .stream(let s) = try doc.object(4) else { Issue.record("not a stream"); return }
        let error = #expect(throws: PDFError.self) { try doc.streamData(s, decoded: true) }
        #expect(error?.kind == .limit)
        #expect(error?.limitName == "max_decompression_ratio")
        #expect(try doc.streamData(s, decoded: false).count == Self.bomb.count)  // raw: fine
        #expect(try doc.page(at: 0).box(.media).width == 200)
    }

    @Test func flateBombAsAnXRefStreamIsALimitError() throws {
        // An xref stream that decodes to 64 MiB: opening fails with the limit named (the
        // cross-reference is not rebuilt around a limit: past a limit, the call fails).
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        let start = b.bytes.count
        b.append("4 0 obj\n<< /Type /XRef /Size 5 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /Length \(Self.bomb.count) >>\nstream\n")
        b.bytes += Self.bomb
        b.append("\nendstream\nendobj\nstartxref\n\(start)\n%%EOF\n")
        let error = #expect(throws: PDFError.self) { try open(b.bytes) }
        #expect(error?.kind == .limit)
        #expect(error?.limitName == "max_decompression_ratio")
        // With the ratio lifted, the per-stream limit stops it.
        var limits = PDFLimits()
        limits.maxDecompressionRatio = Int.max
        limits.maxStreamBytes = 8 << 20
        let e2 = #expect(throws: PDFError.self) { try open(b.bytes, limits: limits) }
        #expect(e2?.limitName == "max_stream_bytes")
    }

    // MARK: Cross-reference loops

    @Test func xrefStreamPrevLoopStops() throws {
        // An xref stream whose /Prev is itself, and a hybrid table whose /XRefStm is the
        // table itself.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        let at = b.bytes.count
        b.finishWithXRefStream(number: 4, trailer: "/Root 1 0 R /Prev \(at)")
        let doc = try open(b.bytes)
        #expect(try doc.pageCount() == 1)
        #expect(doc.warnings.contains { $0.contains("loop") })
        Fuzzing.walk(doc)

        var c = PDFBuilder()
        c.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        c.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        c.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        let table = c.bytes.count
        c.finishWithTable(trailer: "/Root 1 0 R /XRefStm \(table) /Prev \(table)")
        let hybrid = try open(c.bytes)
        #expect(try hybrid.pageCount() == 1)
        Fuzzing.walk(hybrid)
    }

    @Test func twoSectionPrevLoopStops() throws {
        // A -> B -> A, through two tables.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        b.finishWithTable()  // section A at b.lastXRef, /Prev patched below
        let first = b.lastXRef
        let second = b.bytes.count
        b.append("xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 4 /Root 1 0 R /Prev \(first) >>\nstartxref\n\(second)\n%%EOF\n")
        // Make A point at B: rewrite A's trailer (offsets before it do not move).
        let patched = replacingFirst(b.bytes, "/Size 4 /Root 1 0 R >>", with: "/Size 4 /Root 1 0 R /Prev \(second) >>")
        #expect(patched != b.bytes)
        let doc = try open(patched)
        #expect(try doc.pageCount() == 1)
    }

    // MARK: max_objects

    @Test func hugeObjectNumbersAtTheDefaultLimit() throws {
        // In a cross-reference subsection, as a reference, as an object header found by
        // repair, and in an xref stream's /Size and /Index: past max_objects (10,000,000)
        // or past Int64 altogether, never a trap.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R /Big 99999999999 0 R /Bigger 99999999999999999999999 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
        var subsection = b
        subsection.append("xref\n0 4\n0000000000 65535 f \n")
        for n in 1...3 { subsection.append(String(repeating: "0", count: 10 - String(b.offsets[n]!).count) + "\(b.offsets[n]!) 00000 n \n") }
        let start = subsection.bytes.count - (4 * 20 + 10)
        subsection.append("9223372036854775806 2\n0000000009 00000 n \n0000000009 00000 n \n")
        subsection.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n")
        // The subsection is damage, as PDFium and MuPDF read it: the file is repaired, and
        // the scan finds no object past the limit.
        let scanned = try open(subsection.bytes)
        #expect(scanned.isRepaired)
        #expect(try scanned.pageCount() == 1)
        #expect(scanned.objectCount < 100)
        Fuzzing.walk(scanned)

        // As references: null (no such object), and the catalog reads.
        var refs = b
        refs.finishWithTable()
        let doc = try open(refs.bytes)
        let catalog = try doc.catalog()
        #expect(try doc.resolve(catalog["Big"] ?? .null) == .null)
        Fuzzing.walk(doc)

        // Found by repair: an object header with a huge number is skipped, not allocated.
        var repaired = b
        repaired.append("99999999999 0 obj\n<< /Huge true >>\nendobj\n18446744073709551617 0 obj\n(past Int64)\nendobj\n")
        repaired.append("trailer\n<< /Root 1 0 R >>\n%%EOF\n")
        let r = try open(repaired.bytes)
        #expect(r.isRepaired)
        #expect(try r.pageCount() == 1)
        #expect(r.objectCount < 100)
        Fuzzing.walk(r)

        // An xref stream that claims a huge /Size and /Index.
        for trailer in ["/Root 1 0 R /Size 9223372036854775807", "/Root 1 0 R /Index [9223372036854775800 7]",
                        "/Root 1 0 R /Index [0 5 99999999 99999999]", "/Root 1 0 R /W [1 9223372036854775807 2]"] {
            var x = b
            x.finishWithXRefStream(number: 4, trailer: trailer)
            if let d = try? open(x.bytes) { Fuzzing.walk(d) }
        }
    }

    // MARK: Page tree cycles through /Parent

    @Test func parentCycleDoesNotHangInheritance() throws {
        // Attributes are inherited from the page tree: a /Parent chain that loops (and one
        // to a page that is not in the tree) costs nothing.
        let doc = try open(file([
            (2, "<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 /Parent 4 0 R >>"),
            (3, "<< /Type /Page /Parent 4 0 R >>"),
            (4, "<< /Type /Pages /Parent 2 0 R /Kids [3 0 R] /Rotate 90 >>"),
            (5, "<< /Type /Page /Parent 5 0 R >>"),
        ]))
        let pages = try doc.pages()
        #expect(pages.count == 2)
        for page in pages { _ = try page.box(.media); _ = try page.rotation() }
        Fuzzing.walk(doc)
    }

    // MARK: Shared page tree nodes

    @Test func sharedPageTreeNodesDoNotExpandExponentially() throws {
        // Each node's /Kids names the next node twice: 40 levels are 2^40 paths to the one
        // page at the bottom. Found by FuzzWalk (a 2.6 KB input that took 35 s). The walk
        // stops after twice the file's objects plus 1,000 visits: with a trusted /Count that
        // is a warning and the pages found so far; without one, the max_pages limit error.
        func dag(count: String) -> [UInt8] {
            var objects: [(Int, String)] = [(2, "<< /Type /Pages /Kids [10 0 R 10 0 R] \(count) >>")]
            for n in 10..<50 { objects.append((n, "<< /Type /Pages /Kids [\(n + 1) 0 R \(n + 1) 0 R] /Parent \(n - 1) 0 R >>")) }
            objects.append((50, "<< /Type /Page /MediaBox [0 0 200 300] >>"))
            return file(objects)
        }
        var limits = PDFLimits()
        limits.maxPages = 1000
        let trusted = try open(dag(count: "/Count 3"), limits: limits)
        #expect(try trusted.pageCount() == 3)
        #expect(try trusted.pages().count == 3)
        #expect(trusted.warnings.contains { $0.contains("shared nodes") })
        Fuzzing.walk(trusted)

        let untrusted = try open(dag(count: "/Count 0"), limits: limits)
        let error = #expect(throws: PDFError.self) { try untrusted.pageCount() }
        #expect(error?.kind == .limit)
        #expect(error?.message.contains("max_pages") == true)
        Fuzzing.walk(untrusted)

        // At the default limits (a million pages) the walk stops too.
        Fuzzing.walk(try open(dag(count: "/Count 0")))
    }

    // MARK: Reply cycles in a file

    @Test func replyCycleInAFileIsCut() throws {
        // 4 and 5 reply to each other, 6 to itself, 7 (a state reply) to 5: threads,
        // comments and review summaries end; JSON export and editing work; a save reopens.
        let doc = try open(file([
            (3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Annots [4 0 R 5 0 R 6 0 R 7 0 R] >>"),
            (4, "<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /NM (a) /IRT 5 0 R /Contents (A) >>"),
            (5, "<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /NM (b) /IRT 4 0 R /Contents (B) >>"),
            (6, "<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /NM (c) /IRT 6 0 R /Contents (C) >>"),
            (7, "<< /Type /Annot /Subtype /Text /Rect [0 0 9 9] /NM (d) /IRT 5 0 R /State (Accepted) /StateModel (Review) /T (Ada) >>"),
        ]))
        let a = ObjectID(4), b = ObjectID(5), c = ObjectID(6)
        #expect(try doc.comments(for: a).compactMap(\.contents) == ["A", "B"])
        #expect(try doc.comments(for: b).compactMap(\.contents) == ["B", "A"])
        #expect(try doc.comments(for: c).compactMap(\.contents) == ["C"])
        #expect(try doc.reviewSummary(for: a).current.map(\.author) == ["Ada"])
        #expect(try doc.replies(to: c).count == 1)
        _ = try doc.exportAnnotationsJSON(page: nil)
        // A reply added to a member of the cycle; then save, reopen, walk.
        try doc.addReply(to: a, author: "Bob", contents: "more")
        let saved = try doc.saved(.incremental)
        let reopened = try open(saved)
        #expect(try reopened.comments(for: a).count == 3)
        Fuzzing.walk(reopened)
    }

    // MARK: Annotation JSON nesting

    @Test func deepJSONIsReadOrRefusedWithoutOverflowingTheStack() throws {
        // Just under and far over the JSON parser's nesting limit (64, four levels of which
        // are the document, the list, the record and customData), in customData, which is
        // kept as canonical JSON text: parsed, re-encoded, imported and saved.
        for depth in [50, 60, 61, 64, 100_000] {
            let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let text = #"{"annotations": [{"v": 1, "type": "pspdfkit/note", "pageIndex": 0, "bbox": [1, 1, 9, 9], "customData": {"x": "# + deep + "}}]}"
            if let value = try? InstantJSONValue(parsing: Array(text.utf8)) { _ = value.canonicalText }
            #expect(Fuzzing.importJSON(Array(text.utf8)) == (depth <= 60), "depth \(depth)")
        }
    }

    // MARK: /Length past the end of the file

    @Test func lengthPastTheEndOfFile() throws {
        // /Length far past the end, with and without endstream, and /Length at the edge of
        // Int64 (where offset + length overflows): the data is found by scanning for
        // endstream or ends at the end of the file, with a warning.
        for length in ["1000000", "9223372036854775807", "-5", "99999999999999999999"] {
            var b = PDFBuilder()
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>")
            b.offsets[4] = b.bytes.count
            b.append("4 0 obj\n<< /Length \(length) >>\nstream\nHello\nendstream\nendobj\n")
            b.finishWithTable()
            let doc = try open(b.bytes)
            guard case .stream(let s) = try doc.object(4) else { Issue.record("/Length \(length): not a stream"); continue }
            #expect(try doc.streamData(s, decoded: true) == Array("Hello".utf8), "/Length \(length)")
            #expect(!doc.warnings.isEmpty)
            Fuzzing.walk(doc)

            // Cut off after `stream`: no endstream, no xref. Repaired; what there is reads.
            var cut = PDFBuilder()
            cut.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            cut.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            cut.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>")
            cut.append("4 0 obj\n<< /Length \(length) /Filter /FlateDecode >>\nstream\n")
            cut.bytes += PDFBuilder.deflate(Array("Hello".utf8))
            let d2 = try open(cut.bytes)
            #expect(try d2.pageCount() == 1)
            Fuzzing.walk(d2)
        }
    }
}

/// `bytes` with the first occurrence of `target` replaced.
private func replacingFirst(_ bytes: [UInt8], _ target: String, with replacement: String) -> [UInt8] {
    let t = Array(target.utf8)
    guard t.count <= bytes.count else { return bytes }
    for i in 0...(bytes.count - t.count) where bytes[i..<(i + t.count)].elementsEqual(t) {
        return Array(bytes[..<i]) + Array(replacement.utf8) + Array(bytes[(i + t.count)...])
    }
    return bytes
}
