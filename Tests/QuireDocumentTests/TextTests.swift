import Synchronization
import Dispatch
import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A one-page document (612 x 792) whose content is `content`, whose resources are
/// `resources` (PDF syntax inside the dictionary), with objects added by `build`.
/// Object 4 is the content stream; objects from 10 on are free for fonts and forms.
private func textDocument(_ content: String, resources: String = "/Font << /F1 10 0 R >>",
                          helvetica: Bool = true, rotate: Int = 0,
                          _ build: (inout PDFBuilder) -> Void = { _ in }) throws -> Document {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate \(rotate) /Contents 4 0 R /Resources << \(resources) >> >>")
    b.stream(4, "", Array(content.utf8))
    if helvetica { b.object(10, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>") }
    build(&b)
    b.finishWithTable()
    return try Document(data: b.bytes)
}

private func near(_ a: Double, _ b: Double, _ tolerance: Double = 0.01) -> Bool { abs(a - b) <= tolerance }

@Suite struct StandardFontMetricsTests {
    @Test func widthsComeFromTheAFMFiles() throws {
        // Helvetica.afm: C 65 ; WX 667 ; N A; Times-Roman: space 250; Courier: 600 for all.
        #expect(StandardFontMetrics.width(of: "A", font: "Helvetica") == 667)
        #expect(StandardFontMetrics.width(of: " ", font: "Times-Roman") == 250)
        #expect(StandardFontMetrics.width(of: "W", font: "Courier-Bold") == 600)
        #expect(StandardFontMetrics.font(named: "ZapfDingbats")?.width(ofGlyph: "a1") == 974)
        #expect(StandardFontMetrics.font(named: "Symbol")?.width(of: "α") == 631)
        #expect(StandardFontMetrics.width(of: "Hi", font: "Helv", size: 10) == 9.44)
        #expect(StandardFontMetrics.names.count == 14)
        // Each font is read when first asked for, from any thread: all 14 at once from
        // several tasks give each font its own metrics, the same every time.
        let names = StandardFontMetrics.names
        let widths = try names.map { name in try #require(StandardFontMetrics.font(named: name)).widths.count }
        #expect(widths.allSatisfy { $0 > 90 })
        let right = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 28) { k in
            let font = StandardFontMetrics.font(named: names[k % 14])
            if font?.name == names[k % 14] && font?.widths.count == widths[k % 14] {
                right.add(1, ordering: .relaxed)
            }
        }
        #expect(right.load(ordering: .relaxed) == 28)
    }

    @Test func aliasesAndSubsetTagsMapToTheStandardFonts() throws {
        #expect(StandardFontMetrics.font(named: "ABCDEF+Arial,Bold")?.name == "Helvetica-Bold")
        #expect(StandardFontMetrics.font(named: "TimesNewRoman,Italic")?.name == "Times-Italic")
        #expect(StandardFontMetrics.font(named: "ZaDb")?.name == "ZapfDingbats")
        #expect(StandardFontMetrics.font(named: "Calibri") == nil)
    }

    @Test func glyphNamesFollowTheAdobeGlyphListRules() throws {
        #expect(GlyphNames.unicode(for: "Aacute") == "Á")
        #expect(GlyphNames.unicode(for: "uni20AC") == "€")
        #expect(GlyphNames.unicode(for: "u1F600") == "😀")
        #expect(GlyphNames.unicode(for: "f_f_i") == "ffi")
        #expect(GlyphNames.unicode(for: "a.sc") == "a")
        #expect(GlyphNames.unicode(for: "uni20ac") == nil)  // lowercase hex is not AGL
        #expect(BaseEncoding.winAnsi.glyphNames[0x80] == "Euro")
        #expect(BaseEncoding.macRoman.glyphNames[0x8E] == "eacute")
    }
}

@Suite struct TextExtractionTests {
    @Test func simpleFontPositionsFollowTheTextState() throws {
        // 12 pt Helvetica at (100, 700): "AV" then, after Tc 1 and Tw 5, "A A".
        let doc = try textDocument("BT /F1 12 Tf 100 700 Td (AV) Tj 1 Tc 5 Tw 0 -20 Td (A A) Tj ET")
        let page = try doc.textPage(at: 0)
        #expect(page.text == "AV\nA A")
        let chars = page.characters.filter { !$0.isGenerated }
        #expect(chars.count == 5)
        // A: 667/1000 * 12 = 8.004 wide; V starts there.
        #expect(near(chars[0].quad.lowerLeft.x, 100))
        #expect(near(chars[1].quad.lowerLeft.x, 108.004))
        // Helvetica's descent and ascent: -207 and 718.
        #expect(near(chars[0].quad.lowerLeft.y, 700 - 0.207 * 12))
        #expect(near(chars[0].quad.upperLeft.y, 700 + 0.718 * 12))
        // Second line: A (8.004 + Tc 1), space (3.336 + Tc 1 + Tw 5), A.
        #expect(near(chars[2].quad.lowerLeft.x, 100))
        #expect(near(chars[3].quad.lowerLeft.x, 109.004))
        #expect(near(chars[4].quad.lowerLeft.x, 109.004 + 3.336 + 6))
        #expect(chars[0].fontSize == 12)
    }

    @Test func horizontalScalingRiseAndTJAdjustments() throws {
        let doc = try textDocument("BT /F1 10 Tf 50 Tz 2 Ts 0 0 Td [(A) -1000 (B)] TJ ET")
        let chars = try doc.textPage(at: 0).characters
        // A: 6.67 * 0.5 wide; -1000 moves 10 * 0.5 = 5 right; B follows.
        let b = try #require(chars.last)
        #expect(b.text == "B")
        #expect(near(b.quad.lowerLeft.x, 3.335 + 5))
        #expect(near(chars[0].quad.lowerLeft.y, 2 - 2.07))
        #expect(chars.contains { $0.isGenerated && $0.text == " " })
    }

    @Test func matricesRotateTheQuads() throws {
        // Text turned 90° by the text matrix, inside a cm that moves it.
        let doc = try textDocument("q 1 0 0 1 10 20 cm BT /F1 10 Tf 0 1 -1 0 100 100 Tm (AB) Tj ET Q")
        let a = try #require(try doc.textPage(at: 0).characters.first)
        #expect(near(a.quad.lowerLeft.x, 110 + 2.07))
        #expect(near(a.quad.lowerLeft.y, 120))
        #expect(near(a.quad.lowerRight.y, 126.67))
        #expect(near(a.quad.lowerRight.x, 112.07))
    }

    @Test func differencesAndToUnicode() throws {
        let toUnicode = """
        /CIDInit /ProcSet findresource begin 12 dict begin begincmap
        1 begincodespacerange <00> <FF> endcodespacerange
        2 beginbfchar <01> <0041> <02> <D83DDE00> endbfchar
        1 beginbfrange <10> <12> <0061> endbfrange
        1 beginbfrange <20> <21> [<0066006C> <00E9>] endbfrange
        endcmap end end
        """
        let doc = try textDocument("BT /F2 10 Tf 0 0 Td <0102101112> Tj <2021> Tj (\\101) Tj /F1 10 Tf <80> Tj ET",
                                   resources: "/Font << /F1 11 0 R /F2 12 0 R >>", helvetica: false) { b in
            b.object(11, "<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 /Eacute /uni0416] >> >>")
            b.object(12, "<< /Type /Font /Subtype /TrueType /BaseFont /Foo /FirstChar 1 /LastChar 2 /Widths [500 600] /ToUnicode 13 0 R >>")
            b.stream(13, "", Array(toUnicode.utf8))
        }
        let page = try doc.textPage(at: 0)
        #expect(page.characters.filter { !$0.isGenerated }.map(\.text) == ["A", "😀", "a", "b", "c", "fl", "é", "A", "€"])
        // Code 0x41 of F2 has no ToUnicode entry: it falls back to the code as Latin-1.
        #expect(page.characters[1].quad.lowerLeft.x == 5)
    }

    @Test func type0IdentityHWithWidths() throws {
        let toUnicode = """
        begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange
        1 beginbfrange <0003> <0005> <0048> endbfrange endcmap
        """
        let doc = try textDocument("BT /F3 20 Tf 10 10 Td <000300040005> Tj ET", resources: "/Font << /F3 20 0 R >>", helvetica: false) { b in
            b.object(20, "<< /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Noto /Encoding /Identity-H /DescendantFonts [21 0 R] /ToUnicode 23 0 R >>")
            b.object(21, "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Noto /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 22 0 R /DW 1000 /W [3 [250] 4 5 400] >>")
            b.object(22, "<< /Type /FontDescriptor /FontName /ABCDEF+Noto /Ascent 900 /Descent -100 /Flags 4 >>")
            b.stream(23, "", Array(toUnicode.utf8))
        }
        let chars = try doc.textPage(at: 0).characters
        #expect(chars.map(\.text) == ["H", "I", "J"])
        #expect(near(chars[1].quad.lowerLeft.x, 15))
        #expect(near(chars[2].quad.lowerLeft.x, 23))
        #expect(near(chars[2].quad.lowerRight.x, 31))
        #expect(near(chars[0].quad.upperLeft.y, 28))
        #expect(near(chars[0].quad.lowerLeft.y, 8))
    }

    @Test func formXObjectsInlineImagesAndActualText() throws {
        let content = """
        BI /W 2 /H 1 /BPC 8 /CS /G ID \u{01}EI EI
        /Span << /ActualText (fi) >> BDC BT /F1 10 Tf 0 0 Td (X) Tj ET EMC
        q 2 0 0 2 0 0 cm /Fm1 Do Q /Loop Do
        """
        let doc = try textDocument(content, resources: "/Font << /F1 10 0 R >> /XObject << /Fm1 30 0 R /Loop 31 0 R >>") { b in
            b.stream(30, "/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Matrix [1 0 0 1 50 0] /Resources << /Font << /F1 10 0 R >> >>",
                     Array("BT /F1 10 Tf 0 100 Td (Form) Tj ET".utf8))
            b.stream(31, "/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /Loop 31 0 R >> /Font << /F1 10 0 R >> >>",
                     Array("BT /F1 10 Tf 0 300 Td (L) Tj ET /Loop Do".utf8))
        }
        let page = try doc.textPage(at: 0)
        #expect(page.text == "fi\nForm\nL")
        let f = try #require(page.characters.first { $0.text == "F" })
        // The form's matrix (x + 50) then the cm (x 2): (0 + 50) * 2 = 100, y 200.
        #expect(near(f.quad.lowerLeft.x, 100))
        #expect(near(f.quad.lowerLeft.y, 200 - 0.207 * 20))
        #expect(page.warnings.contains { $0.contains("cycle") })
    }

    @Test func damagedContentKeepsWhatCameBefore() throws {
        let doc = try textDocument("BT /F1 10 Tf (ok) Tj /Missing 10 Tf (x) Tj [ (a) << /A [ ET")
        let page = try doc.textPage(at: 0)
        #expect(page.text.hasPrefix("okx"))
    }

    @Test func wordsLinesSearchAndSelection() throws {
        let doc = try textDocument("BT /F1 10 Tf 72 700 Td (The quick brown fox jum-) Tj 0 -12 Td (ps over the lazy Fox.) Tj ET")
        let page = try doc.textPage(at: 0)
        #expect(page.lines.map(\.text) == ["The quick brown fox jum-", "ps over the lazy Fox."])
        #expect(page.words.map(\.text).prefix(3) == ["The", "quick", "brown"])
        let fox = page.search("FOX")
        #expect(fox.count == 2)
        #expect(fox[1].span.text == "Fox")
        #expect(page.search("fox", options: TextSearchOptions(caseSensitive: true)).count == 1)
        #expect(page.search("the", options: TextSearchOptions(wholeWord: true)).count == 2)
        #expect(page.search("he", options: TextSearchOptions(wholeWord: true)).isEmpty)
        // Hyphenation at the line end and the line break itself.
        let jumps = try #require(page.search("jumps").first)
        #expect(jumps.span.quads.count == 2)
        #expect(page.search("fox jum").count == 1)
        #expect(page.search("jum- ps").isEmpty == false || page.search("jumps over").count == 1)
        // Selection by points: from inside "quick" to inside "brown".
        let q = try #require(page.search("quick").first)
        let b = try #require(page.search("brown").first)
        let sel = try #require(page.select(from: q.span.quads[0].center, to: b.span.quads[0].center))
        #expect(sel.text.hasPrefix("i") || sel.text.hasPrefix("c"))
        #expect(sel.text.contains(" br"))
        #expect(sel.quads.count == 1)
        #expect(page.span(4..<9).text == "quick")
    }

    @Test func highlightsCoverTheMatchAndReadBack() throws {
        let doc = try textDocument("BT /F1 10 Tf 72 700 Td (alpha beta gamma) Tj ET")
        let match = try #require(try doc.searchText("beta").first)
        let a = try doc.addTextMarkup("Highlight", pageIndex: 0, quads: match.span.quads, author: "me")
        #expect(a.quadPoints.count == 8)
        // Upper-left, upper-right, lower-left, lower-right.
        #expect(a.quadPoints[1] > a.quadPoints[5])
        #expect(a.quadPoints[0] < a.quadPoints[2])
        #expect(try doc.markedText(of: a) == "beta")
        let saved = try doc.annotations(onPage: 0)
        #expect(saved.count == 1)
        #expect(try doc.markedText(of: saved[0]) == "beta")
        #expect(throws: PDFError.self) { try doc.addTextMarkup("Ink", pageIndex: 0, quads: match.span.quads) }
    }
}

@Suite struct HostileTextTests {
    /// A page whose content `content` and font dictionary `font` are hostile: extraction
    /// ends with characters or warnings, never a trap.
    private func extract(_ content: String, font: String = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
                         _ build: (inout PDFBuilder) -> Void = { _ in }) throws -> TextPage {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 10 0 R >> /XObject << /X 20 0 R >> >> >>")
        b.stream(4, "", Array(content.utf8))
        b.object(10, font)
        build(&b)
        b.finishWithTable()
        return try Document(data: b.bytes).textPage(at: 0)
    }

    @Test func hostileNumbersDoNotTrap() throws {
        let page = try extract("BT 1e300 Tr /F1 1e308 Tf 1e308 0 Td -9999999999999999999 Tz (ab) Tj [(c) 1e308 (d)] TJ ET",
                               font: "<< /Type /Font /Subtype /Type1 /BaseFont /X /FirstChar 9223372036854775807 /Widths [1e308] /Encoding << /Differences [9223372036854775807 /a /b -5 /c] >> >>")
        #expect(page.characters.filter { !$0.isGenerated }.count == 4)
    }

    @Test func deepFormsAndStateStacksStopAtTheirLimits() throws {
        // Form 20 draws form 21, ... 20 + 40 draws text: deeper than the 32-form limit.
        let page = try extract(String(repeating: "q ", count: 5000) + "/X Do" + String(repeating: " Q", count: 6000)) { b in
            for k in 0..<40 {
                b.stream(20 + k, "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X \(21 + k) 0 R >> >>",
                         Array("/X Do".utf8))
            }
            b.stream(60, "/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /Font << /F1 10 0 R >> >>",
                     Array("BT /F1 9 Tf (deep) Tj ET".utf8))
        }
        #expect(page.text.isEmpty)
        #expect(page.warnings.contains { $0.contains("nested deeper") })
    }

    @Test func glyphLimitEndsThePage() throws {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 10 0 R >> >> >>")
        b.stream(4, "", Array(("BT /F1 9 Tf " + String(repeating: "(abcdefghij) Tj ", count: 100) + "ET").utf8))
        b.object(10, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        b.finishWithTable()
        var limits = TextLimits()
        limits.maxGlyphs = 50
        let page = try Document(data: b.bytes).textPage(at: 0, limits: limits)
        #expect(page.characters.filter { !$0.isGenerated }.count == 50)
        #expect(page.warnings.contains { $0.contains("more than 50 glyphs") })
    }
}
