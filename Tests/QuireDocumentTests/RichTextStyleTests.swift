import QuireSyntax
import Testing

@testable import QuireDocument

// FreeText rich text (issue 39): the styles of each run, as the appearance draws them,
// read from the XHTML by the sanitizer's one parser.

@Suite("Rich text styles")
struct RichTextStyleTests {
    @Test func stylesInheritAndCombine() throws {
        let base = RichText.Style(size: 11, color: [0])
        let xhtml = """
            <body xmlns="http://www.w3.org/1999/xhtml" style="font-size:14pt;color:#102030;font-family:Helvetica,sans-serif">\
            <p>a <b>b <i style="color:#F00">c</i></b></p>\
            <p style="text-align:center"><span style="font:italic bold 20px 'Times New Roman', serif;text-decoration:underline line-through">d</span></p>\
            <p><span style="font-weight:300;font-family:Courier New">e<br/>f\ng</span></p>
            </body>
            """
        let paragraphs = try RichText.paragraphs(xhtml, base: base)
        #expect(paragraphs.count == 4)
        let first = paragraphs[0].runs
        #expect(first.map(\.text) == ["a ", "b ", "c"])
        #expect(
            first[0].style.size == 14 && first[0].style.color == [16.0 / 255, 32.0 / 255, 48.0 / 255]
                && !first[0].style.bold
        )
        #expect(first[1].style.bold && !first[1].style.italic)
        #expect(first[2].style.bold && first[2].style.italic && first[2].style.color == [1, 0, 0])
        let d = paragraphs[1].runs[0].style
        #expect(paragraphs[1].alignment == 1)
        #expect(d.bold && d.italic && d.size == 15 && d.family == "Times New Roman" && d.underline && d.lineThrough)
        #expect(d.standardFont.base == "Times-BoldItalic")
        // A `br` breaks the line; a line end in the text is a space; the body's whitespace
        // between paragraphs draws nothing.
        #expect(paragraphs[2].runs.map(\.text) == ["e"] && paragraphs[3].runs.map(\.text) == ["f g"])
        #expect(paragraphs[2].runs[0].style.standardFont.base == "Courier" && !paragraphs[2].runs[0].style.bold)
    }

    @Test func aPrettyPrintedBodyDrawsNoEmptyLines() throws {
        let xhtml = "<body>\n  <p>one</p>\n  <p>two</p>\n</body>"
        let paragraphs = try RichText.paragraphs(xhtml, base: RichText.Style())
        #expect(paragraphs.map { $0.runs.map(\.text) } == [["one"], ["two"]])
    }

    @Test func valuesOutsideTheRulesAreLeftOut() throws {
        let base = RichText.Style(size: 9, color: [0, 0, 1])
        let paragraphs = try RichText.paragraphs(
            #"<p><span style="font-size:-3pt;color:#GGGGGG;font-size:99999pt;font-weight:heavy">x</span></p>"#,
            base: base
        )
        let style = try #require(paragraphs.first?.runs.first?.style)
        #expect(style.size == 9 && style.color == [0, 0, 1] && !style.bold && style.standardFont.base == "Helvetica")
        #expect(throws: PDFError.self) { try RichText.paragraphs("<p>open", base: base) }
    }

    /// vertical-align: super and sub at 58% of the size, raised by 33% or lowered by 14%
    /// of it; lengths and percentages of the line height. font-stretch: keywords and
    /// percentages as horizontal scaling.
    @Test func verticalAlignAndFontStretch() throws {
        let base = RichText.Style(size: 10, color: [0])
        let xhtml =
            #"<p>a<span style="vertical-align:super">b<span style="vertical-align:sub">c</span></span>"#
            + #"<span style="vertical-align:-2pt;font-stretch:condensed">d</span>"#
            + #"<span style="vertical-align:50%;font-stretch:125%">e</span>"#
            + #"<span style="font-stretch:ultra-expanded">f</span><span style="font-stretch:30%">g</span></p>"#
        let runs = try #require(try RichText.paragraphs(xhtml, base: base).first?.runs)
        #expect(runs.map(\.text) == ["a", "b", "c", "d", "e", "f", "g"])
        #expect(runs[0].style.rise == 0 && runs[0].style.size == 10 && runs[0].style.stretch == 1)
        #expect(abs(runs[1].style.rise - 3.3) < 1e-9 && abs(runs[1].style.size - 5.8) < 1e-9)
        // Nested: sub inside super, from the super's baseline and size.
        #expect(abs(runs[2].style.rise - (3.3 - 5.8 * 0.14)) < 1e-9 && abs(runs[2].style.size - 5.8 * 0.58) < 1e-9)
        #expect(runs[3].style.rise == -2 && runs[3].style.stretch == 0.75)
        #expect(abs(runs[4].style.rise - 6) < 1e-9 && runs[4].style.stretch == 1.25)
        #expect(runs[5].style.stretch == 2 && runs[6].style.stretch == 0.5)
    }

    /// /DS is read and written with the annotation, and plain text in it is one run a line.
    @Test func defaultStyleAsTheBaseOfPlainText() throws {
        var base = RichText.Style(size: 12, color: [0])
        base.apply(
            css: RichText.sanitizedStyle("font: bold 16pt 'DejaVu Serif',serif; color:#FF0000; text-align:center")
        )
        #expect(base.bold && base.size == 16 && base.color == [1, 0, 0] && base.alignment == 1)
        #expect(base.families == ["DejaVu Serif", "serif"])
        let paragraphs = RichText.paragraphs(plain: "one\ntwo\n\n", base: base)
        #expect(
            paragraphs.map { $0.runs.map(\.text) } == [["one"], ["two"]] && paragraphs.allSatisfy { $0.alignment == 1 }
        )
        var a = Annotation(subtype: "FreeText", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 100, top: 50))
        a.defaultStyle = "font: 14pt Courier"
        let written = a.written(into: PDFDictionary(), pageObject: nil)
        #expect(written["DS"]?.string?.text == "font: 14pt Courier")
    }

    /// `br` is kept through the sanitizer (empty, as `<br/>`), again unchanged, and is a
    /// line end of the plain text.
    @Test func lineBreaksAreKept() throws {
        let clean = try RichText.sanitized("<p>one<br>two</br><br /></p><p>three</p>")
        #expect(clean.xhtml.contains("<p>one<br/>two<br/></p><p>three</p>"), "\(clean.xhtml)")
        #expect(clean.plainText == "one\ntwo\n\nthree")
        #expect(try RichText.sanitized(clean.xhtml).xhtml == clean.xhtml)
        let paragraphs = try RichText.paragraphs(clean.xhtml, base: RichText.Style())
        #expect(paragraphs.map { $0.runs.map(\.text) } == [["one"], ["two"], [], ["three"]])
    }

    @Test func settingRichTextSanitizesAndSetsContents() throws {
        var a = Annotation(subtype: "FreeText", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 100, top: 50))
        try a.setRichText("<p>Hi <b>you</b><script>alert(1)</script></p><p>two</p>")
        #expect(a.contents == "Hi you\ntwo")
        #expect(a.richText?.contains("script") == false)
        #expect(throws: PDFError.self) { try a.setRichText("<p>") }
        #expect(a.contents == "Hi you\ntwo")
    }
}
