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
}
