import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A document whose page tree root (object 2) has `count` (PDF syntax, such as "/Count 5",
/// or "" for none) and `kids`; pages are objects 3 to 2 + `pages`, page `annotated` with
/// one Text annotation (object 30). `build` adds objects.
private func tree(_ count: String, kids: String? = nil, pages: Int, annotated: Int? = nil,
                  catalog: String = "", limits: PDFLimits = .default,
                  _ build: (inout PDFBuilder) -> Void = { _ in }) throws -> Document {
    try document({ b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R \(catalog) >>")
        let kids = kids ?? (0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " ")
        b.object(2, "<< /Type /Pages /Kids [\(kids)] \(count) /MediaBox [0 0 612 792] >>")
        for p in 0..<pages {
            b.object(3 + p, "<< /Type /Page /Parent 2 0 R\(p == annotated ? " /Annots [30 0 R]" : "") >>")
        }
        b.object(30, "<< /Type /Annot /Subtype /Text /Rect [72 700 96 724] /Contents (hello) /NM (n1) >>")
        build(&b)
    }, limits: limits)
}

private func limits(maxPages: Int) -> PDFLimits {
    var l = PDFLimits()
    l.maxPages = maxPages
    return l
}

/// The page count is PDFium's and MuPDF's: the root's /Count when it is an integer with
/// 0 < /Count <= max_pages; otherwise the pages found by walking the tree.
@Suite("Page count: the root's /Count, as PDFium counts")
struct PageCountTests {
    @Test func countLargerThanTheTreeCountsMissingPages() throws {
        let doc = try tree("/Count 5", pages: 2, annotated: 1)
        #expect(try doc.pageCount() == 5)
        #expect(try doc.pages().map(\.index) == [0, 1])
        #expect(try doc.page(at: 1).annotationCount() == 1)
        for index in 2..<5 {
            #expect(throws: PDFError(.notFound, "page index \(index) is counted by the page tree's /Count (5) but the tree holds only 2 pages")) {
                try doc.page(at: index)
            }
        }
        #expect((#expect(throws: PDFError.self) { try doc.page(at: 5) })?.kind == .range)
        #expect((#expect(throws: PDFError.self) { try doc.page(at: -1) })?.kind == .range)
        #expect(doc.warnings.contains { $0.contains("/Count says 5 pages, but the tree holds only 2 pages") && $0.contains("pages 3 to 5 cannot be loaded") })
    }

    @Test func countSmallerThanTheTreeHidesTheRest() throws {
        let doc = try tree("/Count 2", pages: 3, annotated: 2)
        #expect(try doc.pageCount() == 2)
        #expect(try doc.pages().map(\.id?.number) == [3, 4])  // pages().count <= pageCount()
        #expect((#expect(throws: PDFError.self) { try doc.page(at: 2) })?.kind == .range)
        #expect(try doc.allAnnotations().isEmpty)  // the annotated page is past /Count
        #expect(doc.warnings.contains { $0.contains("holds 3 pages") && $0.contains("not reachable") })
    }

    @Test(arguments: [("", false), ("/Count 0", true), ("/Count -3", true), ("/Count 2000000", true),
                      ("/Count (2)", true), ("/Count 2.5", true), ("/Count [2]", true), ("/Count 3", false)])
    func countThatCannotBeUsedGivesTheTreesPages(count: String, warns: Bool) throws {
        let doc = try tree(count, pages: 3)
        #expect(try doc.pageCount() == 3)
        #expect(try doc.pages().count == 3)
        #expect(doc.warnings.contains { $0.contains("/Count") } == warns)
    }

    @Test func countAsAnIndirectIntegerOrIntegralRealIsUsed() throws {
        #expect(try tree("/Count 9 0 R", pages: 3) { $0.object(9, "2") }.pageCount() == 2)
        #expect(try tree("/Count 4.0", pages: 3).pageCount() == 4)
    }

    @Test func countPastMaxPagesIsNotTrusted() throws {
        #expect(try tree("/Count 5", pages: 2, limits: limits(maxPages: 4)).pageCount() == 2)
        #expect(try tree("/Count 5", pages: 2, limits: limits(maxPages: 5)).pageCount() == 5)
        // Exactly max_pages is trusted; the default is PDFium's kPageMaxNum, 1048575.
        #expect(try tree("/Count 1048575", pages: 2).pageCount() == 1_048_575)
        #expect(try tree("/Count 1048576", pages: 2).pageCount() == 2)
    }

    @Test func rootThatIsAPageCountsOne() throws {
        // PDFium: a /Pages without /Kids is one page, whatever its /Count says.
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Page /Count 3 /MediaBox [0 0 10 10] >>")
        }
        #expect(try doc.pageCount() == 1)
        #expect(try doc.page(at: 0).box(.media) == Rect(left: 0, bottom: 0, right: 10, top: 10))
    }

    @Test func cycleUnderCountFour() throws {
        // The root lists itself between two pages: the cycle is skipped, 2 pages are found,
        // and /Count 4 is the page count.
        let doc = try tree("/Count 4", kids: "3 0 R 2 0 R 4 0 R", pages: 2)
        #expect(try doc.pageCount() == 4)
        #expect(try doc.pages().map(\.id?.number) == [3, 4])
        #expect((#expect(throws: PDFError.self) { try doc.page(at: 2) })?.kind == .notFound)
        #expect((#expect(throws: PDFError.self) { try doc.page(at: 3) })?.kind == .notFound)
        #expect(doc.warnings.contains { $0.contains("cycle") })
    }

    @Test func deepChainEndingInACycleHoldsNoPage() throws {
        // qpdf's deep-pages.pdf in small: 100 nodes of /Count 1 in a chain whose last node
        // is its own kid; the page object is never referenced. PDFium and MuPDF count 1 page
        // and cannot load it.
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            for n in 2..<102 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R] /Count 1 >>") }
            b.object(102, "<< /Type /Pages /Kids [102 0 R] /Count 1 >>")
            b.object(103, "<< /Type /Page /MediaBox [0 0 612 792] >>")
        }
        #expect(try doc.pageCount() == 1)
        #expect(try doc.pages().isEmpty)
        #expect(throws: PDFError(.notFound, "page index 0 is counted by the page tree's /Count (1) but the tree holds only 0 pages")) {
            try doc.page(at: 0)
        }
        #expect(try doc.allAnnotations().isEmpty)
    }

    @Test func depthLimitStillApplies() throws {
        // The walk is what finds the pages: past max_page_tree_depth it fails, /Count or not.
        // A trusted /Count is the page count without the walk; the page itself then fails.
        var l = PDFLimits()
        l.maxPageTreeDepth = 10
        let doc = try document({ b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            for n in 2..<20 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R] /Count 1 >>") }
            b.object(20, "<< /Type /Page >>")
        }, limits: l)
        #expect(try doc.pageCount() == 1)
        #expect((#expect(throws: PDFError.self) { try doc.page(at: 0) })?.kind == .limit)
        #expect((#expect(throws: PDFError.self) { try doc.pages() })?.kind == .limit)
        #expect((#expect(throws: PDFError.self) { try doc.allAnnotations() })?.kind == .limit)
        // Without a trusted /Count, the count needs the walk, which fails.
        let untrusted = try document({ b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            for n in 2..<20 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R] >>") }
            b.object(20, "<< /Type /Page >>")
        }, limits: l)
        #expect((#expect(throws: PDFError.self) { try untrusted.pageCount() })?.kind == .limit)
    }

    @Test func trustedCountStopsAnExponentialTree() throws {
        // 40 levels of [next next] under /Count 4: the pages past /Count are not reachable,
        // so the walk stops instead of failing: at the visit budget of shared nodes (the
        // file's objects twice plus 1,000), before it counts max_pages pages.
        let doc = try document({ b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 4 >>")
            for n in 3..<42 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R \(n + 1) 0 R] >>") }
            b.object(42, "<< /Type /Page >>")
        }, limits: limits(maxPages: 1000))
        #expect(try doc.pageCount() == 4)
        #expect(try doc.pages().map(\.id?.number) == [42, 42, 42, 42])
        #expect(doc.warnings.contains { $0.contains("shared nodes expand to more than") })
    }

    @Test func whatIteratesPagesCopesWithMissingOnes() throws {
        let doc = try tree("/Count 4", pages: 2, annotated: 1, catalog: "/PageLabels << /Nums [0 << /S /A >>] >>")
        // Annotations: those of the pages that exist.
        #expect(try doc.allAnnotations().map(\.contents) == ["hello"])
        #expect(try doc.searchAnnotations("HELLO").count == 1)
        #expect(try doc.annotation(ObjectID(30))?.pageIndex == 1)
        #expect((#expect(throws: PDFError.self) { try doc.annotations(onPage: 3) })?.kind == .notFound)
        // Labels number every counted page.
        #expect(try doc.pageLabels() == ["A", "B", "C", "D"])
        #expect(try doc.pageLabel(at: 3) == "D")
        // JSON: the records of the pages that exist; the page count is the document's.
        let json = try doc.annotationsInstantJSON(page: nil)
        #expect(json.annotations.map(\.pageIndex) == [1])
        #expect(json.quire?.pageCount == 4)
        #expect((#expect(throws: PDFError.self) { try doc.exportAnnotationsJSON(page: 2) })?.kind == .notFound)
        // Import onto a missing page is a format error naming the field, and changes nothing.
        let record = #"{"annotations": [{"v": 1, "type": "pspdfkit/shape/rectangle", "pageIndex": 2, "bbox": [1, 2, 3, 4]}]}"#
        let error = #expect(throws: PDFError.self) { try doc.importAnnotationsJSON(Array(record.utf8)) }
        #expect(error?.kind == .format)
        #expect(error?.message.contains("annotations[0].pageIndex: page 2 does not exist") == true)
        let link = #"{"annotations": [{"v": 1, "type": "pspdfkit/link", "pageIndex": 0, "bbox": [1, 2, 3, 4], "action": {"type": "goTo", "pageIndex": 3}}]}"#
        #expect((#expect(throws: PDFError.self) { try doc.importAnnotationsJSON(Array(link.utf8)) })?.kind == .format)
        // New annotations go to pages that exist.
        #expect((#expect(throws: PDFError.self) {
            try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 2, rect: Rect(left: 1, bottom: 1, right: 9, top: 9)))
        })?.kind == .notFound)
        #expect(!doc.hasUnsavedChanges)
        // Bookmarks: a go-to to a missing page is refused like one past the last page.
        #expect(throws: PDFError(.range, "the bookmark points at page index 2, which is counted by the page tree's /Count (4) but the tree holds only 2 pages")) {
            try doc.bookmarks.add(Bookmark(pageIndex: 2))
        }
        #expect((#expect(throws: PDFError.self) { try doc.bookmarks.add(Bookmark(pageIndex: 4)) })?.kind == .range)
        try doc.bookmarks.add(Bookmark(pageIndex: 1))
    }

    @Test func integerDestinationsToMissingPagesAreIgnored() throws {
        // An outline item whose destination is a page index (PDFium's leniency) that the
        // tree does not hold: not a page of the document.
        let doc = try tree("/Count 4", pages: 2, catalog: "/Outlines 10 0 R") { b in
            b.object(10, "<< /Type /Outlines /First 11 0 R /Last 12 0 R /Count 2 >>")
            b.object(11, "<< /Title (one) /Parent 10 0 R /Next 12 0 R /Dest [1 /Fit] >>")
            b.object(12, "<< /Title (three) /Parent 10 0 R /Prev 11 0 R /Dest [3 /Fit] >>")
        }
        let items = try doc.outline()
        #expect(items.map(\.title) == ["one", "three"])
        #expect(items.map { $0.destination?.pageIndex } == [1, nil])
    }
}
