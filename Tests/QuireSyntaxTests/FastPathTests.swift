import Testing
@testable import QuireSyntax
import QuireTestSupport

/// The fast paths of the lexer, parser and serializer (issue 17) give exactly what the
/// general code gives: each is checked against it on generated inputs, not on examples.
@Suite("Fast paths agree with the general code")
struct FastPathTests {
    static func lexNumber(_ text: String, full: Bool) -> Token? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer {
            full ? Lexer.numberInFull($0, 0, $0.count) : Lexer.number($0, 0, $0.count)
        }
    }

    /// Signs, digits (up to 25), points and stray letters in every order: the one-pass
    /// reading gives the same token (or none) as the full one.
    @Test func numbersAgreeWithTheFullReading() {
        var rng = SplitMix64(state: 17)
        let alphabet = Array("0123456789000000999.+-e")
        var checked = 0
        for _ in 0..<200_000 {
            let length = 1 + rng.next(25)
            var text = ""
            for _ in 0..<length {
                // Mostly digits, so that long numbers of both kinds come up.
                text.append(rng.next(4) == 0 ? alphabet[rng.next(alphabet.count)] : alphabet[rng.next(10)])
            }
            let fast = Self.lexNumber(text, full: false)
            let full = Self.lexNumber(text, full: true)
            #expect(fast == full, "\(text)")
            if fast != nil { checked += 1 }
        }
        #expect(checked > 50_000)
        for text in ["0", "-0", "+0", "-0.0", ".5", "5.", ".", "-", "+", "--5", "+-5", "-.5", "999999999999999999",
                     "9999999999999999999", "-9223372036854775808", "123456789012345", "1234567890.12345",
                     "1234567890.123456", "0.0000000000000001", "595.276", "0.1", "1e5", "1.2.3"] {
            #expect(Self.lexNumber(text, full: false) == Self.lexNumber(text, full: true), "\(text)")
        }
    }

    /// Every name of the table reads as the same name decoded from its bytes, and so do the
    /// names around it (a letter more, a letter less, another case, an escape).
    @Test func commonNamesReadAsDecoded() throws {
        for name in CommonNames.names {
            let text = name.value
            let variants: [(written: String, bytes: String)] = [
                (text, text), (text + "x", text + "x"), (String(text.dropLast()), String(text.dropLast())),
                (text.lowercased(), text.lowercased()), (text.uppercased(), text.uppercased()),
                ("x" + text, "x" + text), (text + "#41", text + "A"), ("#41" + text, "A" + text),
            ]
            for (written, bytes) in variants {
                let expected = PDFName(bytes: Array(bytes.utf8))
                #expect(try parse("/" + written) == .name(expected), "/\(written)")
                #expect(try parse("<< /\(written) 1 >>").dictionary?[expected] == .integer(1), "/\(written)")
            }
        }
        // Names of 16 bytes and more, and ones that share the words of a listed name.
        for (written, bytes) in [("ViewerPreferences", "ViewerPreferences"), ("ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOP"),
                                 ("ABCDEFGHIJKLMNOPQ", "ABCDEFGHIJKLMNOPQ"), ("Type#00", "Type\u{0}"),
                                 ("Rect0", "Rect0"), ("Subtyp", "Subtyp"), ("Type#E9", "Type\u{E9}")] {
            let decoded = bytes.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
            #expect(try parse("/" + written) == .name(PDFName(bytes: decoded)), "/\(written)")
        }
    }

    /// What `real(_:to:)` writes is exactly what the String form (through `description`)
    /// gives, for decimals of up to 8 places, random doubles and the edges.
    @Test func realsAsBeforeByteForByte() {
        var rng = SplitMix64(state: 5)
        var values: [Double] = [0.1, 0.2, 0.3, 0.5, 1.5, -0.25, 595.276, 841.89, 1e-5, 1e-7, 0.000012, 999_999_999.5,
                                1e9 + 0.5, 123_456_789.123456, 0.1 + 0.2, 1.0 / 3.0, -1.0 / 7.0, 2.675, 1.005,
                                Double.ulpOfOne, 4.35, 0.07, 1e15 + 0.5, -0.0, 12.345678]
        for _ in 0..<100_000 {
            let places = rng.next(9)
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            let mantissa = Double(rng.next(2_000_000_000)) - 1_000_000_000
            values.append(mantissa / scale)
            values.append(Double(bitPattern: UInt64(rng.next(Int.max)) &* 2 | UInt64(rng.next(2))))
        }
        for value in values where value.isFinite {
            var out: [UInt8] = []
            Serializer.real(value, to: &out)
            #expect(out == Array(Serializer.real(value).utf8), "\(value)")
        }
    }

    @Test func integersAsBefore() {
        var rng = SplitMix64(state: 11)
        var values: [Int64] = [0, 9, 10, 99, 100, 99_999_999, 100_000_000, -1, -10, -99_999_999, .max, .min]
        for _ in 0..<50_000 {
            values.append(Int64(rng.next(Int.max)) >> Int64(rng.next(62)) * (rng.next(2) == 0 ? 1 : -1))
        }
        for value in values {
            var out: [UInt8] = []
            Serializer.integer(value, to: &out)
            #expect(out == Array(String(value).utf8), "\(value)")
        }
    }

    @Test func renumberingDenseAndSparse() {
        var r = Writer.Renumbering()
        #expect(r[0] == nil && r[5] == nil && r[Writer.Renumbering.denseLimit + 7] == nil && r[-1] == nil)
        r.set(5, 1)
        r.set(0, 2)
        r.set(Writer.Renumbering.denseLimit - 1, 3)
        r.set(Writer.Renumbering.denseLimit, 4)
        r.set(9_999_999, 5)
        #expect(r[5] == 1 && r[0] == 2 && r[Writer.Renumbering.denseLimit - 1] == 3)
        #expect(r[Writer.Renumbering.denseLimit] == 4 && r[9_999_999] == 5)
        #expect(r[6] == nil && r[4] == nil && r[Writer.Renumbering.denseLimit + 1] == nil)
    }

    /// A full save renumbers references as it writes, as the renumbered copy it made
    /// before: references to missing objects keep a number (a free entry), and an indirect
    /// /Length is replaced in its place.
    @Test func rewriteRenumbersWhileWriting() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R /Missing 40 0 R /Kept [5 0 R 41 0 R 5 0 R] >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Contents 4 0 R >>")
        let data = PDFBuilder.deflate(Array("q Q".utf8))
        b.stream(4, "/Length 42 0 R /Filter /FlateDecode /Extra 5 0 R", data)
        b.object(5, "(five)")
        b.finishWithTable(trailer: "/Root 1 0 R")
        let file = try PDFFile(buffer: b.buffer)
        let saved = try Writer.rewrite(trailer: file.trailer, source: plainSource(file))
        let text = String(decoding: saved, as: UTF8.self)
        // Breadth-first: 1 catalog, 2 pages, 3 (missing), 4 the string, 5 (missing), 6 the
        // page, 7 the content stream, 8 (its missing length).
        #expect(text.contains("1 0 obj\n<</Type /Catalog /Pages 2 0 R /Missing 3 0 R /Kept [4 0 R 5 0 R 4 0 R] >>\nendobj"), "\(text)")
        #expect(text.contains("7 0 obj\n<</Length \(data.count) /Filter /FlateDecode /Extra 4 0 R >>\nstream\n"), "\(text)")
        let reread = try PDFFile(buffer: ByteBuffer(copying: saved))
        #expect(!reread.isRepaired)
        guard case .stream(let content) = try reread.object(7) else {
            Issue.record("no content stream"); return
        }
        #expect(try reread.decodedData(content) == Array("q Q".utf8))
    }

    /// A reference the map has no number for reads as null: a dictionary entry goes (an
    /// indirect /Length too, the stream's length then coming last), an array item is null.
    @Test func serializerMapping() throws {
        let mapping: Serializer.ReferenceMap = { $0.number == 1 ? ObjectID(10, 0) : nil }
        var out: [UInt8] = []
        Serializer.write(try parse("<< /A 1 0 R /B 2 0 R /C [1 0 R 2 0 R] /D << /E 2 0 R >> >>"), to: &out, mapping: mapping)
        #expect(String(decoding: out, as: UTF8.self) == "<</A 10 0 R /C [10 0 R null] /D <<>> >>")
        out = []
        let dict = try #require(try parse("<< /Length 2 0 R /F 1 0 R >>").dictionary)
        Serializer.stream(dict, data: [65, 66, 67], to: &out, mapping: mapping)
        #expect(String(decoding: out, as: UTF8.self) == "<</F 10 0 R /Length 3 >>\nstream\nABC\nendstream")
        out = []
        Serializer.stream(dict, data: [65], to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "<</Length 1 /F 1 0 R >>\nstream\nA\nendstream")
    }

    /// The parser's stacks are shared by the containers of one parse and by the objects a
    /// parser reads one after another: each object comes out whole, also after one that
    /// failed half-way.
    @Test func parserStacksAcrossObjects() throws {
        let text = "<< /A [1 2 << /B [3] /C null /B 4 >>] /D (x) >> [5 [6 [7]] << >>] << /E [8 <<"
        var parser = ObjectParser(ByteBuffer(copying: Array(text.utf8)))
        #expect(try parser.parseObject() == parse("<< /A [1 2 << /C null /B 4 >>] /D (x) >>"))
        #expect(try parser.parseObject() == parse("[5 [6 [7]] << >>]"))
        #expect(throws: PDFError.self) { try parser.parseObject() }
        parser.position = 0
        #expect(try parser.parseObject() == parse("<< /A [1 2 << /B 4 >>] /D (x) >>"))
        // A key removed by null and set again is a new entry, at the end; above the index
        // threshold as below it.
        for n in [3, PDFDictionary.indexThreshold + 5] {
            let keys = (0..<n).map { "/K\($0) \($0)" }.joined(separator: " ")
            let parsed = try #require(try parse("<< \(keys) /K1 null /K2 22 /K1 11 >>").dictionary)
            #expect(parsed.keys.map(\.value) == (0..<n).filter { $0 != 1 }.map { "K\($0)" } + ["K1"])
            #expect(parsed["K2"] == .integer(22) && parsed["K1"] == .integer(11) && parsed.count == n)
        }
    }
}
