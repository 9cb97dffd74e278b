import Testing
import QuireDocument
import QuireSyntax
import QuireTestSupport

/// Issue 31's check: 1,000 random operations of a tool manager, with undo and redo, and
/// (with `outside`) edits made outside the manager interleaved (updates, additions and
/// deletions through the document, a collaborator's change imported as annotation JSON,
/// incremental saves). After every step: an undo or redo never changes an annotation whose
/// last change was made outside the manager, and one that is refused changes nothing.
/// Every 200 steps and at the end: undo-all gives back the start (field by field, and the
/// stacking order) for every annotation that no outside edit and no refused step touched
/// (all of them without outside edits), and redo-all gives back exactly the state before
/// the undo-all.
@Suite("Tool manager: random undo and redo (issue 31)")
struct ToolManagerRandomUndoTests {
    /// The annotations of each page: their dictionaries, and their order in /Annots.
    struct Snapshot: Equatable {
        var objects: [Int: PDFObject] = [:]
        var order: [[Int]] = []
    }

    static func snapshot(_ doc: Document) throws -> Snapshot {
        var s = Snapshot()
        for page in 0..<(try doc.pageCount()) {
            var order: [Int] = []
            for a in try doc.annotations(onPage: page) {
                guard let id = a.id else { continue }
                order.append(id.number)
                s.objects[id.number] = try doc.object(id.number)
            }
            s.order.append(order)
        }
        return s
    }

    /// The numbers whose annotation differs between two snapshots (or is in one only).
    static func changed(_ a: Snapshot, _ b: Snapshot) -> Set<Int> {
        Set(a.objects.keys).union(b.objects.keys).filter { a.objects[$0] != b.objects[$0] }
    }

    enum Writer { case manager, outside }

    /// An annotation's dictionary in a line: its subtype, rect, contents and appearance.
    static func brief(_ o: PDFObject?) -> String {
        guard let d = o?.dictionary else { return "absent" }
        func show(_ key: PDFName) -> String {
            guard let v = d[key] else { return "-" }
            switch v {
            case .string(let s): return s.text
            case .array(let a): return a.compactMap(\.number).map { String($0) }.joined(separator: " ")
            case .dictionary(let x): return x["N"]?.reference?.description ?? "dict"
            default: return "\(v)"
            }
        }
        return "\(show("Subtype")) [\(show("Rect"))] \(show("Contents")) AP \(show("AP")) M \(show("M"))"
    }

    @Test(arguments: [1, 2, 3] as [UInt64], [true, false])
    func randomOperations(seed: UInt64, outside: Bool) throws {
        var rng = SplitMix64(seed: seed)
        let doc = try undoDocument()
        let m = ToolManager(document: doc)
        var style = m.style
        style.author = "Manager"
        try m.setStyle(style)
        let start = try Self.snapshot(doc)
        var previous = start
        var lastWriter: [Int: Writer] = [:]
        var outsideTouched: Set<Int> = []
        var keptByRefusal: Set<Int> = []
        // How often each thing happened: the test must not pass by doing nothing.
        var refusals = 0, undos = 0, roundTripUndos = 0
        let tools: [ToolKind] = [.pan, .square, .circle, .arrow, .ink, .polygon, .stickyNote, .freeText, .pan, .pan]

        func point(_ page: Int) throws -> Point {
            let annots = try doc.annotations(onPage: page).filter(\.isDrawnOnPage)
            if rng.next(2) == 0, !annots.isEmpty {
                let r = annots[rng.next(annots.count)].rect
                return Point(x: r.left + Double(rng.next(max(1, Int(r.width) + 1))),
                             y: r.bottom + Double(rng.next(max(1, Int(r.height) + 1))))
            }
            return Point(x: Double(rng.next(612)), y: Double(rng.next(792)))
        }

        /// One step; returns what kind of writer it was (nil: an undo or redo, `refused`
        /// set when it threw).
        func step(_ i: Int) throws -> (writer: Writer?, refused: Bool) {
            let roll = rng.next(100)
            let page = rng.next(2)
            let mods: PointerEvent.Modifiers = rng.next(5) == 0 ? [.shift] : []
            switch roll {
            case 0..<6:
                try m.setTool(.builtIn(tools[rng.next(tools.count)]))
            case 6..<38:
                let a = try point(page), b = try point(page)
                try m.send(PointerEvent(.dragBegin, pageIndex: page, a, modifiers: mods))
                try m.send(PointerEvent(.dragMove, pageIndex: page, Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2), modifiers: mods))
                try m.send(PointerEvent(.dragEnd, pageIndex: page, b, modifiers: mods))
            case 38..<48:
                try m.send(PointerEvent(rng.next(6) == 0 ? .doubleTap : .tap, pageIndex: page, try point(page), modifiers: mods))
            case 48..<52: try? m.deleteSelection()
            case 52..<56: try? m.setSelectionContents("text \(i)")
            case 56..<58: _ = try? m.reply("reply \(i)")
            case 58..<60: _ = try? m.setReviewState(["Accepted", "Rejected", "Completed"][rng.next(3)])
            case 60..<62: try m.commit()
            case 62..<72:
                // A refused undo drops its step: what it did stays, so its annotations are
                // no longer expected back at the start.
                let touched = m.undoSteps.first?.annotations.map(\.number) ?? []
                do { try m.undo() } catch { keptByRefusal.formUnion(touched); return (nil, true) }
                return (nil, false)
            case 72..<80:
                do { try m.redo() } catch { return (nil, true) }
                return (nil, false)
            default:
                guard outside else { return (.manager, false) }
                let annots = try doc.annotations(onPage: page).filter { $0.id != nil && $0.subtype != "Popup" }
                switch rng.next(10) {
                case 0..<4:
                    guard !annots.isEmpty else { break }
                    var a = annots[rng.next(annots.count)]
                    a.contents = "outside \(i)"
                    try doc.updateAnnotation(a)
                case 4..<6:
                    var a = Annotation(subtype: "Circle", pageIndex: page,
                                       rect: Rect(left: Double(rng.next(500)), bottom: Double(rng.next(700)), right: 0, top: 0))
                    a.rect.right = a.rect.left + 40
                    a.rect.top = a.rect.bottom + 30
                    try doc.addAnnotation(a)
                case 6..<8:
                    guard !annots.isEmpty, let id = annots[rng.next(annots.count)].id else { break }
                    try doc.deleteAnnotation(id)
                case 8:
                    // A collaborator's change, as the sync client applies it: annotation JSON.
                    guard let target = annots.first(where: { $0.name != nil && $0.subtype == "Square" }), let name = target.name else { break }
                    var json = try doc.annotationsInstantJSON(page: page)
                    guard let k = json.annotations.firstIndex(where: { $0.name == name }) else { break }
                    json.annotations[k].note = "remote \(i)"
                    _ = try doc.importAnnotations(json)
                default:
                    try doc.save(mode: .incremental) { _ in }
                }
                return (.outside, false)
            }
            return (.manager, false)
        }

        /// Undo everything, check the start, redo everything, check the end.
        func roundTrip(_ label: String) throws {
            // What the current tool holds first (undo would commit it as a step of its own).
            try m.commit()
            let end = try Self.snapshot(doc)
            for n in Self.changed(previous, end) { lastWriter[n] = .manager }
            var refusedTouched = keptByRefusal
            var before = end
            var undone = 0
            while m.canUndo {
                let touched = m.undoSteps.first?.annotations.map(\.number) ?? []
                var refused = false
                do { try m.undo(); undone += 1 } catch {
                    refused = true
                    refusals += 1
                    refusedTouched.formUnion(touched)
                    keptByRefusal.formUnion(touched)
                }
                let now = try Self.snapshot(doc)
                let diff = Self.changed(before, now)
                if refused { #expect(diff.isEmpty, "seed \(seed) \(label): a refused undo changed \(diff.sorted())") }
                for n in diff where lastWriter[n] == .outside {
                    Issue.record("seed \(seed) \(label): undo changed annotation \(n), last changed outside the manager")
                }
                for n in diff { lastWriter[n] = .manager }
                before = now
            }
            let all = try Self.snapshot(doc)
            let clean = Set(start.objects.keys).union(all.objects.keys).subtracting(outsideTouched).subtracting(refusedTouched)
            for n in clean.sorted() where all.objects[n] != start.objects[n] {
                Issue.record("seed \(seed) \(label): undo-all left annotation \(n) as \(Self.brief(all.objects[n])), not as it started: \(Self.brief(start.objects[n]))")
            }
            for (p, order) in start.order.enumerated() {
                #expect(all.order[p].filter(clean.contains) == order.filter(clean.contains),
                        "seed \(seed) \(label): the stacking order of page \(p) after undo-all")
            }
            if !outside {
                #expect(Self.changed(all, start).isEmpty && all.order == start.order,
                        "seed \(seed) \(label): undo-all did not give back the start (\(Self.changed(all, start).sorted()))")
                #expect(refusedTouched.isEmpty)
                #expect(all.order == start.order)
            }
            // Redo what the undo-all undid (steps undone before it stay undone).
            roundTripUndos += undone
            for _ in 0..<undone { try m.redo() }
            let redone = try Self.snapshot(doc)
            #expect(Self.changed(redone, end).isEmpty && redone.order == end.order,
                    "seed \(seed) \(label): redo-all did not give back the end: \(Self.changed(redone, end).sorted().map { "\($0): \(Self.brief(redone.objects[$0])), not \(Self.brief(end.objects[$0]))" })")
            previous = redone
        }

        for i in 0..<1_000 {
            let (writer, refused) = try step(i)
            let now = try Self.snapshot(doc)
            let diff = Self.changed(previous, now)
            switch writer {
            case .outside?:
                for n in diff { lastWriter[n] = .outside; outsideTouched.insert(n) }
            case .manager?:
                for n in diff { lastWriter[n] = .manager }
            case nil:
                if refused { refusals += 1 } else if !diff.isEmpty { undos += 1 }
                if refused { #expect(diff.isEmpty, "seed \(seed) step \(i): a refused undo or redo changed \(diff.sorted())") }
                for n in diff where lastWriter[n] == .outside {
                    Issue.record("seed \(seed) step \(i): an undo or redo changed annotation \(n), last changed outside the manager")
                }
                for n in diff { lastWriter[n] = .manager }
            }
            #expect(refused == false || outside, "seed \(seed) step \(i): an undo or redo was refused without outside edits")
            previous = now
            if i % 200 == 199 { try roundTrip("after step \(i)") }
        }
        #expect(undos > 100 && roundTripUndos > 50, "seed \(seed): \(undos) undos and redos, \(roundTripUndos) in round trips")
        #expect(outside ? refusals > 10 : refusals == 0, "seed \(seed): \(refusals) refusals")
        // The document is still one that saves and reads back.
        try m.commit()
        let reopened = try Document(data: try doc.saved(.full(objectStreams: false)))
        for p in 0..<2 { _ = try reopened.annotations(onPage: p) }
    }
}
