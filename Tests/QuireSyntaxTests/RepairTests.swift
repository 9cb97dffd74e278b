import Testing
@testable import QuireSyntax
import QuireTestSupport

/// Damage seen in real files (the corpus names the file each case comes from), and numbers
/// from hostile files that must not trap.
@Suite("Repair of real-world damage")
struct RepairTests {
    @Test func objectsCutShortAtEndobj() throws {
        // PDFium's bug_113.pdf and bug_828206.pdf: an array or dictionary that runs into
        // `endobj` or into the next `N G obj` ends there.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Kids [3 0 R /MediaBox [ 0")
        b.object(3, "<< /Type /Page /Resources << /Font << xt")
        b.finishWithTable()
        let file = try PDFFile(buffer: b.buffer)
        #expect(try file.object(2).dictionary?["Kids"] == .array([.reference(ObjectID(3)), .name("MediaBox"), .array([.integer(0)])]))
        #expect(try file.object(3).dictionary?["Type"] == .name("Page"))
        var parser = ObjectParser(ByteBuffer(copying: Array("<< /A [1 2\n5 0 obj".utf8)))
        #expect(try parser.parseObject().dictionary?["A"] == .array([.integer(1), .integer(2)]))
    }

    @Test func streamWithoutEndstream() throws {
        // PDFium's bug_782596.pdf: the data ends at `endobj` (or the end of the file),
        // without the end-of-line marker before it, as PDFium reads it.
        let text = "4 0 obj << /Length 99 >> stream\nabc\nendobj\n"
        var parser = ObjectParser(ByteBuffer(copying: Array(text.utf8)))
        var warnings: [String] = []
        parser.onWarning = { warnings.append($0) }
        let (_, object) = try parser.parseIndirectObject()
        guard case .stream(let s) = object, case .file(let offset, let length) = s.data else {
            Issue.record("not a stream"); return
        }
        #expect(Array(text.utf8)[offset..<(offset + length)] == Array("abc".utf8)[...])
        #expect(warnings.count == 1)
    }

    @Test func firstSubsectionOffByOne() throws {
        // A table whose first subsection says 1 but starts with object 0's free entry.
        var b = PDFBuilder()
        minimalPages(&b)
        let start = b.bytes.count
        b.append("xref\n1 4\n0000000000 65535 f \n")
        for n in 1...3 { b.append(String(repeating: "0", count: 10 - String(b.offsets[n]!).count) + "\(b.offsets[n]!) 00000 n \n") }
        b.append("trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n\(start)\n%%EOF\n")
        let file = try PDFFile(buffer: b.buffer)
        #expect(!file.isRepaired)
        #expect(try file.object(3).dictionary?["Type"] == .name("Page"))
    }

    @Test func xrefStreamIndexOffByOne() throws {
        // /Index [1 N] over rows that start with object 0's free entry: shifted down.
        var rows: [(Int, XRefEntry)] = [(1, .free), (2, .inFile(offset: 9, generation: 0)), (3, .free)]
        XRefReader.fixOffByOne(&rows, 0..<3, first: 1)
        #expect(rows.map(\.0) == [0, 1, 2])
        // A subsection from 1 that starts with an object in use is left alone.
        var untouched: [(Int, XRefEntry)] = [(1, .inFile(offset: 9, generation: 0))]
        XRefReader.fixOffByOne(&untouched, 0..<1, first: 1)
        #expect(untouched.map(\.0) == [1])
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func xrefStreamIndexOffByOneInTheWild() throws {
        // pdf-rs's crash-121-4.pdf: PDFium and MuPDF read 8 pages (manifest).
        let file = try PDFFile(buffer: ByteBuffer.read(path: corpusDirectory! + "/pdf-rs/files/invalid/crash-121-4.pdf"))
        #expect(try file.dictionary(file.trailer["Root"])?["Pages"] != nil)
    }

    @Test func prevLoopObjectsFoundByScanning() throws {
        // qpdf's append-xref-loop.pdf: the newest section's /Prev points at itself, so the
        // older section is never read; objects it would have named are found by scanning.
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable()
        let at = b.bytes.count
        b.append("4 0 obj (new) endobj\n")
        let xref = b.bytes.count
        b.append("xref\n4 1\n" + String(repeating: "0", count: 10 - String(at).count) + "\(at) 00000 n \n")
        b.append("trailer\n<< /Size 5 /Root 1 0 R /Prev \(xref) >>\nstartxref\n\(xref)\n%%EOF\n")
        let file = try PDFFile(buffer: b.buffer)
        // Known before it is read, so it can be edited like any other object.
        if case .inFile? = file.entry(2) {} else { Issue.record("object 2 has no entry") }
        #expect(try file.object(4) == .string(PDFString(bytes: Array("new".utf8))))
        #expect(try file.object(3).dictionary?["Type"] == .name("Page"))
        #expect(file.isRepaired)
        #expect(file.startXRef == nil)  // nothing sound to append an update to
    }

    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "99999999999999999999"])
    func hugeNumbersDoNotTrap(_ n: String) throws {
        // A startxref, a /Prev and an /Index from a hostile file: errors or repairs, never a trap.
        var b = PDFBuilder()
        minimalPages(&b)
        b.append("trailer << /Root 1 0 R /Prev \(n) >>\nstartxref\n\(n)\n%%EOF\n")
        _ = try? PDFFile(buffer: b.buffer)
        var c = PDFBuilder()
        minimalPages(&c)
        c.append("5 0 obj << /Type /XRef /W [1 1 1] /Index [\(n) \(n)] /Size 1 /Root 1 0 R /Length 3 >> stream\n\u{1}\u{9}\u{0}\nendstream endobj\nstartxref\n\(c.bytes.count)\n%%EOF\n")
        _ = try? PDFFile(buffer: c.buffer)
        var d = PDFBuilder()
        minimalPages(&d)
        d.append("xref\n\(n) \(n)\ntrailer << /Root 1 0 R >>\nstartxref\n\(d.bytes.count)\n%%EOF\n")
        _ = try? PDFFile(buffer: d.buffer)
    }
}
