import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

// Issue 31: undo that never overwrites someone else's work, redo that never loses a step.

/// Two pages; page 1 has squares A (10, no /M) and B (11, over A), a locked square (12,
/// /F 128+4), a square whose contents are locked (13, /F 512+4), a note (14) with a popup
/// (15) and a reply (16). /Annots is an indirect array (object 5).
func undoDocument() throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /Annots 5 0 R >>")
        b.object(4, "<< /Type /Page /Parent 2 0 R >>")
        b.object(5, "[10 0 R 11 0 R 12 0 R 13 0 R 14 0 R 15 0 R 16 0 R]")
        b.object(10, "<< /Type /Annot /Subtype /Square /Rect [100 100 200 200] /C [1 0 0] /F 4 /NM (A) >>")
        b.object(11, "<< /Type /Annot /Subtype /Square /Rect [150 150 250 250] /C [0 0 1] /F 4 /NM (B) /M (D:20240101000000Z) >>")
        b.object(12, "<< /Type /Annot /Subtype /Square /Rect [300 100 400 200] /F 132 /NM (L) >>")
        b.object(13, "<< /Type /Annot /Subtype /Square /Rect [300 300 400 400] /F 516 /NM (LC) /Contents (fixed) >>")
        b.object(14, "<< /Type /Annot /Subtype /Text /Rect [100 600 120 620] /F 4 /NM (N) /Contents (note) /Popup 15 0 R >>")
        b.object(15, "<< /Type /Annot /Subtype /Popup /Rect [120 500 300 620] /Parent 14 0 R >>")
        b.object(16, "<< /Type /Annot /Subtype /Text /Rect [100 580 120 600] /F 4 /NM (R) /IRT 14 0 R /Contents (reply) >>")
    }
}

/// The object numbers in page `index`'s /Annots, in order.
private func annotsOrder(_ doc: Document, _ index: Int) throws -> [Int] {
    try doc.annotations(onPage: index).compactMap { $0.id?.number }
}

private func drag(_ m: ToolManager, _ from: Point, _ to: Point, page: Int = 0) throws {
    try m.send(PointerEvent(.dragBegin, pageIndex: page, from))
    try m.send(PointerEvent(.dragMove, pageIndex: page, Point(x: (from.x + to.x) / 2, y: (from.y + to.y) / 2)))
    try m.send(PointerEvent(.dragEnd, pageIndex: page, to))
}

private func tap(_ m: ToolManager, _ p: Point, page: Int = 0) throws {
    try m.send(PointerEvent(.tap, pageIndex: page, p))
}

@Suite("Tool manager undo (issue 31)")
struct ToolManagerUndoTests {
    /// Defect 1: a move, then the contents set outside the manager (as a collaborator's
    /// synced change or a script would): undo is refused, the step dropped, the contents
    /// and the move kept.
    @Test func undoRefusesAnAnnotationChangedOutside() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try drag(m, Point(x: 110, y: 110), Point(x: 120, y: 130))  // A, below B's corner
        let id = ObjectID(10, 0)
        #expect(try doc.annotation(id)?.rect == Rect(left: 110, bottom: 120, right: 210, top: 220))
        var a = try #require(try doc.annotation(id))
        a.contents = "a collaborator's comment"
        try doc.updateAnnotation(a)
        let before = try doc.object(10)
        #expect(m.canUndo)
        #expect(throws: PDFError.self) { try m.undo() }
        #expect(try doc.object(10) == before)
        #expect(try doc.annotation(id)?.contents == "a collaborator's comment")
        #expect(!m.canUndo && !m.canRedo)  // dropped
        #expect(try m.undo() == false)
    }

    /// Defect 1, the same through the sync path: a remote change arrives as an annotation
    /// JSON import of the same record.
    @Test func undoRefusesARemoteChangeImportedAsJSON() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try drag(m, Point(x: 110, y: 110), Point(x: 120, y: 130))
        var json = try doc.annotationsInstantJSON(page: 0)
        let k = try #require(json.annotations.firstIndex { $0.name == "A" })
        json.annotations[k].note = "remote"
        _ = try doc.importAnnotations(json)
        let remote = try doc.object(10)
        #expect(throws: PDFError.self) { try m.undo() }
        #expect(try doc.object(10) == remote)
    }

    /// Defect 2: draw, undo, redo, set contents, undo, undo, redo, redo: every step comes
    /// back, on the same object, and nothing is lost.
    @Test func redoNeverLosesAStep() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try m.setTool(.builtIn(.square))
        try drag(m, Point(x: 100, y: 300), Point(x: 200, y: 400), page: 1)
        let square = try #require(try doc.annotations(onPage: 1).first?.id)
        #expect(try m.undo())
        #expect(try doc.annotations(onPage: 1).isEmpty)
        #expect(try m.redo())
        #expect(try doc.annotations(onPage: 1).first?.id == square)  // the same object
        m.select(square)
        try m.setSelectionContents("hello")
        #expect(try m.undo())
        #expect(try m.undo())
        #expect(try m.redo())
        #expect(try m.redo())
        #expect(try doc.annotation(square)?.contents == "hello")
        #expect(try m.redo() == false)
    }

    /// Defect 2 after an undone deletion: move, delete, undo, edit, undo, undo, redo, redo:
    /// the steps recorded before the deletion and after its undo name the same object.
    @Test func redoAfterAnUndoneDeletion() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        let a = ObjectID(10, 0)
        try drag(m, Point(x: 110, y: 110), Point(x: 120, y: 130))  // moves A
        m.select(a)
        try m.deleteSelection()
        #expect(try doc.annotation(a) == nil)
        #expect(try m.undo())
        #expect(try doc.annotation(a) != nil)  // the same object number
        m.select(a)
        try m.setSelectionContents("edited")
        #expect(try m.undo())  // the contents
        #expect(try m.undo())  // the move
        #expect(try doc.annotation(a)?.rect == Rect(left: 100, bottom: 100, right: 200, top: 200))
        #expect(try m.redo())  // the move
        #expect(try m.redo())  // the contents
        #expect(try doc.annotation(a)?.contents == "edited")
        #expect(try doc.annotation(a)?.rect == Rect(left: 110, bottom: 120, right: 210, top: 220))
        #expect(try m.redo() == false)
    }

    /// Defect 3: A under B; delete A; undo: A is under B again.
    @Test func undoingADeletionKeepsTheStackingOrder() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        let order = try annotsOrder(doc, 0)
        m.select(ObjectID(10, 0))
        try m.deleteSelection()
        #expect(try annotsOrder(doc, 0) == order.filter { $0 != 10 })
        #expect(try m.undo())
        #expect(try annotsOrder(doc, 0) == order)
        // Also when someone else added an annotation to the page in between.
        try m.deleteSelectionAfterSelecting(ObjectID(10, 0))
        let other = try doc.addAnnotation(Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 0, bottom: 0, right: 10, top: 10)))
        #expect(try m.undo())
        #expect(try annotsOrder(doc, 0) == order + [try #require(other.id).number])
    }

    /// Defect 4: a locked annotation (/F 128) is not deleted; one with locked contents
    /// (/F 512) keeps its contents; both are still selected and readable.
    @Test func lockedAnnotationsAreNotDeletedOrEdited() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try tap(m, Point(x: 350, y: 150))
        #expect(m.selection == ObjectID(12, 0))
        #expect(throws: PDFError.self) { try m.deleteSelection() }
        #expect(try doc.annotation(ObjectID(12, 0)) != nil)
        // Moving it is refused too (nothing happens), and it shows no handles.
        try drag(m, Point(x: 350, y: 150), Point(x: 360, y: 170))
        #expect(try doc.annotation(ObjectID(12, 0))?.rect == Rect(left: 300, bottom: 100, right: 400, top: 200))
        // Locked contents: the contents stay; deleting is allowed.
        try tap(m, Point(x: 350, y: 350))
        #expect(m.selection == ObjectID(13, 0))
        #expect(throws: PDFError.self) { try m.setSelectionContents("changed") }
        #expect(try doc.annotation(ObjectID(13, 0))?.contents == "fixed")
        try m.deleteSelection()
        #expect(try doc.annotation(ObjectID(13, 0)) == nil)
    }

    /// Defect 7: undo restores the annotation exactly: no fresh /M on one that had none,
    /// the same appearance; undo-all gives back every object of the start.
    @Test func undoRestoresExactlyWithoutANewModificationDate() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        func state() throws -> [PDFObject?] { try (1...16).map { doc.isInUse($0) ? try doc.object($0) : nil } }
        let start = try state()
        try drag(m, Point(x: 110, y: 110), Point(x: 120, y: 130))
        #expect(try doc.object(10).dictionary?["M"] != nil)
        m.select(ObjectID(14, 0))
        try m.deleteSelection()  // the note and its popup
        #expect(try doc.annotation(ObjectID(15, 0)) == nil)
        try m.setTool(.builtIn(.circle))
        try drag(m, Point(x: 400, y: 500), Point(x: 450, y: 550))
        while try m.undo() {}
        #expect(try state() == start)
        #expect(try doc.object(10).dictionary?["M"] == nil)
        #expect(try doc.annotation(ObjectID(16, 0))?.inReplyTo == ObjectID(14, 0))
        #expect(try doc.annotation(ObjectID(14, 0))?.popup == ObjectID(15, 0))
    }

    /// Undo after an incremental save (the objects now read back from the file) works; a
    /// full save renumbers the objects, which drops the history.
    @Test func undoAfterSaving() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try drag(m, Point(x: 110, y: 110), Point(x: 120, y: 130))
        try doc.save(mode: .incremental) { _ in }
        #expect(try m.undo())
        #expect(try doc.annotation(ObjectID(10, 0))?.rect == Rect(left: 100, bottom: 100, right: 200, top: 200))
        #expect(try m.redo())
        try doc.save(mode: .full(objectStreams: false)) { _ in }
        #expect(!m.canUndo)
        #expect(try m.undo() == false)
    }
}

extension ToolManager {
    fileprivate func deleteSelectionAfterSelecting(_ id: ObjectID) throws {
        select(id)
        try deleteSelection()
    }
}
