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
        let error = #expect(throws: PDFError.self) { try PDFFile(buffer: b.buffer, limits: limits) }
        #expect(error?.kind == .limit)
    }
}
