import Testing
@testable import QuireSyntax
import QuireTestSupport

/// A catalog, a page tree and one page: objects 1-3.
public func minimalPages(_ b: inout PDFBuilder) {
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] >>")
}

@Suite("Cross-reference, resolution, repair")
struct FileTests {
    @Test func classicTable() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable()
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.xrefForm == .table)
        #expect(!file.isRepaired)
        #expect(file.warnings.isEmpty)
        #expect(file.headerVersion?.major == 1 && file.headerVersion?.minor == 7)
        #expect(try file.object(3).dictionary?["MediaBox"] == .array([.integer(0), .integer(0), .integer(200), .integer(300)]))
        #expect(try file.object(99) == .null)
    }

    @Test func xrefStreamWithObjectStream() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        // Objects 2 and 3 live in object stream 4.
        let objects = "<< /Type /Pages /Kids [3 0 R] /Count 1 >> << /Type /Page /Parent 2 0 R >>"
        let header = "2 0 3 42 "
        let data = PDFBuilder.deflate(Array((header + objects).utf8))
        b.stream(4, "/Type /ObjStm /N 2 /First \(header.utf8.count) /Filter /FlateDecode", data)
        b.finishWithXRefStream(number: 5, compressed: [2: (4, 0), 3: (4, 1)])
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.xrefForm == .stream)
        #expect(!file.isRepaired)
        #expect(try file.object(2).dictionary?["Type"] == .name("Pages"))
        #expect(try file.object(3).dictionary?["Parent"] == .reference(ObjectID(2)))
    }

    @Test func prevChainNewestWins() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable()
        let prev = b.lastXRef
        let at = b.bytes.count
        b.append("3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>\nendobj\n")
        let xref = b.bytes.count
        b.append("xref\n3 1\n" + String(repeating: "0", count: 10 - String(at).count) + "\(at) 00000 n \n")
        b.append("trailer\n<< /Size 4 /Root 1 0 R /Prev \(prev) >>\nstartxref\n\(xref)\n%%EOF\n")
        let file = try PDFFile(buffer: b.buffer)
        #expect(!file.isRepaired)
        #expect(try file.object(3).dictionary?["MediaBox"] == .array([.integer(0), .integer(0), .integer(10), .integer(10)]))
    }

    @Test func prevLoopStops() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        let start = b.bytes.count
        b.finishWithTable(trailer: "/Root 1 0 R /Prev \(start)")
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.warnings.contains { $0.contains("loops") })
        #expect(try file.object(1).dictionary?["Type"] == .name("Catalog"))
    }

    @Test func xrefChainLimit() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable()
        var previous = b.lastXRef
        for _ in 0..<5 {
            let at = b.bytes.count
            b.append("xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 4 /Root 1 0 R /Prev \(previous) >>\n")
            previous = at
        }
        b.append("startxref\n\(previous)\n%%EOF\n")
        var limits = PDFLimits()
        limits.maxXRefChain = 3
        let error = #expect(throws: PDFError.self) { try PDFFile(buffer: b.buffer, limits: limits) }
        #expect(error?.kind == .limit)
        #expect(error?.message.contains("max_xref_chain") == true)
        #expect(throws: Never.self) { try PDFFile(buffer: b.buffer) }
    }

    @Test func repairWhenStartxrefIsWrong() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable(startxrefDelta: 7)
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.isRepaired)
        #expect(file.xrefForm == .rebuilt)
        #expect(!file.warnings.isEmpty)
        #expect(try file.object(3).dictionary?["Type"] == .name("Page"))
    }

    @Test func repairWithoutXRef() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.append("trailer\n<< /Root 1 0 R >>\n%%EOF\n")
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.isRepaired)
        #expect(try file.dictionary(file.trailer["Root"])?["Type"] == .name("Catalog"))
        // Without any trailer: the catalog is found by scanning.
        var c = PDFBuilder()
        minimalPages(&c)
        let noTrailer = try PDFFile(buffer: c.buffer)
        #expect(noTrailer.trailer["Root"] == .reference(ObjectID(1)))
    }

    @Test func wrongOffsetFoundByScanning() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.offsets[3]! += 2  // the table now points into the middle of object 3
        b.finishWithTable()
        let file = try PDFFile(buffer: b.buffer)
        #expect(try file.object(3).dictionary?["Type"] == .name("Page"))
        #expect(file.isRepaired)
    }

    @Test func notAPDF() {
        for junk in ["", "hello world", "%PDF-1.4\nnothing here\n"] {
            let error = #expect(throws: PDFError.self) { try PDFFile(buffer: ByteBuffer(copying: Array(junk.utf8))) }
            #expect(error?.kind == .format)
        }
    }

    @Test func referenceCycleIsNull() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.object(4, "5 0 R")
        b.object(5, "4 0 R")
        b.finishWithTable()
        let file = try PDFFile(buffer: b.buffer)
        #expect(try file.object(for: .reference(ObjectID(4))) == .reference(ObjectID(5)))
        // A /Length that refers to itself cannot hang the parser.
        var c = PDFBuilder()
        minimalPages(&c)
        c.offsets[4] = c.bytes.count
        c.append("4 0 obj\n<< /Length 4 0 R >>\nstream\nabc\nendstream\nendobj\n")
        c.finishWithTable()
        let f2 = try PDFFile(buffer: c.buffer)
        guard case .stream(let s) = try f2.object(4) else { Issue.record("not a stream"); return }
        #expect(f2.rawData(s) == Array("abc".utf8))
    }

    @Test func objectNumberLimit() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        let start = b.bytes.count
        b.append("xref\n0 4\n0000000000 65535 f \n")
        for n in 1...3 { b.append(String(repeating: "0", count: 10 - String(b.offsets[n]!).count) + "\(b.offsets[n]!) 00000 n \n") }
        b.append("999999990 1\n0000000009 00000 n \ntrailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n")
        var limits = PDFLimits()
        limits.maxObjects = 1000
        // A section past the limit is damage: the file is rebuilt by scanning, and the scan
        // finds only objects 1 to 3.
        let repaired = try PDFFile(buffer: b.buffer, limits: limits)
        #expect(repaired.isRepaired)
        #expect(repaired.objectNumbers == [1, 2, 3])
        #expect(repaired.warnings.contains { $0.contains("past the limit max_objects=1000") })
        // The limit holds for what the scan finds: with object 1001 in the file, the
        // section's error stands.
        var c = PDFBuilder()
        minimalPages(&c)
        c.object(1001, "(past the limit)")
        let start2 = c.bytes.count
        c.append("xref\n0 4\n0000000000 65535 f \n")
        for n in 1...3 { c.append(String(repeating: "0", count: 10 - String(c.offsets[n]!).count) + "\(c.offsets[n]!) 00000 n \n") }
        c.append("1001 1\n" + String(repeating: "0", count: 10 - String(c.offsets[1001]!).count) + "\(c.offsets[1001]!) 00000 n \n")
        c.append("trailer\n<< /Size 1002 /Root 1 0 R >>\nstartxref\n\(start2)\n%%EOF\n")
        let error = #expect(throws: PDFError.self) { try PDFFile(buffer: c.buffer, limits: limits) }
        #expect(error?.kind == .limit)
        #expect(error?.limitName == "max_objects")
        #expect(error?.message.contains("1001 + 1") == true)
        // Under the default limit the same file opens without repair.
        #expect(try !PDFFile(buffer: c.buffer).isRepaired)
    }
}

@Suite("Hybrid files and the document-wide decode limit")
struct HybridAndTotalLimitTests {
    @Test func hybridTableWithXRefStm() throws {
        // A table that lists the classic objects, and an /XRefStm stream that holds the
        // objects of an object stream (ISO 32000-2 §7.5.8.4). The table marks object 3,
        // which lives in the object stream, as free: the stream's entry wins.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        let body = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 7 7] >>"
        let header = "3 0 "
        b.stream(4, "/Type /ObjStm /N 1 /First \(header.utf8.count) /Filter /FlateDecode",
                 PDFBuilder.deflate(Array((header + body).utf8)))
        // The xref stream, as an object of its own, naming object 3 in stream 4.
        let xrefStm = b.bytes.count
        let row: [UInt8] = [2] + [0, 0, 0, 4] + [0, 0]  // type 2: stream 4, index 0
        let data = PDFBuilder.deflate(row)
        b.offsets[5] = xrefStm
        b.append("5 0 obj\n<< /Type /XRef /Size 6 /W [1 4 2] /Index [3 1] /Filter /FlateDecode /Length \(data.count) >>\nstream\n")
        b.bytes += data
        b.append("\nendstream\nendobj\n")
        let table = b.bytes.count
        b.append("xref\n0 6\n0000000000 65535 f \n")
        for n in 1...2 { b.append(String(repeating: "0", count: 10 - String(b.offsets[n]!).count) + "\(b.offsets[n]!) 00000 n \n") }
        b.append("0000000000 00000 f \n")
        for n in 4...5 { b.append(String(repeating: "0", count: 10 - String(b.offsets[n]!).count) + "\(b.offsets[n]!) 00000 n \n") }
        b.append("trailer\n<< /Size 6 /Root 1 0 R /XRefStm \(xrefStm) >>\nstartxref\n\(table)\n%%EOF\n")
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.xrefForm == .hybrid)
        #expect(!file.isRepaired)
        #expect(try file.object(3).dictionary?["MediaBox"] == .array([.integer(0), .integer(0), .integer(7), .integer(7)]))
    }

    @Test func totalDecodedBytesLimit() throws {
        // Three streams of 400 KB each, under a document-wide budget of 1 MB.
        var b = PDFBuilder()
        minimalPages(&b)
        let zeros = PDFBuilder.deflate([UInt8](repeating: 0x41, count: 400_000))
        for n in 4...6 { b.stream(n, "/Filter /FlateDecode", zeros) }
        b.finishWithTable()
        var limits = PDFLimits()
        limits.maxTotalDecodedBytes = 1_000_000
        let file = try PDFFile(buffer: b.buffer, limits: limits)
        for n in 4...5 {
            guard case .stream(let s) = try file.object(n) else { Issue.record("not a stream"); return }
            #expect(try file.decodedData(s).count == 400_000)
        }
        guard case .stream(let third) = try file.object(6) else { Issue.record("not a stream"); return }
        let error = #expect(throws: PDFError.self) { try file.decodedData(third) }
        #expect(error?.limitName == "max_total_decoded_bytes")
    }
}
