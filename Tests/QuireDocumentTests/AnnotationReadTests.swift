import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport

/// What issue 17 changed under the bulk read: `Annotation.init` finds its entries in one
/// pass over the dictionary, and `PDFDate.description` writes bytes. Both must read and
/// write exactly what they did.
@Suite("Reading annotations (one pass, dates as bytes)")
struct AnnotationReadTests {
    /// The former `description`: padded strings concatenated.
    private func reference(_ d: PDFDate) -> String {
        var s = "D:" + PDFDate.pad(d.year, 4) + PDFDate.pad(d.month, 2) + PDFDate.pad(d.day, 2)
            + PDFDate.pad(d.hour, 2) + PDFDate.pad(d.minute, 2) + PDFDate.pad(d.second, 2)
        if let offset = d.utcOffsetMinutes {
            if offset == 0 {
                s += "Z"
            } else {
                s += (offset < 0 ? "-" : "+") + PDFDate.pad(abs(offset) / 60, 2) + "'" + PDFDate.pad(abs(offset) % 60, 2) + "'"
            }
        }
        return s
    }

    @Test func datesAreWrittenAsBefore() {
        let dates = [
            PDFDate(year: 2024, month: 6, day: 25, hour: 18, minute: 22, second: 16, utcOffsetMinutes: -420),
            PDFDate(year: 1999, month: 12, day: 31, hour: 23, minute: 59, second: 59, utcOffsetMinutes: 0),
            PDFDate(year: 7, month: 1, day: 2, hour: 3, minute: 4, second: 5, utcOffsetMinutes: nil),
            PDFDate(year: 12345, month: 10, day: 10, hour: 10, minute: 10, second: 10, utcOffsetMinutes: 330),
            PDFDate(year: -44, month: 3, day: 15, hour: 0, minute: 0, second: 0, utcOffsetMinutes: 59),
            PDFDate(year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, utcOffsetMinutes: -1),
            PDFDate(year: Int.max, month: Int.min + 1, day: 1, hour: 1, minute: 1, second: 1, utcOffsetMinutes: nil),
        ]
        for d in dates { #expect(d.description == reference(d)) }
        #expect(dates[0].description == "D:20240625182216-07'00'")
        #expect(PDFDate("D:20240625182216-07'00'")?.description == "D:20240625182216-07'00'")
    }

    @Test func everyEntryIsReadInOnePass() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R 5 0 R] >>")
            // Every entry the model reads, in an unusual order, with unknown entries between
            // them and names of the same length as known ones (/Q, /Cx, /XYZW).
            b.object(4, """
                << /QuireCustomData ({"k":1}) /Vertices [1 2 3 4] /Q 1 /Cx 2 /LE [/OpenArrow /None] /L [1 2 3 4] \
                /InkList [[1 2 3 4]] /QuadPoints [1 2 3 4 5 6 7 8] /StateModel /Review /State (Accepted) \
                /RT /Group /IRT 5 0 R /Popup 5 0 R /Border [0 0 3] /XYZW 4 /CA 0.5 /IC [0 1 0] /C [1 0 0] /F 4 \
                /M (D:20240625182229-07'00') /CreationDate (D:20240625182216-07'00') /NM (n1) /Subj (S) \
                /T (Ada) /RC (<p>x</p>) /Contents (Hello) /Rect [10 20 30 40] /Subtype /Line /DA (/Helv 12 Tf 0 g) \
                /Name /Note /Type /Annot >>
                """)
            b.object(5, "<< /Type /Annot /Subtype /Popup /Rect [0 0 1 1] /BS << /W 2 >> /Border [0 0 5] >>")
        }
        let list = try doc.annotations(onPage: 0)
        #expect(list.count == 2)
        let a = list[0]
        #expect(a.subtype == "Line")
        #expect(a.rect == Rect(left: 10, bottom: 20, right: 30, top: 40))
        #expect(a.contents == "Hello" && a.richText == "<p>x</p>" && a.author == "Ada" && a.subject == "S" && a.name == "n1")
        #expect(a.creationDate?.description == "D:20240625182216-07'00'")
        #expect(a.modificationDate?.description == "D:20240625182229-07'00'")
        #expect(a.flags == 4 && a.color == [1, 0, 0] && a.interiorColor == [0, 1, 0] && a.opacity == 0.5)
        #expect(a.borderWidth == 3)
        #expect(a.popup == ObjectID(5) && a.inReplyTo == ObjectID(5) && a.replyType == .group)
        #expect(a.state == "Accepted" && a.stateModel == "Review")
        #expect(a.quadPoints == [1, 2, 3, 4, 5, 6, 7, 8] && a.inkList == [[1, 2, 3, 4]])
        #expect(a.linePoints == [1, 2, 3, 4] && a.lineEndings == ["OpenArrow", "None"] && a.vertices == [1, 2, 3, 4])
        #expect(a.defaultAppearance == "/Helv 12 Tf 0 g" && a.fontSize == 12 && a.iconName == "Note")
        #expect(a.customData == "{\"k\":1}")
        // /BS /W wins over /Border.
        #expect(list[1].borderWidth == 2 && list[1].contents == nil && list[1].inReplyTo == nil)
    }
}
