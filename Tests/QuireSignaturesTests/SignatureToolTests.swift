import Foundation
import QuireDocument
import QuireSignatures
import QuireSyntax
import QuireTestSupport
import Testing

// The tool manager's Signature tool signs the field it draws in (issue 37): a drawing
// centred in an unsigned signature field signs that field, with the drawing as its look;
// anywhere else it stays ink. pyHanko's verdict on such a file: Tests/python/test_signatures_api.py.

/// A one-page PDF with an unsigned signature field "Drawn" at [100 100 300 200].
func unsignedFieldPDF() -> [UInt8] {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] >> >>")
    b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>")
    b.object(4, "<< /Type /Annot /Subtype /Widget /FT /Sig /T (Drawn) /Rect [100 100 300 200] /F 4 /P 3 0 R >>")
    b.finishWithTable()
    return b.bytes
}

@Suite("Signature tool") struct SignatureToolTests {
    func draw(_ m: ToolManager, from a: Point, to b: Point) throws {
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, a))
        try m.send(PointerEvent(.dragMove, pageIndex: 0, Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 + 10)))
        try m.send(PointerEvent(.dragEnd, pageIndex: 0, b))
    }

    @Test func signsTheFieldItDrawsIn() throws {
        let pki = try TestPKI()
        let dir = try temporaryDirectory()
        let path = dir.appendingPathComponent("signed.pdf").path
        let doc = try Document(data: unsignedFieldPDF())
        let m = ToolManager(document: doc)
        m.signDrawnSignatures(SigningOptions(identity: try pki.identity()), to: path)
        try m.setTool(.builtIn(.signature))
        // Outside the field: ink only, nothing signed.
        try draw(m, from: Point(x: 400, y: 400), to: Point(x: 480, y: 420))
        try m.commit()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try doc.annotations(onPage: 0).filter { $0.subtype == "Ink" }.count == 1)
        // Inside: the field is signed, its look the drawing; the drawing is no annotation.
        try draw(m, from: Point(x: 150, y: 130), to: Point(x: 250, y: 170))
        try m.commit()
        let signed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let r = try #require(try Document(data: signed).signatures(ValidationOptions(trustRoots: [pki.root])).first)
        #expect(r.fieldName == "Drawn")
        #expect(r.isValid, "\(r.problems)")
        let after = try Document(data: signed)
        #expect(try after.annotations(onPage: 0).filter { $0.subtype == "Ink" }.count == 1, "the drawing outside stays")
        // Turned off: a drawing in a signed field's place is ink.
        m.signDrawnSignatures(nil, to: path)
        #expect(m.signatureSigner == nil)
    }
}
