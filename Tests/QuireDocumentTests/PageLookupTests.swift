import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A document of 3,000 pages in a balanced tree: the root (2) over 10 nodes (3-12), each
/// over 10 nodes (13-112), each over 30 pages (113-3112). The first level's nodes give
/// their pages a /MediaBox of their own, the second level's a /Rotate.
private func balancedTree() throws -> Document {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [\((3...12).map { "\($0) 0 R" }.joined(separator: " "))] /Count 3000 >>")
    for a in 0..<10 {
        let kids = (0..<10).map { "\(13 + a * 10 + $0) 0 R" }.joined(separator: " ")
        b.object(3 + a, "<< /Type /Pages /Parent 2 0 R /Kids [\(kids)] /Count 300 /MediaBox [0 0 \(100 + a) 500] >>")
    }
    for n in 0..<100 {
        let kids = (0..<30).map { "\(113 + n * 30 + $0) 0 R" }.joined(separator: " ")
        b.object(13 + n, "<< /Type /Pages /Parent \(3 + n / 10) 0 R /Kids [\(kids)] /Count 30 /Rotate \(90 * (n % 4)) >>")
    }
    for p in 0..<3000 { b.object(113 + p, "<< /Type /Page /Parent \(13 + p / 30) 0 R /Contents \(p) >>") }
    b.finishWithTable()
    return try Document(data: b.bytes)
}

/// A document whose root (2) lists `pages` pages (3, 4, ...) directly.
private func flatTree(pages: Int, count: String? = nil) throws -> Document {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " "))] \(count ?? "/Count \(pages)") /MediaBox [0 0 612 792] >>")
    for p in 0..<pages { b.object(3 + p, "<< /Type /Page /Parent 2 0 R /Contents \(p) >>") }
    b.finishWithTable()
    return try Document(data: b.bytes)
}

/// Whether two pages are the same page as the walk and the lookup see it.
private func same(_ a: Page, _ b: Page) throws -> Bool {
    try a.index == b.index && a.id == b.id && a.dictionary == b.dictionary
        && a.box(.media) == b.box(.media) && a.box(.crop) == b.box(.crop) && a.rotation() == b.rotation()
}

/// Objects loaded from the file while `body` runs.
private func loads(_ doc: Document, _ body: () throws -> Void) rethrows -> Int {
    let before = doc.file.objectLoads
    try body()
    return doc.file.objectLoads - before
}

@Suite("Page lookup by /Count, without walking the tree")
struct PageLookupTests {
    @Test func firstPageOfThreeThousandReadsItsPath() throws {
        let doc = try balancedTree()
        // The catalog and the root were read at open; the lookup reads the two nodes on
        // the way and the page.
        var page: Page? = nil
        #expect(try loads(doc) { page = try doc.page(at: 0) } == 3)
        #expect(page?.id == ObjectID(113))
        #expect(!doc.pageTreeWalked)
        // The last page: the root's 10 kids, the last node's 10, the last node's 30 pages,
        // and one level below each node passed over (to check its /Count): 9 x 10 + 9 x 30.
        let last = try balancedTree()
        #expect(try loads(last) { page = try last.page(at: 2999) } <= 10 + 10 + 30 + 90 + 270)
        #expect(page?.id == ObjectID(3112))
        // The walk reads every page.
        let whole = try balancedTree()
        #expect(try loads(whole) { _ = try whole.pages() } >= 3000)
    }

    @Test func flatTreeReadsThePagesBefore() throws {
        let doc = try flatTree(pages: 3000)
        #expect(try loads(doc) { _ = try doc.page(at: 0) } == 1)
        #expect(try loads(doc) { _ = try doc.page(at: 9) } == 9)
        #expect(try doc.page(at: 9).box(.media) == Rect(left: 0, bottom: 0, right: 612, top: 792))
        #expect(!doc.pageTreeWalked)
    }

    @Test(arguments: [0, 1, 29, 30, 299, 300, 301, 1234, 2970, 2999])
    func lookupFindsThePageTheWalkFinds(index: Int) throws {
        let whole = try balancedTree()
        let walked = try whole.pages()
        let doc = try balancedTree()
        let page = try doc.page(at: index)
        #expect(!doc.pageTreeWalked)
        #expect(try same(page, walked[index]))
        #expect(try page.box(.media) == Rect(left: 0, bottom: 0, right: Double(100 + index / 300), top: 500))
        #expect(try page.rotation() == 90 * ((index / 30) % 4))
    }

    @Test func everyPageOneLookupAtATimeStaysLinear() throws {
        // 3,000 lookups of a flat tree would read 4.5 million kids. In order, each page is
        // the next kid of the page before (one kid read a page, no walk); in reverse order,
        // past the lookups' budget the tree is walked once, and the rest come from the walk.
        let whole = try flatTree(pages: 3000)
        let walked = try whole.pages()
        let doc = try flatTree(pages: 3000)
        var same = 0
        let read = try loads(doc) {
            // Twice each, as the C layer's annotation calls look a page up.
            for index in 0..<3000 where try doc.page(at: index).id == walked[index].id
                && doc.page(at: index).id == walked[index].id { same += 1 }
        }
        #expect(same == 3000)
        #expect(read <= 3000)
        #expect(!doc.pageTreeWalked)
        let backwards = try flatTree(pages: 3000)
        same = 0
        for index in (0..<3000).reversed() where try backwards.page(at: index).id == walked[index].id { same += 1 }
        #expect(same == 3000)
        #expect(backwards.pageTreeWalked)
    }

    @Test func pagesInOrderAcrossNodesAreThoseOfTheWalk() throws {
        // The balanced tree in order: 30 pages a node, each node's first page looked up
        // from the root, the others as the next kid; boxes and rotation inherited alike.
        // (The lookups from the root check the nodes they pass over, one level down: they
        // reach the budget before the end, and the rest comes from the walk.)
        let whole = try balancedTree()
        let walked = try whole.pages()
        let doc = try balancedTree()
        var matching = 0
        for index in 0..<3000 where try same(doc.page(at: index), walked[index]) { matching += 1 }
        #expect(matching == 3000)
    }

    @Test func anEditBetweenLookupsIsSeen() throws {
        // Page 1 found, then a page inserted after it in the root's /Kids: page 2 is the
        // new one, not the kid the last lookup would have taken next.
        let doc = try flatTree(pages: 5)
        #expect(try doc.page(at: 1).id == ObjectID(4))
        let added = try doc.addObject(.dictionary(PDFDictionary([
            ("Type", .name("Page")), ("Parent", .reference(ObjectID(2))),
        ])))
        var root = try #require(try doc.object(2).dictionary)
        var kids = try #require(root["Kids"]?.array)
        kids.insert(.reference(added), at: 2)
        root["Kids"] = .array(kids)
        root["Count"] = .integer(6)
        try doc.setObject(2, .dictionary(root))
        #expect(try doc.page(at: 2).id == added)
        #expect(try doc.page(at: 3).id == ObjectID(5))
        #expect(try doc.pageCount() == 6)
    }


    @Test func trustedCountIsReadWithoutTheWalk() throws {
        // /Count 5 over two pages: the count is read alone, and the walk's warning comes
        // when the pages are listed.
        let doc = try flatTree(pages: 2, count: "/Count 5")
        #expect(try doc.pageCount() == 5)
        #expect(!doc.pageTreeWalked)
        #expect(!doc.warnings.contains { $0.contains("/Count") })
        #expect(try doc.page(at: 1).id?.number == 4)
        #expect(!doc.pageTreeWalked)
        #expect(try doc.pages().count == 2)
        #expect(doc.warnings.contains { $0.contains("/Count says 5 pages") })
        // The balanced tree: its count reads the root alone.
        let balanced = try balancedTree()
        #expect(try balanced.pageCount() == 3000)
        #expect(!balanced.pageTreeWalked)
    }

    @Test func outOfRangeNeedsNoWalk() throws {
        let doc = try balancedTree()
        #expect(throws: PDFError(.range, "page index 3000 is out of range (the document has 3000 pages)")) { try doc.page(at: 3000) }
        #expect((#expect(throws: PDFError.self) { try doc.page(at: -1) })?.kind == .range)
        #expect(!doc.pageTreeWalked)
    }

    // MARK: /Count values that lie: the tree is walked

    /// Root 2 over node 3 (with `nodeCount`, over pages 5 and 6), page 7 and page 8, with
    /// the root's /Count 4. `extra` adds objects.
    private func lyingTree(nodeCount: String, nodeKids: String = "5 0 R 6 0 R", rootKids: String = "3 0 R 7 0 R 8 0 R",
                           rootCount: String = "/Count 4") throws -> Document {
        try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [\(rootKids)] \(rootCount) >>")
            b.object(3, "<< /Type /Pages /Parent 2 0 R /Kids [\(nodeKids)] \(nodeCount) >>")
            for n in 5...8 { b.object(n, "<< /Type /Page /Contents \(n) >>") }
        }
    }

    @Test(arguments: [
        // A node that holds fewer pages than its /Count, more, none, or one not a number.
        ("/Count 3", "5 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        ("/Count 1", "5 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        ("/Count 0", "5 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        ("/Count (2)", "5 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        ("", "5 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        ("/Count -2", "5 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        // A node that lists the root (a cycle), a kid that is not a dictionary, a kid
        // missing.
        ("/Count 2", "5 0 R 2 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
        ("/Count 2", "5 0 R 6 0 R", "3 0 R 42 7 0 R 8 0 R"),
        ("/Count 2", "5 0 R 99 0 R 6 0 R", "3 0 R 7 0 R 8 0 R"),
    ])
    func lyingCountsGiveTheWalksPages(nodeCount: String, nodeKids: String, rootKids: String) throws {
        // (Pages refer to their document unowned: it must outlive them.)
        let whole = try lyingTree(nodeCount: nodeCount, nodeKids: nodeKids, rootKids: rootKids)
        let walked = try whole.pages()
        for index in 0..<4 {
            let doc = try lyingTree(nodeCount: nodeCount, nodeKids: nodeKids, rootKids: rootKids)
            if index < walked.count {
                #expect(try same(try doc.page(at: index), walked[index]), "page \(index)")
            } else {
                #expect((#expect(throws: PDFError.self) { try doc.page(at: index) })?.kind == .notFound)
            }
        }
    }

    @Test func detectedLiesWalkTheTree() throws {
        // Page 3 is past node 3, whose /Count (3) is not what it holds (2): the lookup
        // cannot trust it and walks; the walk puts page 8 there.
        let doc = try lyingTree(nodeCount: "/Count 3")
        #expect(try doc.page(at: 3).id == ObjectID(8))
        #expect(doc.pageTreeWalked)
        // A trustworthy tree is not walked.
        let sound = try lyingTree(nodeCount: "/Count 2")
        #expect(try sound.page(at: 3).id == ObjectID(8))
        #expect(try sound.page(at: 1).id == ObjectID(6))
        #expect(!sound.pageTreeWalked)
    }

    @Test func countLargerThanTheTreeStillFailsAsBefore() throws {
        // The root says 6 pages; the tree holds 4: the lookup of page 4 does not find it,
        // walks, and fails as page(at:) always has.
        let doc = try lyingTree(nodeCount: "/Count 2", rootCount: "/Count 6")
        #expect(throws: PDFError(.notFound, "page index 4 is counted by the page tree's /Count (6) but the tree holds only 4 pages")) {
            try doc.page(at: 4)
        }
    }

    @Test func depthLimitWalks() throws {
        // A chain deeper than max_page_tree_depth: the lookup gives way to the walk, which
        // fails at the limit, as before.
        var l = PDFLimits()
        l.maxPageTreeDepth = 10
        let doc = try document({ b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            for n in 2..<20 { b.object(n, "<< /Type /Pages /Kids [\(n + 1) 0 R] /Count 1 >>") }
            b.object(20, "<< /Type /Page >>")
        }, limits: l)
        #expect((#expect(throws: PDFError.self) { try doc.page(at: 0) })?.kind == .limit)
    }

    @Test func editsAreSeenByTheLookup() throws {
        // The lookup reads through the document: a page changed and not saved is found
        // changed.
        let doc = try flatTree(pages: 5)
        try doc.setValue(.integer(90), forKey: "Rotate", inObject: 5)
        #expect(try doc.page(at: 2).rotation() == 90)
        #expect(!doc.pageTreeWalked)
    }
}
