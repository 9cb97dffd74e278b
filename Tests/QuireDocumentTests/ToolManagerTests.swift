import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// A page with a square (markup), a link to page 2, a widget, a hidden square, a reply
/// and a no-view square, each in its own place.
private func toolDocument() throws -> Document {
    try document { b in
        b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
        b.object(2, "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>")
        b.object(3, "<< /Type /Page /Parent 2 0 R /Annots [10 0 R 11 0 R 12 0 R 13 0 R 14 0 R 15 0 R] >>")
        b.object(4, "<< /Type /Page /Parent 2 0 R >>")
        b.object(10, "<< /Type /Annot /Subtype /Square /Rect [100 100 200 200] /C [1 0 0] >>")
        b.object(11, "<< /Type /Annot /Subtype /Link /Rect [300 100 400 120] /Dest [4 0 R /Fit] >>")
        b.object(12, "<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [300 300 400 320] >>")
        b.object(13, "<< /Type /Annot /Subtype /Square /Rect [100 400 200 500] /F 2 >>")
        b.object(14, "<< /Type /Annot /Subtype /Text /Rect [100 600 120 620] /IRT 10 0 R >>")
        b.object(15, "<< /Type /Annot /Subtype /Square /Rect [400 600 500 700] /F 32 >>")
    }
}

/// One line of Helvetica 12 at (100, 700): "Hello world".
private func helloDocument() throws -> Document {
    var b = PDFBuilder()
    b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
    b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
    b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 10 0 R >> >> >>")
    b.stream(4, "", Array("BT /F1 12 Tf 100 700 Td (Hello world) Tj ET".utf8))
    b.object(10, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    b.finishWithTable()
    return try Document(data: b.bytes)
}

private final class Recorder {
    var events: [ToolEvent] = []
    init(_ m: ToolManager) { m.onEvent = { [unowned self] in self.events.append($0) } }
}

/// A tool that never handles anything and names itself: the loop's guard must stop it.
private final class StubbornTool: Tool {
    let id = ToolID.custom("stubborn")
    func handle(_ event: PointerEvent, in manager: ToolManager) throws -> Bool { false }
    func nextTool(in manager: ToolManager) -> ToolID { .custom("stubborn") }
}

/// A custom tool that hands taps to the sticky-note tool.
private final class HandOffTool: Tool {
    let id = ToolID.custom("handoff")
    var seen = 0
    func handle(_ event: PointerEvent, in manager: ToolManager) throws -> Bool { seen += 1; return false }
    func nextTool(in manager: ToolManager) -> ToolID { .builtIn(.stickyNote) }
}

@Suite("Coordinates and hit testing")
struct CoordinateTests {
    @Test func deviceRoundTripAllRotations() throws {
        let g = PageGeometry(box: Rect(left: 10, bottom: 20, right: 310, top: 420), rotation: 90)
        #expect(g.displayedSize == (400, 300))
        for rotate in 0..<4 {
            let view = PageView(startX: 5, startY: 7, sizeX: 800, sizeY: 600, rotate: rotate)
            let p = Point(x: 50, y: 300)
            let d = try g.pageToDevice(p, view: view)
            let back = try g.deviceToPage(d, view: view)
            #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
        }
        // No page rotation, no view rotation: the crop box's top-left is the device origin.
        let flat = PageGeometry(box: Rect(left: 0, bottom: 0, right: 612, top: 792), rotation: 0)
        let d = try flat.pageToDevice(Point(x: 0, y: 792), view: PageView(sizeX: 1224, sizeY: 1584))
        #expect(d == Point(x: 0, y: 0))
        let q = try flat.deviceToPage(Point(x: 1224, y: 1584), view: PageView(sizeX: 1224, sizeY: 1584))
        #expect(q == Point(x: 612, y: 0))
        #expect(throws: PDFError.self) { try flat.deviceToPage(Point(x: .nan, y: 0), view: PageView(sizeX: 1, sizeY: 1)) }
        #expect(throws: PDFError.self) { try flat.deviceToPage(Point(x: 0, y: 0), view: PageView(sizeX: 0, sizeY: 0)) }
    }

    @Test func cropBoxClippedToMedia() throws {
        let doc = try document { b in
            b.object(1, "<< /Type /Catalog /Pages 2 0 R >>")
            b.object(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
            b.object(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /CropBox [-50 100 300 900] /Rotate 270 >>")
        }
        let g = try doc.page(at: 0).geometry()
        #expect(g.box == Rect(left: 0, bottom: 100, right: 300, top: 800))
        #expect(g.rotation == 270)
    }

    @Test func hitTestRespectsFlagsRepliesAndKinds() throws {
        let doc = try toolDocument()
        #expect(try doc.hitTest(pageIndex: 0, at: Point(x: 150, y: 150)).annotation?.subtype == "Square")
        if case .link(let a) = try doc.hitTest(pageIndex: 0, at: Point(x: 350, y: 110)) {
            #expect(a.linkTarget() == .page(1))
        } else { Issue.record("the link is not hit") }
        if case .widget = try doc.hitTest(pageIndex: 0, at: Point(x: 350, y: 310)) {} else { Issue.record("the widget is not hit") }
        #expect(try doc.hitTest(pageIndex: 0, at: Point(x: 150, y: 450)) == .none)  // hidden
        #expect(try doc.hitTest(pageIndex: 0, at: Point(x: 110, y: 610)) == .none)  // reply
        #expect(try doc.hitTest(pageIndex: 0, at: Point(x: 450, y: 650)) == .none)  // no-view
        #expect(try doc.hitTest(pageIndex: 0, at: Point(x: 203, y: 150)) == .none)
        #expect(try doc.hitTest(pageIndex: 0, at: Point(x: 203, y: 150), tolerance: 4).annotation != nil)
        #expect(throws: PDFError.self) { try doc.hitTest(pageIndex: 5, at: Point(x: 0, y: 0)) }
        #expect(throws: PDFError.self) { try doc.hitTest(pageIndex: 0, at: Point(x: .infinity, y: 0)) }
    }
}

@Suite("Tool manager")
struct ToolManagerTests {
    /// The seed's walkthrough: Pan current, tap on a markup annotation, Pan returns false
    /// and names AnnotEdit, AnnotEdit selects it and returns true.
    @Test func walkthroughTapOnMarkup() throws {
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        let r = Recorder(m)
        #expect(m.current.id == .pan)
        let pan = m.current
        let event = PointerEvent(.tap, pageIndex: 0, Point(x: 150, y: 150))
        #expect(try pan.handle(event, in: m) == false)
        #expect(pan.nextTool(in: m) == .builtIn(.annotEdit))
        #expect(try m.send(event))
        #expect(m.current.id == .builtIn(.annotEdit))
        #expect(m.selection == ObjectID(10, 0))
        #expect(r.events == [.toolChanged(from: .pan, to: .builtIn(.annotEdit)), .selectionChanged(ObjectID(10, 0))])
        // A tap on empty space: AnnotEdit deselects and hands back to Pan.
        r.events = []
        #expect(try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: 50, y: 750))))
        #expect(m.current.id == .pan && m.selection == nil)
        #expect(r.events == [.selectionChanged(nil), .toolChanged(from: .builtIn(.annotEdit), to: .pan)])
    }

    @Test func entryPathsLinkWidgetEmpty() throws {
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        let r = Recorder(m)
        #expect(try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: 350, y: 110))))
        #expect(m.current.id == .builtIn(.link))
        #expect(r.events.contains(.linkActivated(ObjectID(11, 0), .page(1))))
        #expect(try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: 350, y: 310))))
        #expect(m.current.id == .builtIn(.formFill))
        #expect(r.events.contains(.fieldActivated(ObjectID(12, 0))))
        #expect(r.events.contains(.toolChanged(from: .builtIn(.link), to: .pan)))
        #expect(try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: 20, y: 20))))
        #expect(m.current.id == .pan && m.selection == nil)
        #expect(!doc.hasUnsavedChanges)
    }

    @Test func dragsWithCreationToolsAndUndo() throws {
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        let r = Recorder(m)
        func drag(_ from: Point, _ to: Point, page: Int = 1) throws {
            try m.send(PointerEvent(.dragBegin, pageIndex: page, from))
            try m.send(PointerEvent(.dragMove, pageIndex: page, Point(x: (from.x + to.x) / 2, y: (from.y + to.y) / 2)))
            try m.send(PointerEvent(.dragEnd, pageIndex: page, to))
        }
        try m.setTool(.builtIn(.square))
        try drag(Point(x: 100, y: 100), Point(x: 200, y: 150))
        try m.setTool(.builtIn(.circle))
        try drag(Point(x: 300, y: 300), Point(x: 250, y: 250))
        try m.setTool(.builtIn(.arrow))
        try drag(Point(x: 50, y: 500), Point(x: 250, y: 600))
        try m.setTool(.builtIn(.ink))
        try drag(Point(x: 400, y: 400), Point(x: 450, y: 480))
        try drag(Point(x: 400, y: 480), Point(x: 450, y: 400))
        #expect(try doc.annotations(onPage: 1).count == 3)  // the ink waits for a tool change
        try m.setTool(.builtIn(.polygon))
        for p in [Point(x: 10, y: 10), Point(x: 60, y: 10)] { try m.send(PointerEvent(.tap, pageIndex: 1, p)) }
        try m.send(PointerEvent(.doubleTap, pageIndex: 1, Point(x: 35, y: 60)))
        try m.setTool(.builtIn(.stickyNote))
        try m.send(PointerEvent(.tap, pageIndex: 1, Point(x: 500, y: 700)))
        try m.setSelectionContents("looks good")
        let annots = try doc.annotations(onPage: 1)
        #expect(annots.map(\.subtype) == ["Square", "Circle", "Line", "Ink", "Polygon", "Text"])
        #expect(annots[0].rect == Rect(left: 100, bottom: 100, right: 200, top: 150))
        #expect(annots[1].rect == Rect(left: 250, bottom: 250, right: 300, top: 300))
        #expect(annots[2].linePoints == [50, 500, 250, 600] && annots[2].lineEndings == ["None", "OpenArrow"])
        #expect(annots[3].inkList == [[400, 400, 425, 440, 450, 480], [400, 480, 425, 440, 450, 400]])
        #expect(annots[4].vertices == [10, 10, 60, 10, 35, 60])
        #expect(annots[5].contents == "looks good" && annots[5].rect == Rect(left: 500, bottom: 676, right: 524, top: 700))
        #expect(r.events.filter { if case .annotationAdded = $0 { return true } else { return false } }.count == 6)
        // Undo: one step per gesture; the note's contents, then the note, then the polygon.
        #expect(try m.undo())
        #expect(try doc.annotations(onPage: 1).last?.contents == nil)
        #expect(try m.undo())
        #expect(try doc.annotations(onPage: 1).count == 5)
        #expect(try m.redo())
        #expect(try doc.annotations(onPage: 1).map(\.subtype) == ["Square", "Circle", "Line", "Ink", "Polygon", "Text"])
        #expect(doc.changeLog.count > 0)
    }

    @Test func moveResizeDeleteUndo() throws {
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        // Drag the square by (10, 20): Pan hands the drag to AnnotEdit, which moves it.
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, Point(x: 150, y: 150)))
        #expect(m.current.id == .builtIn(.annotEdit))
        try m.send(PointerEvent(.dragMove, pageIndex: 0, Point(x: 155, y: 160)))
        try m.send(PointerEvent(.dragEnd, pageIndex: 0, Point(x: 160, y: 170)))
        let id = ObjectID(10, 0)
        #expect(try doc.annotation(id)?.rect == Rect(left: 110, bottom: 120, right: 210, top: 220))
        // Resize by the top-right handle.
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, Point(x: 210, y: 220)))
        try m.send(PointerEvent(.dragEnd, pageIndex: 0, Point(x: 260, y: 240)))
        #expect(try doc.annotation(id)?.rect == Rect(left: 110, bottom: 120, right: 260, top: 240))
        try m.deleteSelection()
        #expect(try doc.annotation(id) == nil && m.selection == nil)
        #expect(try m.undo())  // the deletion: the same object is back
        let back = try #require(try doc.annotation(id))
        #expect(back.rect == Rect(left: 110, bottom: 120, right: 260, top: 240))
        #expect(try m.undo())  // the resize
        #expect(try m.undo())  // the move
        #expect(try doc.annotations(onPage: 0).first { $0.subtype == "Square" && $0.flags & 34 == 0 }?.rect
                == Rect(left: 100, bottom: 100, right: 200, top: 200))
        #expect(try m.undo() == false)
    }

    @Test func guardAgainstToolsThatNeverHandle() throws {
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        let r = Recorder(m)
        m.register(name: "stubborn") { StubbornTool() }
        try m.setTool(.custom("stubborn"))
        let event = PointerEvent(.tap, pageIndex: 0, Point(x: 1, y: 1))
        #expect(try m.send(event) == false)
        #expect(m.current.id == .pan)
        #expect(r.events.last == .unhandled(event))
        #expect(r.events.filter { if case .toolChanged = $0 { return true } else { return false } }.count == ToolManager.maxHops + 2)
        #expect(throws: PDFError.self) { try m.setTool(.custom("missing")) }
        // A custom tool that names a built-in one.
        let handOff = HandOffTool()
        m.register(name: "handoff") { handOff }
        try m.setTool(.custom("handoff"))
        #expect(try m.send(PointerEvent(.tap, pageIndex: 1, Point(x: 300, y: 300))))
        #expect(handOff.seen == 1 && m.current.id == .builtIn(.stickyNote))
        #expect(try doc.annotations(onPage: 1).map(\.subtype) == ["Text"])
    }

    /// A drag from inside "H" to inside the last "o" of "Hello" highlights "Hello"; the text
    /// hit test finds the characters by their boxes and nothing beside the line.
    @Test func textMarkupAndTextHits() throws {
        let doc = try helloDocument()
        #expect(try doc.hitTestText(pageIndex: 0, at: Point(x: 102, y: 704)) == 0)
        #expect(try doc.hitTestText(pageIndex: 0, at: Point(x: 102, y: 650)) == nil)
        let m = ToolManager(document: doc)
        try m.setTool(.builtIn(.highlight))
        // Helvetica's widths (H 722, e 556, l 222, l 222, o 556 per 1000) at 12 pt: "o" spans
        // 120.7 to 127.3.
        try m.send(PointerEvent(.dragBegin, pageIndex: 0, Point(x: 102, y: 704)))
        try m.send(PointerEvent(.dragEnd, pageIndex: 0, Point(x: 125, y: 704)))
        let a = try #require(try doc.annotations(onPage: 0).first)
        #expect(a.subtype == "Highlight" && a.quadPoints.count == 8)
        let marked = try doc.markedText(of: a)
        #expect(marked == "Hello", "marked: \(marked), quads \(a.quadPoints)")
        // A tap hands back to Pan; the highlight is an annotation AnnotEdit can select.
        try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: 110, y: 704)))
        #expect(m.current.id == .builtIn(.annotEdit) && m.selection == a.id)
    }

    @Test func hostileEventsAreRefused() throws {
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        #expect(throws: PDFError.self) { try m.send(PointerEvent(.tap, pageIndex: 2, Point(x: 0, y: 0))) }
        #expect(throws: PDFError.self) { try m.send(PointerEvent(.tap, pageIndex: -1, Point(x: 0, y: 0))) }
        #expect(throws: PDFError.self) { try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: .nan, y: 0))) }
        #expect(throws: PDFError.self) { try m.deleteSelection() }
    }

    /// Random event sequences from every tool: never a trap, and the document stays one
    /// that reads back (every annotation readable, save and reopen work).
    @Test(arguments: 0..<6) func randomSequences(seed: UInt64) throws {
        var rng = ToolRandom(seed: seed)
        let doc = try toolDocument()
        let m = ToolManager(document: doc)
        m.register(name: "stubborn") { StubbornTool() }
        // The image stamp and file attachment tools place what the host gives them (a
        // 2 by 2 gray PNG, a small file); without it a tap is refused (checked below).
        let gray2x2: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02,
            0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00, 0x57, 0xDD, 0x52, 0xF8, 0x00, 0x00, 0x00, 0x0E, 0x49, 0x44, 0x41,
            0x54, 0x78, 0x9C, 0x63, 0x60, 0xF8, 0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x01, 0x01, 0xFF, 0x5D, 0x69, 0x35, 0xD9, 0x00,
            0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]
        try m.setTool(.builtIn(.imageStamp))
        #expect(throws: PDFError.self) { try m.send(PointerEvent(.tap, pageIndex: 0, Point(x: 100, y: 100))) }
        try m.setStampImage(Annotation.StampImage(bytes: gray2x2, contentType: "image/png"))
        m.attachment = try Annotation.AttachedFile(bytes: Array("notes".utf8), name: "notes.txt", contentType: "text/plain")
        var tools = ToolKind.allCases.map { ToolID.builtIn($0) }
        tools.append(.custom("stubborn"))
        for _ in 0..<300 {
            let roll = rng.next() % 20
            if roll == 0 { try m.setTool(tools[Int(rng.next() % UInt64(tools.count))]); continue }
            if roll == 1 { _ = try? m.undo(); continue }
            if roll == 2 { _ = try? m.redo(); continue }
            if roll == 3 { try? m.deleteSelection(); continue }
            if roll == 4 { try? m.setSelectionContents("x\(rng.next() % 100)"); continue }
            let kind = PointerEvent.Kind.allCases[Int(rng.next() % UInt64(PointerEvent.Kind.allCases.count))]
            let point = Point(x: Double(rng.next() % 700) - 40, y: Double(rng.next() % 900) - 40)
            _ = try m.send(PointerEvent(kind, pageIndex: Int(rng.next() % 2), point))
        }
        try m.commit()
        let bytes = try doc.saved(.full(objectStreams: false))
        let reopened = try Document(data: bytes)
        for p in 0..<2 { _ = try reopened.annotations(onPage: p) }
        #expect(try reopened.pageCount() == 2)
    }
}

private struct ToolRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E3779B97F4A7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
