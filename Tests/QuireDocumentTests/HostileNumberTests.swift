import Foundation
import Testing
import QuireDocument
import QuireSyntax
import QuireFuzzSupport
import QuireTestSupport

// Traps and stack overflows found by reading the sources for arithmetic, conversions and
// recursion on values a file, a JSON document or a C caller controls (none had been hit by
// the fuzzers yet). Each test feeds the input that crashed and checks what happens instead.

/// A file of `objects` (number, body) behind a classic table, `trailer` in the trailer.
private func table(_ objects: [(Int, String)], trailer: String = "/Root 1 0 R") -> [UInt8] {
    var b = PDFBuilder()
    for (n, body) in objects { b.object(n, body) }
    b.finishWithTable(trailer: trailer)
    return b.bytes
}

private func open(_ bytes: [UInt8], limits: PDFLimits = .default) throws -> Document {
    try Document(data: bytes, options: OpenOptions(limits: limits))
}

/// Runs `body` on a thread with a stack of `kib` KiB and waits for it: the hosts that embed
/// Quire call it from threads far smaller than the main thread's 8 MiB.
private func onSmallStack(kib: Int, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.stackSize = kib << 10
    thread.start()
    done.wait()
}

@Suite("Hostile numbers and chains")
struct HostileNumberTests {
    @Test func objectStreamHeaderNamingInt64MaxIsIgnored() throws {
        // No startxref: the repair scan reads the object stream's header, which named
        // object 2^63-1; one more than the highest object number overflowed at open.
        let body = "9223372036854775807 0 \n1 "
        let text = "%PDF-1.7\n1 0 obj <</Type/Catalog>> endobj\n2 0 obj <</Type/ObjStm/N 1/First \(body.count - 2)/Length \(body.count)>>\nstream\n\(body)\nendstream\nendobj\n"
        let doc = try open(Array(text.utf8))
        #expect(doc.file.nextObjectNumber <= 3)
        #expect(try doc.addObject(.integer(1)).number <= 3)
        Fuzzing.walk(doc)
    }

    @Test func cryptFilterLengthAtInt64Min() throws {
        // /V 4 crypt filter /Length -2^63: "bytes, not bits" multiplied it by 8 at open.
        let zeros = String(repeating: "00", count: 32)
        let bytes = table([
            (1, "<</Type/Catalog/Pages 3 0 R>>"),
            (2, "<</Filter/Standard/V 4/R 4/P -4/O <\(zeros)>/U <\(zeros)>/CF <</StdCF <</CFM/V2/Length -9223372036854775808>>>>/StmF/StdCF/StrF/StdCF>>"),
            (3, "<</Type/Pages/Kids []/Count 0>>"),
        ], trailer: "/Root 1 0 R /Encrypt 2 0 R /ID [<00112233445566778899aabbccddeeff><00112233445566778899aabbccddeeff>]")
        // A wrong password or a document that opens: either way, an answer.
        if let doc = try? open(bytes) { Fuzzing.walk(doc) }
        _ = Fuzzing.edit(bytes)
    }

    @Test func generationAtInt64MaxIsDeletedAndSaved() throws {
        // An xref entry with generation 2^63-1; deleting the object and saving added 1.
        var out = "%PDF-1.7\n"
        let o1 = out.utf8.count; out += "1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n"
        let o2 = out.utf8.count; out += "2 0 obj <</Type/Pages/Kids []/Count 0>> endobj\n"
        let o3 = out.utf8.count; out += "3 0 obj <</X 1>> endobj\n"
        let x = out.utf8.count
        func entry(_ o: Int) -> String { String(repeating: "0", count: 10 - String(o).count) + "\(o)" }
        out += "xref\n0 4\n0000000000 65535 f \n\(entry(o1)) 00000 n \n\(entry(o2)) 00000 n \n\(o3) 9223372036854775807 n\ntrailer <</Size 4/Root 1 0 R>>\nstartxref\n\(x)\n%%EOF\n"
        let doc = try open(Array(out.utf8))
        #expect(try doc.object(3).dictionary?["X"] == .integer(1))
        try doc.deleteObject(3)
        let saved = try doc.saved(.incremental)
        let reopened = try open(saved)
        #expect(try reopened.object(3) == .null)
        #expect(try reopened.object(1).dictionary != nil)
    }

    @Test func xrefStreamSizeAtInt64MaxIsSavedIncrementally() throws {
        // /Size 2^63-1 with an /Index: the incremental save numbered its xref stream /Size
        // and added 1.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [] /Count 0 >>")
        b.finishWithXRefStream(number: 3, trailer: "/Root 1 0 R /Index [0 4] /Size 9223372036854775807")
        let doc = try open(b.bytes)
        try doc.setValue(.bool(true), forKey: "Changed", inObject: 1)
        let saved = try doc.saved(.incremental)
        #expect(try open(saved).object(1).dictionary?["Changed"] == .bool(true))
    }

    @Test func outlineCountAtInt64MaxTakesAnExport() throws {
        let bytes = table([
            (1, "<</Type/Catalog/Pages 2 0 R/Outlines 4 0 R>>"),
            (2, "<</Type/Pages/Kids [3 0 R]/Count 1>>"),
            (3, "<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]>>"),
            (4, "<</Type/Outlines/Count 9223372036854775807>>"),
        ])
        let doc = try open(bytes)
        try doc.bookmarks.add(Bookmark(pageIndex: 0, name: "one"))
        try doc.exportBookmarksToOutline()
        let count = try doc.resolve(try doc.object(4).dictionary?["Count"] ?? .null).integer
        #expect(count != nil && count! >= 1 && count! <= 100_001)
        #expect(try open(doc.saved(.incremental)).flatOutline().map(\.title) == ["one"])
        _ = Fuzzing.edit(bytes)
    }

    @Test func decodeAfterTheTotalLimitWasPassed() throws {
        // An unfiltered object stream (no budget applies to it) takes the document past
        // max_total_decoded_bytes; the next Flate decode got a negative capacity.
        let raw = "1 0 " + String(repeating: " ", count: 4000)
        let flate = PDFBuilder.deflate(Array(("1 0 " + String(repeating: " ", count: 100)).utf8))
        var b = PDFBuilder()
        b.append("1 0 obj <</Type/Catalog>> endobj\n")
        b.append("2 0 obj <</Type/ObjStm/N 1/First 4/Length \(raw.utf8.count)>> stream\n\(raw)\nendstream endobj\n")
        b.append("3 0 obj <</Type/ObjStm/N 1/First 4/Filter/FlateDecode/Length \(flate.count)>> stream\n")
        b.bytes += flate
        b.append("\nendstream endobj\n")
        var limits = PDFLimits()
        limits.maxTotalDecodedBytes = 1000
        if let doc = try? open(b.bytes, limits: limits) {
            Fuzzing.walk(doc)
            if case .stream(let s) = try doc.object(3) {
                let e = #expect(throws: PDFError.self) { try doc.streamData(s, decoded: true) }
                #expect(e?.limitName == "max_total_decoded_bytes")
            }
        }
    }

    @Test func chainOfIndirectLengthsOnASmallStack() throws {
        // Object k's /Length is object k+1, itself a stream with an indirect /Length: each
        // link was one more level of recursion (12,000 overflowed the 8 MiB main thread).
        var text = "%PDF-1.7\n1 0 obj <</Type/Catalog/Pages 5000 0 R>> endobj\n"
        for k in 2..<3000 { text += "\(k) 0 obj <</Length \(k + 1) 0 R>> stream\nx\nendstream endobj\n" }
        text += "3000 0 obj 1 endobj\n"
        let bytes = Array(text.utf8)
        nonisolated(unsafe) var warned = false
        onSmallStack(kib: 512) {
            guard let doc = try? open(bytes) else { return }
            _ = try? doc.object(2)
            _ = try? doc.object(1500)
            warned = doc.warnings.contains { $0.contains("objects that load each other") }
            Fuzzing.walk(doc)
        }
        #expect(warned)
    }

    @Test func chainOfObjectStreamsOnASmallStack() throws {
        // The cross-reference says object k is in object stream k+1, for every k: each was
        // one more level of recursion. An object stream in an object stream is refused.
        var rows: [UInt8] = [0, 0, 0, 0, 0]
        for k in 1..<3000 { rows += [2, UInt8((k + 1) >> 16), UInt8(((k + 1) >> 8) & 0xFF), UInt8((k + 1) & 0xFF), 0] }
        let data = PDFBuilder.deflate(rows)
        var b = PDFBuilder()
        b.append("3005 0 obj <</Type/XRef/Size 3006/W [1 3 1]/Index [0 3000]/Root 1 0 R/Filter/FlateDecode/Length \(data.count)>> stream\n")
        b.bytes += data
        b.append("\nendstream endobj\nstartxref\n\(Array("%PDF-1.7\n%\u{E2}\u{E3}\n".utf8).count)\n%%EOF\n")
        let bytes = b.bytes
        onSmallStack(kib: 512) {
            if let doc = try? open(bytes) {
                _ = try? doc.object(1)
                _ = try? doc.object(2000)
                Fuzzing.walk(doc)
            }
        }
    }

    @Test func longReplyChainInJSONOnASmallStack() throws {
        // Record i replies to record i+1: placing parents first recursed once per record.
        let n = 4000
        var records: [String] = []
        for i in 0..<n {
            let reply = i + 1 < n ? #", "quire": {"inReplyTo": "r\#(i + 1)"}"# : ""
            records.append(#"{"v": 1, "type": "pspdfkit/note", "id": "r\#(i)", "name": "r\#(i)", "pageIndex": 0, "bbox": [1, 1, 9, 9], "text": {"format": "plain", "value": "\#(i)"}\#(reply)}"#)
        }
        let json = Array(#"{"format": "https://pspdfkit.com/instant-json/v1", "annotations": [\#(records.joined(separator: ","))]}"#.utf8)
        let base = Fuzzing.jsonBase
        nonisolated(unsafe) var imported = 0
        nonisolated(unsafe) var failure: String? = nil
        // 512 KiB: room for the import's own frames in a debug build (about 110 KB deep,
        // with the record matching that keeps round trips idempotent), and far too little for
        // a recursion per record (4,000 of them: over 128 bytes a frame overflows it), which is
        // what this test is about.
        onSmallStack(kib: 512) {
            do {
                let doc = try Document(data: base)
                imported = try doc.importAnnotationsJSON(json).count
            } catch {
                failure = "\(error)"
            }
        }
        #expect(failure == nil, "\(failure ?? "")")
        #expect(imported == n)
    }

    @Test func squigglyFarFromTheOriginEnds() throws {
        // Quadrilaterals around x = 1e17: x + step == x, and the zigzag loop never ended.
        let doc = try open(table([
            (1, "<</Type/Catalog/Pages 2 0 R>>"),
            (2, "<</Type/Pages/Kids [3 0 R]/Count 1>>"),
            (3, "<</Type/Page/Parent 2 0 R/MediaBox [0 0 612 792]>>"),
        ]))
        for (left, right) in [(1e17, 2e17), (0.0, 2e9), (-1e300, 1e300)] {
            var a = Annotation(subtype: "Squiggly", pageIndex: 0, rect: Rect(left: left, bottom: 10, right: right, top: 11))
            a.quadPoints = [left, 11, right, 11, left, 10, right, 10]
            if let added = try? doc.addAnnotation(a), let id = added.id {
                let ap = try doc.object(id.number).dictionary?["AP"]
                #expect(ap != nil)
            }
        }
        _ = try doc.saved(.incremental)
    }
    @Test func objectStreamEntriesThatOverlapReadTheDataAFewTimes() throws {
        // 200 header entries pointing at one 200 KB array (and, second, at each of the 200
        // brackets that open it, nested): each entry parsed the whole array again (a 1.8 KB
        // file with a 1 MB array: 26 s and 2.9 GB).
        for spread in [false, true] {
            let n = 200
            let header = (0..<n).map { "\(100 + $0) \(spread ? $0 : 0) " }.joined()
            let body = String(repeating: "[", count: n) + String(repeating: "0 ", count: 100_000) + String(repeating: "]", count: n)
            let data = PDFBuilder.deflate(Array((header + body).utf8))
            var b = PDFBuilder()
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /MediaBox [0 0 612 792] /Annots [100 0 R 101 0 R] >>")
            b.stream(4, "/Type /ObjStm /N \(n) /First \(header.utf8.count) /Filter /FlateDecode", data)
            var compressed: [Int: (stream: Int, index: Int)] = [:]
            for k in 0..<n { compressed[100 + k] = (4, k) }
            b.finishWithXRefStream(number: 5, compressed: compressed)
            let doc = try open(b.bytes)
            #expect(try doc.object(100).array?.count == 1)
            if spread {
                // Objects are parsed as they are asked for: asking for them all in turn
                // stops at the budget, and the rest read as null.
                for k in 0..<(n - 1) { _ = try doc.object(100 + k) }
                #expect(try doc.object(100 + n - 1) == .null)
                #expect(doc.warnings.contains { $0.contains("more than four times") })
            } else {
                #expect(try doc.object(100 + n - 1).array?.count == 1)
            }
            _ = try doc.annotations(onPage: 0)
        }
    }

    @Test func aPageListedThousandsOfTimesIsReadAThousandTimesAtMost() throws {
        // 100 x 100 branches to one page with 100 annotations, under a trusted /Count of
        // 10,000: every copy of the page had its annotations read (54 s and 6.8 GB for a
        // 3.5 KB file with 200 x 200). The walk stops at twice the objects plus 1,000 visits.
        var objects: [(Int, String)] = [
            (2, "<< /Type /Pages /Kids [" + String(repeating: "4 0 R ", count: 100) + "] /Count 10000 >>"),
            (4, "<< /Type /Pages /Kids [" + String(repeating: "5 0 R ", count: 100) + "] >>"),
            (5, "<< /Type /Page /MediaBox [0 0 612 792] /Annots [" + String(repeating: "6 0 R ", count: 100) + "] >>"),
            (6, "<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] /Contents (hi) >>"),
        ]
        objects.insert((1, "<< /Type /Catalog /Pages 2 0 R >>"), at: 0)
        let doc = try open(table(objects))
        #expect(try doc.pageCount() == 10_000)
        let pages = try doc.pages()
        #expect(pages.count > 900 && pages.count <= 1_020)
        #expect(doc.warnings.contains { $0.contains("shared nodes") })
        #expect((#expect(throws: PDFError.self) { try doc.annotations(onPage: 9_999) })?.kind == .notFound)
        #expect(try doc.annotations(onPage: 0).count == 100)
    }
}
