import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A provider that keeps bookmarks in memory, accepts only those `accepts` lets through,
/// and records what it was asked: the kind of custom provider an application writes.
final class RecordingProvider: BookmarkProvider {
    var stored: [Bookmark]
    let accepts: (Bookmark) -> Bool
    var calls: [String] = []
    var saves = 0
    var failOnAdd: PDFError? = nil

    init(_ stored: [Bookmark] = [], accepts: @escaping (Bookmark) -> Bool = { _ in true }) {
        self.stored = stored
        self.accepts = accepts
    }

    func loadBookmarks() throws -> [Bookmark] {
        calls.append("load")
        return stored
    }

    func add(_ bookmark: Bookmark) throws -> Bool {
        calls.append("add \(bookmark.identifier)")
        if let failOnAdd { throw failOnAdd }
        guard accepts(bookmark) else { return false }
        if let i = stored.firstIndex(where: { $0.identifier == bookmark.identifier }) {
            stored[i] = bookmark
        } else {
            stored.append(bookmark)
        }
        return true
    }

    func remove(_ bookmark: Bookmark) throws -> Bool {
        calls.append("remove \(bookmark.identifier)")
        guard let i = stored.firstIndex(where: { $0.identifier == bookmark.identifier }) else { return false }
        stored.remove(at: i)
        return true
    }

    func save() throws { saves += 1 }
}

@Suite("Bookmarks")
struct BookmarkTests {
    func ids(_ list: [Bookmark]) -> [String] { list.map(\.identifier) }

    @Test func newBookmarksHaveNewIdentifiersAndTheSamePageTwiceIsTwoBookmarks() throws {
        let doc = try documentWithPages(3)
        let a = Bookmark(pageIndex: 1, name: "A"), b = Bookmark(pageIndex: 1, name: "A")
        #expect(a.identifier != b.identifier)
        #expect(a.identifier.count == 36)
        try doc.bookmarks.add(a)
        try doc.bookmarks.add(b)
        #expect(try doc.bookmarks.bookmarks().count == 2)
        #expect(try doc.bookmarks.bookmark(identifier: a.identifier)?.pageIndex == 1)
    }

    @Test func reAddingReplacesInPlaceAndKeepsThePosition() throws {
        let doc = try documentWithPages(3)
        let list = (0..<3).map { Bookmark(pageIndex: $0, name: "p\($0)") }
        for b in list { try doc.bookmarks.add(b) }
        var changed = list[1]
        changed.name = "renamed"
        changed.action = .uri("https://example.com/")
        changed.sortKey = 99  // the position is the manager's: the old key stays
        try doc.bookmarks.add(changed)
        let custom = try doc.bookmarks.bookmarks(sortedBy: .custom)
        #expect(ids(custom) == ids(list))
        #expect(custom[1].name == "renamed")
        #expect(custom[1].action == .uri("https://example.com/"))
        #expect(custom[1].sortKey == list.count - 2)
        #expect(try doc.bookmarks.bookmarks().count == 3)
    }

    @Test func customOrderIsInsertionOrderRearrangedByMoves() throws {
        let doc = try documentWithPages(5)
        let list = [3, 0, 4, 1].map { Bookmark(pageIndex: $0) }
        for b in list { try doc.bookmarks.add(b) }
        #expect(ids(try doc.bookmarks.bookmarks(sortedBy: .custom)) == ids(list))
        try doc.bookmarks.move(identifier: list[3].identifier, to: 0)
        #expect(ids(try doc.bookmarks.bookmarks(sortedBy: .custom)) == ids([list[3], list[0], list[1], list[2]]))
        try doc.bookmarks.move(identifier: list[3].identifier, to: 3)
        #expect(ids(try doc.bookmarks.bookmarks(sortedBy: .custom)) == ids([list[0], list[1], list[2], list[3]]))
        #expect(throws: PDFError.self) { try doc.bookmarks.move(identifier: list[0].identifier, to: 4) }
        #expect(throws: PDFError.self) { try doc.bookmarks.move(identifier: "missing", to: 0) }
        // Listing in an order does not change the manager's state.
        _ = try doc.bookmarks.bookmarks(sortedBy: .pageBased)
        #expect(ids(try doc.bookmarks.bookmarks(sortedBy: .custom)) == ids([list[0], list[1], list[2], list[3]]))
    }

    @Test func pageBasedOrderIsStableAndPutsBookmarksWithoutAPageLast() throws {
        let doc = try documentWithPages(5)
        let uri = Bookmark(action: .uri("https://quire.example/"), name: "site")
        let p2a = Bookmark(pageIndex: 2, name: "2a")
        let named = Bookmark(action: .named("LastPage"))
        let p0 = Bookmark(pageIndex: 0)
        let p2b = Bookmark(pageIndex: 2, name: "2b")
        let p1 = Bookmark(pageIndex: 1)
        for b in [uri, p2a, named, p0, p2b, p1] { try doc.bookmarks.add(b) }
        #expect(ids(try doc.bookmarks.bookmarks(sortedBy: .pageBased)) == ids([p0, p1, p2a, p2b, uri, named]))
        // Reordering the custom order reorders ties, and only ties.
        try doc.bookmarks.move(identifier: p2b.identifier, to: 0)
        try doc.bookmarks.move(identifier: named.identifier, to: 0)
        #expect(ids(try doc.bookmarks.bookmarks(sortedBy: .pageBased)) == ids([p0, p1, p2b, p2a, named, uri]))
    }

    @Test func goToPastTheLastPageIsRefused() throws {
        let doc = try documentWithPages(2)
        #expect(throws: PDFError(.range, "the bookmark points at page index 2, but the document has 2 pages")) {
            try doc.bookmarks.add(Bookmark(pageIndex: 2))
        }
        #expect(!doc.hasUnsavedChanges)
    }

    @Test func removeAndChangeCallback() throws {
        let doc = try documentWithPages(2)
        var changes = 0
        var counts: [Int] = []
        doc.bookmarks.onChange = { manager in
            changes += 1
            counts.append((try? manager.bookmarks().count) ?? -1)  // the callback sees the change
        }
        let b = Bookmark(pageIndex: 0)
        try doc.bookmarks.add(b)
        try doc.bookmarks.remove(identifier: b.identifier)
        #expect(try doc.bookmarks.bookmarks().isEmpty)
        #expect(changes == 2)
        #expect(counts == [1, 0])
        #expect(throws: PDFError.self) { try doc.bookmarks.remove(identifier: b.identifier) }
        #expect(changes == 2)  // a failed change is not a change
    }

    @Test func theProviderChainRoutesAddsRemovesAndTheUnion() throws {
        let doc = try documentWithPages(3)
        let stored = Bookmark(identifier: "csv-1", action: .goTo(pageIndex: 2), name: "from csv", sortKey: 0)
        let gotoOnly = RecordingProvider([stored]) { $0.pageIndex != nil }
        let builtIn = try doc.bookmarks.builtInProvider()
        try doc.bookmarks.setProviders([gotoOnly, builtIn])
        #expect(gotoOnly.calls.isEmpty)  // providers load on first use
        #expect(ids(try doc.bookmarks.bookmarks()) == ["csv-1"])
        #expect(gotoOnly.calls == ["load"])

        let page = Bookmark(pageIndex: 0, name: "page")
        let link = Bookmark(action: .uri("https://example.com/"), name: "link")
        try doc.bookmarks.add(page)
        try doc.bookmarks.add(link)
        #expect(ids(gotoOnly.stored) == ["csv-1", page.identifier])
        #expect(ids(try builtIn.loadBookmarks()) == [link.identifier])  // declined by the first, taken by the second
        #expect(Set(ids(try doc.bookmarks.bookmarks())) == Set(["csv-1", page.identifier, link.identifier]))

        // A replacement goes to the owner; when the owner declines it, it moves down the chain.
        var moved = page
        moved.action = .named("FirstPage")
        try doc.bookmarks.add(moved)
        #expect(ids(gotoOnly.stored) == ["csv-1"])
        #expect(Set(ids(try builtIn.loadBookmarks())) == Set([link.identifier, page.identifier]))
        #expect(try doc.bookmarks.bookmark(identifier: page.identifier)?.action == .named("FirstPage"))

        // Remove asks the providers in order until the owner removes it.
        gotoOnly.calls = []
        try doc.bookmarks.remove(identifier: link.identifier)
        #expect(gotoOnly.calls == ["remove \(link.identifier)"])
        #expect(ids(try builtIn.loadBookmarks()) == [page.identifier])

        // Saving the document asks every provider to persist.
        _ = try doc.saved(.incremental)
        #expect(gotoOnly.saves == 1)
    }

    @Test func noProviderAcceptingAndProviderErrorsAreErrors() throws {
        let doc = try documentWithPages(1)
        let picky = RecordingProvider { _ in false }
        try doc.bookmarks.setProviders([picky])
        #expect(throws: PDFError.self) { try doc.bookmarks.add(Bookmark(pageIndex: 0)) }
        picky.failOnAdd = PDFError(.io, "the disk is full")
        #expect(throws: PDFError(.io, "the disk is full")) { try doc.bookmarks.add(Bookmark(pageIndex: 0)) }
        #expect(try doc.bookmarks.bookmarks().isEmpty)
    }

    @Test func aProviderCallingBackIntoTheManagerGetsAStateError() throws {
        let doc = try documentWithPages(1)
        final class Reentrant: BookmarkProvider {
            weak var doc: Document?
            var error: PDFError?
            func loadBookmarks() throws -> [Bookmark] { [] }
            func add(_ bookmark: Bookmark) throws -> Bool {
                do { _ = try doc?.bookmarks.bookmarks(sortedBy: .custom); try doc?.bookmarks.add(Bookmark(pageIndex: 0)) } catch let e as PDFError { error = e }
                return true
            }
            func remove(_ bookmark: Bookmark) throws -> Bool { false }
            func save() throws {}
        }
        let provider = Reentrant()
        provider.doc = doc
        try doc.bookmarks.setProviders([provider])
        try doc.bookmarks.add(Bookmark(pageIndex: 0))
        #expect(provider.error?.kind == .state)
        #expect(try doc.bookmarks.bookmarks().count == 1)
    }

    @Test func everyPropertySurvivesSaveAndReopen() throws {
        for mode in [SaveMode.incremental, .full(objectStreams: false), .full(objectStreams: true)] {
            let doc = try documentWithPages(4)
            let other = PDFDictionary([("S", .name("JavaScript")), ("JS", .string(PDFString(text: "app.alert('hi')")))])
            let list = [
                Bookmark(pageIndex: 3, name: "Chapter ✓ 3"),
                Bookmark(action: .uri("https://example.com/a?b=c"), name: nil),
                Bookmark(action: .named("NextPage"), name: "next"),
                Bookmark(action: .other(other), name: "script"),
            ]
            for b in list { try doc.bookmarks.add(b) }
            try doc.bookmarks.move(identifier: list[2].identifier, to: 0)
            #expect(doc.hasUnsavedChanges)  // the built-in provider writes into the journal
            let before = try doc.bookmarks.bookmarks(sortedBy: .custom)
            let reopened = try reopen(try doc.saved(mode))
            let after = try reopened.bookmarks.bookmarks(sortedBy: .custom)
            #expect(after == before, "\(mode)")
            #expect(after.map(\.sortKey) == [0, 1, 2, 3])
        }
    }

    @Test func goToBookmarksFollowTheirPageObject() throws {
        let doc = try documentWithPages(3)
        let b = Bookmark(pageIndex: 2)
        try doc.bookmarks.add(b)
        // Reverse the page order behind the bookmark's back.
        try doc.setValue(.array([.reference(ObjectID(5)), .reference(ObjectID(4)), .reference(ObjectID(3))]), forKey: "Kids", inObject: 2)
        let reopened = try reopen(try doc.saved(.incremental))
        #expect(try reopened.bookmarks.bookmark(identifier: b.identifier)?.pageIndex == 0)
    }

    @Test func storedEntriesAreWrittenAgainAfterAFullSaveRenumbers() throws {
        // The built-in provider writes back the entries of unchanged bookmarks as they are
        // stored; after the document continues from a full save, which renumbers objects,
        // those entries name pages by their old numbers and must be made again.
        var b = PDFBuilder()
        b.object(1, "<< /Type /Catalog /Pages 2 0 R /QUIR_Bookmarks 20 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [30 0 R 31 0 R 32 0 R] /Count 3 /MediaBox [0 0 612 792] >>")
        for n in 30...32 { b.object(n, "<< /Type /Page /Parent 2 0 R >>") }
        b.object(20, "<< /Version 1 /Bookmarks [<< /ID (stored) /A << /S /GoTo /D [32 0 R /Fit] >> >>] >>")
        b.finishWithTable()
        let doc = try Document(data: b.bytes)
        #expect(try doc.bookmarks.bookmark(identifier: "stored")?.pageIndex == 2)
        var full: [UInt8] = []
        try doc.save(mode: .full(objectStreams: false)) { full += $0 }
        #expect(try doc.page(at: 2).id?.number != 32)  // renumbered
        try doc.bookmarks.add(Bookmark(pageIndex: 0, name: "new"))
        let reopened = try reopen(try doc.saved(.incremental))
        #expect(try reopened.bookmarks.bookmark(identifier: "stored")?.pageIndex == 2)
        #expect(try reopened.bookmarks.bookmarks(sortedBy: .pageBased).map(\.pageIndex) == [0, 2])
    }

    @Test func incrementalSaveKeepsEveryEarlierByteAndAppendsLittle() throws {
        let doc = try documentWithPages(2)
        let original = try doc.saved(.full(objectStreams: false))
        let opened = try reopen(original)
        try opened.bookmarks.add(Bookmark(pageIndex: 1, name: "mine"))
        let saved = try opened.saved(.incremental)
        #expect(Array(saved.prefix(original.count)) == original)
        #expect(saved.count - original.count < 2_000)
        // A second session adds to what the first stored.
        let again = try reopen(saved)
        try again.bookmarks.add(Bookmark(pageIndex: 0, name: "second"))
        let third = try reopen(try again.saved(.incremental))
        #expect(try third.bookmarks.bookmarks(sortedBy: .custom).map(\.name) == ["mine", "second"])
    }

    @Test func aNewerFormatIsRefusedNotOverwritten() throws {
        let doc = try documentWithPages(1, catalog: "/QUIR_Bookmarks 20 0 R") { b in
            b.object(20, "<< /Version 2 /Bookmarks [] >>")
        }
        #expect(throws: PDFError.self) { try doc.bookmarks.bookmarks() }
        #expect(throws: PDFError.self) { try doc.bookmarks.add(Bookmark(pageIndex: 0)) }
        #expect(!doc.hasUnsavedChanges)
    }

    @Test func damagedStoredBookmarksAreSkippedWithWarnings() throws {
        let doc = try documentWithPages(2, catalog: "/QUIR_Bookmarks 20 0 R") { b in
            b.object(20, """
                << /Version 1 /Bookmarks [ << /Name (no id) /A << /S /Named /N /NextPage >> >>
                  << /ID (a) /A << /S /GoTo /D [4 0 R /Fit] >> /SortKey 5 >>
                  << /ID (a) /A << /S /Named /N /PrevPage >> >>
                  << /ID (b) >> 7 << /ID (c) /A << /S /GoTo /D [99 0 R /Fit] >> >> ] >>
                """)
        }
        let list = try doc.bookmarks.bookmarks(sortedBy: .custom)
        #expect(list.map(\.identifier) == ["a", "c"])
        #expect(list[0].pageIndex == 1 && list[0].sortKey == 5)
        if case .other(let d) = list[1].action { #expect(d["S"] == .name("GoTo")) } else { Issue.record("a go-to to a lost page is kept as it is") }
        #expect(doc.file.warnings.count >= 4)
    }

    @Test func exportToOutlineAddsItemsAndReplacesAnEarlierExport() throws {
        let doc = try documentWithPages(3, catalog: "/Outlines 20 0 R") { b in
            b.object(20, "<< /Type /Outlines /First 21 0 R /Last 21 0 R /Count 1 >>")
            b.object(21, "<< /Title (Own item) /Parent 20 0 R /Dest [3 0 R /Fit] >>")
        }
        let p = Bookmark(pageIndex: 2, name: "Mine")
        let u = Bookmark(action: .uri("https://example.com/"))
        try doc.bookmarks.add(u)
        try doc.bookmarks.add(p)
        #expect(try doc.exportBookmarksToOutline(order: .pageBased) == 2)
        var outline = try doc.outline()
        #expect(outline.map(\.title) == ["Own item", "Mine", "https://example.com/"])
        #expect(outline[1].target?.pageIndex == 2)
        if case .uri(let s, _)? = outline[2].action?.kind { #expect(s == "https://example.com/") } else { Issue.record("a URI action") }

        try doc.bookmarks.remove(identifier: u.identifier)
        try doc.exportBookmarksToOutline()
        let reopened = try reopen(try doc.saved(.incremental))
        outline = try reopened.outline()
        #expect(outline.map(\.title) == ["Own item", "Mine"])
        #expect(try reopened.outlineItemCount() == 2)
        #expect(reopened.file.warnings.isEmpty)
    }

    @Test func exportMakesAnOutlineWhenThereIsNone() throws {
        let doc = try documentWithPages(2)
        try doc.bookmarks.add(Bookmark(pageIndex: 1))
        try doc.exportBookmarksToOutline()
        let reopened = try reopen(try doc.saved(.full(objectStreams: false)))
        #expect(try reopened.outline().map(\.title) == ["Page 2"])
    }

    @Test func encryptedDocumentsKeepTheirBookmarks() throws {
        let dir = try #require(corpusDirectory)
        let doc = try Document(path: dir + "/qpdf/qpdf/qtest/qpdf/enc-R3,V2,U=view,O=master.pdf", options: OpenOptions(password: "view"))
        let b = Bookmark(pageIndex: 0, name: "secret name")
        try doc.bookmarks.add(b)
        let bytes = try doc.saved(.incremental)
        #expect(bytes.firstRange(of: Array("secret name".utf8)) == nil)  // the name is encrypted
        let reopened = try reopen(bytes, password: "view")
        #expect(try reopened.bookmarks.bookmark(identifier: b.identifier) == b.with(sortKey: 0))
    }
}

extension Bookmark {
    func with(sortKey: Int?) -> Bookmark {
        var copy = self
        copy.sortKey = sortKey
        return copy
    }
}
