import QuireDocument
import QuireSyntax
import QuireTestSupport
import Testing

// Sound, Screen and RichMedia annotations (issue 39) are read and kept, not created: the
// annotation JSON cannot carry their media, so an import keeps what it cannot name and
// skips a record of one the document lacks. The Python tests (test_media_annotations.py)
// check the same through saves, page moves and XFDF with pikepdf, qpdf and PDFium.

@Suite("Media annotations")
struct MediaAnnotationTests {
    /// A page with a Screen that plays a rendition, a Sound, and a Link whose action
    /// (ResetForm) the annotation JSON has no type for.
    func mediaDocument() throws -> Document {
        try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /Annots [4 0 R 5 0 R 6 0 R] >>")
            b.object(
                4,
                "<< /Type /Annot /Subtype /Screen /Rect [100 500 300 600] /NM (screen-1) /A << /S /Rendition /OP 0 /AN 4 0 R /R << /S /MR /C << /S /MCD /CT (video/mp4) >> >> >> >>"
            )
            b.object(5, "<< /Type /Annot /Subtype /Sound /Rect [50 700 70 720] /NM (sound-1) /Sound 7 0 R >>")
            b.object(6, "<< /Type /Annot /Subtype /Link /Rect [400 600 500 620] /NM (link-1) /A << /S /ResetForm >> >>")
            b.stream(7, "<< /Type /Sound /R 8000 >>", Array("samples".utf8))
        }
    }

    func entry(_ doc: Document, _ number: Int, _ key: PDFName) throws -> PDFObject? {
        guard case .dictionary(let d) = try doc.object(number) else { return nil }
        return d[key]
    }

    /// `json` with each record's fields changed by `change` (given the record's id).
    func edited(_ json: [UInt8], _ change: (String, inout [String: InstantJSONValue]) -> Void) throws -> [UInt8] {
        guard case .object(var top) = try InstantJSONValue(parsing: json), case .array(let items)? = top["annotations"]
        else {
            throw PDFError(.format, "not annotation JSON")
        }
        top["annotations"] = .array(
            items.map { item in
                guard case .object(var fields) = item, case .string(let id)? = fields["id"] else { return item }
                change(id, &fields)
                return .object(fields)
            }
        )
        return Array(InstantJSONValue.object(top).canonicalText.utf8)
    }

    @Test func aRecordKeepsAnActionItCannotName() throws {
        let doc = try mediaDocument()
        let screenAction = try entry(doc, 4, "A")
        let linkAction = try entry(doc, 6, "A")
        #expect(screenAction != nil && linkAction != nil)
        // The document's own export, its notes changed: the actions stay as they were.
        let exported = try doc.exportAnnotationsJSON(page: nil)
        #expect(!String(decoding: exported, as: UTF8.self).contains("\"action\""))
        let noted = try edited(exported) { id, fields in
            if id != "sound-1" { fields["note"] = .string("n") }
        }
        _ = try doc.importAnnotationsJSON(noted)
        #expect(try entry(doc, 4, "Contents") == .string(PDFString(text: "n")), "the import applied")
        #expect(try entry(doc, 6, "Contents") == .string(PDFString(text: "n")))
        #expect(try entry(doc, 4, "A") == screenAction)
        #expect(try entry(doc, 6, "A") == linkAction)
        #expect(try entry(doc, 5, "Sound") == .reference(ObjectID(7)))
        // A record that names another action replaces it.
        let uri = try edited(exported) { id, fields in
            guard id == "link-1" else { return }
            fields["action"] = .object(["type": .string("uri"), "uri": .string("https://example.com/")])
        }
        _ = try doc.importAnnotationsJSON(uri)
        guard case .dictionary(let replaced)? = try entry(doc, 6, "A") else {
            Issue.record("no /A")
            return
        }
        #expect(replaced["S"] == .name("URI"))
    }

    @Test func aRecordOfMediaTheDocumentLacksIsSkipped() throws {
        let json = try mediaDocument().exportAnnotationsJSON(page: nil)
        let blank = try blankDocument(pages: 1)
        let imported = try blank.importAnnotationsJSON(json)
        #expect(imported.map(\.subtype) == ["Link"])
        #expect(try blank.annotations(onPage: 0).map(\.subtype) == ["Link"])
        let warnings = blank.warnings.joined(separator: "\n")
        #expect(warnings.contains("is a Screen annotation that the document does not have; skipped"))
        #expect(warnings.contains("is a Sound annotation that the document does not have; skipped"))
    }
}
