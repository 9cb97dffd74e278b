import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

// Issue 31: what a viewer needs of the tool manager: multiple selection, previews, handles,
// replies and review states, the history's descriptions.

private func drag(_ m: ToolManager, _ from: Point, _ to: Point, page: Int = 0, shift: Bool = false) throws {
    let mods: PointerEvent.Modifiers = shift ? [.shift] : []
    try m.send(PointerEvent(.dragBegin, pageIndex: page, from, modifiers: mods))
    try m.send(PointerEvent(.dragMove, pageIndex: page, Point(x: (from.x + to.x) / 2, y: (from.y + to.y) / 2), modifiers: mods))
    try m.send(PointerEvent(.dragEnd, pageIndex: page, to, modifiers: mods))
}

private func tap(_ m: ToolManager, _ p: Point, page: Int = 0, shift: Bool = false) throws {
    try m.send(PointerEvent(.tap, pageIndex: page, p, modifiers: shift ? [.shift] : []))
}

@Suite("Tool manager for viewers (issue 31)")
struct ToolManagerViewerTests {
    /// Multiple selection: a Shift-tap adds, a Shift-drag on empty space draws a rubber
    /// band, a drag moves them all (one step), a delete removes them all (one step).
    @Test func multipleSelectionGroupMoveAndDelete() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try tap(m, Point(x: 110, y: 110))  // A
        try tap(m, Point(x: 240, y: 240), shift: true)  // B
        #expect(m.selectedAnnotations == [ObjectID(10, 0), ObjectID(11, 0)])
        try tap(m, Point(x: 240, y: 240), shift: true)  // B again: out
        #expect(m.selectedAnnotations == [ObjectID(10, 0)])
        try tap(m, Point(x: 500, y: 750))  // empty: nothing
        #expect(m.selectedAnnotations.isEmpty)
        // A rubber band over A and B (and the locked square's corner).
        try drag(m, Point(x: 90, y: 90), Point(x: 310, y: 260), shift: true)
        #expect(m.selectedAnnotations == [ObjectID(10, 0), ObjectID(11, 0), ObjectID(12, 0)])
        #expect(m.current.id == .builtIn(.annotEdit))
        // The preview of a group move.
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, Point(x: 110, y: 110)))
        try m.send(PointerEvent(.dragMove, pageIndex: 0, Point(x: 115, y: 120)))
        let preview = try #require(m.preview)
        #expect(preview.kind == .move && preview.offset == Point(x: 5, y: 10))
        #expect(preview.annotations == [ObjectID(10, 0), ObjectID(11, 0)])  // the locked one stays
        try m.send(PointerEvent(.dragEnd, pageIndex: 0, Point(x: 120, y: 130)))
        #expect(m.preview == nil)
        #expect(try doc.annotation(ObjectID(10, 0))?.rect == Rect(left: 110, bottom: 120, right: 210, top: 220))
        #expect(try doc.annotation(ObjectID(11, 0))?.rect == Rect(left: 160, bottom: 170, right: 260, top: 270))
        #expect(try doc.annotation(ObjectID(12, 0))?.rect == Rect(left: 300, bottom: 100, right: 400, top: 200))
        #expect(m.undoSteps.first?.description == "Move 2 annotations")
        try m.select([ObjectID(12, 0)], mode: .remove)
        try m.deleteSelection()
        #expect(try doc.annotation(ObjectID(10, 0)) == nil && doc.annotation(ObjectID(11, 0)) == nil)
        #expect(m.undoSteps.first?.description == "Delete 2 annotations")
        #expect(try m.undo())
        #expect(try m.undo())
        #expect(try doc.annotation(ObjectID(11, 0))?.rect == Rect(left: 150, bottom: 150, right: 250, top: 250))
    }

    /// Previews of the drawing tools, and the handles of a single selection.
    @Test func previewsAndHandles() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try m.setTool(.builtIn(.square))
        try m.send(PointerEvent(.dragBegin, pageIndex: 1, Point(x: 200, y: 100)))
        try m.send(PointerEvent(.dragMove, pageIndex: 1, Point(x: 100, y: 150)))
        #expect(m.preview == ToolPreview(kind: .rect, tool: .builtIn(.square), pageIndex: 1,
                                         rect: Rect(left: 100, bottom: 100, right: 200, top: 150)))
        try m.send(PointerEvent(.cancel, pageIndex: 1, Point(x: 0, y: 0)))
        #expect(m.preview == nil)
        try m.setTool(.builtIn(.arrow))
        try m.send(PointerEvent(.dragBegin, pageIndex: 1, Point(x: 10, y: 20)))
        try m.send(PointerEvent(.dragMove, pageIndex: 1, Point(x: 30, y: 40)))
        #expect(m.preview?.kind == .segment && m.preview?.paths == [[10, 20, 30, 40]])
        try m.setTool(.builtIn(.ink))
        try drag(m, Point(x: 10, y: 10), Point(x: 20, y: 20), page: 1)
        try m.send(PointerEvent(.dragBegin, pageIndex: 1, Point(x: 50, y: 50)))
        #expect(m.preview?.kind == .ink && m.preview?.paths == [[10, 10, 15, 15, 20, 20], [50, 50]])
        try m.setTool(.builtIn(.polygon))
        try tap(m, Point(x: 1, y: 2), page: 1)
        try tap(m, Point(x: 3, y: 4), page: 1)
        #expect(m.preview?.kind == .vertices && m.preview?.paths == [[1, 2, 3, 4]] && m.preview?.closed == true)
        try m.setTool(.pan)
        try tap(m, Point(x: 110, y: 110))
        #expect(try m.selectionHandles() == [Point(x: 100, y: 100), Point(x: 200, y: 100), Point(x: 100, y: 200),
                                              Point(x: 200, y: 200), Point(x: 100, y: 150), Point(x: 200, y: 150),
                                              Point(x: 150, y: 100), Point(x: 150, y: 200)])
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, Point(x: 200, y: 100)))
        try m.send(PointerEvent(.dragMove, pageIndex: 0, Point(x: 230, y: 90)))
        #expect(m.preview?.kind == .resize && m.preview?.rect == Rect(left: 100, bottom: 90, right: 230, top: 200))
    }

    /// Replies and review states from the manager: each one undo step, by the style's author.
    @Test func repliesAndStatesFromTheManager() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        var style = m.style
        style.author = "Ada"
        try m.setStyle(style)
        #expect(throws: PDFError.self) { try m.reply("nothing selected") }
        m.select(ObjectID(10, 0))
        let reply = try m.reply("I agree")
        let state = try m.setReviewState("Accepted")
        #expect(try doc.comments(for: ObjectID(10, 0)).map(\.contents) == [nil, "I agree"])
        #expect(try doc.reviewSummary(for: ObjectID(10, 0)).current.map(\.state) == ["Accepted"])
        #expect(reply.author == "Ada" && state.author == "Ada")
        #expect(m.undoSteps.map(\.description) == ["Set state Accepted", "Reply to Square"])
        #expect(throws: PDFError.self) { try m.setReviewState("Maybe") }
        #expect(try m.undo() && m.undo())
        #expect(try doc.comments(for: ObjectID(10, 0)).count == 1)
        #expect(try m.redo() && m.redo())
        #expect(try doc.reviewSummary(for: ObjectID(10, 0)).current.first?.id == state.id)
    }

    /// A step reaches the change log's readers (checkpoints, the sync client) as one group:
    /// a group move of two annotations calls a change observer once; pointer events that
    /// change nothing do not call it at all.
    @Test func aStepIsOneGroupAndEventsThatChangeNothingAreQuiet() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        let counter = CountingObserver()
        doc.addChangeObserver(counter)
        var calls: Int { counter.calls }
        try tap(m, Point(x: 500, y: 750))
        try m.send(PointerEvent(.dragMove, pageIndex: 0, Point(x: 1, y: 1)))
        try m.select([ObjectID(10, 0), ObjectID(11, 0)], mode: .replace)
        #expect(calls == 0)
        try drag(m, Point(x: 110, y: 110), Point(x: 130, y: 120))
        #expect(calls == 1)
        #expect(try m.undo())
        #expect(calls == 2)
    }

    @Test func historyDescriptionsAndLockedGroups() throws {
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        try m.setTool(.builtIn(.square))
        try drag(m, Point(x: 100, y: 300), Point(x: 200, y: 400), page: 1)
        let square = try #require(try doc.annotations(onPage: 1).first?.id)
        m.select(square)
        try m.setSelectionContents("hello")
        #expect(m.undoSteps.map(\.description) == ["Edit Square", "Add Square"])
        #expect(m.undoSteps.first?.annotations == [square])
        #expect(try m.undo())
        #expect(m.redoSteps.map(\.description) == ["Edit Square"] && m.canRedo && m.canUndo)
        // A locked square has no handles; a group delete with it deletes nothing.
        m.select(ObjectID(12, 0))
        #expect(try m.selectionHandles().isEmpty)
        try m.select([ObjectID(10, 0), ObjectID(12, 0)], mode: .replace)
        #expect(try m.selectionHandles().isEmpty)  // several selected
        #expect(throws: PDFError.self) { try m.deleteSelection() }
        #expect(try doc.annotation(ObjectID(10, 0)) != nil)
        #expect(throws: PDFError.self) { try m.select([ObjectID(2, 0)], mode: .add) }  // not an annotation
    }
}

/// A change observer that counts its calls.
final class CountingObserver: ChangeObserver {
    var calls = 0, saves = 0
    var log: [Change] = []
    func changesMade(_ log: [Change], in document: Document) throws {
        calls += 1
        self.log = log
    }
    func didSave(_ saved: ByteBuffer, of document: Document) throws { saves += 1 }
}
