import Testing
@testable import QuireSyntax
import QuireTestSupport

@Suite("Lexer and parser (ISO 32000-2 §7.2-7.3)")
struct LexerParserTests {
    @Test func numbers() throws {
        #expect(try parse("42") == .integer(42))
        #expect(try parse("-17") == .integer(-17))
        #expect(try parse("+5") == .integer(5))
        #expect(try parse("3.25") == .real(3.25))
        #expect(try parse("-.5") == .real(-0.5))
        #expect(try parse("4.") == .real(4))
        // Exact: the decimal text, not a sum of scaled digits.
        #expect(try parse("0.3") == .real(0.3))
        #expect(try parse("-123.456") == .real(-123.456))
        #expect(try parse("595.276") == .real(595.276))
        // Too large for Int64: read as a real, not a trap.
        #expect(try parse("100000000000000000000") == .real(1e20))
    }

    @Test func literalStrings() throws {
        #expect(try parse("(a (nested) string)") == .string(PDFString(bytes: Array("a (nested) string".utf8))))
        #expect(try parse(#"(\n\r\t\b\f\(\)\\)"#) == .string(PDFString(bytes: [10, 13, 9, 8, 12, 40, 41, 92])))
        #expect(try parse(#"(\101\0533\7)"#) == .string(PDFString(bytes: [65, 43, 51, 7])))
        #expect(try parse("(line\\\ncontinued)") == .string(PDFString(bytes: Array("linecontinued".utf8))))
        #expect(try parse("(a\r\nb)") == .string(PDFString(bytes: Array("a\nb".utf8))))
        #expect(throws: PDFError.self) { try parse("(unterminated") }
    }

    @Test func hexStrings() throws {
        #expect(try parse("<48 65 6c6C6f>") == .string(PDFString(bytes: Array("Hello".utf8), isHex: true)))
        #expect(try parse("<901FA>") == .string(PDFString(bytes: [0x90, 0x1F, 0xA0], isHex: true)))
    }

    @Test func names() throws {
        #expect(try parse("/Name1") == .name("Name1"))
        #expect(try parse("/A#20B") == .name("A B"))
        #expect(try parse("/#2Fslash") == .name("/slash"))
        #expect(try parse("/") == .name(""))
        #expect(PDFName(bytes: [0xE9]).bytes == [0xE9])
    }

    @Test func arraysDictionariesReferences() throws {
        let obj = try parse("<< /Type /Page /Kids [1 0 R 2 0 R] /N 3 /B true /Z null % comment\n /S (x) >>")
        let d = try #require(obj.dictionary)
        #expect(d["Type"] == .name("Page"))
        #expect(d["Kids"] == .array([.reference(ObjectID(1)), .reference(ObjectID(2))]))
        #expect(d["N"] == .integer(3))
        #expect(d["B"] == .bool(true))
        #expect(d["Z"] == nil)  // null values are absent (§7.3.7)
        #expect(d.keys == ["Type", "Kids", "N", "B", "S"])
        #expect(try parse("[1 2 R]") == .array([.reference(ObjectID(1, 2))]))
        #expect(try parse("[1 R]") == .array([.integer(1), .null]))
        #expect(try parse("[1 0 R 0 R]") == .array([.reference(ObjectID(1)), .integer(0), .null]))
    }

    @Test func missingWhitespace() throws {
        #expect(try parse("[/A/B(c)<64>1 2]") == .array([.name("A"), .name("B"),
            .string(PDFString(bytes: [99])), .string(PDFString(bytes: [100], isHex: true)), .integer(1), .integer(2)]))
        #expect(try parse("<</A 1/B[2]>>").dictionary?["B"] == .array([.integer(2)]))
    }

    @Test func nestingLimit() throws {
        var limits = PDFLimits()
        limits.maxNestingDepth = 10
        let deep = String(repeating: "[", count: 11) + String(repeating: "]", count: 11)
        let error = #expect(throws: PDFError.self) { try parse(deep, limits: limits) }
        #expect(error?.kind == .limit)
        #expect(error?.message.contains("max_nesting_depth") == true)
        let ok = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(throws: Never.self) { try parse(ok, limits: limits) }
        // A setting above the cap is capped, so a deep input cannot exhaust the stack.
        limits.maxNestingDepth = 1 << 30
        let abyss = String(repeating: "[", count: 100_000)
        #expect((#expect(throws: PDFError.self) { try parse(abyss, limits: limits) })?.kind == .limit)
    }

    @Test func unterminated() throws {
        #expect(throws: PDFError.self) { try parse("[1 2") }
        #expect(throws: PDFError.self) { try parse("<< /A 1") }
        #expect(throws: PDFError.self) { try parse("") }
    }

    @Test func streamWithWrongLength() throws {
        let text = "7 0 obj\n<< /Length 3 >>\nstream\nHello, world\nendstream\nendobj\n"
        let buffer = ByteBuffer(copying: Array(text.utf8))
        var parser = ObjectParser(buffer)
        var warnings: [String] = []
        parser.onWarning = { warnings.append($0) }
        let (id, obj) = try parser.parseIndirectObject()
        #expect(id == ObjectID(7))
        guard case .stream(let s) = obj, case .file(let offset, let length) = s.data else {
            Issue.record("not a stream"); return
        }
        #expect(buffer.slice(offset..<(offset + length)) == Array("Hello, world".utf8))
        #expect(warnings.count == 1)
    }

    /// Text after the `stream` keyword on its line (PDFium's bug_543018_2.pdf): the data
    /// starts on the next line when /Length counted from there ends at `endstream`, as
    /// PDFium reads it, with `endstream` as text inside; data on the keyword's line whose
    /// /Length counts from there (qpdf's stream-line-enders.pdf) is read from there still.
    @Test func streamDataAfterTextOnTheKeywordLine() throws {
        func data(_ text: String) throws -> String? {
            let buffer = ByteBuffer(copying: Array(text.utf8))
            var parser = ObjectParser(buffer)
            guard case .stream(let s) = try parser.parseIndirectObject().1, case .file(let offset, let length) = s.data
            else {
                return nil
            }
            return String(decoding: buffer.slice(offset..<(offset + length)), as: UTF8.self)
        }
        let body = "(a) Tj\nendstream\n(b) Tj"
        #expect(
            try data("6 0 obj\n<< /Length \(body.utf8.count) >>\nstream   \"ignored\"\r\n\(body)\nendstream\nendobj\n")
                == body
        )
        #expect(try data("6 0 obj\n<< /Length 7 >>\nstream (a) Tj\nendstream\nendobj\n") == "(a) Tj\n")
        // /Length that fits neither start: the data ends at the first `endstream`.
        #expect(
            try data("6 0 obj\n<< /Length 3 >>\nstream x\n(a) Tj\nendstream\n(b) Tj\nendstream\nendobj\n")
                == "x\n(a) Tj"
        )
    }

    /// Other bytes after the `stream` keyword on its line (PDFium's bug_543018_2.pdf):
    /// PDFium skips them, the data starting on the next line, where /Length then holds; so
    /// does Quire. Where /Length holds from the keyword's own line, that reading stays.
    @Test func bytesAfterTheStreamKeywordOnItsLineAreSkipped() throws {
        let text = "6 0 obj\n<< /Length 23 >>\nstream   \"ignored\"\n(a) Tj\nendstream\n(b) Tj\nendstream\nendobj\n"
        let buffer = ByteBuffer(copying: Array(text.utf8))
        var parser = ObjectParser(buffer)
        var warnings: [String] = []
        parser.onWarning = { warnings.append($0) }
        guard case .stream(let s) = try parser.parseIndirectObject().1, case .file(let offset, let length) = s.data else {
            Issue.record("not a stream"); return
        }
        #expect(String(decoding: buffer.slice(offset..<(offset + length)), as: UTF8.self) == "(a) Tj\nendstream\n(b) Tj")
        #expect(warnings.count == 1 && warnings[0].contains("line after"))
        let spaces = ByteBuffer(copying: Array("1 0 obj\n<< /Length 6 >>\nstream  \n(a) Tj\nendstream\nendobj".utf8))
        var plain = ObjectParser(spaces)
        guard case .stream(let t) = try plain.parseIndirectObject().1, case .file(let o, let l) = t.data else {
            Issue.record("not a stream"); return
        }
        #expect(String(decoding: spaces.slice(o..<(o + l)), as: UTF8.self) == "(a) Tj")
    }

    /// A wrong /Length and `endstream.` and `(endstream ...` in the data (PDFium's
    /// bug_524043_4.pdf): the keyword is a word between white space, so the data runs on to
    /// the `endobj` that ends the object, as PDFium and MuPDF read it; `endstream` at the
    /// end of the file counts; a stream without `endstream` ends at its own `endobj`, not
    /// at the next object's `endstream`.
    @Test func endstreamFollowedByARegularCharacterIsData() throws {
        let text = "6 0 obj\n<< /Length 5 >>\nstream\n(a) Tj\nendstream.\n(endstream b) Tj\nendobj\n"
        let buffer = ByteBuffer(copying: Array(text.utf8))
        var parser = ObjectParser(buffer)
        let (_, obj) = try parser.parseIndirectObject()
        guard case .stream(let s) = obj, case .file(let offset, let length) = s.data else {
            Issue.record("not a stream"); return
        }
        #expect(String(decoding: buffer.slice(offset..<(offset + length)), as: UTF8.self) == "(a) Tj\nendstream.\n(endstream b) Tj")
        let two = ByteBuffer(copying: Array("1 0 obj\n<< >>\nstream\nabc\nendobj\n2 0 obj\n<< >>\nstream\nd\nendstream\nendobj".utf8))
        var first = ObjectParser(two)
        guard case .stream(let u) = try first.parseIndirectObject().1, case .file(let o, let l) = u.data else {
            Issue.record("not a stream"); return
        }
        #expect(String(decoding: two.slice(o..<(o + l)), as: UTF8.self) == "abc")
        let last = ByteBuffer(copying: Array("1 0 obj\n<< /Length 99 >>\nstream\nxendstream\nendstream".utf8))
        var tail = ObjectParser(last)
        guard case .stream(let t) = try tail.parseIndirectObject().1, case .file(let p, let m) = t.data else {
            Issue.record("not a stream"); return
        }
        #expect(String(decoding: last.slice(p..<(p + m)), as: UTF8.self) == "xendstream")
        // Past the first few searches the buffer indexes the keywords' offsets: words only.
        var many = "", offsets: [Int] = []
        for n in 1...12 {
            offsets.append(many.utf8.count)
            many += "\(n) 0 obj\n<< /Length 3 >>\nstream\n(endstream \(n)) endstream.\nendstream\nendobj\n"
        }
        let indexed = ByteBuffer(copying: Array(many.utf8))
        for n in 1...12 {
            var each = ObjectParser(indexed, at: offsets[n - 1])
            let (id, value) = try each.parseIndirectObject()
            guard case .stream(let v) = value, case .file(let o, let l) = v.data else {
                Issue.record("object \(n) is not a stream"); return
            }
            #expect(id == ObjectID(n))
            #expect(String(decoding: indexed.slice(o..<(o + l)), as: UTF8.self) == "(endstream \(n)) endstream.")
        }
    }
}

@Suite("Text strings (§7.9.2.2)")
struct TextStringTests {
    @Test func decoding() {
        #expect(TextString.decode(Array("plain".utf8)) == "plain")
        #expect(TextString.decode([0xFE, 0xFF, 0x00, 0x41, 0x26, 0x3A]) == "A\u{263A}")
        #expect(TextString.decode([0xEF, 0xBB, 0xBF, 0xC3, 0xA9]) == "é")
        #expect(TextString.decode([0x80, 0x92, 0xA0, 0xE9]) == "\u{2022}\u{2122}\u{20AC}é")
        #expect(TextString.decode([0xFE, 0xFF, 0xD8, 0x00]) == "\u{FFFD}")  // lone surrogate
    }

    @Test func roundTrip() {
        for text in ["Hello", "caf\u{E9} \u{2022} \u{20AC}", "\u{65E5}\u{672C}", ""] {
            #expect(TextString.decode(TextString.encode(text)) == text)
        }
        #expect(TextString.encode("\u{65E5}").prefix(2) == [0xFE, 0xFF])
    }
}

@Suite("ByteBuffer search")
struct ByteBufferSearchTests {
    /// firstIndex(of:from:to:) and contains(_:from:to:) against a plain scan, at the edges:
    /// a match at the start and at the very end, a partial match cut by `to`, ranges that
    /// are empty, reversed, negative or past the end, and needles longer than the range.
    @Test func searchAgreesWithAPlainScan() {
        let text = Array("endstreaendstream xx endstream".utf8)
        let buffer = ByteBuffer(copying: text)
        func plain(_ needle: [UInt8], _ from: Int, _ to: Int) -> Int? {
            let end = min(to, text.count)
            var i = max(from, 0)
            while i + needle.count <= end {
                if Array(text[i..<(i + needle.count)]) == needle { return i }
                i += 1
            }
            return nil
        }
        let needles = ["endstream", "e", "m", "xx ", "endstreamx", "end", "q"].map { Array($0.utf8) }
        for needle in needles {
            for from in -2...(text.count + 1) {
                for to in [-1, 0, 5, 9, 17, 26, text.count - 1, text.count, text.count + 5] {
                    #expect(buffer.firstIndex(of: needle, from: from, to: to) == plain(needle, from, to),
                            "\(String(decoding: needle, as: UTF8.self)) in \(from)..<\(to)")
                }
            }
        }
        #expect(buffer.firstIndex(of: Array("endstream".utf8), from: 0) == 8)
        #expect(buffer.contains("endstream", from: 21, to: 99))
        #expect(!buffer.contains("endstream", from: 21, to: 29))
        #expect(!ByteBuffer(copying: []).contains("x", from: 0, to: 1))
        #expect(ByteBuffer(copying: []).firstIndex(of: [1], from: 0) == nil)
    }

    @Test func strictParsingRefusesContainersCutShortByKeywords() throws {
        // Lenient (a file): an array or dictionary that runs into `endobj`, `obj` or
        // `stream` ends there. Strict (quire_value_parse, a program's input): the keyword is
        // an error, for each of the three (a `where` applied to the last pattern only).
        func strict(_ text: String) throws -> PDFObject {
            var parser = ObjectParser(ByteBuffer(copying: Array(text.utf8)))
            parser.lexer.strict = true
            return try parser.parseObject()
        }
        for text in ["[1 endobj", "[1 2 obj", "[1 stream", "<< /A 1 endobj", "<< /A 1 stream", "<< /A 1 obj"] {
            #expect(throws: PDFError.self, "\(text)") { try strict(text) }
        }
        #expect(try parse("[1 endobj") == .array([.integer(1)]))
        #expect(try parse("[1 2 3 obj") == .array([.integer(1)]))
        #expect(try parse("<< /A 1 stream") == .dictionary(PDFDictionary([("A", .integer(1))])))
    }

    @Test func parseStrictReadsOneWholeObject() throws {
        func strict(_ text: String) throws -> PDFObject {
            try ObjectParser.parseStrict(ByteBuffer(copying: Array(text.utf8)))
        }
        // What it reads: any one object, with white space and comments around it.
        #expect(try strict("42") == .integer(42))
        #expect(try strict("  \n<< /A [1 2.5 (x) <41>] /B 3 0 R >> % a comment\r\n") == .dictionary(PDFDictionary([
            ("A", .array([.integer(1), .real(2.5), .string(PDFString(bytes: [0x78])), .string(PDFString(bytes: [0x41], isHex: true))])),
            ("B", .reference(ObjectID(3, 0))),
        ])))
        #expect(try strict("/Name") == .name("Name"))
        #expect(try strict("null") == .null)
        // What the lenient reading of a file repairs, and what it leaves unread, is refused
        // with the byte it is at.
        let refused: [(String, String)] = [
            ("", "unexpected end of file"),
            ("   ", "unexpected end of file"),
            ("1 2", "unexpected text after the value at byte 2"),
            ("<< /A 1 >> >>", "unexpected text after the value at byte 11"),
            ("(a) endobj", "unexpected text after the value at byte 4"),
            ("[1 endobj", "unexpected keyword"),
            ("<< /A 1 stream", "a dictionary key that is not a name (at byte 8)"),
            ("[1 bogus 2]", "unexpected keyword 'bogus'"),
            ("<< /A >>", "/A has no value"),
            ("<< 1 2 >>", "a dictionary key that is not a name"),
            ("<4G>", "in a hexadecimal string"),
            ("<41", "unterminated hexadecimal string"),
            ("[1 ) 2]", "stray ')'"),
            ("[1 > 2]", "stray '>'"),
            ("[1 2", "unterminated array"),
        ]
        for (text, expected) in refused {
            let error = #expect(throws: PDFError.self, "\(text)") { try strict(text) }
            #expect(error?.kind == .format, "\(text)")
            #expect(error?.message.contains(expected) == true, "\(text): \(error?.message ?? "")")
        }
        // The lenient parser reads each of those that it can.
        #expect(try parse("[1 bogus 2]") == .array([.integer(1), .null, .integer(2)]))
        #expect(try parse("<< /A >>") == .dictionary(PDFDictionary()))
        // Nesting is limited as in a file.
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(try ObjectParser.parseStrict(ByteBuffer(copying: Array(deep.utf8))) != .null)
        var limits = PDFLimits.default
        limits.maxNestingDepth = 10
        let error = #expect(throws: PDFError.self) { try ObjectParser.parseStrict(ByteBuffer(copying: Array(deep.utf8)), limits: limits) }
        #expect(error?.kind == .limit && error?.limitName == "max_nesting_depth")
    }
}

