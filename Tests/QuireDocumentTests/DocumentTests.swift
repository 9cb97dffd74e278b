import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A document from a builder whose objects 1 (catalog) and 2 (root page tree node) the
/// caller writes.
func document(_ build: (inout PDFBuilder) -> Void, limits: PDFLimits = .default) throws -> Document {
    var b = PDFBuilder()
    build(&b)
    b.finishWithTable(trailer: "/Root 1 0 R /Info 9 0 R")
    return try Document(data: b.bytes, options: OpenOptions(limits: limits))
}

@Suite("Page tree (§7.7.3)")
struct PageTreeTests {
    @Test func inheritanceAndDefaults() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 /MediaBox [0 0 612 792] /Rotate 90 >>")
            b.object(3, "<< /Type /Pages /Kids [5 0 R 6 0 R] /Count 2 /CropBox [10 10 600 780] >>")
            b.object(4, "<< /Type /Page /Parent 2 0 R /Rotate -90 /TrimBox [1 2 3 4] >>")
            b.object(5, "<< /Type /Page /Parent 3 0 R >>")
            b.object(6, "<< /Type /Page /Parent 3 0 R /MediaBox [0 0 100 200] /Rotate 450 >>")
        }
        #expect(try doc.pageCount() == 3)
        let p0 = try doc.page(at: 0), p1 = try doc.page(at: 1), p2 = try doc.page(at: 2)
        #expect(try p0.box(.media) == Rect(left: 0, bottom: 0, right: 612, top: 792))
        #expect(try p0.box(.crop) == Rect(left: 10, bottom: 10, right: 600, top: 780))
        #expect(try p0.box(.art) == Rect(left: 10, bottom: 10, right: 600, top: 780))
        #expect(try p0.rotation() == 90)
        #expect(try p1.box(.media) == Rect(left: 0, bottom: 0, right: 100, top: 200))
        #expect(try p1.rotation() == 90)  // 450 normalised
        #expect(try p2.box(.crop) == Rect(left: 0, bottom: 0, right: 612, top: 792))
        #expect(try p2.box(.trim) == Rect(left: 1, bottom: 2, right: 3, top: 4))
        #expect(try p2.rotation() == 270)
        #expect(throws: PDFError.self) { try doc.page(at: 3) }
        #expect((#expect(throws: PDFError.self) { try doc.page(at: -1) })?.kind == .range)
    }

    @Test func missingMediaBoxIsLetterWithWarning() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /MediaBox [0 0 foo 1] /Rotate 45 >>")
        }
        #expect(try doc.page(at: 0).box(.media) == .letter)
        #expect(try doc.page(at: 0).rotation() == 0)
        #expect(doc.warnings.count == 2)
    }

    @Test func sharedNodesCountPerBranchCyclesDoNot() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            // 3 appears twice (a DAG: two pages), 2 appears under itself (a cycle: skipped).
            b.object(2, "<< /Type /Pages /Kids [3 0 R 3 0 R 2 0 R 4 0 R] /Count 3 >>")
            b.object(3, "<< /Type /Page /MediaBox [0 0 1 1] >>")
            b.object(4, "<< /Type /Pages /Kids [2 0 R 3 0 R] >>")
        }
        #expect(try doc.pageCount() == 3)  // the root's /Count, read without the walk
        #expect(try doc.pages().count == 3)
        #expect(doc.warnings.contains { $0.contains("cycle") })
    }

    @Test func depthLimit() throws {
        let doc = try document(
            { b in
                b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
                for n in 2..<20 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R] >>") }
                b.object(20, "<< /Type /Page >>")
            }, limits: { var l = PDFLimits(); l.maxPageTreeDepth = 10; return l }())
        let error = #expect(throws: PDFError.self) { try doc.pageCount() }
        #expect(error?.kind == .limit)
        #expect(error?.message.contains("max_page_tree_depth") == true)
    }

    @Test func exponentialTreeHitsPageLimit() throws {
        // 40 levels of [next next]: 2^40 pages from a file of 2 KB.
        var limits = PDFLimits()
        limits.maxPages = 10_000
        let doc = try document(
            { b in
                b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
                for n in 2..<42 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R \(n + 1) 0 R] >>") }
                b.object(42, "<< /Type /Page >>")
            }, limits: limits)
        let error = #expect(throws: PDFError.self) { try doc.pageCount() }
        #expect(error?.message.contains("max_pages") == true)
    }

    @Test func countThatLiesIsFollowedAndReported() throws {
        // PDFium's rule (see PageCountTests): the root's /Count is the page count.
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R 7 0 R] /Count 5 >>")
            b.object(3, "<< /Type /Page >>")
        }
        #expect(try doc.pageCount() == 5)
        #expect(try doc.pages().count == 1)  // 7 0 R does not exist
        #expect(doc.warnings.contains { $0.contains("/Count says 5") })
    }
}

@Suite("Metadata and version")
struct MetadataTests {
    @Test func infoDictionary() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R /Version /1.7 >>")
            b.object(2, "<< /Type /Pages /Kids [] /Count 0 >>")
            b.object(9, "<< /Title (Caf\\351 \\200) /Author <FEFF00C9006D0069006C0065> /Trapped /False /Pages 3 /Subject 10 0 R /Bad [1] >>")
            b.object(10, "(indirect)")
        }
        let metadata = try doc.metadata()
        #expect(metadata.map(\.key) == ["Title", "Author", "Trapped", "Pages", "Subject"])
        #expect(metadata[0].value == "Café \u{2022}")
        #expect(metadata[1].value == "Émile")
        #expect(metadata[2].value == "False")
        #expect(metadata[3].value == "3")
        #expect(metadata[4].value == "indirect")
        let v = doc.pdfVersion()
        #expect(v.major == 1 && v.minor == 7)  // the catalog's /Version raises the header's
        #expect(try doc.pageCount() == 0)
    }

    @Test func noData() {
        #expect((#expect(throws: PDFError.self) { try Document(data: [UInt8]()) })?.kind == .format)
        #expect((#expect(throws: PDFError.self) { try Document(path: "/nonexistent/x.pdf") })?.kind == .notFound)
        #expect((#expect(throws: PDFError.self) { try Document(path: "/") })?.kind == .io)
    }
}

@Suite("Real files from the corpus")
struct CorpusTests {
    // Expected values: PDFium and qpdf in ../shared/corpus/manifest.jsonl (page_count,
    // annots_total), and pikepdf for the metadata and the media box.
    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"),
          arguments: [("pdfium/testing/resources/annots.pdf", 2, 12),
                      ("pypdf/resources/outline-without-title.pdf", 4, 9),
                      ("pdfium/testing/resources/linearized.pdf", 3, 12),
                      ("pdfplumber/tests/pdfs/issue-463-example.pdf", 3, 6),
                      // The root's /Count (PDFium, MuPDF): 3 over a tree of 1 page, and 1
                      // over a chain of 108 nodes that ends in a cycle and holds no page.
                      ("pdfium/testing/resources/unsupported_feature.pdf", 3, 0),
                      ("qpdf/qpdf/qtest/qpdf/deep-pages.pdf", 1, 0)])
    func pagesAndAnnotations(path: String, pages: Int, annotations: Int) throws {
        let doc = try Document(path: corpusDirectory! + "/" + path)
        #expect(try doc.pageCount() == pages)
        #expect(try doc.pages().map { try $0.annotationCount() }.reduce(0, +) == annotations)
        #expect(!doc.isRepaired)
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func metadataOfARealFile() throws {
        let doc = try Document(path: corpusDirectory! + "/pypdf/resources/outline-without-title.pdf")
        let metadata = Dictionary(try doc.metadata().map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        #expect(metadata["Producer"] == "pdfTeX-1.40.23")
        #expect(metadata["Creator"] == "LaTeX with hyperref")
        #expect(try doc.page(at: 0).box(.media) == Rect(left: 0, bottom: 0, right: 595.276, top: 841.89))
    }
}
