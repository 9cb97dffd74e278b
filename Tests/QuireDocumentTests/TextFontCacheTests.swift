@testable import QuireDocument
import QuireSyntax
import QuireTestSupport
import Testing

/// Text extraction loads a font object once per document (issue 17: parsing embedded font
/// programs page after page was a third of the text workload), and loads it again after
/// any change, which may have been to the font.
@Suite struct TextFontCacheTests {
    /// Two pages showing "AB" in font object 10, a simple font whose /Differences map
    /// codes 65 and 66 to `first` and `second`.
    private func document(_ first: String = "A", _ second: String = "B") throws -> Document {
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 /MediaBox [0 0 200 200] /Resources << /Font << /F1 10 0 R >> >> >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
        b.stream(4, "", Array("BT /F1 12 Tf 10 100 Td (AB) Tj ET".utf8))
        b.object(5, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
        b.object(10, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding 11 0 R >>")
        b.object(11, "<< /Type /Encoding /Differences [65 /\(first) /\(second)] >>")
        b.finishWithTable()
        return try Document(data: b.bytes)
    }

    @Test func aFontIsLoadedOncePerDocumentAndAgainAfterAChange() throws {
        let doc = try document()
        #expect(try doc.textPage(at: 0).text == "AB")
        let loaded = try #require(doc.textFontCache[ObjectID(10)])
        #expect(try doc.textPage(at: 1).text == "AB")
        #expect(doc.textFontCache.count == 1)
        #expect(doc.textFontCache[ObjectID(10)] === loaded)  // the second page used the first's
        // A change to the font's encoding: the font is loaded again, and the text follows.
        try doc.setObject(11, .dictionary(PDFDictionary([
            ("Type", .name("Encoding")), ("Differences", .array([.integer(65), .name("X"), .name("Y")])),
        ])))
        #expect(doc.textFontCache.isEmpty)
        #expect(try doc.textPage(at: 1).text == "XY")
        #expect(doc.textFontCache[ObjectID(10)] !== loaded)
    }
}
