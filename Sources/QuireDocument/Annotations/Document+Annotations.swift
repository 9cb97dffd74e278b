import QuireSyntax

/// What the document has read of its annotations: each page's annotations, the page of
/// each annotation object, and the replies to each annotation. Built once per page and
/// dropped on any change.
final class AnnotationIndex {
    var pages: [Int: [Annotation]] = [:]
    /// Object number of an annotation -> its page, and its position in that page's list
    /// (a lookup by id is a dictionary lookup, not a scan of the page: a thread of T replies
    /// on a page of K annotations cost T x K).
    var pageOf: [Int: Int] = [:]
    var positionOf: [Int: Int] = [:]
    /// Object number of an annotation -> the annotations that reply to it (/IRT), in
    /// /Annots order.
    var replies: [Int: [Annotation]] = [:]
    /// Whether every page has been read: a lookup of an object that is no annotation then
    /// answers at once (it went over every page index each time: O(pages) per miss).
    var allPagesRead = false
}

/// A thread's review state: the current state of each author (the state of that author's
/// latest state reply) and every state reply in order.
public struct ReviewSummary: Sendable, Equatable {
    /// Each author's latest state reply, in the order the authors first appear.
    public var current: [Annotation]
    /// Every state reply, oldest first.
    public var history: [Annotation]
}

extension Document {
    // MARK: Reading

    /// The annotations of page `index`, in /Annots order (entries that are not
    /// dictionaries are skipped). Throws as ``page(at:)`` does: `.range` past the page
    /// count, `.notFound` for a page that the root's /Count counts but the tree lacks.
    public func annotations(onPage index: Int) throws -> [Annotation] {
        if let cached = annotationIndex.pages[index] { return cached }
        let page = try self.page(at: index)
        var list: [Annotation] = []
        for (id, dict) in try page.annotationDictionaries() {
            let annotation = try Annotation(dict, id: id, pageIndex: index, document: self)
            if let id {
                annotationIndex.pageOf[id.number] = index
                annotationIndex.positionOf[id.number] = list.count
            }
            list.append(annotation)
        }
        for annotation in list {
            if let target = annotation.inReplyTo { annotationIndex.replies[target.number, default: []].append(annotation) }
        }
        annotationIndex.pages[index] = list
        return list
    }

    /// Every annotation of the document, page by page: of the pages that exist (see
    /// ``pages()``; a page that the root's /Count counts but the tree does not hold has
    /// none).
    public func allAnnotations() throws -> [Annotation] {
        try pages().indices.flatMap { try annotations(onPage: $0) }
    }

    /// The annotation that is object `id`, or nil when no page lists it.
    public func annotation(_ id: ObjectID) throws -> Annotation? {
        if annotationIndex.pageOf[id.number] == nil && !annotationIndex.allPagesRead {
            // Read pages until the annotation shows up: each page is read once.
            var found = false
            for index in try pages().indices where annotationIndex.pages[index] == nil {
                _ = try annotations(onPage: index)
                if annotationIndex.pageOf[id.number] != nil { found = true; break }
            }
            if !found { annotationIndex.allPagesRead = true }
        }
        guard let page = annotationIndex.pageOf[id.number] else { return nil }
        let list = try annotations(onPage: page)
        if let at = annotationIndex.positionOf[id.number], at < list.count, list[at].id?.number == id.number {
            return list[at]
        }
        return list.first { $0.id?.number == id.number }
    }

    /// The annotations that reply directly to `id` (whose /IRT is `id`), in page order.
    public func replies(to id: ObjectID) throws -> [Annotation] {
        guard let target = try annotation(id) else { return [] }
        _ = try annotations(onPage: target.pageIndex)
        return annotationIndex.replies[id.number] ?? []
    }

    // MARK: Threads

    /// `id` and every reply below it, depth first (a cycle of /IRT is cut).
    private func thread(_ id: ObjectID) throws -> [Annotation] {
        guard let root = try annotation(id) else {
            throw PDFError(.notFound, "no annotation is object \(id)")
        }
        var out = [root]
        var seen: Set<Int> = [id.number]
        var stack = try replies(to: id).reversed().map { $0 }
        while let next = stack.popLast() {
            guard let nid = next.id, seen.insert(nid.number).inserted else { continue }
            out.append(next)
            stack.append(contentsOf: try replies(to: nid).reversed())
        }
        return out
    }

    /// The comments of annotation `id` (PSPDFKit's model): the annotation and every text
    /// reply below it, nested replies flattened, sorted by creation date; annotations
    /// without a date, and ties, keep the order of the thread.
    public func comments(for id: ObjectID) throws -> [Annotation] {
        let all = try thread(id)
        let root = all[0]
        let replies = all.dropFirst().filter { !$0.isStateReply }
        let ordered = replies.enumerated().sorted { a, b in
            switch (a.element.creationDate, b.element.creationDate) {
            case let (x?, y?) where x != y: return x < y
            default: return a.offset < b.offset
            }
        }.map(\.element)
        return [root] + ordered
    }

    /// The review summary of annotation `id`: the state replies below it.
    public func reviewSummary(for id: ObjectID) throws -> ReviewSummary {
        let states = try thread(id).dropFirst().filter(\.isStateReply).enumerated().sorted { a, b in
            switch (a.element.creationDate, b.element.creationDate) {
            case let (x?, y?) where x != y: return x < y
            default: return a.offset < b.offset
            }
        }.map(\.element)
        var authors: [String] = []
        var latest: [String: Annotation] = [:]
        for reply in states {
            let author = reply.author ?? ""
            if latest[author] == nil { authors.append(author) }
            latest[author] = reply
        }
        return ReviewSummary(current: authors.compactMap { latest[$0] }, history: states)
    }

    /// Annotations and replies whose contents contain `text`, ignoring case, over all pages.
    public func searchAnnotations(_ text: String) throws -> [Annotation] {
        let needle = text.lowercased()
        guard !needle.isEmpty else { return [] }
        return try allAnnotations().filter { ($0.contents ?? "").lowercased().contains(needle) }
    }

    // MARK: Creating, changing, deleting

    /// Adds `annotation` to its page: a new object with a unique name, dates and a
    /// generated appearance. Returns it as stored (with its id).
    ///
    /// `imported`: the JSON import has checked the reply target and sets the name itself
    /// afterwards, so neither is checked against the page's annotations here (each check
    /// read them all again after the previous record's change: O(N²) for N records).
    @discardableResult
    func addAnnotationUnbatched(_ annotation: Annotation, imported: Bool = false) throws -> Annotation {
        guard Annotation.creatableSubtypes.contains(annotation.subtype) else {
            throw PDFError(.unsupported, "Quire creates \(Annotation.creatableSubtypes.sorted().joined(separator: ", ")) annotations, not \(annotation.subtype)")
        }
        try checkCertification(allows: .annotations)
        noteModification(.annotations)
        if annotation.isReply { try checkReplies() }
        let page = try self.page(at: annotation.pageIndex)
        var a = annotation
        if !imported { a.defaultQuadPoints(); a.fitRectToCloud() }
        a.applyMeasurement()
        if !imported { a.fitRectToMeasurementLabel() }
        if let target = a.inReplyTo, !imported { try checkReplyTarget(target, from: nil, page: a.pageIndex) }
        try a.validateState()
        try a.validate()
        let now = PDFDate.now()
        // A copy of an annotation is a new annotation: it gets its own name when its name
        // is taken on the page (/NM is unique per page), and does not take over the
        // original's popup.
        a.id = nil
        if !imported, let name = a.name, try annotations(onPage: a.pageIndex).contains(where: { $0.name == name }) { a.name = nil }
        a.name = a.name ?? UUIDString.make()
        if let popup = a.popup, try ownerOfPopup(popup) != nil { a.popup = nil }
        a.creationDate = a.creationDate ?? now
        a.modificationDate = now
        if a.flags == 0 && !a.isStateReply { a.flags = Annotation.Flag.print }
        // (A record imported without its file makes one, as it always did: plain Instant JSON
        // may name none.)
        if a.subtype == "FileAttachment" && a.file == nil && !imported {
            throw PDFError(.invalidArgument, "file: a FileAttachment needs a file to embed (Annotation.file, quire_annotation_set_file)")
        }
        var dict = a.written(into: PDFDictionary(), pageObject: page.id)
        try storeCarried(&a, into: &dict)
        dict = try withAppearance(a, dict, strict: !imported)
        let id = try addObject(.dictionary(dict))
        try appendToAnnots(page, .reference(id))
        a.id = id
        return a
    }

    /// Writes the changed copy `annotation` back to its object, with a new modification
    /// date and appearance.
    ///
    /// `importedOver`: the annotation as the JSON import read it before it made any
    /// change, with the reply target already checked. Reading it again would read the
    /// page's annotations again after each record's change: O(N²) for N records.
    func updateAnnotationUnbatched(_ annotation: Annotation, importedOver: Annotation? = nil) throws {
        guard let id = annotation.id, let current = try importedOver ?? self.annotation(id) else {
            throw PDFError(.notFound, "the annotation is not in the document (add it first)")
        }
        try checkCertification(allows: .annotations)
        noteModification(.annotations)
        if annotation.inReplyTo != current.inReplyTo || annotation.state != current.state
            || annotation.stateModel != current.stateModel || annotation.replyType != current.replyType {
            try checkReplies()
        }
        // An object that a page's /Annots lists besides another page's (real files have
        // them: a link on two pages) is updated through either listing.
        if annotation.pageIndex != current.pageIndex {
            let listed = try annotations(onPage: annotation.pageIndex).contains { $0.id?.number == id.number }
            guard listed else {
                throw PDFError(.invalidArgument, "an annotation cannot move to another page; delete it and add it there")
            }
        }
        if let target = annotation.inReplyTo, target != current.inReplyTo, importedOver == nil {
            try checkReplyTarget(target, from: id, page: annotation.pageIndex)
        }
        try annotation.validateState()
        try annotation.validate(changedFrom: current)
        var a = annotation
        if importedOver == nil { a.defaultQuadPoints(); a.fitRectToCloud() }
        a.applyMeasurement(previous: current)
        if importedOver == nil { a.fitRectToMeasurementLabel() }
        a.modificationDate = PDFDate.now()
        guard case .dictionary(let original) = try object(id.number) else {
            throw PDFError(.format, "annotation \(id) is not a dictionary")
        }
        // /P stays the page it names (the first listing, for an object on two pages).
        var dict = a.written(into: original, pageObject: try page(at: current.pageIndex).id, previous: current)
        try storeCarried(&a, into: &dict)
        if Annotation.creatableSubtypes.contains(a.subtype) { dict = try withAppearance(a, dict, strict: importedOver == nil) }
        try setObject(id.number, .dictionary(dict))
    }

    /// Stores what `a` carries to be stored, for adding it and for updating it alike: a
    /// stamp's image (its private entry) and a FileAttachment's file (/FS), then forgets
    /// them (a synced layer's record carries either as an attachment, by its SHA-256).
    private func storeCarried(_ a: inout Annotation, into dict: inout PDFDictionary) throws {
        if let image = a.image { dict[Document.imageKey] = try storeImage(image) }
        a.image = nil
        if let file = a.file { dict["FS"] = try storeAttachedFile(file); a.fileInfo = file.info }
        a.file = nil
    }

    /// Deletes annotation `id` and its popup: they leave the page's /Annots and are freed.
    /// The page's other annotations keep their links to them by id: a reply to the deleted
    /// annotation stays a reply to its id (``Annotation/inReplyToID``), an annotation whose
    /// popup was deleted keeps the popup's id (``Annotation/popupID``); nothing else of theirs
    /// changes (not even /M): deleting an annotation changes no other annotation's record.
    func deleteAnnotationUnbatched(_ id: ObjectID) throws {
        guard let annotation = try annotation(id) else {
            throw PDFError(.notFound, "no annotation is object \(id)")
        }
        try checkCertification(allows: .annotations)
        noteModification(.annotations)
        let page = try self.page(at: annotation.pageIndex)
        // The objects that go: the annotation, and its popup unless it belongs to another.
        var remove: Set<Int> = [id.number]
        if let popup = annotation.popup, (try ownerOfPopup(popup)).map({ $0.number == id.number }) ?? true {
            remove.insert(popup.number)
        }
        // Every page that lists them (an object a file lists on two pages is gone from
        // both: no /Annots keeps a reference to a freed object), and what each keeps.
        var listing: [(Page, [PDFObject])] = []
        for other in try pages() {
            let annots = other.index == page.index ? try page.dictionary["Annots"].map(resolve)?.array ?? []
                : try other.dictionary["Annots"].map(resolve)?.array ?? []
            let kept = annots.filter { !($0.reference.map { remove.contains($0.number) } ?? false) }
            if kept.count != annots.count { listing.append((other.index == page.index ? page : other, kept)) }
        }
        // Their annotations that link to them keep the links by id: the ids the annotation
        // JSON gives them now, before they go (read only when such a link exists).
        var links: [(Int, PDFName, Int, Int)] = []
        for (p, kept) in listing { links += try self.links(in: kept, to: remove).map { ($0.0, $0.1, $0.2, p.index) } }
        // By object and page (an object two pages list has a record on each: a link from
        // one of those pages names the one on its page).
        var ids: [Int: [Int: String]] = [:]
        var firstID: [Int: String] = [:]
        if !links.isEmpty {
            for (a, rid) in try annotationRecordIDs(pages: Array(try pages().indices)) {
                guard let n = a.id?.number, remove.contains(n) else { continue }
                if ids[n]?[a.pageIndex] == nil { ids[n, default: [:]][a.pageIndex] = rid }
                if firstID[n] == nil { firstID[n] = rid }
            }
        }
        for (p, kept) in listing { try setAnnots(p, kept) }
        for (object, key, target, page) in links {
            guard let rid = ids[target]?[page] ?? firstID[target] else { continue }
            try setValue(.string(PDFString(text: rid)), forKey: key, inObject: object)
        }
        for number in remove.sorted() where isInUse(number) { try deleteObject(number) }
    }

    /// The annotations of `annots` whose /IRT or /Popup names one of `targets`: (object,
    /// the private key that keeps the link by id, the target).
    private func links(in annots: [PDFObject], to targets: Set<Int>) throws -> [(Int, PDFName, Int)] {
        var out: [(Int, PDFName, Int)] = []
        for entry in annots {
            guard let ref = entry.reference, !targets.contains(ref.number), isInUse(ref.number),
                  case .dictionary(let d) = try object(ref.number) else { continue }
            for (link, key) in [(PDFName("IRT"), Annotation.inReplyToIDKey), (PDFName("Popup"), Annotation.popupIDKey)] {
                if let target = d[link]?.reference, targets.contains(target.number) { out.append((ref.number, key, target.number)) }
            }
        }
        return out
    }

    // MARK: Replies

    /// Adds a text reply by `author` to annotation `target`.
    @discardableResult
    func addReplyUnbatched(to target: ObjectID, author: String?, contents: String) throws -> Annotation {
        var reply = try newReply(to: target, author: author)
        reply.contents = contents
        reply.iconName = "Comment"
        return try addAnnotation(reply)
    }

    /// Adds a state reply: `author` sets `state` in `model` on annotation `target`.
    @discardableResult
    func addStateReplyUnbatched(to target: ObjectID, author: String?, model: StateModel, state: String) throws -> Annotation {
        var reply = try newReply(to: target, author: author)
        reply.stateModel = model.rawValue
        reply.state = state
        reply.contents = "\(author ?? "") set the state to \(state)"
        // State replies are hidden: viewers list them in the thread, not on the page.
        reply.flags |= Annotation.Flag.hidden
        return try addAnnotation(reply)
    }

    /// A note that replies to `target`, on its page, not yet added.
    private func newReply(to target: ObjectID, author: String?) throws -> Annotation {
        try checkReplies()
        guard let parent = try annotation(target) else { throw PDFError(.notFound, "no annotation is object \(target)") }
        var reply = Annotation(subtype: "Text", pageIndex: parent.pageIndex, rect: Annotation.replyRect(parent.rect))
        reply.inReplyTo = target
        reply.replyType = .reply
        reply.author = author
        reply.flags = Annotation.Flag.print | Annotation.Flag.noZoom | Annotation.Flag.noRotate
        return reply
    }

    /// Makes annotation `id` reply to `target` (nil: no longer a reply).
    func setInReplyToUnbatched(_ id: ObjectID, _ target: ObjectID?) throws {
        try checkReplies()
        guard var a = try annotation(id) else { throw PDFError(.notFound, "no annotation is object \(id)") }
        a.inReplyTo = target
        if target == nil { a.replyType = nil; a.state = nil; a.stateModel = nil }
        try updateAnnotation(a)
    }

    private func checkReplies() throws {
        guard repliesEnabled else {
            throw PDFError(.disabled, "replies and review states are turned off for this document")
        }
    }

    /// A reply's target must be an annotation of the same page, and must not reply, at any
    /// depth, to the annotation being changed (no cycles).
    func checkReplyTarget(_ target: ObjectID, from id: ObjectID?, page: Int) throws {
        guard let t = try annotation(target) else {
            throw PDFError(.invalidArgument, "the reply target \(target) is not an annotation of the document")
        }
        guard t.pageIndex == page else {
            throw PDFError(.invalidArgument, "the reply target \(target) is on page \(t.pageIndex + 1), not page \(page + 1)")
        }
        guard let id else { return }
        var seen: Set<Int> = []
        var cursor: Annotation? = t
        while let c = cursor, let cid = c.id, seen.insert(cid.number).inserted {
            if cid.number == id.number {
                throw PDFError(.invalidArgument, "annotation \(id) cannot reply to \(target): that would make a cycle")
            }
            cursor = try c.inReplyTo.flatMap { try annotation($0) }
        }
    }

    /// The annotation a popup belongs to (its /Parent), when that is an annotation in use.
    private func ownerOfPopup(_ popup: ObjectID) throws -> ObjectID? {
        guard let parent = try dictionary(.reference(popup))?["Parent"]?.reference, isInUse(parent.number) else { return nil }
        return parent
    }

    // MARK: Pages' /Annots

    /// See ``moveAnnotation(_:_:)``.
    func moveAnnotationUnbatched(_ id: ObjectID, _ order: AnnotationOrder) throws -> Bool {
        guard let annotation = try annotation(id) else { throw PDFError(.notFound, "no annotation is object \(id)") }
        let page = try self.page(at: annotation.pageIndex)
        var annots = try page.dictionary["Annots"].map(resolve)?.array ?? []
        guard let from = annots.firstIndex(where: { $0.reference?.number == id.number }) else {
            throw PDFError(.notFound, "annotation \(id) is not listed in the /Annots of page \(annotation.pageIndex + 1)")
        }
        func isPopup(_ entry: PDFObject) -> Bool {
            ((try? dictionary(entry)) ?? nil)?["Subtype"]?.name?.value == "Popup"
        }
        let to: Int
        switch order {
        case .front: to = annots.count - 1
        case .back: to = 0
        case .forward: to = annots.indices.dropFirst(from + 1).first { !isPopup(annots[$0]) } ?? from
        case .backward: to = annots.indices.prefix(from).last { !isPopup(annots[$0]) } ?? from
        }
        guard to != from else { return false }
        try checkCertification(allows: .annotations)
        noteModification(.annotations)
        let entry = annots.remove(at: from)
        annots.insert(entry, at: to)
        try setAnnots(page, annots)
        return true
    }

    /// Puts annotations `ids` of page `pageIndex` in that order in its /Annots: they take
    /// the places they already hold, in `ids`' order (the others stay where they are).
    /// Returns whether /Annots changed (nothing is written when they are in order).
    @discardableResult
    func orderAnnotations(_ ids: [ObjectID], onPage pageIndex: Int) throws -> Bool {
        let page = try self.page(at: pageIndex)
        var annots = try page.dictionary["Annots"].map(resolve)?.array ?? []
        var wanted: [Int] = []
        var seen: Set<Int> = []
        for id in ids where seen.insert(id.number).inserted { wanted.append(id.number) }
        let listed = Set(wanted)
        let slots = annots.indices.filter { annots[$0].reference.map { listed.contains($0.number) } ?? false }
        let entries = Dictionary(slots.map { (annots[$0].reference?.number ?? -1, annots[$0]) }, uniquingKeysWith: { first, _ in first })
        let ordered = wanted.compactMap { entries[$0] }
        guard ordered.count == slots.count else { return false }  // listed twice in /Annots: left as it is
        var changed = false
        for (slot, entry) in zip(slots, ordered) where annots[slot].reference?.number != entry.reference?.number {
            annots[slot] = entry
            changed = true
        }
        guard changed else { return false }
        try checkCertification(allows: .annotations)
        noteModification(.annotations)
        try setAnnots(page, annots)
        return true
    }

    private func appendToAnnots(_ page: Page, _ entry: PDFObject) throws {
        var annots = try page.dictionary["Annots"].map(resolve)?.array ?? []
        annots.append(entry)
        try setAnnots(page, annots)
    }

    /// Replaces the page's /Annots, in place when it is an indirect array.
    func setAnnots(_ page: Page, _ annots: [PDFObject]) throws {
        guard let pageID = page.id else {
            throw PDFError(.unsupported, "page \(page.index + 1) is a direct object; its annotations cannot be changed")
        }
        if case .reference(let arrayID)? = page.dictionary["Annots"], isInUse(arrayID.number) {
            try setObject(arrayID.number, .array(annots))
        } else {
            try setValue(annots.isEmpty ? nil : .array(annots), forKey: "Annots", inObject: pageID.number)
        }
    }

    /// `dict` with a new normal appearance stream generated for `annotation`: for an image
    /// stamp (with Quire's image entry), the image scaled to the rectangle. `strict`: text
    /// no font can draw fails the call (the caller's own text), rather than being left out
    /// with a warning (a record imported from elsewhere).
    func withAppearance(_ annotation: Annotation, _ dict: PDFDictionary, strict: Bool) throws -> PDFDictionary {
        var appearance = try Appearance.make(for: annotation, document: self, strict: strict)
        if annotation.subtype == "Stamp", let entry = try self.dictionary(dict[Document.imageKey]),
           case .reference(let image)? = entry["Image"] {
            let turn = Appearance.Turn(annotation)
            let r = turn.box
            func n(_ v: Double) -> String { Appearance.n(v) }
            var resources = PDFDictionary([("XObject", .dictionary(PDFDictionary([("Im0", .reference(image))])))])
            var content = "q \(n(r.width)) 0 0 \(n(r.height)) \(n(r.left)) \(n(r.bottom)) cm /Im0 Do Q\n"
            if annotation.opacity < 1 || annotation.blendMode != nil {
                var gs = PDFDictionary([("Type", .name("ExtGState")), ("CA", Annotation.number(annotation.opacity)),
                                        ("ca", Annotation.number(annotation.opacity))])
                if let mode = annotation.blendMode { gs["BM"] = .name(PDFName(mode)) }
                resources["ExtGState"] = .dictionary(PDFDictionary([("GS0", .dictionary(gs))]))
                content = "/GS0 gs " + content
            }
            var form = PDFDictionary([
                ("Type", .name("XObject")), ("Subtype", .name("Form")),
                ("BBox", .array([r.left, r.bottom, r.right, r.top].map(Annotation.number))),
                ("Resources", .dictionary(resources)),
            ])
            if let m = turn.matrix { form["Matrix"] = .array(m.map(Annotation.number)) }
            appearance = Appearance.Stream(dictionary: form, content: Array(content.utf8))
        }
        var d = dict
        let stream = try addAppearanceStream(appearance)
        d["AP"] = .dictionary(PDFDictionary([("N", .reference(stream))]))
        return d
    }

    /// Writes a generated appearance: its text's fonts (the Unicode fonts as subsets of
    /// what it shows) into its /Resources /Font, then the stream.
    func addAppearanceStream(_ appearance: Appearance.Stream) throws -> ObjectID {
        var dict = appearance.dictionary
        for text in appearance.texts {
            let fonts = try text.fontResources(self)
            if !fonts.isEmpty {
                var resources = dict["Resources"]?.dictionary ?? PDFDictionary()
                var fontDict = resources["Font"]?.dictionary ?? PDFDictionary()
                for (name, font) in fonts { fontDict[PDFName(name)] = font }
                resources["Font"] = .dictionary(fontDict)
                dict["Resources"] = .dictionary(resources)
            }
        }
        return try addStream(dict, data: appearance.content)
    }
}

extension Annotation {
    /// Model and state set together, and the state one of its model's.
    func validateState() throws {
        switch (state, stateModel) {
        case (nil, nil): return
        case (nil, _?), (_?, nil):
            throw PDFError(.invalidArgument, "/State and /StateModel must be set together")
        case (let s?, let m?):
            guard let model = StateModel(rawValue: m) else {
                throw PDFError(.invalidArgument, "unknown state model \(m) (Marked or Review)")
            }
            guard model.states.contains(s) else {
                throw PDFError(.invalidArgument, "\(s) is not a state of the \(m) model (\(model.states.joined(separator: ", ")))")
            }
            // A state on an annotation that is not a reply is unusual but written by real
            // tools (iText); it reads and round-trips.
        }
    }

    /// The rectangle of a reply: a note-sized square at the top-left of its parent.
    static func replyRect(_ parent: Rect) -> Rect {
        Rect(left: parent.left, bottom: parent.top - 20, right: parent.left + 20, top: parent.top)
    }
}
