import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A document of four pages with everything that hangs on pages (docs/pages.md): a page
/// tree of two nodes that pass on /Resources and (the second) /Rotate 90; on page 1 a note
/// with a popup and a reply and two links (to page 3, and by name to page 2); on page 2
/// two fields merged with their widgets; on pages 3 and 4 the two widgets of the field
/// "addr"; an outline (Intro → 1, Chapter → "chap2" with Section → 3, End → "end");
/// named destinations chap2 → 2 and end → 4; page labels i, ii, 1, 2; a structure tree
/// that tags page 4. `tag` goes into each page's text ("A1" ... "A4").
func richDocumentBytes(tag: String = "A") -> [UInt8] {
    var b = PDFBuilder()
    b.object(1, """
        << /Type /Catalog /Pages 2 0 R /Outlines 30 0 R /Names << /Dests 40 0 R >>
           /PageLabels << /Nums [0 << /S /r >> 2 << /S /D >>] >> /AcroForm 50 0 R
           /StructTreeRoot 60 0 R /MarkInfo << /Marked true >> >>
        """)
    b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 4 /MediaBox [0 0 612 792] >>")
    b.object(3, "<< /Type /Pages /Parent 2 0 R /Kids [10 0 R 11 0 R] /Count 2 /Resources 5 0 R >>")
    b.object(4, "<< /Type /Pages /Parent 2 0 R /Kids [12 0 R 13 0 R] /Count 2 /Resources 5 0 R /Rotate 90 >>")
    b.object(5, "<< /Font << /F1 6 0 R >> >>")
    b.object(6, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    let annots = ["[70 0 R 71 0 R 72 0 R 73 0 R 74 0 R]", "[80 0 R 81 0 R]", "[91 0 R]", "[92 0 R]"]
    for k in 0..<4 {
        let parent = k < 2 ? 3 : 4
        let extra = k == 3 ? " /StructParents 0" : ""
        b.object(10 + k, "<< /Type /Page /Parent \(parent) 0 R /Contents \(20 + k) 0 R /Annots \(annots[k])\(extra) >>")
        let text = k == 3 ? "/P << /MCID 0 >> BDC BT /F1 24 Tf 72 700 Td (\(tag)\(k + 1)) Tj ET EMC"
                          : "BT /F1 24 Tf 72 700 Td (\(tag)\(k + 1)) Tj ET"
        b.stream(20 + k, "", Array(text.utf8))
    }
    b.object(70, "<< /Type /Annot /Subtype /Text /Rect [100 600 120 620] /Contents (note) /NM (note1) /P 10 0 R /Popup 71 0 R >>")
    b.object(71, "<< /Type /Annot /Subtype /Popup /Rect [120 500 300 600] /Parent 70 0 R /P 10 0 R >>")
    b.object(72, "<< /Type /Annot /Subtype /Text /Rect [100 600 120 620] /Contents (reply) /NM (reply1) /IRT 70 0 R /P 10 0 R >>")
    b.object(73, "<< /Type /Annot /Subtype /Link /Rect [72 100 200 120] /Dest [12 0 R /Fit] >>")
    b.object(74, "<< /Type /Annot /Subtype /Link /Rect [72 140 200 160] /A << /S /GoTo /D (chap2) >> >>")
    b.object(80, "<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (Alice) /Rect [72 600 300 620] /P 11 0 R >>")
    b.object(81, "<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes /Rect [72 560 92 580] /P 11 0 R /AP << /N << /Yes 82 0 R /Off 83 0 R >> >> >>")
    b.stream(82, "/Type /XObject /Subtype /Form /BBox [0 0 20 20]", Array("0 0 20 20 re f".utf8))
    b.stream(83, "/Type /XObject /Subtype /Form /BBox [0 0 20 20]", [])
    b.object(90, "<< /FT /Tx /T (addr) /Kids [91 0 R 92 0 R] >>")
    b.object(91, "<< /Type /Annot /Subtype /Widget /T (street) /Parent 90 0 R /V (Main St) /Rect [72 600 300 620] /P 12 0 R >>")
    b.object(92, "<< /Type /Annot /Subtype /Widget /T (city) /Parent 90 0 R /V (Springfield) /Rect [72 600 300 620] /P 13 0 R /StructParent 1 >>")
    b.object(30, "<< /Type /Outlines /First 31 0 R /Last 34 0 R /Count 4 >>")
    b.object(31, "<< /Title (Intro) /Parent 30 0 R /Next 32 0 R /Dest [10 0 R /XYZ null null null] >>")
    b.object(32, "<< /Title (Chapter) /Parent 30 0 R /Prev 31 0 R /Next 34 0 R /First 33 0 R /Last 33 0 R /Count 1 /Dest (chap2) >>")
    b.object(33, "<< /Title (Section) /Parent 32 0 R /Dest [12 0 R /Fit] >>")
    b.object(34, "<< /Title (End) /Parent 30 0 R /Prev 32 0 R /A << /S /GoTo /D (end) >> >>")
    b.object(40, "<< /Names [(chap2) [11 0 R /Fit] (end) [13 0 R /Fit]] >>")
    b.object(50, "<< /Fields [80 0 R 81 0 R 90 0 R] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 51 0 R >> >> >>")
    b.object(51, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    b.object(60, "<< /Type /StructTreeRoot /K 61 0 R /ParentTree << /Nums [0 [61 0 R]] >> >>")
    b.object(61, "<< /Type /StructElem /S /P /P 60 0 R /Pg 13 0 R /K 0 >>")
    b.finishWithTable()
    return b.bytes
}

/// What the tests compare: the model's view of a document's pages and what hangs on them.
struct PageFacts: Equatable, CustomStringConvertible {
    var texts: [String]
    var rotations: [Int]
    var annotations: [[String]]
    var fields: [String: String]
    var outline: [String]
    var names: [String]
    var labels: [String]?

    init(_ doc: Document) throws {
        let pages = try doc.pages()
        texts = try pages.indices.map { try doc.textPage(at: $0).text.trimmingWhitespace }
        rotations = try pages.map { try $0.rotation() }
        annotations = try pages.indices.map { try doc.annotations(onPage: $0).map(\.subtype) }
        fields = Dictionary(try doc.formFields().map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        outline = try doc.flatOutline().map { item in
            String(repeating: "  ", count: item.depth) + item.title + (item.pageIndex.map { "→\($0 + 1)" } ?? "")
        }
        names = try doc.namedDestinations().map { String(decoding: $0.name, as: UTF8.self) + "→\($0.destination.pageIndex + 1)" }
        labels = try doc.pageLabels()
    }

    var description: String { "texts \(texts) rotations \(rotations) annotations \(annotations) fields \(fields) outline \(outline) names \(names) labels \(labels ?? [])" }
}

extension String {
    var trimmingWhitespace: String {
        String(unicodeScalars.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed().map(Character.init))
    }
}

/// The document saved in `mode` and read again.
func reopened(_ doc: Document, _ mode: SaveMode = .full(objectStreams: false), password: String? = nil) throws -> Document {
    try Document(data: try doc.saved(mode), options: OpenOptions(password: password))
}

@Suite("Page operations")
struct PageOperationTests {
    @Test func theFixtureReadsAsDescribed() throws {
        let facts = try PageFacts(try Document(data: richDocumentBytes()))
        #expect(facts.texts == ["A1", "A2", "A3", "A4"])
        #expect(facts.rotations == [0, 0, 90, 90])
        #expect(facts.annotations == [["Text", "Popup", "Text", "Link", "Link"], ["Widget", "Widget"], ["Widget"], ["Widget"]])
        #expect(facts.fields == ["name": "Alice", "agree": "Yes", "addr.street": "Main St", "addr.city": "Springfield"])
        #expect(facts.outline == ["Intro→1", "Chapter→2", "  Section→3", "End→4"])
        #expect(facts.names == ["chap2→2", "end→4"])
        #expect(facts.labels == ["i", "ii", "1", "2"])
    }

    @Test func deleteTakesWhatHangsOnThePage() throws {
        let doc = try Document(data: richDocumentBytes())
        let report = try doc.deletePages([1])
        for saved in [doc, try reopened(doc), try reopened(doc, .incremental)] {
            let facts = try PageFacts(saved)
            #expect(facts.texts == ["A1", "A3", "A4"])
            #expect(facts.rotations == [0, 90, 90])
            #expect(facts.annotations == [["Text", "Popup", "Text", "Link", "Link"], ["Widget"], ["Widget"]])
            #expect(facts.fields == ["addr.street": "Main St", "addr.city": "Springfield"])
            // Chapter went to page 2: kept as a heading for Section.
            #expect(facts.outline == ["Intro→1", "Chapter", "  Section→2", "End→3"])
            #expect(facts.names == ["end→3"])
            #expect(facts.labels == ["i", "1", "2"])
        }
        #expect(report.warnings.contains { $0.contains("outline") })
        #expect(report.warnings.contains { $0.contains("named destination") })
        // Page 2 was not tagged: the structure tree stays.
        #expect(try doc.catalog()["StructTreeRoot"] != nil)
        // The page objects and the fields' objects are gone.
        #expect(!doc.isInUse(11) && !doc.isInUse(80) && !doc.isInUse(81))
    }

    @Test func deletingATaggedPageDropsTheStructureTreeWithAWarning() throws {
        let doc = try Document(data: richDocumentBytes())
        let report = try doc.deletePages([3])
        #expect(try doc.catalog()["StructTreeRoot"] == nil)
        #expect(report.warnings.contains { $0.contains("structure tree") })
        let facts = try PageFacts(try reopened(doc))
        #expect(facts.fields == ["name": "Alice", "agree": "Yes", "addr.street": "Main St"])
        #expect(facts.outline == ["Intro→1", "Chapter→2", "  Section→3"])
    }

    @Test func moveKeepsTargetsAndNumbersByPosition() throws {
        let doc = try Document(data: richDocumentBytes())
        try doc.movePages([3], to: 0)
        for saved in [doc, try reopened(doc), try reopened(doc, .incremental)] {
            let facts = try PageFacts(saved)
            #expect(facts.texts == ["A4", "A1", "A2", "A3"])
            #expect(facts.rotations == [90, 0, 0, 90])
            #expect(facts.annotations == [["Widget"], ["Text", "Popup", "Text", "Link", "Link"], ["Widget", "Widget"], ["Widget"]])
            #expect(facts.outline == ["Intro→2", "Chapter→3", "  Section→4", "End→1"])
            #expect(facts.names == ["chap2→3", "end→1"])
            #expect(facts.labels == ["1", "i", "ii", "2"])
        }
        try doc.movePages([2, 1], to: 2)
        #expect(try PageFacts(doc).texts == ["A4", "A3", "A2", "A1"])
    }

    @Test func rotateAddsToTheInheritedRotation() throws {
        let doc = try Document(data: richDocumentBytes())
        try doc.rotatePages([0, 2], by: 1)
        try doc.rotatePages([3], by: -1)
        #expect(try PageFacts(try reopened(doc)).rotations == [90, 0, 180, 0])
        try doc.rotatePages([1], by: 6)
        #expect(try PageFacts(try reopened(doc, .incremental)).rotations == [90, 180, 180, 0])
    }

    @Test func insertBlankPagesJoinTheLabelRangeBeforeThem() throws {
        let doc = try Document(data: richDocumentBytes())
        let report = try doc.insertBlankPages(at: 2, count: 2, mediaBox: Rect(left: 0, bottom: 0, right: 300, top: 400), rotation: 270)
        #expect(report.newPages == 2..<4)
        let saved = try reopened(doc)
        let facts = try PageFacts(saved)
        #expect(facts.texts == ["A1", "A2", "", "", "A3", "A4"])
        #expect(facts.rotations == [0, 0, 270, 270, 90, 90])
        #expect(facts.labels == ["i", "ii", "iii", "iv", "1", "2"])
        #expect(try saved.page(at: 2).box(.media) == Rect(left: 0, bottom: 0, right: 300, top: 400))
        #expect(facts.outline == ["Intro→1", "Chapter→2", "  Section→5", "End→6"])
        try doc.insertBlankPages(at: 6)
        #expect(try doc.pageCount() == 7)
        #expect(try doc.page(at: 6).box(.media) == .letter)
    }

    @Test func pageBoxes() throws {
        let doc = try Document(data: richDocumentBytes())
        let crop = Rect(left: 10, bottom: 10, right: 500, top: 700)
        try doc.setPageBox(.crop, crop, onPages: [0, 3])
        try doc.setPageBox(.trim, Rect(left: 20, bottom: 20, right: 400, top: 600), onPages: [1])
        let saved = try reopened(doc)
        #expect(try saved.page(at: 0).box(.crop) == crop)
        #expect(try saved.page(at: 1).box(.crop) == .letter)
        #expect(try saved.page(at: 1).box(.trim) == Rect(left: 20, bottom: 20, right: 400, top: 600))
        try doc.setPageBox(.crop, nil, onPages: [0])
        #expect(try doc.page(at: 0).box(.crop) == .letter)
        #expect(throws: PDFError.self) { try doc.setPageBox(.media, nil, onPages: [0]) }
        #expect(throws: PDFError.self) { try doc.setPageBox(.crop, Rect(left: 0, bottom: 0, right: 0, top: 10), onPages: [0]) }
    }

    @Test func badInputChangesNothing() throws {
        let doc = try Document(data: richDocumentBytes())
        func refused(_ kind: PDFErrorKind, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("not refused")
            } catch let e as PDFError {
                #expect(e.kind == kind, "\(e)")
            } catch {
                Issue.record("\(error)")
            }
            #expect(!doc.hasUnsavedChanges)
        }
        refused(.range) { try doc.deletePages([4]) }
        refused(.range) { try doc.deletePages([-1]) }
        refused(.invalidArgument) { try doc.deletePages([]) }
        refused(.invalidArgument) { try doc.deletePages([1, 1]) }
        refused(.invalidArgument) { try doc.deletePages([0, 1, 2, 3]) }
        refused(.range) { try doc.movePages([0], to: 4) }
        refused(.range) { try doc.movePages([0, 1], to: 3) }
        refused(.invalidArgument) { try doc.movePages([], to: 0) }
        refused(.range) { try doc.rotatePages([9], by: 1) }
        refused(.range) { try doc.insertBlankPages(at: 5) }
        refused(.invalidArgument) { try doc.insertBlankPages(at: 0, count: 0) }
        refused(.invalidArgument) { try doc.insertBlankPages(at: 0, rotation: 45) }
        refused(.invalidArgument) { try doc.importPages(from: doc, at: 0) }
        let other = try Document(data: richDocumentBytes(tag: "B"))
        refused(.range) { try doc.importPages(from: other, pages: [4], at: 0) }
        refused(.range) { try doc.importPages(from: other, pages: [0], at: 5) }
        refused(.invalidArgument) { try doc.importPages(from: other, pages: [], at: 0) }
        refused(.range) { _ = try doc.extractPages([7]) }
        #expect(try PageFacts(doc) == PageFacts(try Document(data: richDocumentBytes())))
    }

    @Test func importMergesFormsOutlineAndNames() throws {
        let doc = try Document(data: richDocumentBytes())
        let other = try Document(data: richDocumentBytes(tag: "B"))
        let report = try doc.importPages(from: other, at: 4)
        #expect(report.newPages == 4..<8)
        #expect(report.renamedFields == [.init(from: "name", to: "name_2"), .init(from: "agree", to: "agree_2"),
                                         .init(from: "addr", to: "addr_2")])
        #expect(report.warnings.contains { $0.contains("named destination") })
        for saved in [doc, try reopened(doc), try reopened(doc, .incremental), try reopened(doc, .full(objectStreams: true))] {
            let facts = try PageFacts(saved)
            #expect(facts.texts == ["A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4"])
            #expect(facts.rotations == [0, 0, 90, 90, 0, 0, 90, 90])
            #expect(facts.annotations == [["Text", "Popup", "Text", "Link", "Link"], ["Widget", "Widget"], ["Widget"], ["Widget"],
                                          ["Text", "Popup", "Text", "Link", "Link"], ["Widget", "Widget"], ["Widget"], ["Widget"]])
            #expect(facts.fields == ["name": "Alice", "agree": "Yes", "addr.street": "Main St", "addr.city": "Springfield",
                                     "name_2": "Alice", "agree_2": "Yes", "addr_2.street": "Main St", "addr_2.city": "Springfield"])
            #expect(facts.outline == ["Intro→1", "Chapter→2", "  Section→3", "End→4", "Intro→5", "Chapter→6", "  Section→7", "End→8"])
            #expect(facts.names == ["chap2→2", "end→4"])
            #expect(facts.labels == ["i", "ii", "1", "2", "i", "ii", "1", "2"])
            // Reply and popup chains point at the copies, on the copied page.
            let copied = try saved.annotations(onPage: 4)
            let note = try #require(copied.first { $0.name == "note1" })
            let reply = try #require(copied.first { $0.name == "reply1" })
            #expect(reply.inReplyTo == note.id)
            let noteID = try #require(note.id)
            #expect(try saved.replies(to: noteID).map(\.name) == ["reply1"])
            let popup = try #require(copied.first { $0.subtype == "Popup" })
            #expect(note.popup == popup.id)
            // The copied links go to the copied pages.
            let links = try saved.annotations(onPage: 4).filter { $0.subtype == "Link" }
            let page6 = try saved.page(at: 6).id
            let page5 = try saved.page(at: 5).id
            #expect(links.count == 2)
            let first = try #require(links[0].id)
            #expect(try saved.dictionary(.reference(first))?["Dest"]?.array?.first?.reference == page6)
            let second = try #require(links[1].id)
            let action = try #require(try saved.dictionary(try saved.dictionary(.reference(second))?["A"]))
            #expect(try saved.resolve(action["D"] ?? .null).array?.first?.reference == page5)
            // Each copied annotation's /P is its page.
            for (i, page) in try saved.pages().enumerated() where i >= 4 {
                for (_, a) in try page.annotationDictionaries() where a["Subtype"]?.name?.value != "Popup" || a["P"] != nil {
                    #expect(a["P"]?.reference == page.id, "page \(i + 1)")
                }
            }
        }
        // Shared resources are copied once: the four copied pages share one font object.
        let fonts = Set(try (4..<8).compactMap { try doc.dictionary(try doc.dictionary(doc.page(at: $0).dictionary["Resources"])?["Font"])?["F1"]?.reference })
        #expect(try doc.pageCount() == 8)
        #expect(fonts.count == 1 && fonts.first != ObjectID(6))
    }

    @Test func importOfSomePagesDropsDestinationsIntoPagesLeftBehind() throws {
        let doc = try Document(data: richDocumentBytes())
        let other = try Document(data: richDocumentBytes(tag: "B"))
        let report = try doc.importPages(from: other, pages: [0, 3], at: 1)
        #expect(report.warnings.contains { $0.contains("link") })
        let saved = try reopened(doc)
        let facts = try PageFacts(saved)
        #expect(facts.texts == ["A1", "B1", "B4", "A2", "A3", "A4"])
        #expect(facts.fields["addr_2.city"] == "Springfield")
        #expect(facts.fields["addr_2.street"] == nil)
        #expect(facts.outline == ["Intro→1", "Chapter→4", "  Section→5", "End→6", "Intro→2", "End→3"])
        // Labels: the imported pages bring theirs (i, then 2: their ranges, numbered by
        // position), and this document's range resumes after them.
        #expect(facts.labels == ["i", "i", "1", "ii", "1", "2"])
        let links = try saved.annotations(onPage: 1).filter { $0.subtype == "Link" }
        for link in links {
            let id = try #require(link.id)
            let d = try #require(try saved.dictionary(.reference(id)))
            #expect(d["Dest"] == nil && d["A"] == nil)
        }
    }

    @Test func extractMakesADocumentOfThePages() throws {
        let doc = try Document(data: richDocumentBytes())
        let part = try doc.extractPages([2, 3])
        for saved in [part, try reopened(part)] {
            let facts = try PageFacts(saved)
            #expect(facts.texts == ["A3", "A4"])
            #expect(facts.rotations == [90, 90])
            #expect(facts.fields == ["addr.street": "Main St", "addr.city": "Springfield"])
            #expect(facts.outline == ["Chapter", "  Section→1", "End→2"])
            #expect(facts.names == ["end→2"])
            #expect(facts.labels == ["1", "2"])
        }
        #expect(!doc.hasUnsavedChanges)
        // Split every page into a document of its own.
        for i in 0..<4 {
            let single = try reopened(try doc.extractPages([i]))
            #expect(try PageFacts(single).texts == ["A\(i + 1)"])
        }
    }

    /// A new document of pages gets the source's language and reading direction, by
    /// which PDFium orders a page's text (viewer_ref.pdf reads right to left), and not
    /// its other viewer preferences (a print range names the source's pages).
    @Test func extractCarriesTheLanguageAndReadingDirection() throws {
        var b = PDFBuilder()
        b.object(
            1,
            "<< /Type /Catalog /Pages 2 0 R /Lang (he) /ViewerPreferences << /Direction /R2L /PrintPageRange [0 0] >> >>"
        )
        b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R >>")
        b.object(4, "<< /Type /Page /Parent 2 0 R >>")
        b.finishWithTable()
        let doc = try Document(data: b.bytes)
        for made in [try doc.extractPages([1]), try Document.merged([doc, try Document(data: richDocumentBytes())])] {
            let part = try reopened(made)
            let catalog = try part.catalog()
            guard case .string(let lang)? = try catalog["Lang"].map(part.resolve) else {
                Issue.record("no /Lang")
                continue
            }
            #expect(lang.bytes == Array("he".utf8))
            let preferences = try part.dictionary(catalog["ViewerPreferences"])
            #expect(preferences == PDFDictionary([("Direction", .name("R2L"))]))
        }
    }

    @Test func mergeTwoDocuments() throws {
        let a = try Document(data: richDocumentBytes())
        let b = try Document(data: richDocumentBytes(tag: "B"))
        let merged = try reopened(try Document.merged([a, b]))
        #expect(try PageFacts(merged).texts == ["A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4"])
        #expect(try merged.formFields().count == 8)
    }

    @Test func bookmarksFollowTheirPages() throws {
        let doc = try Document(data: richDocumentBytes())
        try doc.bookmarks.add(Bookmark(identifier: "b2", action: .goTo(pageIndex: 1)))
        try doc.bookmarks.add(Bookmark(identifier: "b4", action: .goTo(pageIndex: 3)))
        try doc.movePages([3], to: 0)
        #expect(try doc.bookmarks.bookmarks().map { "\($0.identifier)→\($0.pageIndex ?? -1)" }.sorted() == ["b2→2", "b4→0"])
        let saved = try reopened(doc)
        #expect(try saved.bookmarks.bookmarks().map { "\($0.identifier)→\($0.pageIndex ?? -1)" }.sorted() == ["b2→2", "b4→0"])
        // Deleting a page removes its bookmarks, also from a document whose bookmarks were
        // never read before.
        try saved.deletePages([2])
        #expect(try saved.bookmarks.bookmarks().map(\.identifier) == ["b4"])
        let again = try reopened(doc)
        try again.deletePages([0])
        #expect(try again.bookmarks.bookmarks().map { "\($0.identifier)→\($0.pageIndex ?? -1)" } == ["b2→1"])
        // Bookmarks come along with imported pages.
        let target = try Document(data: richDocumentBytes(tag: "B"))
        try target.importPages(from: again, pages: [1], at: 0)
        #expect(try target.bookmarks.bookmarks().map { "\($0.identifier)→\($0.pageIndex ?? -1)" } == ["b2→0"])
    }

    @Test func theToolManagerUndoesPageOperations() throws {
        let doc = try Document(data: richDocumentBytes())
        let manager = ToolManager(document: doc)
        let before = try PageFacts(doc)
        try manager.deletePages([0, 2])
        #expect(try doc.pageCount() == 2)
        #expect(manager.undoSteps.first?.description == "Delete 2 pages")
        try manager.undo()
        #expect(try PageFacts(doc) == before)
        try manager.redo()
        #expect(try PageFacts(doc).texts == ["A2", "A4"])
        try manager.undo()
        let other = try Document(data: richDocumentBytes(tag: "B"))
        try manager.importPages(from: other, pages: [1], at: 4)
        try manager.rotatePages([0], by: 1)
        #expect(try PageFacts(doc).texts == ["A1", "A2", "A3", "A4", "B2"])
        try manager.undo()
        try manager.undo()
        #expect(try PageFacts(doc) == before)
        // A change outside the manager since the step: undo refuses it, nothing changes.
        try manager.redo()
        try doc.deletePages([4])
        #expect(throws: PDFError.self) { try manager.undo() }
        #expect(try doc.pageCount() == 4)
    }

    @Test func thePageTreeIsFlattenedOnce() throws {
        let doc = try Document(data: richDocumentBytes())
        try doc.movePages([0], to: 1)
        // The inner nodes are gone; the pages hang from the root.
        #expect(!doc.isInUse(3) && !doc.isInUse(4))
        for page in try doc.pages() { #expect(page.dictionary["Parent"]?.reference?.number == 2) }
        // A second operation on the flat tree changes the root only (these two pages are
        // in one label range: the labels stay).
        let saved = try reopened(doc, .incremental)
        try saved.movePages([3], to: 2)
        #expect(saved.changeLog.map { if case .setObject(let id, _) = $0 { return id.number } else { return -1 } } == [2])
    }
}
