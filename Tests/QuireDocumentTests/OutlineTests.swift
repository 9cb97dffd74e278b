import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A document whose catalog (object 1) has `catalog` as extra entries, with `pages` pages
/// (objects 3, 4, ...) under the page tree node 2; the caller adds objects from 10 on.
func documentWithPages(_ pages: Int = 3, catalog: String = "", trailer: String = "/Root 1 0 R",
                       _ build: (inout PDFBuilder) -> Void = { _ in }) throws -> Document {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R \(catalog) >>")
    let kids = (0..<pages).map { "\($0 + 3) 0 R" }.joined(separator: " ")
    b.object(2, "<< /Type /Pages /Kids [\(kids)] /Count \(pages) /MediaBox [0 0 612 792] >>")
    for i in 0..<pages { b.object(i + 3, "<< /Type /Page /Parent 2 0 R >>") }
    build(&b)
    b.finishWithTable(trailer: trailer)
    return try Document(data: b.bytes)
}

/// Every item of an outline, depth first, with its level (0 at the top).
func flatten(_ items: [OutlineItem], level: Int = 0) -> [(level: Int, item: OutlineItem)] {
    items.flatMap { [(level, $0)] + flatten($0.children, level: level + 1) }
}

@Suite("Outline (§12.3.3)")
struct OutlineTests {
    @Test func nestedItemsWithEncodedTitles() throws {
        let doc = try documentWithPages(catalog: "/Outlines 10 0 R") { b in
            b.object(10, "<< /Type /Outlines /First 11 0 R /Last 14 0 R /Count 4 >>")
            // PDFDocEncoding: \351 is é (as in Latin-1), \200 is the bullet U+2022.
            b.object(11, "<< /Title (Caf\\351 \\200) /Parent 10 0 R /Next 14 0 R /First 12 0 R /Last 13 0 R /Count 2 /Dest [3 0 R /Fit] /C [1 0 0.5] /F 3 >>")
            // UTF-16BE with a byte order mark: "Jürgen €".
            b.object(12, "<< /Title <FEFF004A00FC007200670065006E002020AC> /Parent 11 0 R /Next 13 0 R /First 15 0 R /Count -1 >>")
            // UTF-8 with a byte order mark (PDF 2.0): "Grüße".
            b.object(13, "<< /Title <EFBBBF4772C3BCC39F65> /Parent 11 0 R /Prev 12 0 R /F 1 /C [2 x 0] >>")
            b.object(14, "<< /Title (Second) /Parent 10 0 R /Prev 11 0 R /Dest [4 0 R /XYZ 0 792 null] >>")
            b.object(15, "<< /Parent 12 0 R >>")
        }
        let top = try doc.outline()
        #expect(top.map(\.title) == ["Café •", "Second"])
        #expect(top[0].children.map(\.title) == ["Jürgen €", "Grüße"])
        #expect(top[0].children[0].children.map(\.title) == [""])  // no /Title
        #expect(top[0].id == ObjectID(11))
        #expect(top[0].isOpen && !top[0].children[0].isOpen && !top[1].isOpen)
        #expect(top[0].color == OutlineItem.Color(red: 1, green: 0, blue: 0.5))
        #expect(top[0].flags == [.italic, .bold])
        #expect(top[0].children[1].flags == .italic)
        #expect(top[0].children[1].color == .black)  // malformed /C
        #expect(top[0].destination == Destination(pageIndex: 0, fit: .fit))
        #expect(top[1].destination == Destination(pageIndex: 1, fit: .xyz(left: 0, top: 792, zoom: nil)))
        #expect(try doc.outlineItemCount() == 5)
        #expect(flatten(top).map(\.level) == [0, 1, 2, 1, 0])
        #expect(doc.warnings.isEmpty)
    }

    @Test func noOutline() throws {
        let doc = try documentWithPages()
        #expect(try doc.outline().isEmpty)
        #expect(try doc.outlineItemCount() == 0)
        let empty = try documentWithPages(catalog: "/Outlines << /Type /Outlines >>")
        #expect(try empty.outline().isEmpty)
    }

    @Test func cycleThroughNextIsCut() throws {
        let doc = try documentWithPages(catalog: "/Outlines 10 0 R") { b in
            b.object(10, "<< /Type /Outlines /First 11 0 R >>")
            // 13's /Next leads back to its parent 11, 12's to 11 again, and 14's /First
            // to the outline root: each is cut where the item repeats.
            b.object(11, "<< /Title (A) /Next 12 0 R /First 13 0 R >>")
            b.object(12, "<< /Title (B) /Next 11 0 R /First 14 0 R >>")
            b.object(13, "<< /Title (A.1) /Next 11 0 R >>")
            b.object(14, "<< /Title (B.1) /First 10 0 R /Next 14 0 R >>")
        }
        let top = try doc.outline()
        #expect(top.map(\.title) == ["A", "B"])
        #expect(top[0].children.map(\.title) == ["A.1"])
        #expect(top[1].children.map(\.title) == ["B.1"])
        #expect(top[1].children[0].children.isEmpty)
        #expect(try doc.outlineItemCount() == 4)
        #expect(doc.warnings.contains { $0.contains("outline") && $0.contains("cut") })
    }

    @Test func nonDictionaryItemIsSkipped() throws {
        let doc = try documentWithPages(catalog: "/Outlines << /First 11 0 R >>") { b in
            b.object(11, "<< /Title (A) /First 12 0 R /Next 13 0 R >>")
            b.object(12, "[1 2 3]")
            b.object(13, "<< /Title (B) >>")
        }
        #expect(try doc.outline().map(\.title) == ["A", "B"])
        #expect(try doc.outlineItemCount() == 2)
        #expect(doc.warnings.contains { $0.contains("not a dictionary") })
    }

    /// `levels` items, each the only child of the one before.
    func deepOutline(_ levels: Int) throws -> Document {
        try documentWithPages(1, catalog: "/Outlines << /First 10 0 R >>") { b in
            for n in 10..<(10 + levels) {
                b.object(n, "<< /Title (\(n)) \(n + 1 < 10 + levels ? "/First \(n + 1) 0 R" : "") >>")
            }
        }
    }

    @Test func depthLimit() throws {
        let deepest = try deepOutline(OutlineItem.maxDepth)
        #expect(try deepest.outlineItemCount() == OutlineItem.maxDepth)
        var item = try deepest.outline().first
        var levels = 0
        while let i = item { levels += 1; item = i.children.first }
        #expect(levels == OutlineItem.maxDepth)

        let tooDeep = try deepOutline(OutlineItem.maxDepth + 1)
        let error = #expect(throws: PDFError.self) { try tooDeep.outline() }
        #expect(error?.kind == .limit)
        #expect(error?.limitName == "max_outline_depth")
    }

    @Test func itemLimit() throws {
        let count = OutlineItem.maxItems + 1
        let doc = try documentWithPages(1, catalog: "/Outlines << /First 10 0 R >>") { b in
            for n in 10..<(10 + count) {
                b.object(n, n + 1 < 10 + count ? "<< /Next \(n + 1) 0 R >>" : "<< >>")
            }
        }
        let error = #expect(throws: PDFError.self) { try doc.outlineItemCount() }
        #expect(error?.limitName == "max_outline_items")
    }
}

@Suite("Destinations (§12.3.2)")
struct DestinationTests {
    @Test func everyExplicitForm() throws {
        let doc = try documentWithPages { b in
            b.object(10, "[4 0 R /FitR 1 2 3 4]")
        }
        func dest(_ text: String) throws -> Destination? { try doc.destination(try parse(text)) }
        #expect(try dest("[3 0 R /XYZ 10 20.5 1.5]") == Destination(pageIndex: 0, fit: .xyz(left: 10, top: 20.5, zoom: 1.5)))
        #expect(try dest("[4 0 R /XYZ null null null]") == Destination(pageIndex: 1, fit: .xyz(left: nil, top: nil, zoom: nil)))
        #expect(try dest("[4 0 R /XYZ 5]") == Destination(pageIndex: 1, fit: .xyz(left: 5, top: nil, zoom: nil)))
        #expect(try dest("[5 0 R /Fit]") == Destination(pageIndex: 2, fit: .fit))
        #expect(try dest("[3 0 R /FitH 700]") == Destination(pageIndex: 0, fit: .fitH(top: 700)))
        #expect(try dest("[3 0 R /FitH null]") == Destination(pageIndex: 0, fit: .fitH(top: nil)))
        #expect(try dest("[3 0 R /FitV 72]") == Destination(pageIndex: 0, fit: .fitV(left: 72)))
        #expect(try dest("10 0 R") == Destination(pageIndex: 1, fit: .fitR(left: 1, bottom: 2, right: 3, top: 4)))
        #expect(try dest("[4 0 R /FitR 1 null 3 4]") == Destination(pageIndex: 1, fit: .fitR(left: 1, bottom: nil, right: 3, top: 4)))
        #expect(try dest("[4 0 R /FitB]") == Destination(pageIndex: 1, fit: .fitB))
        #expect(try dest("[5 0 R /FitBH 5]") == Destination(pageIndex: 2, fit: .fitBH(top: 5)))
        #expect(try dest("[5 0 R /FitBV 6]") == Destination(pageIndex: 2, fit: .fitBV(left: 6)))
        // A page index instead of a page object, as PDFium and pdf.js accept.
        #expect(try dest("[2 /Fit]") == Destination(pageIndex: 2, fit: .fit))
        // A destination dictionary (§12.3.2.4).
        #expect(try dest("<< /D [3 0 R /Fit] >>") == Destination(pageIndex: 0, fit: .fit))
        #expect(doc.warnings.isEmpty)
    }

    @Test func brokenDestinationsAreNilWithAWarning() throws {
        let doc = try documentWithPages { b in
            b.object(10, "<< /Type /Font >>")
        }
        func dest(_ text: String) throws -> Destination? { try doc.destination(try parse(text)) }
        #expect(try dest("[99 0 R /Fit]") == nil)  // no such object
        #expect(try dest("[10 0 R /Fit]") == nil)  // not a page
        #expect(try dest("[3 /Fit]") == nil)  // page index out of range
        #expect(try dest("[-1 /Fit]") == nil)
        #expect(try dest("[]") == nil)
        #expect(try dest("42") == nil)
        #expect(try dest("(undefined)") == nil)
        #expect(doc.warnings.count >= 5)
        // A missing or unknown fit type keeps the current view, with a warning.
        #expect(try dest("[3 0 R]") == Destination(pageIndex: 0, fit: .retain))
        #expect(try dest("[3 0 R /Zoom 2]") == Destination(pageIndex: 0, fit: .retain))
        #expect(try dest("[3 0 R /XYZ (a) /b null]") == Destination(pageIndex: 0, fit: .retain))
    }

    /// A document with both kinds of named destinations: a PDF 1.1 /Dests dictionary
    /// and a /Names /Dests name tree with /Kids and /Limits.
    func namedDocument() throws -> Document {
        try documentWithPages(catalog: "/Dests 20 0 R /Names << /Dests 21 0 R >>") { b in
            b.object(20, "<< /Old [4 0 R /FitH 10] /shared [3 0 R /Fit] /Broken [77 0 R /Fit] >>")
            // The root lists itself among its kids: a self-referential tree.
            b.object(21, "<< /Kids [22 0 R 21 0 R 23 0 R] >>")
            b.object(22, "<< /Limits [(alpha) (gamma)] /Names [(alpha) [3 0 R /Fit] (beta) << /D [4 0 R /FitV 7] >> (gamma) 30 0 R] >>")
            b.object(23, "<< /Limits [(n) (z)] /Kids [24 0 R] >>")
            // Out of order: "delta" is outside the /Limits its parent claims.
            b.object(24, "<< /Limits [(n) (z)] /Names [(omega) [5 0 R /Fit] (shared) [5 0 R /FitB] (delta) [4 0 R /Fit] (\\351t\\351) [3 0 R /Fit]] >>")
            b.object(30, "[5 0 R /XYZ 1 2 3]")
        }
    }

    @Test func namedDestinations() throws {
        let doc = try namedDocument()
        #expect(try doc.resolveNamedDestination(Array("alpha".utf8)) == Destination(pageIndex: 0, fit: .fit, name: Array("alpha".utf8)))
        #expect(try doc.resolveNamedDestination("beta")?.fit == .fitV(left: 7))
        #expect(try doc.resolveNamedDestination("gamma") == Destination(pageIndex: 2, fit: .xyz(left: 1, top: 2, zoom: 3), name: Array("gamma".utf8)))
        #expect(try doc.resolveNamedDestination("omega")?.pageIndex == 2)
        #expect(try doc.resolveNamedDestination("delta")?.pageIndex == 1)  // found by the full walk
        #expect(try doc.resolveNamedDestination("Old") == Destination(pageIndex: 1, fit: .fitH(top: 10), name: Array("Old".utf8)))
        // The name tree comes before /Dests, as in PDFium.
        #expect(try doc.resolveNamedDestination("shared")?.fit == .fitB)
        // A String is tried as UTF-8, then as a PDF text string (PDFDocEncoding here).
        #expect(try doc.resolveNamedDestination("été")?.pageIndex == 0)
        #expect(try doc.resolveNamedDestination("nothing") == nil)
        #expect(try doc.resolveNamedDestination("Broken") == nil)
        #expect(doc.warnings.contains { $0.contains("reached twice") })
        #expect(doc.warnings.contains { $0.contains("\"nothing\" is not defined") })

        let all = try doc.namedDestinations()
        #expect(all.map { String(decoding: $0.name, as: UTF8.self) }
            == ["alpha", "beta", "gamma", "omega", "shared", "delta", "\u{FFFD}t\u{FFFD}", "Old"])
        // Names are resolved from outline items too, by name and by string.
        #expect(try doc.destination(.name("Old"))?.pageIndex == 1)
        #expect(try doc.destination(.string(PDFString(bytes: Array("gamma".utf8))))?.pageIndex == 2)
    }

    @Test func nameAndNumberTrees() throws {
        let doc = try documentWithPages { b in
            b.object(10, "<< /Kids [11 0 R 12 0 R] >>")
            b.object(11, "<< /Limits [1 5] /Nums [1 (one) 5 (five) 7] >>")  // odd: 7 is ignored
            b.object(12, "<< /Limits [10 20] /Nums [10 (ten) 20 (twenty) (x) (bad key)] >>")
            b.object(13, "<< /Names [(b) 1 (a) 2 (b) 3] >>")  // unsorted, and b twice
        }
        let numbers = NumberTree(document: doc, root: .reference(ObjectID(10)))
        #expect(try numbers.entries().map(\.key) == [1, 5, 10, 20])
        #expect(try numbers.value(for: 10) == .string(PDFString(bytes: Array("ten".utf8))))
        #expect(try numbers.value(for: 7) == nil)
        let names = NameTree(document: doc, root: .reference(ObjectID(13)))
        #expect(try names.entries().map(\.value) == [.integer(1), .integer(2), .integer(3)])
        #expect(try names.value(for: Array("b".utf8)) == .integer(1))
        #expect(try names.value(for: Array("a".utf8)) == .integer(2))
        #expect(doc.warnings.contains { $0.contains("odd number") })
    }

    @Test func treeDepthIsBounded() throws {
        let levels = NameTree.maxDepth + 5
        let doc = try documentWithPages { b in
            for n in 10..<(10 + levels) { b.object(n, "<< /Kids [\(n + 1) 0 R] /Nums [\(n) (v)] >>") }
            b.object(10 + levels, "<< /Nums [0 (deepest)] >>")
        }
        let tree = NumberTree(document: doc, root: .reference(ObjectID(10)))
        #expect(try tree.entries().count == NameTree.maxDepth + 1)
        #expect(try tree.value(for: 0) == nil)
        #expect(doc.warnings.contains { $0.contains("deeper than") })
    }
}

@Suite("Actions (§12.6)")
struct ActionTests {
    func actions(_ dictionaries: [String], _ extra: (inout PDFBuilder) -> Void = { _ in }) throws -> (Document, [Action?]) {
        let doc = try documentWithPages(catalog: "/Names << /Dests << /Names [(alpha) [4 0 R /Fit]] >> >>") { b in
            for (i, d) in dictionaries.enumerated() { b.object(100 + i, d) }
            extra(&b)
        }
        return (doc, try dictionaries.indices.map { try doc.action(.reference(ObjectID(100 + $0))) })
    }

    @Test func everyType() throws {
        let (doc, a) = try actions([
            "<< /Type /Action /S /GoTo /D [5 0 R /FitH 100] >>",
            "<< /S /GoTo /D (alpha) >>",
            "<< /S /GoTo /D [99 0 R /Fit] >>",
            "<< /S /GoToR /F (other.pdf) /D [2 /FitH 100] /NewWindow true >>",
            "<< /S /GoToR /F << /Type /Filespec /F (old.pdf) /UF <FEFF00E9002E007000640066> >> /D (chapter) >>",
            "<< /S /GoToR /F << /FS /URL /F (https://example.com/x.pdf) >> /D /name /NewWindow false >>",
            "<< /S /URI /URI (https://example.com/a?b=1) >>",
            "<< /S /URI /URI <68747470733A2F2F6578616D706C652E636F6D2FC3A9> /IsMap true >>",
            "<< /S /Named /N /NextPage >>",
            "<< /S /Launch /F (run.sh) >>",
            "<< /S /Launch /Win << /F (notepad.exe) /P (a.txt) >> /NewWindow true >>",
            "<< /S /JavaScript /JS (app.alert\\(1\\)) >>",
            "<< /S /URI >>",
            "<< /D [3 0 R /Fit] >>",
            "(not an action)",
        ])
        #expect(a[0] == Action(kind: .goTo(Destination(pageIndex: 2, fit: .fitH(top: 100)))))
        #expect(a[1] == Action(kind: .goTo(Destination(pageIndex: 1, fit: .fit, name: Array("alpha".utf8)))))
        #expect(a[2] == Action(kind: .goTo(nil)))
        #expect(a[3] == Action(kind: .goToRemote(file: FileSpecification(path: "other.pdf"),
                                                 destination: .explicit(Destination(pageIndex: 2, fit: .fitH(top: 100))),
                                                 newWindow: true)))
        guard case .goToRemote(let file, let target, let newWindow)? = a[4]?.kind else {
            Issue.record("not GoToR: \(String(describing: a[4]))")
            return
        }
        #expect(file?.path == "é.pdf")  // /UF comes before /F
        #expect(file?.isURL == false && file?.dictionary != nil)
        #expect(target == .named(Array("chapter".utf8)))
        #expect(newWindow == nil)
        guard case .goToRemote(let urlFile, .named(let name)?, .some(false))? = a[5]?.kind else {
            Issue.record("not GoToR: \(String(describing: a[5]))")
            return
        }
        #expect(urlFile?.isURL == true && urlFile?.path == "https://example.com/x.pdf")
        #expect(name == Array("name".utf8))
        #expect(a[6] == Action(kind: .uri("https://example.com/a?b=1", isMap: false)))
        #expect(a[7] == Action(kind: .uri("https://example.com/é", isMap: true)))  // UTF-8 bytes
        #expect(a[8] == Action(kind: .named("NextPage")))
        #expect(a[9] == Action(kind: .launch(file: FileSpecification(path: "run.sh"), newWindow: nil)))
        #expect(a[10] == Action(kind: .launch(file: FileSpecification(path: "notepad.exe"), newWindow: true)))
        guard case .other(let type, let dictionary)? = a[11]?.kind else {
            Issue.record("not kept: \(String(describing: a[11]))")
            return
        }
        #expect(type == "JavaScript" && dictionary["JS"] != nil)
        if case .other("URI", _)? = a[12]?.kind {} else { Issue.record("a URI action without /URI is kept as it is") }
        #expect(a[13] == nil)  // no /S
        #expect(a[14] == nil)
        #expect(doc.warnings.contains { $0.contains("no /S") })
    }

    @Test func nextChainWithCycle() throws {
        let (doc, a) = try actions([
            "<< /S /Named /N /FirstPage /Next [101 0 R << /S /URI /URI (x) >>] >>",
            "<< /S /Named /N /LastPage /Next 100 0 R >>",
        ])
        let first = try #require(a[0])
        #expect(first.kind == .named("FirstPage"))
        #expect(first.next.map(\.kind) == [.named("LastPage"), .uri("x", isMap: false)])
        #expect(first.next[0].next.isEmpty)  // 101's /Next leads back to 100: left out
        #expect(doc.warnings.contains { $0.contains("reached twice") })
    }

    @Test func outlineItemWithAction() throws {
        let doc = try documentWithPages(catalog: "/Outlines << /First 10 0 R >>") { b in
            b.object(10, "<< /Title (Go) /A << /S /GoTo /D [4 0 R /Fit] >> /Next 11 0 R >>")
            b.object(11, "<< /Title (Web) /A 12 0 R >>")
            b.object(12, "<< /S /URI /URI (https://example.com) >>")
        }
        let top = try doc.outline()
        #expect(top[0].destination == nil)
        #expect(top[0].target == Destination(pageIndex: 1, fit: .fit))
        #expect(top[1].action?.kind == .uri("https://example.com", isMap: false))
        #expect(top[1].target == nil)
    }
}

@Suite("Page labels (§12.4.2)")
struct PageLabelTests {
    @Test func everyStylePrefixAndStart() throws {
        let doc = try documentWithPages(12, catalog: "/PageLabels 40 0 R") { b in
            b.object(40, "<< /Kids [41 0 R 42 0 R] >>")
            b.object(41, "<< /Limits [0 5] /Nums [0 << /S /r >> 3 << /S /D >> 5 << /Type /PageLabel /P (A-) /S /D /St 4 >>] >>")
            b.object(42, "<< /Limits [7 11] /Nums [7 << /S /R /St 9 >> 9 << /S /a /St 26 >> 11 43 0 R] >>")
            b.object(43, "<< /P <FEFF00C9> >>")
        }
        let expected = ["i", "ii", "iii", "1", "2", "A-4", "A-5", "IX", "X", "z", "aa", "É"]
        #expect(try doc.pageLabels() == expected)
        #expect(try doc.pageLabel(at: 5) == "A-4")
        #expect(try doc.pageLabel(at: 10) == "aa")
        #expect(try doc.pageLabelRanges()?.map(\.startIndex) == [0, 3, 5, 7, 9, 11])
        #expect(try doc.pageLabelRanges()?[2] == PageLabelRange(startIndex: 5, style: .decimal, prefix: "A-", start: 4))
        #expect((#expect(throws: PDFError.self) { try doc.pageLabel(at: 12) })?.kind == .range)
        #expect(doc.warnings.isEmpty)
    }

    @Test func upperLettersPagesBeforeTheFirstRangeAndBrokenEntries() throws {
        // Pages before the first range get their page number, as in PDFium.
        let doc = try documentWithPages(6, catalog: "/PageLabels << /Nums [2 << /S /A >> 4 (junk) 5 << /S /X /P (p) >> 9 << /S /D >>] >>")
        #expect(try doc.pageLabels() == ["1", "2", "A", "B", "C", "p"])
        #expect(doc.warnings.contains { $0.contains("not a dictionary") })
        #expect(doc.warnings.contains { $0.contains("unknown style") })
        #expect(doc.warnings.contains { $0.contains("outside the document") })
    }

    @Test func noLabels() throws {
        let doc = try documentWithPages()
        #expect(try doc.pageLabels() == nil)
        #expect(try doc.pageLabel(at: 0) == nil)
    }

    @Test func cyclicTreeAndHugeStart() throws {
        let doc = try documentWithPages(3, catalog: "/PageLabels 40 0 R") { b in
            b.object(40, "<< /Kids [41 0 R 40 0 R] >>")
            b.object(41, "<< /Nums [0 << /S /R /St 9223372036854775807 >> 1 << /S /a /St -5 >> 2 << /S /D /St 1.5 >>] >>")
        }
        // Numbers a style cannot write are written in decimal; nothing overflows.
        #expect(try doc.pageLabels() == ["9223372036854775807", "-5", "1"])
        #expect(doc.warnings.contains { $0.contains("reached twice") })
    }

    @Test func numerals() {
        #expect(PageLabelRange.format(3999, .upperRoman) == "MMMCMXCIX")
        #expect(PageLabelRange.format(1994, .lowerRoman) == "mcmxciv")
        #expect(PageLabelRange.format(0, .upperRoman) == "0")
        #expect(PageLabelRange.format(26, .upperLetters) == "Z")
        #expect(PageLabelRange.format(52, .upperLetters) == "ZZ")
        #expect(PageLabelRange.format(53, .lowerLetters) == "aaa")
        #expect(PageLabelRange.format(Int.max, .upperLetters) == String(Int.max))
        #expect(PageLabelRange.format(Int.min, .decimal) == String(Int.min))
        let range = PageLabelRange(startIndex: Int.min, style: .decimal, start: Int.max)
        #expect(range.label(at: Int.max) == String(Int.max))  // overflow: clamped, no trap
    }
}

@Suite("Document identifier (§14.4)")
struct DocumentIDTests {
    @Test func bytesAndHex() throws {
        let doc = try documentWithPages(1, trailer: "/Root 1 0 R /ID [<0123ABCD> (xy)]")
        let id = try #require(doc.documentID)
        #expect(id.permanent == [0x01, 0x23, 0xAB, 0xCD])
        #expect(id.changing == [0x78, 0x79])
        #expect(doc.documentIDHex?.permanent == "0123abcd")
        #expect(doc.documentIDHex?.changing == "7879")
    }

    @Test func missingOrMalformed() throws {
        #expect(try documentWithPages(1).documentID == nil)
        let bad = try documentWithPages(1, trailer: "/Root 1 0 R /ID [(only one)]")
        #expect(bad.documentID == nil)
        #expect(bad.warnings.contains { $0.contains("/ID") })
    }
}

@Suite("Outline, labels and /ID of real files")
struct OutlineCorpusTests {
    // Expected counts: ../shared/corpus/manifest.jsonl, pdfium.outline_items,
    // pikepdf.outline_items and consensus.outline_items_majority (all equal on these files
    // except where noted).
    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"),
          arguments: [("pypdf/resources/outline-without-title.pdf", 9),
                      ("py-pdf-sample-files/014-outlines/mistitled_outlines_example.pdf", 27),
                      // A cycle: PDFium, pikepdf and pypdf count 8, MuPDF 0.
                      ("qpdf/qpdf/qtest/qpdf/outlines-with-loop.pdf", 8),
                      ("pdfium/testing/resources/bookmarks_circular.pdf", 2),
                      // The newest revision frees the outline's objects: pikepdf and MuPDF
                      // count 0, PDFium and pypdf 11.
                      ("qpdf/examples/qtest/bookmarks/5.pdf", 0),
                      ("pdfminer/samples/contrib/pagelabels.pdf", 4)])
    func outlineCounts(path: String, count: Int) throws {
        let doc = try Document(path: corpusDirectory! + "/" + path)
        #expect(try doc.outlineItemCount() == count)
        #expect(flatten(try doc.outline()).count == count)
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func mistitledOutlineStructure() throws {
        // Titles, levels and 0-based page indexes: pypdf 7.1 (reader.outline and
        // get_destination_page_number).
        let doc = try Document(path: corpusDirectory! + "/py-pdf-sample-files/014-outlines/mistitled_outlines_example.pdf")
        let items = flatten(try doc.outline())
        #expect(items.prefix(10).map(\.item.title)
            == ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth"])
        #expect(items.prefix(10).map(\.level) == [0, 1, 1, 1, 2, 2, 1, 2, 2, 0])
        #expect(items.prefix(10).map { $0.item.target?.pageIndex } == [1, 1, 1, 1, 2, 2, 2, 3, 3, 1])
        #expect(items.last?.item.title == "Twenty-seventh")
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func destinationsOfEveryKind() throws {
        // Titles, pages and views: PDFium (pypdfium2 5.15: get_toc, get_dest().get_index(),
        // get_view()), and pypdf 7.1 for the titles. The file has PDFDocEncoding titles
        // (\200 is the bullet), a UTF-16BE title, and named destinations through the
        // PDF 1.1 /Dests dictionary, from /Dest and from GoTo actions.
        let doc = try Document(path: corpusDirectory! + "/qpdf/qpdf/qtest/qpdf/outlines-with-old-root-dests.pdf")
        let items = flatten(try doc.outline()).map(\.item)
        #expect(items.count == 11)
        #expect(items.map { $0.target?.pageIndex } == [5, 11, 12, 18, 19, 12, 22, 13, 1, 0, 15])
        #expect(items[0].title == "•Potato 1 -> 5: /XYZ null null null")
        #expect(items[7].title == "•Squash ÷πʬ÷ 1.2 -> 13: /FitH 792")
        // PDFium reports the nulls of /XYZ null null null as zeros; Quire keeps them nil.
        #expect(items[0].target?.fit == .xyz(left: nil, top: nil, zoom: nil))
        #expect(items[1].target?.fit == .fit)
        #expect(items[2].target?.fit == .fitV(left: 100))
        #expect(items[7].target?.fit == .fitH(top: 792))
        #expect(items[8].target?.fit == .fitR(left: 66, bottom: 714, right: 180, top: 770))
        #expect(items[8].target?.name == Array("gabeebee".utf8))
        #expect(items[10].target?.fit == .xyz(left: 66, top: 756, zoom: 3))
        // /Count as PDFium reports it (get_count): 4, 3, -2, 0, 0, 1, 0, 2, 0, 0, 0.
        #expect(items.map(\.isOpen) == [true, true, false, false, false, true, false, true, false, false, false])
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func validAndInvalidDestinations() throws {
        // Each title says what the item holds; the pages are pypdf 7.1's
        // get_destination_page_number (PDFium reads no page for the second item, whose
        // /Dest is a destination dictionary, which it does not support). The view of
        // "section.1": pikepdf 10.17, NameTree(pdf.Root.Names.Dests)["section.1"].
        let doc = try Document(path: corpusDirectory! + "/pypdf/resources/outlines-with-invalid-destinations.pdf")
        let items = try doc.outline()
        #expect(items.count == 9)
        #expect(items.map { $0.target?.pageIndex } == [1, 1, 1, nil, nil, nil, nil, nil, nil])
        #expect(items[0].action?.kind == .goTo(Destination(pageIndex: 1, fit: .xyz(left: 124.802, top: 716.092, zoom: nil), name: Array("section.1".utf8))))
        // "Action missing /S type" has /S /D: an unknown type, kept as it is.
        if case .other("D", _)? = items[4].action?.kind {} else { Issue.record("\(String(describing: items[4].action))") }
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func pageLabels() throws {
        // pypdf 7.1 (PdfReader.page_labels) and PDFium (pypdfium2 get_page_label) agree.
        let labels = try Document(path: corpusDirectory! + "/pdfminer/samples/contrib/pagelabels.pdf")
        #expect(try labels.pageLabels() == ["iii", "iv", "1", "2", "1"])
        // An incremental update that replaces the labels (object 107, generation 1) and
        // frees the outline. pypdf, PDFium and pikepdf (Page.label) agree.
        let updated = try Document(path: corpusDirectory! + "/qpdf/examples/qtest/bookmarks/5.pdf")
        #expect(try updated.pageLabels() == ["", "", "1", "2", "3", "4", "5", "", "", "VI", "VII", "", "ii", "iii",
                                             "iv", "vi", "vii", "viii", "ix", "", "XII", "XIII", "16059", "l", "li",
                                             "lii", "liii", "liv", "lv", "liv"])
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func pageLabelsOfADamagedTree() throws {
        // A number tree whose leaf is out of order and holds a value that is not a
        // dictionary. Expected: qpdf (pikepdf 10.17, Page.label), which reads the keys as
        // a sorted map and skips the bad value, as Quire does. PDFium differs on pages
        // 5-8 and 11 (it takes the last key at or below the page in file order); pypdf on
        // more pages.
        let doc = try Document(path: corpusDirectory! + "/qpdf/qpdf/qtest/qpdf/page-labels-num-tree-damaged.pdf")
        #expect(try doc.pageLabels() == ["i", "ii", "blank", "X-Q", "X-R", "", "III", "IV", "V", "1", "2", "3", "c",
                                         "d", "e", "q.6", "q.7", "q.8", "q.9", "www", "12", "13", "16059", "L", "LI",
                                         "LII", "LIII", "LIV", "LV", "liv"])
    }

    @Test(.enabled(if: corpusDirectory != nil, "needs ../shared/corpus"))
    func documentID() throws {
        // pikepdf 10.17: bytes(pdf.trailer.ID[0]).hex(), [1].
        let doc = try Document(path: corpusDirectory! + "/pypdf/resources/outline-without-title.pdf")
        #expect(doc.documentIDHex?.permanent == "20c8633a70f8e4e9ccaf7e2d557eb95e")
        #expect(doc.documentIDHex?.changing == "20c8633a70f8e4e9ccaf7e2d557eb95e")
    }
}
