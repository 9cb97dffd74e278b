import FoundationEssentials
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyntax
import QuireTestSupport

// What users do to a synced document: every kind of edit a reviewer makes, on their own
// records and on others', through the document's ordinary API (as the C and Python layers
// call it).

extension ScheduleRun {
    enum EditKind: CaseIterable {
        case note, square, ink, highlight, freeText, editContents, move, recolor, reply, stateReply, delete,
             importPair, importUpdate
        /// Through the user's tool manager (issue 31): a square drawn, a selection's text
        /// changed or deleted, and undo and redo, which refuse a step whose annotation a
        /// remote change reached since.
        case toolSquare, toolContents, toolDelete, toolUndo, toolRedo
        /// Form fills through the forms API (issue 33): the text field, the check box, the
        /// list box of the starting PDF's form.
        case fillText, toggleCheck, chooseFruit
        /// User bookmarks through the bookmark manager (issue 33).
        case addBookmark, renameBookmark, moveBookmark, deleteBookmark
        /// An image stamp (issue 33: its image is an attachment, uploaded before its record).
        case imageStamp
        /// A file attachment annotation (its file is an attachment too, uploaded before its
        /// record; deletes race it like any annotation).
        case fileAttachment
    }

    static let editWeights: [(EditKind, Int)] = [
        (.note, 14), (.square, 8), (.ink, 5), (.highlight, 5), (.freeText, 4), (.editContents, 14), (.move, 8),
        (.recolor, 5), (.reply, 12), (.stateReply, 7), (.delete, 10), (.importPair, 4), (.importUpdate, 4),
        (.toolSquare, 3), (.toolContents, 3), (.toolDelete, 2), (.toolUndo, 6), (.toolRedo, 3),
        (.fillText, 6), (.toggleCheck, 3), (.chooseFruit, 3), (.addBookmark, 4), (.renameBookmark, 3), (.moveBookmark, 2),
        (.deleteBookmark, 2), (.imageStamp, 3), (.fileAttachment, 3),
    ]

    func pickEdit() -> EditKind {
        let total = Self.editWeights.reduce(0) { $0 + $1.1 }
        var roll = rng.next(total)
        for (kind, w) in Self.editWeights {
            if roll < w { return kind }
            roll -= w
        }
        return .note
    }

    func freshName(_ c: SimClient) -> String {
        names += 1
        return "\(c.user)-\(names)"
    }

    func randomRect(page: Int, width: Double = 40, height: Double = 30) -> Rect {
        let x = Double(rng.next(500)) + 20, y = Double(rng.next(700)) + 20
        return Rect(left: x, bottom: y, right: x + width, top: y + height)
    }

    func randomColor() -> [Double] {
        [Double(rng.next(5)) / 4, Double(rng.next(5)) / 4, Double(rng.next(5)) / 4]
    }

    /// A target among the document's annotations (replies and states included), often one
    /// that other users touched lately.
    func pickTarget(_ doc: Document, kinds: Set<String>? = nil) throws -> Annotation? {
        let all = try doc.allAnnotations().filter { a in
            a.id != nil && a.subtype != "Popup" && a.subtype != "Widget" && (kinds.map { $0.contains(a.subtype) } ?? true)
        }
        guard !all.isEmpty else { return nil }
        if rng.next(100) < 45 {
            let hotOnes = all.filter { a in a.name.map { hot.contains($0) } ?? false }
            if !hotOnes.isEmpty { return hotOnes[Int(rng.next(hotOnes.count))] }
        }
        return all[Int(rng.next(all.count))]
    }

    func touch(_ name: String?) {
        guard let name else { return }
        hot.removeAll { $0 == name }
        hot.append(name)
        if hot.count > 6 { hot.removeFirst() }
    }

    /// One edit by client `index`'s user, and what it must lead to on the server.
    func edit(_ index: Int) throws {
        let c = clients[index]
        let d = c.descriptor
        let kind = pickEdit()
        let before = Set(try d.unacknowledgedChanges().map(\.id))
        let lastBefore = d.lastChangeID
        var what = ""
        do {
            what = try d.withDocument { doc in try perform(kind, c, doc) }
        } catch {
            self.error("client \(index): \(kind) failed: \(error)")
            return
        }
        report.edits += 1
        switch kind {
        case .fillText, .toggleCheck, .chooseFruit: report.formFills += 1
        case .addBookmark, .renameBookmark, .moveBookmark, .deleteBookmark: report.bookmarkEdits += 1
        case .imageStamp: report.imageStamps += 1
        case .fileAttachment: report.fileAttachments += 1
        default: break
        }
        let change = d.lastChangeID
        guard change != lastBefore else {
            trace("client \(index): \(kind) \(what) changed no record")
            return
        }
        let after = try d.unacknowledgedChanges()
        for m in after where m.changes.contains(change) {
            c.expected[m.id] = Expectation(change: change, op: m.op, record: m.record, fields: m.fields)
        }
        // Created and deleted before it left: nothing of it may reach the server.
        for id in before.subtracting(after.map(\.id)) {
            c.expected[id] = Expectation(change: change, op: "none", record: nil)
        }
        trace("client \(index): \(kind) \(what) (change \(change))")
    }

    /// Performs one edit; returns what it named (for the trace).
    func perform(_ kind: EditKind, _ c: SimClient, _ doc: Document) throws -> String {
        let page = Int(rng.next(3))
        switch kind {
        case .note, .square, .ink, .highlight, .freeText:
            var a: Annotation
            switch kind {
            case .note:
                a = Annotation(subtype: "Text", pageIndex: page, rect: randomRect(page: page, width: 20, height: 20))
            case .square:
                a = Annotation(subtype: rng.next(2) == 0 ? "Square" : "Circle", pageIndex: page, rect: randomRect(page: page))
                a.color = randomColor()
                a.borderWidth = Double(1 + rng.next(3))
            case .ink:
                let r = randomRect(page: page)
                a = Annotation(subtype: "Ink", pageIndex: page, rect: r)
                a.inkList = [[r.left + 2, r.bottom + 2, r.left + 10, r.top - 3, r.right - 2, r.bottom + 5]]
                a.color = randomColor()
                a.borderWidth = 1
            case .highlight:
                let r = randomRect(page: page, width: 120, height: 14)
                a = Annotation(subtype: "Highlight", pageIndex: page, rect: r)
                a.quadPoints = [r.left, r.top, r.right, r.top, r.left, r.bottom, r.right, r.bottom]
                a.color = [1, 1, 0]
            default:
                a = Annotation(subtype: "FreeText", pageIndex: page, rect: randomRect(page: page, width: 120, height: 24))
                a.defaultAppearance = "/Helv 12 Tf 0 g"
            }
            a.name = freshName(c)
            a.author = c.user
            a.contents = "\(a.name ?? "") by \(c.user)"
            _ = try doc.addAnnotation(a)
            touch(a.name)
            return a.name ?? ""
        case .editContents:
            guard var a = try pickTarget(doc) else { return "" }
            names += 1
            a.contents = "\(c.user) edit \(names)"
            try doc.updateAnnotation(a)
            touch(a.name)
            return "\(a.name ?? "?") (object \(a.id?.number ?? 0), page \(a.pageIndex))"
        case .move:
            guard var a = try pickTarget(doc, kinds: ["Square", "Circle", "Text", "FreeText"]) else { return "" }
            let dx = Double(rng.next(21)) - 10, dy = Double(rng.next(21)) - 10
            a.rect = Rect(left: a.rect.left + dx, bottom: a.rect.bottom + dy, right: a.rect.right + dx, top: a.rect.top + dy)
            try doc.updateAnnotation(a)
            touch(a.name)
            return "\(a.name ?? "?") (object \(a.id?.number ?? 0))"
        case .recolor:
            guard var a = try pickTarget(doc, kinds: ["Square", "Circle", "Ink", "Highlight"]) else { return "" }
            a.color = randomColor()
            try doc.updateAnnotation(a)
            touch(a.name)
            return "\(a.name ?? "?") (object \(a.id?.number ?? 0))"
        case .reply:
            guard let target = try pickTarget(doc), let id = target.id else { return "" }
            let reply = try doc.addReply(to: id, author: c.user, contents: "\(c.user) replies")
            touch(reply.name)
            touch(target.name)
            return "\(reply.name ?? "?") to \(target.name ?? "?") (object \(id.number), page \(target.pageIndex))"
        case .stateReply:
            guard let target = try pickTarget(doc), let id = target.id else { return "" }
            let model: StateModel = rng.next(3) == 0 ? .marked : .review
            let state = model.states[Int(rng.next(model.states.count))]
            let reply = try doc.addStateReply(to: id, author: c.user, model: model, state: state)
            touch(reply.name)
            return "\(reply.name ?? "?") to \(target.name ?? "?") (object \(id.number), page \(target.pageIndex))"
        case .delete:
            guard let target = try pickTarget(doc), let id = target.id else { return "" }
            try doc.deleteAnnotation(id)
            return "\(target.name ?? "?") (object \(id.number), page \(target.pageIndex))"
        case .importPair:
            let note = freshName(c), reply = freshName(c)
            let json = """
                {"format": "https://pspdfkit.com/instant-json/v1", "annotations": [
                  {"v": 1, "type": "pspdfkit/note", "id": "\(note)", "pageIndex": \(page), "bbox": [30, 40, 20, 20],
                   "text": "imported by \(c.user)", "creatorName": "\(c.user)"},
                  {"v": 1, "type": "pspdfkit/note", "id": "\(reply)", "pageIndex": \(page), "bbox": [30, 40, 20, 20],
                   "text": "an imported reply", "creatorName": "\(c.user)", "quire": {"inReplyTo": "\(note)", "replyType": "reply"}}]}
                """
            _ = try doc.importAnnotationsJSON(Array(json.utf8))
            touch(note)
            return "\(note), \(reply)"
        case .importUpdate:
            // A record changed through JSON: its export, edited, imported back.
            guard let target = try pickTarget(doc), let name = target.name else { return "" }
            let exported = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: target.pageIndex, prettyPrinted: false))
            guard var record = exported["annotations"]?.arrayValue?.first(where: { $0["id"]?.stringValue == name })?.objectValue else { return "" }
            names += 1
            let text = "\(c.user) json edit \(names)"
            if record["text"] != nil || record["type"]?.stringValue == "pspdfkit/note" || record["type"]?.stringValue == "pspdfkit/text" {
                record["text"] = .string(text)
                record["quire"] = record["quire"].flatMap { q in
                    guard var f = q.objectValue else { return q }
                    f["richText"] = nil
                    f["contents"] = nil
                    return .object(f)
                }
            } else {
                record["note"] = .string(text)
            }
            let json = InstantJSONValue.object(["format": .string(InstantJSONDocument.instantJSONFormat),
                                                "annotations": .array([.object(record)])])
            _ = try doc.importAnnotationsJSON(Array(json.canonicalText.utf8))
            touch(name)
            return name
        case .toolSquare, .toolContents, .toolDelete, .toolUndo, .toolRedo:
            return try tool(kind, c, doc, page: page)
        case .fillText, .toggleCheck, .chooseFruit:
            return try fill(kind, c, doc)
        case .addBookmark, .renameBookmark, .moveBookmark, .deleteBookmark:
            return try bookmark(kind, c, doc, page: page)
        case .imageStamp:
            var a = Annotation(subtype: "Stamp", pageIndex: page, rect: randomRect(page: page, width: 40, height: 30))
            a.name = freshName(c)
            a.author = c.user
            // Four images in all: clients share attachments, each uploaded once.
            a.image = try Annotation.StampImage(bytes: testPNG(shade: Int(rng.next(4))), contentType: "image/png")
            _ = try doc.addAnnotation(a)
            touch(a.name)
            return a.name ?? ""
        case .fileAttachment:
            var a = Annotation(subtype: "FileAttachment", pageIndex: page, rect: randomRect(page: page, width: 20, height: 20))
            a.name = freshName(c)
            a.author = c.user
            a.iconName = Annotation.fileAttachmentIcons[Int(rng.next(4))]
            // Four files in all, shared by the clients as the images are.
            let n = Int(rng.next(4))
            a.file = try Annotation.AttachedFile(bytes: testFile(n), name: "file-\(n).txt", contentType: "text/plain",
                                                 description: "file \(n)")
            _ = try doc.addAnnotation(a)
            touch(a.name)
            return a.name ?? ""
        }
    }

    /// A form fill through the forms API, as a user types or clicks.
    func fill(_ kind: EditKind, _ c: SimClient, _ doc: Document) throws -> String {
        switch kind {
        case .fillText:
            names += 1
            let text = "\(c.user) \(names)"
            try doc.setFieldValue(text, named: "name")
            return "name = \(text)"
        case .toggleCheck:
            let field = try doc.formField(named: "agree")
            let on = field.values.first == "Yes"
            try doc.setFieldValues([on ? "Off" : "Yes"], of: field)
            return "agree \(on ? "off" : "on")"
        default:
            let field = try doc.formField(named: "fruit")
            let chosen = ["Apple", "Banana", "Cherry"].filter { _ in rng.next(2) == 0 }
            try doc.setFieldValues(chosen, of: field)
            return "fruit = \(chosen)"
        }
    }

    /// A bookmark added, renamed, moved in the custom order or removed.
    func bookmark(_ kind: EditKind, _ c: SimClient, _ doc: Document, page: Int) throws -> String {
        let all = try doc.bookmarks.bookmarks(sortedBy: .custom)
        if kind == .addBookmark || all.isEmpty {
            let b = Bookmark(pageIndex: page, name: freshName(c))
            try doc.bookmarks.add(b)
            return "bookmark \(b.name ?? "") added"
        }
        var b = all[Int(rng.next(all.count))]
        switch kind {
        case .renameBookmark:
            b.name = freshName(c)
            try doc.bookmarks.add(b)
            return "bookmark \(b.identifier) renamed \(b.name ?? "")"
        case .moveBookmark:
            let to = Int(rng.next(all.count))
            try doc.bookmarks.move(identifier: b.identifier, to: to)
            return "bookmark \(b.identifier) moved to \(to)"
        default:
            try doc.bookmarks.remove(identifier: b.identifier)
            return "bookmark \(b.identifier) removed"
        }
    }

    /// An edit through the client's tool manager (one per document: a restarted client's
    /// document gets a new one, with no history).
    func tool(_ kind: EditKind, _ c: SimClient, _ doc: Document, page: Int) throws -> String {
        if c.tools?.document !== doc { c.tools = ToolManager(document: doc) }
        guard let tm = c.tools else { return "" }
        switch kind {
        case .toolSquare:
            try tm.setTool(.builtIn(.square))
            let x = Double(rng.next(400)) + 50, y = Double(rng.next(600)) + 50
            try tm.send(PointerEvent(.dragBegin, pageIndex: page, Point(x: x, y: y)))
            try tm.send(PointerEvent(.dragMove, pageIndex: page, Point(x: x + 20, y: y + 15)))
            try tm.send(PointerEvent(.dragEnd, pageIndex: page, Point(x: x + 40, y: y + 30)))
            try tm.setTool(.pan)
            return "square on page \(page)"
        case .toolContents, .toolDelete:
            guard let target = try pickTarget(doc), let id = target.id else { return "" }
            tm.select(id)
            if kind == .toolDelete {
                try tm.deleteSelection()
            } else {
                names += 1
                try tm.setSelectionContents("\(c.user) tool edit \(names)")
                touch(target.name)
            }
            return "\(target.name ?? "?") (object \(id.number))"
        default:
            do {
                let done = kind == .toolUndo ? try tm.undo() : try tm.redo()
                return done ? "done" : "nothing to do"
            } catch let e as PDFError where e.kind == .state {
                // Refused: its annotation changed since (a remote change, another edit).
                return "refused (\(e.message.prefix(80)))"
            }
        }
    }
}
