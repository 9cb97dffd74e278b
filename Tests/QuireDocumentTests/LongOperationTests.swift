import Testing
@testable import QuireDocument
import QuireSyntax
import QuireTestSupport

// Issue 40: progress and cancellation of the long operations (all or nothing for the ones
// that change the document), a widget's author, and the build's description.

/// Two pages, a square on each (with an appearance, so that flattening draws them), and a
/// text field whose widget's /T is its name.
private func twoPages() throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [7 0 R] /DA (/Helv 0 Tf 0 g) >> >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [5 0 R 7 0 R] >>")
        b.object(4, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [6 0 R] >>")
        b.object(5, "<< /Type /Annot /Subtype /Square /Rect [10 10 50 50] /NM (sq-1) /T (Ada) /AP << /N 8 0 R >> >>")
        b.object(6, "<< /Type /Annot /Subtype /Square /Rect [10 10 50 50] /NM (sq-2) /T (Bob) /AP << /N 8 0 R >> >>")
        b.object(7, "<< /FT /Tx /T (Combo1) /V (x) /Subtype /Widget /Rect [60 60 150 80] /P 3 0 R >>")
        b.object(8, "<< /Type /XObject /Subtype /Form /BBox [0 0 40 40] /Length 8 >>\nstream\n0 0 m S\n\nendstream")
    }
}

/// Records each call and throws at call `cancelAt` (0: never).
private final class StepLog {
    var calls: [(Int, Int)] = []
    let cancelAt: Int
    init(cancelAt: Int = 0) { self.cancelAt = cancelAt }
    struct Cancelled: Error {}
    var handler: ProgressHandler {
        { done, total in
            self.calls.append((done, total))
            if self.cancelAt > 0 && self.calls.count >= self.cancelAt { throw Cancelled() }
        }
    }
    /// Rising to done == total, total fixed.
    var complete: Bool {
        guard let last = calls.last else { return false }
        return last.0 == last.1 && Set(calls.map(\.1)).count == 1 && calls.map(\.0) == calls.map(\.0).sorted()
    }
}

@Suite("Long operations: progress, cancellation, all or nothing (issue 40)")
struct LongOperationTests {
    @Test func aWidgetHasNoAuthor() throws {
        // sample.pdf's "Widget #23 by Combo1": the field's name read as the author.
        let d = try twoPages()
        let widget = try #require(try d.annotations(onPage: 0).first { $0.subtype == "Widget" })
        #expect(widget.author == nil)
        #expect(try d.annotations(onPage: 0).first { $0.subtype == "Square" }?.author == "Ada")
        var renamed = widget
        renamed.author = "Ada"
        #expect(throws: PDFError.self) { try d.updateAnnotation(renamed) }
        #expect(try d.formFields().map(\.name) == ["Combo1"])
        #expect(!d.hasUnsavedChanges)
    }

    @Test func flattenCancelledChangesNothing() throws {
        let d = try twoPages()
        for cancelAt in 1...3 {
            let p = StepLog(cancelAt: cancelAt)
            #expect(throws: StepLog.Cancelled.self) { try d.flatten(progress: p.handler) }
            #expect(!d.hasUnsavedChanges)
            #expect(d.changeLog.isEmpty)
            #expect(try d.annotations(onPage: 0).count == 2 && d.annotations(onPage: 1).count == 1)
            #expect(try d.formFields().count == 1)
        }
        let p = StepLog()
        #expect(try d.flatten(progress: p.handler) == 3)
        #expect(p.complete && p.calls.last! == (2, 2))
        #expect(try d.annotations(onPage: 0).isEmpty && d.annotations(onPage: 1).isEmpty)
    }

    @Test func jsonImportCancelledChangesNothing() throws {
        let source = try twoPages()
        var note = Annotation(subtype: "Text", pageIndex: 1, rect: Rect(left: 60, bottom: 60, right: 80, top: 80))
        note.name = "note-1"
        note.contents = "imported"
        try source.addAnnotation(note)
        let exportProgress = StepLog()
        let json = try source.exportAnnotationsJSON(page: nil, prettyPrinted: true, instantComments: false,
                                                     progress: exportProgress.handler)
        #expect(exportProgress.complete && exportProgress.calls.last! == (4, 4))
        #expect(json == (try source.exportAnnotationsJSON(page: nil)))

        let target = try twoPages()
        let complete = StepLog()
        let probe = try twoPages()
        _ = try probe.importAnnotationsJSON(json, progress: complete.handler)
        #expect(complete.complete)
        for cancelAt in [1, complete.calls.count] {  // the first step, and the last
            let p = StepLog(cancelAt: cancelAt)
            #expect(throws: StepLog.Cancelled.self) { try target.importAnnotationsJSON(json, progress: p.handler) }
            #expect(!target.hasUnsavedChanges)
            #expect(try target.annotations(onPage: 1).count == 1)
        }
        _ = try target.importAnnotationsJSON(json)
        #expect(try target.annotations(onPage: 1).map(\.name).contains("note-1"))
    }

    @Test func xfdfImportIsAllOrNothing() throws {
        let d = try twoPages()
        let xfdf = """
            <xfdf xmlns="http://ns.adobe.com/xfdf/"><annots>
            <text page="0" rect="1,1,20,20" name="a"><contents>first</contents></text>
            <text page="1" rect="1,1,20,20" name="b" inreplyto="nowhere"><contents>second</contents></text>
            </annots></xfdf>
            """
        // The reply to a name that is nowhere fails after the first note was added: before,
        // the first note stayed; now nothing does.
        #expect(throws: PDFError.self) { try d.importXFDF(Array(xfdf.utf8)) }
        #expect(!d.hasUnsavedChanges)
        #expect(try d.annotations(onPage: 0).count == 2)
        let good = xfdf.replacing(" inreplyto=\"nowhere\"", with: "")
        let cancel = StepLog(cancelAt: 2)
        #expect(throws: StepLog.Cancelled.self) { try d.importXFDF(Array(good.utf8), progress: cancel.handler) }
        #expect(!d.hasUnsavedChanges)
        let p = StepLog()
        #expect(try d.importXFDF(Array(good.utf8), progress: p.handler) == 2)
        #expect(p.complete && p.calls.last! == (2, 2))
        let export = StepLog()
        _ = try d.exportXFDF(progress: export.handler)
        #expect(export.complete && export.calls.last! == (4, 4))
    }

    @Test func searchAndTextReportPages() throws {
        let d = try twoPages()
        let p = StepLog()
        _ = try d.searchText("x", progress: p.handler)
        #expect(p.complete && p.calls.last! == (2, 2))
        let t = StepLog()
        let text = try d.documentText(progress: t.handler)
        #expect(t.complete && t.calls.last! == (2, 2))
        #expect(text.filter { $0 == "\u{0C}" }.count == 2)
        let cancel = StepLog(cancelAt: 1)
        #expect(throws: StepLog.Cancelled.self) { try d.documentText(progress: cancel.handler) }
    }

    @Test func buildInfoNamesTheVersionAndTheCheckpointDirectory() throws {
        guard case .object(let o) = BuildInfo.json(version: "0.5.0", features: ["sync_client": false]) else {
            Issue.record("not an object")
            return
        }
        #expect(o["abi"] == .string("0.5") && o["soname"] == .string("libquire.so.0.5"))
        #expect(o["features"] == .object(["sync_client": .bool(false)]))
        #expect(o["checkpoint_directory"] == .string(CheckpointOptions.defaultDirectory()))
        #expect(BuildInfo.abi(of: "1.2.3").soname == "libquire.so.1")
    }
}
