import Testing
@testable import QuireSyntax
import QuireTestSupport

/// A writer source over a file with no changes and no encryption.
func plainSource(_ file: PDFFile, changes: [Int: PDFObject] = [:]) -> WriterSource {
    WriterSource(object: { n in try changes[n] ?? file.object(n) },
                 streamData: { s, _ in file.rawData(s) },
                 prepareStrings: { v, _ in v })
}

@Suite("Serializer and writer")
struct WriterTests {
    @Test(arguments: [
        "null", "true", "false", "0", "-17", "9223372036854775807", "3.5", "-0.25", "1.0", "0.000012",
        "123456789012.5", "(plain)", "(parens \\( \\) and \\\\ backslash)", "(\\000\\377\\n\\r\\t)", "<00ff10>",
        "/Name", "/A#20B#23C", "/#2F#28", "[1 2.5 /N (s) [<ab>] << /K [null] >>]", "<< /A 1 0 R /B << /C true >> >>",
        "12 3 R", "[]", "<<>>",
    ])
    func roundTrip(_ text: String) throws {
        let object = try parse(text)
        let written = String(decoding: Serializer.bytes(object), as: UTF8.self)
        #expect(try parse(written) == object, "\(text) was written as \(written)")
    }

    @Test func realsNeverUseExponents() {
        for value in [1e-7, 2.5e-10, 1e20, -3.75e16, 0.1, 123.456] {
            let text = Serializer.real(value)
            #expect(!text.contains("e") && text.contains("."), "\(value) -> \(text)")
            #expect(Double(text) == value, "\(value) -> \(text)")
        }
    }

    @Test func incrementalTableAfterTable() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable(trailer: "/Root 1 0 R /Info 4 0 R")
        let original = b.bytes
        let file = try PDFFile(buffer: b.buffer)
        var update = Writer.Update()
        update.objects = [(ObjectID(3), try parse("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 50 60] >>")),
                          (ObjectID(5), try parse("(a new object)"))]
        update.freed = [ObjectID(4)]
        let appended = try Writer.incrementalUpdate(of: file, update, source: plainSource(file))
        let saved = original + appended
        #expect(Array(saved.prefix(original.count)) == original)  // earlier bytes untouched
        let reread = try PDFFile(buffer: ByteBuffer(copying: saved))
        #expect(!reread.isRepaired)
        #expect(reread.xrefForm == .table)
        #expect(try reread.object(3).dictionary?["MediaBox"] == .array([.integer(0), .integer(0), .integer(50), .integer(60)]))
        #expect(try reread.object(5) == .string(PDFString(bytes: Array("a new object".utf8))))
        #expect(try reread.object(2).dictionary?["Type"] == .name("Pages"))  // unchanged, from the old section
        #expect(try reread.object(4) == .null)  // freed
        #expect(reread.trailer["Size"] == .integer(6))
        #expect(reread.trailer["Info"] == .reference(ObjectID(4)))
    }

    @Test func incrementalStreamAfterStream() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        let objects = "<< /Type /Pages /Kids [3 0 R] /Count 1 >> << /Type /Page /Parent 2 0 R >>"
        let header = "2 0 3 42 "
        b.stream(4, "/Type /ObjStm /N 2 /First \(header.utf8.count) /Filter /FlateDecode", PDFBuilder.deflate(Array((header + objects).utf8)))
        b.finishWithXRefStream(number: 5, compressed: [2: (4, 0), 3: (4, 1)])
        let file = try PDFFile(buffer: b.buffer)
        var update = Writer.Update()
        let content = PDFStream(dictionary: PDFDictionary(), data: .bytes(Array("BT ET".utf8)))
        update.objects = [(ObjectID(3), try parse("<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>")),
                          (ObjectID(6), .stream(content))]
        let source = WriterSource(object: { try file.object($0) },
                                  streamData: { s, _ in if case .bytes(let d) = s.data { return d }; return file.rawData(s) },
                                  prepareStrings: { v, _ in v })
        let saved = b.bytes + (try Writer.incrementalUpdate(of: file, update, source: source))
        let reread = try PDFFile(buffer: ByteBuffer(copying: saved))
        #expect(reread.xrefForm == .stream)
        #expect(!reread.isRepaired)
        #expect(try reread.object(2).dictionary?["Type"] == .name("Pages"))  // still in the object stream
        guard case .stream(let s) = try reread.object(6) else { Issue.record("not a stream"); return }
        #expect(try reread.decodedData(s) == Array("BT ET".utf8))
    }

    @Test func incrementalNeedsAnIntactCrossReference() throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.finishWithTable(startxrefDelta: 3)
        let file = try PDFFile(buffer: b.buffer)
        #expect(file.isRepaired)
        let error = #expect(throws: PDFError.self) { try Writer.incrementalUpdate(of: file, Writer.Update(), source: plainSource(file)) }
        #expect(error?.kind == .unsupported)
    }

    @Test(arguments: [false, true])
    func fullRewrite(objectStreams: Bool) throws {
        var b = PDFBuilder()
        minimalPages(&b)
        b.object(4, "<< /Title (Info) >>")
        b.object(7, "(unreachable)")
        b.stream(8, "/Filter /FlateDecode", PDFBuilder.deflate(Array("q Q".utf8)))
        b.finishWithTable(trailer: "/Root 1 0 R /Info 4 0 R")
        let file = try PDFFile(buffer: b.buffer)
        var changes: [Int: PDFObject] = [:]
        changes[3] = try parse("<< /Type /Page /Parent 2 0 R /Contents 8 0 R /MediaBox [0 0 1.5 2] >>")
        var options = Writer.RewriteOptions()
        options.objectStreams = objectStreams
        let saved = try Writer.rewrite(trailer: file.trailer, source: plainSource(file, changes: changes), options: options)
        let reread = try PDFFile(buffer: ByteBuffer(copying: saved))
        #expect(!reread.isRepaired && reread.warnings.isEmpty)
        #expect(reread.xrefForm == (objectStreams ? .stream : .table))
        // Renumbered breadth-first from the trailer: 1 catalog, 2 info, 3 pages, 4 page, 5 content.
        let catalog = try #require(try reread.dictionary(reread.trailer["Root"]))
        let pages = try #require(try reread.dictionary(catalog["Pages"]))
        let kids = try #require(pages["Kids"]?.array)
        let page = try #require(try reread.dictionary(kids.first))
        #expect(page["MediaBox"] == .array([.integer(0), .integer(0), .real(1.5), .integer(2)]))
        guard case .stream(let content) = try reread.object(for: page["Contents"] ?? .null) else {
            Issue.record("no content stream"); return
        }
        #expect(try reread.decodedData(content) == Array("q Q".utf8))
        #expect(try reread.dictionary(reread.trailer["Info"])?["Title"] == .string(PDFString(bytes: Array("Info".utf8))))
        #expect(reread.trailer["Size"]?.integer == (objectStreams ? 8 : 6))  // 5 objects (+ object stream + xref stream)
        #expect(!String(decoding: saved, as: UTF8.self).contains("unreachable"))
    }
}
