import QuireSyntax

/// One step of the tool manager's history: the PDF objects one call changed, each with its
/// exact state before and after it, and the /Annots of the pages whose annotations it
/// added or removed.
///
/// The record is the truth, and an undo is a change like any other that never applies over
/// someone else's: undoing first checks that every object the step changed is still
/// exactly as the step left it (a deleted one still absent); if one is not (a script, a
/// collaborator's change applied by the sync client, another manager changed it), the
/// step is refused and nothing changes. Otherwise each object gets back its exact state
/// before the step, under its own number (an undone deletion restores the same object),
/// so that no later step ever needs an object number remapped. Redo is the mirror.
///
/// Pages are shared: an annotation another user added to the same page must not block
/// the undo of a move. So a page's /Annots (the page dictionary, and the array object it
/// refers to) is restored exactly only when it is still exactly as the step left it;
/// otherwise the step's additions are taken out of the current /Annots and its removals
/// put back where they stood, after the nearest annotation that preceded them then and is
/// still there (so an undone deletion keeps its stacking order).
struct UndoStep {
    /// An object the step changed, other than a page's /Annots.
    struct ObjectChange {
        var number: Int
        var before: ObjectState
        var after: ObjectState
    }

    /// A page whose annotations the step added or removed.
    struct PageChange {
        /// The page object, and the objects that hold its /Annots (the page dictionary,
        /// the array it refers to) that the step changed, before and after.
        var page: Int
        var containers: [ObjectChange]
        /// Its /Annots entries before and after the step.
        var before: [PDFObject]
        var after: [PDFObject]
    }

    /// An annotation the step added, removed or changed.
    struct AnnotationChange: Equatable {
        enum Kind: Equatable { case added, removed, modified }
        var id: ObjectID
        var kind: Kind
        var subtype: String
        /// A form field's widget: reported as a field change.
        var isWidget: Bool
    }

    var description: String
    var objects: [ObjectChange]
    var pages: [PageChange]
    var annotations: [AnnotationChange]

    enum Direction { case undo, redo }

    /// The step of the objects that `record` noted, as they are now; nil when nothing
    /// changed.
    static func make(_ record: ObjectChangeRecord, in document: Document) throws -> UndoStep? {
        var objects: [ObjectChange] = []
        for number in record.order {
            guard let before = record.before[number] else { continue }
            let after = try document.objectState(number)
            if document.sameState(before, after) { continue }
            objects.append(ObjectChange(number: number, before: before, after: after))
        }
        guard !objects.isEmpty else { return nil }
        let changed = Dictionary(objects.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })

        // The containers of /Annots among them: page dictionaries, and arrays that a page's
        // /Annots refers to (now or before the step).
        let pageNumbers = try document.pageIndexByObject()
        var arrayOwner: [Int: Int]? = nil
        func owner(ofArray number: Int) throws -> Int? {
            if arrayOwner == nil {
                var map: [Int: Int] = [:]
                for page in try document.pages() {
                    guard let pid = page.id else { continue }
                    if let r = page.dictionary["Annots"]?.reference { map[r.number] = pid.number }
                    if let before = changed[pid.number]?.before.value?.dictionary, let r = before["Annots"]?.reference {
                        map[r.number] = pid.number
                    }
                }
                arrayOwner = map
            }
            return arrayOwner?[number]
        }
        var containersOf: [Int: [ObjectChange]] = [:]
        var containerNumbers: Set<Int> = []
        var pageOrder: [Int] = []
        for change in objects {
            var page: Int? = nil
            if pageNumbers[change.number] != nil {
                page = change.number
            } else if change.before.value?.array != nil || change.after.value?.array != nil {
                page = try owner(ofArray: change.number)
            }
            guard let page else { continue }
            if containersOf[page] == nil { pageOrder.append(page) }
            containersOf[page, default: []].append(change)
            containerNumbers.insert(change.number)
        }
        var pages: [PageChange] = []
        for page in pageOrder {
            func before(_ n: Int) throws -> PDFObject? {
                if let c = changed[n] { return c.before.value }
                return document.isInUse(n) ? try document.object(n) : nil
            }
            func after(_ n: Int) throws -> PDFObject? { document.isInUse(n) ? try document.object(n) : nil }
            let b = try before(page)?.dictionary.map { try document.annotsEntries(of: $0, lookup: before) } ?? []
            let a = try after(page)?.dictionary.map { try document.annotsEntries(of: $0, lookup: after) } ?? []
            pages.append(PageChange(page: page, containers: containersOf[page] ?? [], before: b, after: a))
        }
        objects.removeAll { containerNumbers.contains($0.number) }

        // The annotations among the objects: dictionaries (not streams: appearances have a
        // /Subtype too) with a /Subtype that some page of the step lists, or that call
        // themselves annotations, or have the /Rect every annotation has (one a file wrote
        // without /Type). Decided from the values alone: looking the object up among the
        // pages' annotations would read every page of a large document for each step.
        var listed: Set<Int> = []
        for p in pages { for e in p.before + p.after { if let r = e.reference { listed.insert(r.number) } } }
        var annotations: [AnnotationChange] = []
        for change in objects {
            func plain(_ s: ObjectState) -> PDFDictionary? {
                if case .dictionary(let d)? = s.value { return d }
                return nil
            }
            guard let dict = plain(change.after) ?? plain(change.before),
                  let subtype = dict["Subtype"]?.name?.value,
                  listed.contains(change.number) || dict["Type"]?.name?.value == "Annot"
                    || dict["Rect"]?.array != nil else { continue }
            let kind: AnnotationChange.Kind
            switch (change.before, change.after) {
            case (.absent, _): kind = .added
            case (_, .absent): kind = .removed
            default: kind = .modified
            }
            let generation: Int
            switch (change.after, change.before) {
            case (.present(_, let g), _), (.absent, .present(_, let g)): generation = g
            default: generation = 0
            }
            annotations.append(AnnotationChange(id: ObjectID(change.number, generation), kind: kind, subtype: subtype,
                                                isWidget: subtype == "Widget"))
        }
        return UndoStep(description: "", objects: objects, pages: pages, annotations: annotations)
    }

    // MARK: Undo and redo

    /// Undoes (or redoes) the step in one batch, after checking everything: every object
    /// it changed must be exactly as the step left it (as it found it, to redo). Throws
    /// `.state` naming the first object that is not, and changes nothing then.
    func apply(_ direction: Direction, in document: Document) throws {
        let expected: (ObjectChange) -> ObjectState = { direction == .undo ? $0.after : $0.before }
        let target: (ObjectChange) -> ObjectState = { direction == .undo ? $0.before : $0.after }
        let verb = direction == .undo ? "undo" : "redo"
        // Check everything first.
        for change in objects {
            let now = try document.objectState(change.number)
            guard document.sameState(now, expected(change)) else {
                throw conflict(verb, change.number, now: now, expected: expected(change))
            }
        }
        try checkNotMadeAgain(direction, verb: verb, target: target, in: document)
        var plans: [(PageChange, exact: Bool, merged: [PDFObject]?, index: Int?)] = []
        for page in pages {
            var exact = true
            for c in page.containers where !document.sameState(try document.objectState(c.number), expected(c)) {
                exact = false
            }
            if exact {
                plans.append((page, true, nil, nil))
                continue
            }
            let from = direction == .undo ? page.after : page.before
            let to = direction == .undo ? page.before : page.after
            guard case .dictionary(let dict)? = try? document.object(page.page) else {
                throw PDFError(.state, "\(verb) refused: page object \(page.page) is gone; the step is dropped and nothing was changed")
            }
            guard let index = try document.pageIndexByObject()[page.page] else {
                throw PDFError(.state, "\(verb) refused: object \(page.page) is no longer a page; the step is dropped and nothing was changed")
            }
            let current = try document.annotsEntries(of: dict) { document.isInUse($0) ? try document.object($0) : nil }
            plans.append((page, false, try UndoStep.merge(current, from: from, to: to, verb: verb), index))
        }
        // Then change, all in one batch: a failure part way puts back what was changed.
        var done: [(Int, ObjectState)] = []
        do {
            try document.batch {
                for change in objects {
                    done.append((change.number, try document.objectState(change.number)))
                    try document.setObjectState(change.number, target(change))
                }
                for (page, exact, merged, index) in plans {
                    if exact {
                        for c in page.containers {
                            done.append((c.number, try document.objectState(c.number)))
                            try document.setObjectState(c.number, target(c))
                        }
                    } else if let merged, let index {
                        let p = try document.page(at: index)
                        var holders = [page.page]
                        if let r = p.dictionary["Annots"]?.reference { holders.append(r.number) }
                        for n in holders { done.append((n, try document.objectState(n))) }
                        try document.setAnnots(p, merged)
                    }
                }
            }
        } catch {
            try? document.batch {
                for (number, state) in done.reversed() { try? document.setObjectState(number, state) }
            }
            throw error
        }
    }

    /// An annotation the step brings back (an undone deletion, a redone creation) must not
    /// be on its page again as another object with its identity (its /QuireID, else /NM,
    /// else its object number: what names its record): made again outside the manager (a
    /// collaborator's change that the sync client applied as a new object, an import).
    /// Bringing it back would put its old state over that one's, beside it.
    private func checkNotMadeAgain(_ direction: Direction, verb: String, target: (ObjectChange) -> ObjectState,
                                   in document: Document) throws {
        var names: [String: Int] = [:]
        for a in annotations where (a.kind == .removed && direction == .undo) || (a.kind == .added && direction == .redo) {
            guard let change = objects.first(where: { $0.number == a.id.number }),
                  let dict = target(change).value?.dictionary else { continue }
            let name = (dict[Annotation.recordIDKey] ?? dict["NM"])?.string?.text ?? String(a.id.number)
            names[name] = a.id.number
        }
        guard !names.isEmpty else { return }
        let indexByObject = try document.pageIndexByObject()
        for page in pages {
            guard let index = indexByObject[page.page] else { continue }
            for other in try document.annotations(onPage: index) {
                guard let id = other.id, let name = other.recordID ?? other.name, let number = names[name],
                      id.number != number else { continue }
                throw PDFError(.state, "\(verb) refused: annotation \(number)'s name \"\(name.prefix(60))\" is on page \(index + 1) again, as annotation \(id.number), made outside the tool manager; the step is dropped and nothing was changed")
            }
        }
    }

    /// `current` with the references that the step added (in `to`'s direction: in `from`,
    /// not in `to`) taken out, and those it removed (in `to`, not in `from`) put back after
    /// the nearest entry that preceded them in `to` and is still there. Throws `.state` when
    /// one of those it added is no longer listed, or one it removed is listed again.
    static func merge(_ current: [PDFObject], from: [PDFObject], to: [PDFObject], verb: String) throws -> [PDFObject] {
        let fromNumbers = Set(from.compactMap { $0.reference?.number })
        let toNumbers = Set(to.compactMap { $0.reference?.number })
        let currentNumbers = Set(current.compactMap { $0.reference?.number })
        let takeOut = fromNumbers.subtracting(toNumbers)
        let putBack = toNumbers.subtracting(fromNumbers)
        if let missing = takeOut.subtracting(currentNumbers).min() {
            throw PDFError(.state, "\(verb) refused: annotation \(missing) left its page outside the tool manager; the step is dropped and nothing was changed")
        }
        if let back = putBack.intersection(currentNumbers).min() {
            throw PDFError(.state, "\(verb) refused: annotation \(back) is on its page again, put there outside the tool manager; the step is dropped and nothing was changed")
        }
        var out = current.filter { !($0.reference.map { takeOut.contains($0.number) } ?? false) }
        for (i, entry) in to.enumerated() {
            guard let r = entry.reference, putBack.contains(r.number) else { continue }
            // After the nearest earlier entry of `to` that is in `out`.
            var at = 0
            var k = i - 1
            while k >= 0 {
                if let p = to[k].reference, let j = out.firstIndex(where: { $0.reference?.number == p.number }) {
                    at = j + 1
                    break
                }
                k -= 1
            }
            out.insert(entry, at: at)
        }
        return out
    }

    private func conflict(_ verb: String, _ number: Int, now: ObjectState, expected: ObjectState) -> PDFError {
        let what: String
        if let a = annotations.first(where: { $0.id.number == number }) {
            what = "annotation \(number) (\(UndoStep.noun(a.subtype)))"
        } else {
            what = "object \(number)"
        }
        let how: String
        switch (now, expected) {
        case (.absent, _): how = "was deleted"
        case (_, .absent): how = "was added again"
        default: how = "was changed"
        }
        return PDFError(.state, "\(verb) refused: \(what) \(how) outside the tool manager after this step (\(description)); the step is dropped and nothing was changed")
    }

    /// How a description names an annotation of `subtype`.
    static func noun(_ subtype: String) -> String {
        switch subtype {
        case "Text": return "Note"
        case "FreeText": return "Free text"
        case "PolyLine": return "Polyline"
        case "StrikeOut": return "Strikeout"
        case "Widget": return "Field"
        case "FileAttachment": return "File attachment"
        default: return subtype
        }
    }
}
