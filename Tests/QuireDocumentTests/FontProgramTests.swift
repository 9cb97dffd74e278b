import Testing
import QuireDocument
import QuireFuzzSupport
import QuireSyntax
import QuireTestSupport
#if canImport(Glibc)
import Glibc
#endif

// The glyph boxes of issue 18: embedded font programs (TrueType, CFF, Type 1) parsed and
// their charstrings run, and the AFM boxes of the standard 14 fonts. The boxes are
// checked against PDFium's FPDFText_GetCharBox on corpus files in
// Tests/python/test_text.py; here: the AFM path exactly, real programs of each format from
// the corpus, and hostile bytes (truncations and byte changes of those programs, and the
// fuzz target's regressions), which must give an answer or nil, never a trap.

/// The embedded font programs of `path` (a corpus file): (descriptor key, decoded bytes).
private func fontPrograms(_ path: String) throws -> [(key: String, bytes: [UInt8])] {
    let document = try Document(path: path)
    var out: [(String, [UInt8])] = []
    for number in document.file.objectNumbers {
        guard let object = try? document.object(number), let d = object.dictionary,
              d["Type"]?.name?.value == "FontDescriptor" else { continue }
        for key in ["FontFile", "FontFile2", "FontFile3"] {
            if case .stream(let s)? = try? document.resolve(d[PDFName(key)] ?? .null),
               let data = try? document.file.decodedData(s) {
                out.append((key, data))
            }
        }
    }
    return out
}

/// One file per format, small, each with only fonts of that format (found with pikepdf).
private let formatSamples: [(path: String, format: String)] = [
    ("pypdfium2/tests/resources/render.pdf", "Type1"),
    ("pdfminer/samples/contrib/issue-886-xref-stream-widths.pdf", "TrueType"),
    ("pdfium/testing/resources/bigtable_mini.pdf", "CFF"),
    ("pypdfium2/tests/resources/toc.pdf", "CFF"),  // CID-keyed
    ("pdfium/testing/resources/pixel/xfa_specific/barcode_test.pdf", "CFF"),  // OpenType
]

@Suite("Font programs (glyph boxes)")
struct FontProgramTests {
    @Test func standardFontBoxesComeFromTheAFMFiles() throws {
        // Helvetica.afm: C 82 ; WX 722 ; N R ; B 88 0 684 718 ; Times-Roman: N g ; B 28 -218 470 460.
        #expect(StandardFontMetrics.font(named: "Helvetica")?.box(ofGlyph: "R") == GlyphBox(left: 88, bottom: 0, right: 684, top: 718))
        #expect(StandardFontMetrics.font(named: "Times-Roman")?.box(ofGlyph: "g") == GlyphBox(left: 28, bottom: -218, right: 470, top: 460))
        #expect(StandardFontMetrics.font(named: "Helvetica")?.box(ofGlyph: "no-such-glyph") == nil)
    }

    @Test func standardFontCharactersCarryTheirGlyphBoxes() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 10 0 R /F3 11 0 R >> >> >>")
        b.stream(4, "", Array("BT /F1 10 Tf 100 700 Td (Rg) Tj /F3 10 Tf (A) Tj ET".utf8))
        b.object(10, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        b.object(11, "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 0 1000 1000] /FirstChar 65 /LastChar 65 /Widths [500] /CharProcs << /A 12 0 R >> /Encoding << /Differences [65 /A] >> >>")
        b.stream(12, "", Array("500 0 50 -10 450 700 d1 0 0 m 400 0 l 400 690 l f".utf8))
        b.finishWithTable()
        let page = try Document(data: b.bytes).textPage(at: 0)
        let chars = page.characters.filter { !$0.isGenerated }
        try #require(chars.count == 3)
        // R: B 88 0 684 718 at 10 pt from x = 100; g: B 40 -220 499 538 (Helvetica.afm), after R's 722.
        let r = chars[0].glyphQuad.bounds
        #expect(chars[0].hasGlyphBox && abs(r.left - 100.88) < 1e-6 && abs(r.bottom - 700) < 1e-6 && abs(r.right - 106.84) < 1e-6 && abs(r.top - 707.18) < 1e-6)
        let g = chars[1].glyphQuad.bounds
        #expect(abs(g.left - (107.22 + 0.40)) < 1e-6 && abs(g.bottom - 697.8) < 1e-6)
        // Type 3: the d1 box (50 -10 450 700 in glyph space, 1/1000 of text space) at
        // 10 pt, after R and g (722 + 556).
        let a = chars[2].glyphQuad.bounds
        #expect(chars[2].hasGlyphBox && abs(a.left - 113.28) < 1e-6 && abs(a.bottom - 699.9) < 1e-6
                && abs(a.right - 117.28) < 1e-6 && abs(a.top - 707) < 1e-6)
        // The highlight box stays ascent to descent.
        #expect(chars[0].quad.bounds.top >= r.top && chars[0].quad.bounds.bottom < r.bottom)
    }

    @Test func adobeCollectionsGiveUnicodeWithoutToUnicode() throws {
        // Adobe-Japan1 with Identity-H and no /ToUnicode: CID 34 is "A" and CID 843 is "あ"
        // (Adobe-Japan1-UCS2); Adobe-GB1 CID 34 is "A" too. A predefined CMap that is not
        // built in (its CIDs unknown) gives U+FFFD rather than a wrong character.
        func text(_ registry: String, _ ordering: String, encoding: String, _ codes: String) throws -> String {
            var b = PDFBuilder()
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 10 0 R >> >> >>")
            b.stream(4, "", Array("BT /F1 12 Tf 72 700 Td <\(codes)> Tj ET".utf8))
            b.object(10, "<< /Type /Font /Subtype /Type0 /BaseFont /Ryumin-Light /Encoding /\(encoding) /DescendantFonts [11 0 R] >>")
            b.object(11, "<< /Type /Font /Subtype /CIDFontType0 /BaseFont /Ryumin-Light /CIDSystemInfo << /Registry (\(registry)) /Ordering (\(ordering)) /Supplement 2 >> >>")
            b.finishWithTable()
            return try Document(data: b.bytes).textPage(at: 0).text
        }
        #expect(try text("Adobe", "Japan1", encoding: "Identity-H", "0022034B") == "Aあ")
        #expect(try text("Adobe", "GB1", encoding: "Identity-H", "0022") == "A")
        #expect(try text("Adobe", "Japan1", encoding: "90ms-RKSJ-H", "0022") == "\u{FFFD}")
        #expect(try text("Other", "Japan1", encoding: "Identity-H", "0022") == "\u{FFFD}")
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func realProgramsOfEachFormatParse() throws {
        for sample in formatSamples {
            let programs = try fontPrograms(corpusDirectory! + "/" + sample.path)
            try #require(!programs.isEmpty, "\(sample.path): no embedded font")
            for p in programs {
                #expect(EmbeddedFontProgram.format(p.bytes, key: p.key) == sample.format, "\(sample.path) \(p.key)")
                let boxes = EmbeddedFontProgram.glyphBoxes(p.bytes, key: p.key, count: 256)
                let drawn = boxes.compactMap { $0 }.filter { !($0.right <= $0.left || $0.top <= $0.bottom) }
                #expect(!drawn.isEmpty, "\(sample.path) \(p.key): no glyph with a box")
                // Glyph boxes of a text font stay within a few ems of the origin.
                #expect(drawn.allSatisfy { abs($0.left) < 5000 && abs($0.top) < 5000 && abs($0.bottom) < 5000 })
            }
        }
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func hostileProgramsNeverTrap() throws {
        // Truncations and deterministic byte changes of real programs: each read gives
        // boxes or nil. (A trap would end the test process.)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(truncatingIfNeeded: state >> 33)
        }
        for sample in formatSamples {
            for p in try fontPrograms(corpusDirectory! + "/" + sample.path).prefix(2) {
                let n = p.bytes.count
                for cut in stride(from: 0, to: n, by: max(1, n / 24)) {
                    _ = EmbeddedFontProgram.glyphBoxes(Array(p.bytes[..<cut]), key: p.key, count: 64, names: ["a", "A"])
                }
                for _ in 0..<60 {
                    var bytes = p.bytes
                    for _ in 0..<8 { bytes[next() % n] = UInt8(truncatingIfNeeded: next()) }
                    _ = EmbeddedFontProgram.glyphBoxes(bytes, key: p.key, count: 64, names: ["a", "A"])
                }
            }
        }
    }

    @Test func fuzzRegressionsReplay() {
        // Tests/fuzz/regressions/font: inputs FuzzFont once failed on, through the target's code.
        for (name, bytes) in fontRegressions() {
            _ = name
            Fuzzing.font(bytes)
        }
        // Degenerate inputs of each selector.
        for selector: UInt8 in 0...2 {
            Fuzzing.font([selector])
            Fuzzing.font([selector] + Array("OTTO".utf8) + [UInt8](repeating: 0xFF, count: 64))
            Fuzzing.font([selector, 1, 0, 4, 4] + [UInt8](repeating: 0xFF, count: 64))
            Fuzzing.font([selector] + Array("%!PS eexec ".utf8) + [UInt8](repeating: 0x41, count: 64))
        }
    }
}

/// Tests/fuzz/regressions/font, from this file's path.
private func fontRegressions() -> [(String, [UInt8])] {
    var path = #filePath
    for _ in 0..<3 { if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) } }
    let directory = path + "/Tests/fuzz/regressions/font"
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var out: [(String, [UInt8])] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        guard !name.hasPrefix("."), name != "README.md", let f = fopen(directory + "/" + name, "rb") else { continue }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        fclose(f)
        out.append((name, bytes))
    }
    return out
}
