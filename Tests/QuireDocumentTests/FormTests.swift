import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A one-page form: a text field "name" with /MaxLen 5, a check box "agree" with states
/// Yes/Off, a radio group "size" (S, M) under NoToggleToOff, a combo box "colour", a
/// multi-select list box "fruit", a read-only text field under a parent "grp" and a push
/// button.
private func form(da: String = "/DA (/Helv 0 Tf 0 g)") throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R 6 0 R 9 0 R 10 0 R 11 0 R 13 0 R] \(da) >> >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R 5 0 R 7 0 R 8 0 R 9 0 R 10 0 R 12 0 R 13 0 R] >>")
        b.object(4, "<< /FT /Tx /T (name) /MaxLen 5 /Subtype /Widget /Rect [10 700 200 720] /P 3 0 R >>")
        b.object(5, "<< /FT /Btn /T (agree) /V /Off /Subtype /Widget /Rect [10 650 30 670] /AS /Off /AP << /N << /Yes 20 0 R /Off 21 0 R >> >> >>")
        b.object(6, "<< /FT /Btn /Ff 49152 /T (size) /V /S /Kids [7 0 R 8 0 R] >>")
        b.object(7, "<< /Parent 6 0 R /Subtype /Widget /Rect [10 600 30 620] /AS /S /AP << /N << /S 20 0 R /Off 21 0 R >> >> >>")
        b.object(8, "<< /Parent 6 0 R /Subtype /Widget /Rect [40 600 60 620] /AS /Off /AP << /N << /M 20 0 R /Off 21 0 R >> >> >>")
        b.object(9, "<< /FT /Ch /Ff 131072 /T (colour) /Opt [[(r) (Red)] [(g) (Green)]] /Subtype /Widget /Rect [10 550 200 570] >>")
        b.object(10, "<< /FT /Ch /Ff 2097152 /T (fruit) /Opt [(Apple) (Banana) (Cherry)] /Subtype /Widget /Rect [10 450 200 540] >>")
        b.object(11, "<< /T (grp) /Kids [12 0 R] >>")
        b.object(12, "<< /Parent 11 0 R /FT /Tx /Ff 1 /T (locked) /V (fixed) /Subtype /Widget /Rect [10 400 200 420] >>")
        b.object(13, "<< /FT /Btn /Ff 65536 /T (go) /Subtype /Widget /Rect [10 350 60 370] >>")
        b.object(20, "<< /Type /XObject /Subtype /Form /BBox [0 0 20 20] /Length 0 >>\nstream\n\nendstream")
        b.object(21, "<< /Type /XObject /Subtype /Form /BBox [0 0 20 20] /Length 0 >>\nstream\n\nendstream")
    }
}

@Suite("Forms: the field tree, values and their rules")
struct FormTests {
    @Test func readsTheTree() throws {
        let d = try form()
        #expect(try d.formKind() == .acroForm)
        let fields = try d.formFields()
        #expect(fields.map(\.name) == ["name", "agree", "size", "colour", "fruit", "grp.locked", "go"])
        #expect(fields.map(\.type) == [.text, .checkBox, .radioButton, .comboBox, .listBox, .text, .pushButton])
        #expect(fields[2].values == ["S"])
        #expect(fields[2].options.map(\.exportValue) == ["S", "M"])
        #expect(fields[2].widgets.count == 2)
        #expect(fields[5].values == ["fixed"] && fields[5].isReadOnly)
        #expect(fields[0].widgets.first?.pageIndex == 0)
    }

    @Test func setsValuesWithTheRules() throws {
        let d = try form()
        try d.setFieldValue("Ann", named: "name")
        #expect(try d.formField(named: "name").values == ["Ann"])
        // The widget got a normal appearance that draws the text.
        let widget = try d.object(4).dictionary
        let n = try d.dictionary(widget?["AP"]).flatMap { $0["N"] }
        guard case .stream(let s)? = try n.map(d.resolve) else { Issue.record("no /AP /N stream"); return }
        let content = String(decoding: try d.streamData(s, decoded: true), as: UTF8.self)
        #expect(content.contains("(Ann) Tj"))
        #expect(throws: PDFError.self) { try d.setFieldValue("Too long", named: "name") }

        try d.setFieldValue("Yes", named: "agree")
        #expect(try d.object(5).dictionary?["AS"] == .name("Yes"))
        #expect(throws: PDFError.self) { try d.setFieldValue("Maybe", named: "agree") }

        try d.setFieldValue("M", named: "size")
        #expect(try d.object(7).dictionary?["AS"] == .name("Off"))
        #expect(try d.object(8).dictionary?["AS"] == .name("M"))
        #expect(try d.object(6).dictionary?["V"] == .name("M"))
        #expect(throws: PDFError.self) { try d.setFieldValue("Off", named: "size") }  // NoToggleToOff

        try d.setFieldValue("Green", named: "colour")  // by display text: stores the export value
        #expect(try d.formField(named: "colour").values == ["g"])
        #expect(throws: PDFError.self) { try d.setFieldValue("Blue", named: "colour") }

        try d.setFieldValue("Apple\nCherry", named: "fruit")
        #expect(try d.formField(named: "fruit").values == ["Apple", "Cherry"])
        #expect(try d.object(10).dictionary?["I"] == .array([.integer(0), .integer(2)]))

        do {
            try d.setFieldValue("x", named: "grp.locked")
            Issue.record("a read-only field took a value")
        } catch let e as PDFError {
            #expect(e.kind == .state)
        }
        do {
            try d.setFieldValue("x", named: "go")
            Issue.record("a push button took a value")
        } catch let e as PDFError {
            #expect(e.kind == .unsupported)
        }
        // Every change is an unsaved change of the editing path, and survives a save.
        #expect(d.hasUnsavedChanges)
        let saved = try Document(data: try d.saved(.incremental))
        #expect(try saved.formField(named: "size").values == ["M"])
        #expect(try saved.formField(named: "name").values == ["Ann"])
    }

    // MARK: The field list's cache

    @Test func theFieldListIsReadOncePerStateOfTheDocument() throws {
        let d = try form()
        #expect(d.formFieldsCache == nil)
        let first = try d.formFields().map(\.name)
        #expect(d.formFieldsCache != nil)
        #expect(try d.formFields().map(\.name) == first)
        #expect(try d.formFieldIndex(named: "fruit") == 4)
        #expect(try d.formFieldIndex(named: "nope") == nil)
        // A value set through the forms API is seen at once.
        try d.setFieldValue("Ann", named: "name")
        #expect(try d.formField(named: "name").values == ["Ann"])
    }

    @Test func editsThroughTheAnnotationAPIAreSeen() throws {
        let d = try form()
        #expect(try d.formFields().contains { $0.name == "name" })
        // The field "name" is merged with its widget: deleting the widget annotation
        // deletes the field.
        try d.deleteAnnotation(ObjectID(4, 0))
        #expect(try !d.formFields().contains { $0.name == "name" })
        #expect(throws: PDFError.self) { try d.formField(named: "name") }
    }

    @Test func editsThroughAnObjectAreSeen() throws {
        let d = try form()
        #expect(try d.formField(named: "colour").values == [])
        try d.setValue(.string(PDFString(text: "g")), forKey: "V", inObject: 9)
        #expect(try d.formField(named: "colour").values == ["g"])
    }

    @Test func editsThroughJSONImportDropTheCache() throws {
        let d = try form()
        _ = try d.formFields()
        let json = #"{"format": "https://pspdfkit.com/instant-json/v1", "annotations": [{"type": "pspdfkit/note", "v": 1, "#
            + #""id": "n1", "pageIndex": 0, "bbox": [300, 300, 20, 20], "text": "hi"}]}"#
        #expect(try d.importAnnotationsJSON(Array(json.utf8)).count == 1)
        #expect(d.formFieldsCache == nil)
        #expect(try d.formFields().count == 7)
    }

    @Test func editsThroughXFDFImportAreSeen() throws {
        let d = try form()
        #expect(try d.formField(named: "name").values == [])
        let xfdf = #"<?xml version="1.0"?><xfdf xmlns="http://ns.adobe.com/xfdf/"><fields>"#
            + #"<field name="name"><value>Bo</value></field><field name="agree"><value>Yes</value></field></fields></xfdf>"#
        #expect(try d.importXFDF(Array(xfdf.utf8)) == 2)
        #expect(try d.formField(named: "name").values == ["Bo"])
        #expect(try d.formField(named: "agree").values == ["Yes"])
    }

    @Test func aFullSaveAndACheckpointRecoveryAreSeen() throws {
        let dir = try temporaryDirectory()
        let pdf = dir + "/form.pdf"
        try form().save(to: pdf, mode: .full(objectStreams: false))
        do {
            let d = try Document(path: pdf)
            try d.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/checkpoints"))
            try d.setFieldValue("Cy", named: "name")
            // A full save renumbers the objects: the fields read after it name the new ones.
            _ = try d.formFields()
            try d.save(to: dir + "/renumbered.pdf", mode: .full(objectStreams: true))
            try d.setFieldValue("Di", named: "name")
            #expect(try d.formField(named: "name").values == ["Di"])
        }
        // Changes journalled and never saved to form.pdf, recovered into a document that
        // had read its fields before.
        do {
            let d = try Document(path: pdf)
            try d.startCheckpointing(CheckpointOptions(strategy: .immediate, directory: dir + "/other"))
            try d.setFieldValue("Ed", named: "name")
            d.stopCheckpointing()
        }
        let reopened = try Document(path: pdf)
        #expect(try reopened.formField(named: "name").values == [])
        #expect(try reopened.startCheckpointing(CheckpointOptions(directory: dir + "/other")))
        #expect(try reopened.formField(named: "name").values == ["Ed"])
    }

    @Test func resetGoesBackToTheDefault() throws {
        let d = try form()
        try d.setFieldValue("Yes", named: "agree")
        try d.resetField(try d.formField(named: "agree"))
        #expect(try d.formField(named: "agree").values == ["Off"])
    }

    @Test func missingDefaultAppearanceIsAWarningNotACrash() throws {
        let d = try form(da: "")
        try d.setFieldValue("Ann", named: "name")
        #expect(d.warnings.contains { $0.contains("no /DA") })
        // The /DA the appearance was drawn with is written into the field, for viewers
        // that draw fields themselves.
        #expect(try d.object(4).dictionary?["DA"] == .string(PDFString(text: "/Helv 0 Tf 0 g")))
        #expect(try d.formField(named: "name").defaultAppearance == "/Helv 0 Tf 0 g")
    }

    @Test func appearanceTextUsesTheEncodingOfTheFontOfDR() throws {
        // /F1's encoding puts the euro sign at 65 (where WinAnsi has "A"): "€" is written
        // as code 65. "A", which the font no longer has, is never written as "?": a
        // Unicode font draws a value with it (AppearanceTextTests).
        let d = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R] /DA (/F1 10 Tf 0 g) /DR << /Font << /F1 5 0 R >> >> >> >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [4 0 R] >>")
            b.object(4, "<< /FT /Tx /T (t) /Subtype /Widget /Rect [10 700 200 720] /P 3 0 R >>")
            b.object(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /BaseEncoding /WinAnsiEncoding /Differences [65 /Euro] >> >>")
        }
        try d.setFieldValue("€b", named: "t")
        guard case .stream(let s)? = try d.dictionary(try d.object(4).dictionary?["AP"]).flatMap({ $0["N"] }).map(d.resolve) else {
            Issue.record("no /AP /N stream"); return
        }
        let content = String(decoding: try d.streamData(s, decoded: true), as: UTF8.self)
        #expect(content.contains("/F1 10 Tf"))
        #expect(content.contains("(Ab) Tj"))
        try? d.setFieldValue("€Ab", named: "t")
        guard case .stream(let s2)? = try d.dictionary(try d.object(4).dictionary?["AP"]).flatMap({ $0["N"] }).map(d.resolve) else {
            Issue.record("no /AP /N stream"); return
        }
        #expect(!String(decoding: try d.streamData(s2, decoded: true), as: UTF8.self).contains("?"))
    }

    @Test func appearanceTextHasAllOfWinAnsi() throws {
        let d = try form()
        // Euro sign 0x80, en dash 0x96, curly quotes 0x93 0x94, é 0xE9, no-break space 0xA0.
        // (Without the field's /MaxLen 5.)
        try d.setValue(nil, forKey: "MaxLen", inObject: 4)
        try d.setFieldValue("€–“é”\u{A0}", named: "name")
        let widget = try d.object(4).dictionary
        guard case .stream(let s)? = try d.dictionary(widget?["AP"]).flatMap({ $0["N"] }).map(d.resolve) else {
            Issue.record("no /AP /N stream"); return
        }
        let content = String(decoding: try d.streamData(s, decoded: true), as: UTF8.self)
        #expect(content.contains(#"(\200\226\223\351\224\240) Tj"#))
    }

    @Test func cyclicTreesAreListedOnce() throws {
        let d = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 4 0 R] >> >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
            b.object(4, "<< /T (a) /FT /Tx /Kids [5 0 R] >>")
            b.object(5, "<< /T (b) /Parent 4 0 R /Kids [4 0 R 6 0 R] >>")
            b.object(6, "<< /T (c) /Parent 5 0 R /Subtype /Widget /Rect [0 0 10 10] >>")
        }
        #expect(try d.formFields().map(\.name) == ["a.b.c"])
        #expect(d.warnings.contains { $0.contains("twice") })
    }

    @Test func deepTreesStopAtTheLimit() throws {
        let depth = FormLimits.maxFieldDepth + 5
        let d = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [10 0 R] >> >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
            for k in 0..<depth {
                b.object(10 + k, "<< /T (f\(k)) /Kids [\(11 + k) 0 R] >>")
            }
            b.object(10 + depth, "<< /T (leaf) /FT /Tx /Subtype /Widget /Rect [0 0 1 1] >>")
        }
        do {
            _ = try d.formFields()
            Issue.record("a tree deeper than the limit was read")
        } catch let e as PDFError {
            #expect(e.kind == .limit)
        }
    }

    @Test func absurdMaxLenAndSizesDoNotTrap() throws {
        let d = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [4 0 R 5 0 R 6 0 R] /DA (/Helv -3 Tf) >> >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
            b.object(4, "<< /T (a) /FT /Tx /Ff 16777216 /MaxLen 99999999999999999999 /Subtype /Widget /Rect [0 0 1e308 1] >>")
            b.object(5, "<< /T (b) /FT /Tx /Ff 16777216 /MaxLen -4 /Subtype /Widget /Rect [0 0 0 0] >>")
            b.object(6, "<< /T (c) /FT /Tx /Ff 4096 /Subtype /Widget /Rect [-1e308 0 1e308 5] /MK << /R 90 /BG [2 2] >> >>")
        }
        try d.setFieldValue("12345", named: "a")
        try d.setFieldValue("x", named: "b")  // a negative /MaxLen is no limit
        try d.setFieldValue(String(repeating: "word ", count: 500), named: "c")
        #expect(try d.formField(named: "c").values.first?.count == 2500)
    }

    @Test func xfaIsReported() throws {
        let d = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [] /XFA 4 0 R >> >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>")
            b.object(4, "<< /Length 0 >>\nstream\n\nendstream")
        }
        #expect(try d.formKind() == .xfaOnly)
        #expect(try d.formFields().isEmpty)
    }
}
