import Foundation
import QuireDocument
import QuireSyntax
import QuireTestSupport
import Testing

// An XFDF import updates what XFDF carries and nothing else: importing a document's own
// XFDF changes nothing (no new /M, so a synced layer pushes nothing), and entries XFDF has
// no element for (custom data, a synced record's id) stay.

@Suite("XFDF import over existing annotations")
struct XFDFImportTests {
    /// A square with custom data and a record id other than its /NM, dated 2020, made by
    /// an annotation JSON import.
    func annotated() throws -> (Document, ObjectID) {
        let doc = try blankDocument(pages: 1)
        let json =
            ##"{"format": "https://pspdfkit.com/instant-json/v1", "annotations": [{"type": "pspdfkit/shape/rectangle", "##
            + ##""v": 1, "id": "record-1", "name": "n1", "pageIndex": 0, "bbox": [10, 742, 40, 40], "strokeColor": "#FF0000", "##
            + ##""strokeWidth": 1, "note": "a note", "customData": {"k": 1}, "updatedAt": "2020-01-01T00:00:00Z"}]}"##
        let imported = try doc.importAnnotationsJSON(Array(json.utf8))
        let id = try #require(imported.first?.id)
        let a = try #require(try doc.annotation(id))
        #expect(a.recordID == "record-1" && a.customData != nil && a.modificationDate?.year == 2020)
        return (doc, id)
    }

    @Test func itsOwnXFDFChangesNothing() throws {
        let (doc, id) = try annotated()
        let before = try #require(try doc.annotation(id))
        let objectBefore = try doc.object(id.number)
        #expect(try doc.importXFDF(Array(try doc.exportXFDF().utf8)) == 1)
        #expect(try doc.object(id.number) == objectBefore, "the object was rewritten")
        #expect(try doc.annotation(id) == before)
    }

    @Test func anEditKeepsWhatXFDFDoesNotCarry() throws {
        let (doc, id) = try annotated()
        let before = try #require(try doc.annotation(id))
        #expect(before.customData != nil)
        let xfdf = try doc.exportXFDF().replacingOccurrences(of: "a note", with: "changed")
        #expect(xfdf.contains("changed"))
        #expect(try doc.importXFDF(Array(xfdf.utf8)) == 1)
        let after = try #require(try doc.annotation(id))
        #expect(after.contents == "changed")
        #expect(after.customData == before.customData)
        #expect(after.recordID == before.recordID)
        #expect(after.modificationDate != before.modificationDate, "an edit is dated")
    }

    /// Annotations as real files have them: a square without /NM in a colour that is not
    /// exact in 8 bits a channel, a note without /NM and a named reply to it.
    func unnamed() throws -> Document {
        try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /Annots [4 0 R 5 0 R 6 0 R] >>")
            b.object(4, "<< /Type /Annot /Subtype /Square /Rect [50 100 60 120] /C [1 0.90196 0] /F 4 >>")
            b.object(5, "<< /Type /Annot /Subtype /Text /Rect [72 700 96 724] /Contents (a note) /F 4 >>")
            b.object(
                6,
                "<< /Type /Annot /Subtype /Text /Rect [72 700 96 724] /Contents (a reply) /NM (r1) /IRT 5 0 R /F 4 >>"
            )
        }
    }

    @Test func annotationsWithoutNamesAreMatchedByNumber() throws {
        let doc = try unnamed()
        let xfdf = try doc.exportXFDF()
        #expect(
            xfdf.contains(#"name="4""#) && xfdf.contains(#"name="5""#) && xfdf.contains(#"inreplyto="5""#),
            "\(xfdf)"
        )
        let objects = try (4...6).map { try doc.object($0) }
        #expect(try doc.importXFDF(Array(xfdf.utf8)) == 3)
        #expect(try doc.annotations(onPage: 0).count == 3, "an element of an annotation without /NM made a second one")
        #expect(try (4...6).map { try doc.object($0) } == objects, "the import rewrote an annotation it did not change")
        // An edit of the unnamed note by its number: the note changes and stays without /NM.
        _ = try doc.importXFDF(Array(xfdf.replacingOccurrences(of: "a note", with: "edited").utf8))
        let note = try #require(try doc.annotation(ObjectID(5)))
        #expect(note.contents == "edited" && note.name == nil)
        #expect(try doc.annotation(ObjectID(4))?.color == [1, 0.90196, 0], "the colour kept its precision")
        // Into a copy without them: created, the reply linked to the note.
        let copy = try blankDocument(pages: 1)
        _ = try copy.importXFDF(Array(xfdf.utf8))
        let made = try copy.annotations(onPage: 0)
        #expect(made.count == 3)
        let reply = try #require(made.first { $0.name == "r1" })
        #expect(reply.inReplyTo == made.first { $0.contents == "a note" }?.id)
    }

    @Test func aFileItAlreadyHasIsNotStoredAgain() throws {
        let doc = try blankDocument(pages: 1)
        var a = Annotation(
            subtype: "FileAttachment",
            pageIndex: 0,
            rect: Rect(left: 10, bottom: 10, right: 30, top: 30)
        )
        a.file = try Annotation.AttachedFile(bytes: Array("attached".utf8), name: "a.txt", contentType: "text/plain")
        let id = try #require(try doc.addAnnotation(a).id)
        let xfdf = try doc.exportXFDF()
        #expect(xfdf.contains("<data"))
        let before = try doc.object(id.number)
        #expect(try doc.importXFDF(Array(xfdf.utf8)) == 1)
        #expect(try doc.object(id.number) == before, "the same file was stored again")
        // Another file is stored.
        let other = xfdf.replacingOccurrences(of: #"file="a.txt""#, with: #"file="b.txt""#)
        #expect(other != xfdf)
        _ = try doc.importXFDF(Array(other.utf8))
        #expect(try doc.attachedFile(of: id)?.name == "b.txt")
    }

    /// What XFDF writes with less precision than the file holds, and names that collide:
    /// a Square whose /NM is another object's number, that object (a note without /NM), a
    /// reply to it with /RT /R, a highlight with 4 decimals, a cloud with /BS /S /S and a
    /// FreeText whose /RC is not sanitized XHTML. Its own XFDF changes none of them.
    @Test func itsOwnXFDFChangesNothingThatXFDFWritesLossily() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /Annots [4 0 R 5 0 R 6 0 R 7 0 R 8 0 R 9 0 R] >>")
            b.object(4, "<< /Type /Annot /Subtype /Square /Rect [50 100 60 120] /NM (5) /C [1 0 0] >>")
            b.object(5, "<< /Type /Annot /Subtype /Text /Rect [72 700 96 724] /Contents (a note) >>")
            b.object(
                6,
                "<< /Type /Annot /Subtype /Text /Rect [72 700 96 724] /Contents (a reply) /NM (r1) /IRT 5 0 R /RT /R >>"
            )
            b.object(
                7,
                "<< /Type /Annot /Subtype /Highlight /Rect [10.12345 20.5 110.98765 32.25] /NM (h1) /QuadPoints [10.12345 32.25 110.98765 32.25 10.12345 20.5 110.98765 20.5] /C [1 1 0] >>"
            )
            b.object(
                8,
                "<< /Type /Annot /Subtype /Polygon /Rect [200 200 300 300] /NM (c1) /Vertices [210 210 290 210 250 290] /BE << /S /C /I 1 >> /BS << /S /S /W 1 >> /C [0 0 1] >>"
            )
            b.object(
                9,
                "<< /Type /Annot /Subtype /FreeText /Rect [300 500 500 560] /NM (f1) /DA (/Helv 12 Tf 0 g) /Contents (hi) /RC (<?xml version=\"1.0\"?><body xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:xfa=\"http://www.xfa.org/schema/xfa-data/1.0/\" xfa:APIVersion=\"Acrobat:11.0.0\" xfa:spec=\"2.0.2\"><p>hi</p></body>) >>"
            )
        }
        let xfdf = try doc.exportXFDF()
        #expect(xfdf.components(separatedBy: #"name="5""#).count == 2, "two elements named 5: \(xfdf)")
        let objects = try (4...9).map { try doc.object($0) }
        _ = try doc.importXFDF(Array(xfdf.utf8))
        for (k, n) in (4...9).enumerated() {
            #expect(try doc.object(n) == objects[k], "object \(n) was rewritten")
        }
        #expect(try doc.annotation(ObjectID(4))?.subtype == "Square")
        #expect(try doc.annotation(ObjectID(6))?.inReplyTo == ObjectID(5))
        // An edit of the highlight's note rounds none of its numbers.
        _ = try doc.importXFDF(
            Array(xfdf.replacingOccurrences(of: #"name="h1""#, with: #"name="h1" title="Ann""#).utf8)
        )
        let highlight = try #require(try doc.annotation(ObjectID(7)))
        #expect(highlight.author == "Ann" && highlight.rect.left == 10.12345 && highlight.quadPoints.first == 10.12345)
    }
}
