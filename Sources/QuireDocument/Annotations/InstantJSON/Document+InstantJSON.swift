import FoundationEssentials
import QuireSyntax

// MARK: - Document API

/// What an import does with a link (`quire.inReplyTo`, `quire.popup`) to an id that is
/// neither a record of the JSON nor an annotation of the document.
public enum MissingLinkPolicy: Sendable, Equatable {
    /// The import fails, naming the field (the default).
    case reject
    /// The link is kept as an id (``Annotation/inReplyToID``, ``Annotation/popupID``) and
    /// exported as it was: a synced layer's reply whose parent was deleted stays a reply.
    case keep
}

/// How an import treats its records.
public struct AnnotationImportOptions: Sendable, Equatable {
    /// A link to an id found nowhere: refused (the default) or kept.
    public var missingLinks: MissingLinkPolicy
    /// Records are the truth (a synced layer's): each is imported so that the export gives
    /// it back as it is. A record without `name` makes (or leaves) an annotation without
    /// /NM, its `id` kept as /QuireID (``Annotation/recordID``); by default the /NM is
    /// `name ?? id`, PSPDFKit's convention (so that PSPDFKit, reading the PDF, finds the
    /// same ids), and the export then adds a `name`.
    public var exactRecords: Bool

    public init(missingLinks: MissingLinkPolicy = .reject, exactRecords: Bool = false) {
        self.missingLinks = missingLinks
        self.exactRecords = exactRecords
    }

    /// What a sync client imports its layer's records with: links kept, records exact.
    public static let synced = AnnotationImportOptions(missingLinks: .keep, exactRecords: true)
}

extension Document {
    /// The annotations of page `page` (nil: of the whole document) as Instant JSON with
    /// Quire's extensions (docs/annotation-json.md): UTF-8, pretty-printed with two-space
    /// indentation and keys in sorted order, so the same annotations always give the same
    /// bytes. Annotations appear page by page in /Annots order.
    public func exportAnnotationsJSON(page: Int?) throws -> [UInt8] {
        try exportAnnotationsJSON(page: page, prettyPrinted: true)
    }

    /// As ``exportAnnotationsJSON(page:)``; `prettyPrinted: false` gives the compact form
    /// (no whitespace), keys still sorted.
    public func exportAnnotationsJSON(page: Int?, prettyPrinted: Bool) throws -> [UInt8] {
        try exportAnnotationsJSON(page: page, prettyPrinted: prettyPrinted, instantComments: false)
    }

    /// As ``exportAnnotationsJSON(page:prettyPrinted:)``; with `instantComments`, the replies
    /// that Instant JSON's comments can hold (notes replying to an exported annotation that
    /// is not itself a reply, without a state) are written as `comments` of their root
    /// instead of as records, for PSPDFKit's Instant comments (docs/annotation-json.md).
    ///
    /// `progress` (see ``ProgressHandler``) counts two steps per page exported: its
    /// annotations read, then written as records; throwing from it stops the export.
    public func exportAnnotationsJSON(page: Int?, prettyPrinted: Bool, instantComments: Bool,
                                      progress: ProgressHandler? = nil) throws -> [UInt8] {
        var json = try annotationsInstantJSON(page: page, progress: progress)
        if instantComments { json = Document.withInstantComments(json) }
        do {
            return try JSONTreeWriter.encode(json, prettyPrinted: prettyPrinted)
        } catch {
            throw PDFError(.format, "the annotations cannot be written as JSON: \(error)")
        }
    }

    /// The records ``exportAnnotationsJSON(page:)`` writes; `progress` as for
    /// ``exportAnnotationsJSON(page:prettyPrinted:instantComments:progress:)``.
    public func annotationsInstantJSON(page: Int?, progress: ProgressHandler? = nil) throws -> InstantJSONDocument {
        let count = try pageCount()
        let indices: [Int]
        if let page {
            _ = try self.page(at: page)  // range check
            indices = [page]
        } else {
            indices = Array(try pages().indices)  // the pages that exist
        }
        var entries: [(annotation: Annotation, id: String, frame: InstantJSON.Frame)] = []
        var idOfObject: [Int: String] = [:]
        // An object two pages list has a record on each: a link from one of those pages
        // names the one on its page.
        var idOnPage: [Int: [Int: String]] = [:]
        var frames: [Int: InstantJSON.Frame] = [:]
        let steps = 2 * indices.count
        try progress?(0, steps)
        for (a, id) in try annotationRecordIDs(pages: indices, eachPage: { k in if k > 0 { try progress?(k, steps) } }) {
            if let object = a.id {
                if idOfObject[object.number] == nil { idOfObject[object.number] = id }
                if idOnPage[object.number]?[a.pageIndex] == nil { idOnPage[object.number, default: [:]][a.pageIndex] = id }
            }
            let frame = try frames[a.pageIndex] ?? InstantJSON.Frame(self.page(at: a.pageIndex))
            frames[a.pageIndex] = frame
            entries.append((a, id, frame))
        }
        func reference(_ target: ObjectID, _ what: String, from a: Annotation) throws -> String? {
            if let id = idOnPage[target.number]?[a.pageIndex] ?? idOfObject[target.number] { return id }
            if let t = try annotation(target) { return t.name ?? String(target.number) }
            file.warn("annotation \(a.name ?? a.id?.description ?? "") on page \(a.pageIndex + 1): its \(what) \(target) is not an annotation of the document; left out of the JSON")
            return nil
        }
        var records: [InstantJSONAnnotation] = []
        var attachments: [String: InstantJSONAttachment] = [:]
        var textPages: [Int: TextPage?] = [:]  // each page's text read once, for markedText
        // The second step of each page: its records written (entries are in page order).
        var pagesWritten = 0
        var lastPage: Int? = nil
        for (a, id, frame) in entries {
            if a.pageIndex != lastPage {
                if lastPage != nil { pagesWritten += 1 }
                lastPage = a.pageIndex
                try progress?(indices.count + pagesWritten, steps)
            }
            let kind = InstantJSON.kind(subtype: a.subtype)
            var r = InstantJSON.visibleRecord(a, kind: kind, frame: frame)
            r.id = id
            var q = r.quire ?? InstantJSONQuireFields()
            // Links are ids: an /IRT or /Popup to an annotation of the document names its
            // id; a target that is not in the document keeps the id it had (/QuireIRT,
            // /QuirePopup: a deleted parent, a record of a synced layer this file lacks).
            if let target = a.inReplyTo {
                q.inReplyTo = try reference(target, "/IRT", from: a)
                if q.inReplyTo == nil { q.replyType = nil; q.state = nil; q.stateModel = nil }
            } else if let id = a.inReplyToID {
                q.inReplyTo = id
            }
            if let popup = a.popup { q.popup = try reference(popup, "/Popup", from: a) } else { q.popup = a.popupID }
            let warn: (String) -> Void = { [file] in file.warn($0) }
            if let action = a.action {
                r.action = InstantJSON.jsonAction(action, warn: warn)
                if a.destination != nil { warn("a link has both /A and /Dest; its /Dest is left out of the JSON") }
            } else if let d = a.destination {
                r.action = InstantJSON.jsonAction(Action(kind: .goTo(d)), warn: warn)
                q.actionIsDestination = true
            }
            r.quire = q
            // An image stamp: pspdfkit/image, its image back in `attachments` (the bytes
            // imported, keyed by their SHA-256 as PSPDFKit keys them).
            if a.subtype == "Stamp", let object = a.id, let image = try imageAttachment(of: object) {
                let key = InstantJSON.hex(JournalCodec.sha256(image.bytes)).lowercased()
                r.type = InstantJSON.imageType
                r.imageAttachmentId = key
                r.contentType = image.contentType
                attachments[key] = InstantJSONAttachment(binary: Data(image.bytes).base64EncodedString(), contentType: image.contentType)
            }
            // A file attachment: pspdfkit/file, its embedded file in `attachments` by SHA-256.
            if a.subtype == "FileAttachment" {
                exportAttachedFile(a, into: &r, attachments: &attachments)
            }
            try InstantJSON.addExactValues(&r, a, kind: kind, frame: frame)
            if let text = markedTextForExport(a, pages: &textPages) {
                var withText = r.quire ?? InstantJSONQuireFields()
                withText.markedText = text
                r.quire = withText
            }
            records.append(r)
        }
        var json = InstantJSONDocument(annotations: records)
        json.attachments = attachments.isEmpty ? nil : attachments
        json.quire = InstantJSONQuireInfo(version: 1, pageCount: count, pageIndex: page)
        // Instant JSON's document fields: the file the object numbers belong to and, for
        // the whole document, the form's values. No skippedPdfObjectIds: the export is every
        // annotation, not an overlay of changes, and a client that imports part of it back
        // (one edited record, say) must not delete the annotations it left out.
        json.pdfId = instantPdfId
        if page == nil { json.formFieldValues = exportedFieldValues() }
        if steps > 0 { try progress?(steps, steps) }
        return json
    }

    /// The record id of each annotation of pages `indices`, in page and /Annots order, as
    /// the annotation JSON names it (the one rule for export and import): its /QuireID
    /// (``Annotation/recordID``), else its /NM, else its object number (PSPDFKit's
    /// convention), made unique: an id that an earlier annotation has already becomes the
    /// object number (the record keeps the /NM in `name`), and an object listed on two
    /// pages gets `#page` after it on the second (`#page.position` when it is listed twice
    /// on one page).
    func annotationRecordIDs(pages indices: [Int], eachPage: ((Int) throws -> Void)? = nil) throws -> [(annotation: Annotation, id: String)] {
        var out: [(annotation: Annotation, id: String)] = []
        var used: Set<String> = []
        for (k, index) in indices.enumerated() {
            try eachPage?(k)
            for (position, a) in try annotations(onPage: index).enumerated() {
                var id = a.recordID ?? a.name ?? a.id.map { String($0.number) } ?? "direct-\(index)-\(position)"
                if used.contains(id), let object = a.id { id = String(object.number) }
                // An object listed on two pages: its page, which its place in /Annots does not
                // change (only a second listing on one page takes the position too).
                if used.contains(id) { id += "#\(index)" }
                if used.contains(id) { id += ".\(position)" }
                used.insert(id)
                out.append((a, id))
            }
        }
        return out
    }

    /// Writes /QuireID (``Annotation/recordID``) into every annotation whose record id
    /// depends on the others (its /NM is an earlier annotation's too, so its id is its
    /// object number): the ids then stay what they are when annotations come and go. An
    /// object listed on two pages keeps its ids by page (`#page`) as they are. Changes
    /// only that entry of those annotations; returns how many it pinned.
    @discardableResult
    public func pinAnnotationRecordIDs() throws -> Int {
        var pinned = 0
        try batch {
            for (a, id) in try annotationRecordIDs(pages: Array(try pages().indices)) {
                guard let object = a.id, a.recordID == nil, !id.contains("#"), id != (a.name ?? String(object.number)) else { continue }
                try setValue(.string(PDFString(text: id)), forKey: Annotation.recordIDKey, inObject: object.number)
                pinned += 1
            }
        }
        return pinned
    }

    /// Imports annotation JSON (Instant JSON, with or without Quire's extensions) and returns
    /// the annotations as stored, in the order of the records.
    ///
    /// - Each record is matched to an annotation of its page: by object (`pdfObjectId`, or
    ///   an id of digits, for an annotation of the same subtype without another /NM), then
    ///   by /NM `name ?? id`; a matched annotation is updated (its object is kept, and one
    ///   without /NM stays so), so a document's own export imports as a no-op. A record of a
    ///   widget the document lacks is skipped with a warning. Else the annotation is
    ///   created, with the /NM `name ?? id`: subtypes Quire creates through
    ///   ``addAnnotation(_:)`` (with an appearance), others as generic annotations (the
    ///   modelled entries only, no appearance). An annotation of that /NM on another page is
    ///   an error: annotations do not move between pages.
    /// - Dates, flags and every other modelled entry are written as the record says
    ///   (`updatedAt` included: import restores a state, it does not edit it).
    /// - `quire.inReplyTo` and `quire.popup` name another record's `id` (or `name`), or an
    ///   annotation of the document by /NM; a target found nowhere is an error, or with
    ///   `options.missingLinks` `.keep` a link kept by id (``Annotation/inReplyToID``,
    ///   ``Annotation/popupID``), as a synced layer keeps a reply whose parent was deleted.
    ///   An annotation created by the import whose id such a kept link names becomes its
    ///   target (/IRT or /Popup) again.
    /// - Everything is checked before the document changes: malformed JSON, wrong types,
    ///   numbers out of range, missing fields, unknown types, flags, colours and states,
    ///   missing reply targets, replies across pages and cycles all throw
    ///   `PDFError(.format)` naming the field, and leave the document as it was.
    /// - The import is all or nothing (``allOrNothing(_:)``): an error while the records are
    ///   applied, or `progress` (see ``ProgressHandler``; two steps per record: created or
    ///   updated, then completed) throwing to cancel, undoes what was applied.
    public func importAnnotationsJSON(_ data: [UInt8], options: AnnotationImportOptions = AnnotationImportOptions(),
                                      progress: ProgressHandler? = nil) throws -> [Annotation] {
        try importAnnotations(try InstantJSONDocument(jsonBytes: data), options: options, progress: progress)
    }

    /// Imports parsed records (see ``importAnnotationsJSON(_:)``).
    /// How the records of an import meet the document's annotations: which existing
    /// annotation each record updates (by object, then by /NM on its page), the records
    /// that stand for an annotation another record already matched or for a direct
    /// dictionary (aliases: nothing to do), and the widget records skipped. May clear a
    /// record's name (an annotation matched by object keeps having no /NM).
    struct ImportMatch {
        var existingByName: [String: [Annotation]]
        var existingByNumber: [Int: Annotation]
        var target: [ObjectID?]
        var recordOfObject: [Int: Int]
        var alias: [Int?]
        var direct: [Int: Annotation]
        var skipped: [Bool]
        /// The document's annotations by record id (``annotationRecordIDs``), when read.
        var recordIDs: [String: Annotation]?
    }

    /// The records that stand for an annotation the page holds as a direct dictionary in
    /// /Annots (such an annotation has no object to update), with that annotation: a record
    /// equal to its export is the same annotation; one that differs is refused. (A function
    /// of its own for its stack frame: see ``matchImportRecords(_:_:recordOf:)``.)
    func directAliases(_ records: [InstantJSONAnnotation], _ wanted: [Annotation],
                       unmatched: (Int) -> Bool) throws -> [(Int, Annotation)] {
        var directRecords: [Int: [String: (record: InstantJSONAnnotation, annotation: Annotation)]] = [:]
        var found: [(Int, Annotation)] = []
        for (i, r) in records.enumerated() where unmatched(i) {
            guard let id = r.id, r.pdfObjectId == nil else { continue }
            let page = wanted[i].pageIndex
            if directRecords[page] == nil {
                var byID: [String: (record: InstantJSONAnnotation, annotation: Annotation)] = [:]
                // The export lists a page's annotations in the order annotations(onPage:) does.
                let exported = try annotationsInstantJSON(page: page).annotations
                for (record, a) in zip(exported, try annotations(onPage: page)) where a.id == nil {
                    if let rid = record.id { byID[rid] = (record, a) }
                }
                directRecords[page] = byID
            }
            guard let current = directRecords[page]?[id] else { continue }
            guard current.record.withoutMarkedText == r.withoutMarkedText else {
                throw PDFError(.unsupported, "annotation JSON: annotations[\(i)]: the annotation \"\(id.prefix(60))\" is a direct dictionary in the page's /Annots, which Quire cannot update (save the document in full first, which makes it an object)")
            }
            found.append((i, current.annotation))
        }
        return found
    }

    func matchImportRecords(_ records: [InstantJSONAnnotation], _ wanted: inout [Annotation],
                            recordOf: [String: Int], exactRecords: Bool = false, byID: Bool = true) throws -> ImportMatch {
        var existingByName: [String: [Annotation]] = [:]
        var existingByNumber: [Int: Annotation] = [:]
        for a in try allAnnotations() {
            guard let id = a.id else { continue }
            existingByNumber[id.number] = a
            if let name = a.name { existingByName[name, default: []].append(a) }
        }
        // Which existing annotation each record updates: first by object number (the
        // record's pdfObjectId, or the id of digits that Quire gives an annotation without
        // /NM), for an annotation of the same page and subtype whose /NM is absent or the
        // record's; then by /NM on the same page. So a document's own export matches every
        // annotation it came from, with or without /NM, and importing it changes nothing.
        var target: [ObjectID?] = Array(repeating: nil, count: records.count)
        var claimed: Set<Int> = []
        var recordOfObject: [Int: Int] = [:]
        func claim(_ i: Int, _ id: ObjectID) {
            target[i] = id
            claimed.insert(id.number)
            recordOfObject[id.number] = i
        }
        // The objects in each record page's /Annots (an object that a damaged file lists on
        // two pages is on both).
        var onPage: [Int: [Int: Annotation]] = [:]
        for page in Set(wanted.map(\.pageIndex)) {
            var here: [Int: Annotation] = [:]
            for a in try annotations(onPage: page) { if let id = a.id, here[id.number] == nil { here[id.number] = a } }
            onPage[page] = here
        }
        // A record of an object that an earlier record already stands for (the same object
        // listed on two pages): an alias, which changes nothing.
        var alias: [Int?] = Array(repeating: nil, count: records.count)
        for (i, r) in records.enumerated() {
            guard let number = InstantJSON.objectNumber(of: r), let e = onPage[wanted[i].pageIndex]?[number], let eid = e.id,
                  e.subtype == wanted[i].subtype,
                  e.name == nil || e.name == (r.name ?? r.id) else { continue }
            if let first = recordOfObject[number] {
                alias[i] = first
                continue
            }
            claim(i, eid)
            existingByNumber[number] = e  // as listed on the record's page
            if e.name == nil { wanted[i].name = nil }  // it stays without /NM, as it was
        }
        // Then by record id, as the export names each annotation (``annotationRecordIDs``):
        // a synced layer's record carries no pdfObjectId, and its id names the same
        // annotation in every client's document, even one whose /NM another annotation
        // shares, or an object listed on two pages.
        var byRecordID: [String: Annotation]?
        for (i, r) in records.enumerated() where byID && target[i] == nil && alias[i] == nil {
            guard let rid = r.id else { continue }
            if byRecordID == nil {
                byRecordID = [:]
                for (a, id) in try annotationRecordIDs(pages: Array(try pages().indices)) where byRecordID?[id] == nil {
                    byRecordID?[id] = a
                }
            }
            guard let e = byRecordID?[rid], let eid = e.id, e.pageIndex == wanted[i].pageIndex,
                  e.subtype == wanted[i].subtype else { continue }
            if let first = recordOfObject[eid.number] {
                alias[i] = first
                continue
            }
            claim(i, eid)
            existingByNumber[eid.number] = e
            // It keeps its /NM, or its lack of one (an exact record says which).
            if r.name == nil && !exactRecords { wanted[i].name = e.name }
        }
        // Then by /NM on the same page; not for exact records, whose id is what names them
        // (another annotation may have the /NM: a duplicate a file holds).
        for (i, a) in wanted.enumerated() where target[i] == nil && alias[i] == nil && !exactRecords {
            guard let name = a.name, let candidates = existingByName[name] else { continue }
            let free = candidates.filter { $0.id.map { !claimed.contains($0.number) } ?? false }
            if let same = free.first(where: { $0.pageIndex == a.pageIndex }), let sameID = same.id {
                claim(i, sameID)
            } else if let other = free.first {
                throw PDFError(.invalidArgument, "annotation JSON: annotations[\(i)].pageIndex: the annotation \"\(name.prefix(60))\" is on page \(other.pageIndex + 1) of the document, not page \(a.pageIndex + 1); annotations do not move between pages (delete it first)")
            }
        }
        // A record of an annotation that the page holds as a direct dictionary in /Annots
        // (id "direct-PAGE-POSITION", as the export names it): such an annotation has no
        // object to update. A record the same as its export is the same annotation and
        // changes nothing; one that differs is refused.
        // Records of direct dictionaries are found by the caller (directAliases), after this
        // function's frame is gone.
        // Widgets are form fields: a record of one updates nothing (the forms model owns
        // them) and one that matches no widget of the document is skipped with a warning,
        // never made into an annotation without a field.
        var skipped = alias.map { $0 != nil }
        for i in records.indices where wanted[i].subtype == "Widget" && alias[i] == nil {
            if target[i] == nil {
                skipped[i] = true
                file.warn("annotation JSON: annotations[\(i)] is a form widget that the document does not have; skipped (the annotation JSON does not create form fields)")
            }
        }
        // Media annotations are read and kept, not created: a record of one updates the
        // annotation it matches, and one that matches none is skipped with a warning, never
        // made into an annotation without its media.
        for i in records.indices where Annotation.mediaSubtypes.contains(wanted[i].subtype) && alias[i] == nil && target[i] == nil {
            skipped[i] = true
            file.warn("annotation JSON: annotations[\(i)] is a \(wanted[i].subtype) annotation that the document does not have; skipped (\(Annotation.mediaSubtypesReason))")
        }
        return ImportMatch(existingByName: existingByName, existingByNumber: existingByNumber, target: target,
                           recordOfObject: recordOfObject, alias: alias, direct: [:], skipped: skipped, recordIDs: byRecordID)
    }

    /// Whether `recorded`, a record's action, is what the annotation dictionary's own /A
    /// exports as (none for an action the annotation JSON cannot carry), so that the import
    /// keeps /A as it is.
    func recordKeepsAction(of current: PDFDictionary, _ recorded: InstantJSONAction?) -> Bool {
        guard let value = current["A"] else { return recorded == nil }
        let exported = (try? action(value))?.flatMap { InstantJSON.jsonAction($0, warn: { _ in }) }
        return exported == recorded
    }

    func importAnnotationsUnbatched(_ json: InstantJSONDocument, options: AnnotationImportOptions = AnnotationImportOptions(),
                                    progress: ProgressHandler? = nil) throws -> [Annotation] {
        let missingLinks = options.missingLinks
        // Another file's JSON: its ids are not this document's record ids either.
        let sameFile = !pdfIdNamesAnotherFile(json)
        let json = importedObjectNumbers(json)
        let count = try pageCount()
        // Pages that the root's /Count counts but the tree does not hold take no annotations.
        let existing = try pages().count
        // Instant JSON's comments are replies: records after the annotations.
        let records = json.annotations + (try commentRecords(json))
        let annotationCount = json.annotations.count
        // 1. Every record to an annotation, checked.
        var wanted: [Annotation] = []
        var frames: [Int: InstantJSON.Frame] = [:]
        var images: [Int: (image: ImageAttachment, bytes: [UInt8], contentType: String)] = [:]
        var imageless: [Int] = []
        var files: [Int: Annotation.AttachedFile] = [:]
        var fileless: [Int] = []
        for (i, r) in records.enumerated() {
            let path = i < annotationCount ? "annotations[\(i)]" : "comments[\(i - annotationCount)]"
            guard let kind = InstantJSON.kind(type: r.type) else {
                throw PDFError(.format, "annotation JSON: \(path).type: unsupported annotation type \"\(r.type.prefix(60))\" (Quire reads \(InstantJSON.kinds.map(\.type).joined(separator: ", ")) and \(InstantJSON.genericType))")
            }
            guard r.pageIndex >= 0 && r.pageIndex < count else {
                throw PDFError(.format, "annotation JSON: \(path).pageIndex: page \(r.pageIndex) does not exist (the document has \(count) pages)")
            }
            guard r.pageIndex < existing else {
                throw PDFError(.format, "annotation JSON: \(path).pageIndex: page \(r.pageIndex) does not exist (it is counted by the page tree's /Count (\(count)) but the tree holds only \(pagesText(existing)))")
            }
            let frame: InstantJSON.Frame
            if let f = frames[r.pageIndex] {
                frame = f
            } else {
                let page = try self.page(at: r.pageIndex)
                guard page.id != nil else {
                    throw PDFError(.unsupported, "page \(r.pageIndex + 1) is a direct object; its annotations cannot be changed")
                }
                frame = try InstantJSON.Frame(page)
                frames[r.pageIndex] = frame
            }
            if let name = r.name ?? r.id, name.isEmpty {
                throw PDFError(.format, "annotation JSON: \(path).\(r.name != nil ? "name" : "id"): must not be empty")
            }
            var a = try InstantJSON.fields(of: r, kind: kind, frame: frame, pageCount: existing, path: path)
            if options.exactRecords { a.name = r.name }  // no `name`, no /NM: the id is kept as /QuireID
            wanted.append(a)
            if r.type == InstantJSON.imageType {
                // Without its attachment in this JSON (a record synced alone), the record may
                // only update a stamp that has its image already (checked once matched).
                if let key = r.imageAttachmentId, json.attachments?[key] == nil { imageless.append(i) }
                else { images[i] = try checkedImage(r, json.attachments, path: path) }
            }
            try InstantJSON.checkFileFields(r, path: path)
            if r.type == InstantJSON.fileType {
                // Likewise a file: without its attachment, it may only update a file
                // attachment that has a file already; with it, the file is replaced.
                if let key = r.fileAttachmentId, json.attachments?[key] == nil { fileless.append(i) }
                else if let file = try checkedFile(r, json.attachments, path: path) { files[i] = file }
            }
        }
        // 2. References: record ids and names, then the document's /NM.
        var recordOf: [String: Int] = [:]
        for (i, r) in records.enumerated() {
            guard let id = r.id else { continue }
            if recordOf[id] != nil { throw PDFError(.format, "annotation JSON: annotations[\(i)].id: \"\(id.prefix(60))\" is the id of an earlier record too") }
            recordOf[id] = i
        }
        for (i, r) in records.enumerated() {
            if let name = r.name, recordOf[name] == nil { recordOf[name] = i }
        }
        // Which existing annotation each record updates (a function of its own: this one's
        // frame, in a debug build, must fit a small stack; see HostileNumberTests).
        var match = try matchImportRecords(records, &wanted, recordOf: recordOf, exactRecords: options.exactRecords, byID: sameFile)
        for (i, a) in try directAliases(records, wanted, unmatched: { match.target[$0] == nil && match.alias[$0] == nil }) {
            match.alias[i] = i  // the same annotation, left as it is
            match.direct[i] = a
            match.skipped[i] = true
        }
        for i in imageless where match.alias[i] == nil {
            guard let object = match.target[i], try imageAttachment(of: object) != nil else {
                throw PDFError(.format, "annotation JSON: \(i < annotationCount ? "annotations[\(i)]" : "comments[\(i - annotationCount)]").imageAttachmentId: no attachment \"\((records[i].imageAttachmentId ?? "").prefix(80))\" in attachments")
            }
        }
        for i in fileless where match.alias[i] == nil {
            guard let object = match.target[i], try attachedFile(of: object) != nil else {
                throw PDFError(.format, "annotation JSON: \(i < annotationCount ? "annotations[\(i)]" : "comments[\(i - annotationCount)]").fileAttachmentId: no attachment \"\((records[i].fileAttachmentId ?? "").prefix(80))\" in attachments")
            }
        }
        let existingByNumber = match.existingByNumber
        let existingByName = match.existingByName
        let target = match.target
        let recordOfObject = match.recordOfObject
        let alias = match.alias
        let direct = match.direct
        let skipped = match.skipped
        // What a reference in the JSON points at: another record, or an annotation already
        // in the document (just what the checks below need of it).
        struct Existing: Equatable { let id: ObjectID; let page: Int; let inReplyTo: ObjectID? }
        // The pages that list each object (an object that a damaged file lists on two pages is
        // on both, and a reply on either is on its page).
        var pagesOfObject: [Int: Set<Int>] = [:]
        for a in try allAnnotations() { if let id = a.id { pagesOfObject[id.number, default: []].insert(a.pageIndex) } }
        enum Ref: Equatable { case record(Int), existing(Existing), missing(String) }
        func existingRef(_ a: Annotation) -> Ref? {
            a.id.map { .existing(Existing(id: $0, page: a.pageIndex, inReplyTo: a.inReplyTo)) }
        }
        var recordIDs = match.recordIDs
        func resolve(_ ref: String, _ field: String, _ i: Int) throws -> Ref {
            if let j = recordOf[ref] { return .record(j) }
            // An annotation of the document by its record id (what a synced record names).
            if sameFile && recordIDs == nil {
                var map: [String: Annotation] = [:]
                for (a, id) in try annotationRecordIDs(pages: Array(try pages().indices)) where map[id] == nil { map[id] = a }
                recordIDs = map
            }
            if let e = recordIDs?[ref], let eid = e.id, let r = recordOfObject[eid.number].map(Ref.record) ?? existingRef(e) {
                return r
            }
            // Exact records name record ids only (not another annotation that has the /NM).
            if options.exactRecords { return .missing(ref) }
            // A link the annotation the record updates already keeps by id (its target is
            // gone): kept, so that a document's own export still imports as a no-op (and
            // never resolves to another annotation that has that /NM).
            if let existing = target[i].flatMap({ existingByNumber[$0.number] }),
               (field == "inReplyTo" ? existing.inReplyToID : existing.popupID) == ref {
                return .missing(ref)
            }
            if let e = existingByName[ref]?.first, let eid = e.id, let r = recordOfObject[eid.number].map(Ref.record) ?? existingRef(e) {
                return r
            }
            // An annotation without /NM, named by its object number as the export names it.
            if let number = InstantJSON.digits(ref), let e = existingByNumber[number],
               let r = recordOfObject[number].map(Ref.record) ?? existingRef(e) {
                return r
            }
            if missingLinks == .keep { return .missing(ref) }
            throw PDFError(.format, "annotation JSON: annotations[\(i)].quire.\(field): no annotation \"\(ref.prefix(60))\" in the JSON or the document")
        }
        var parent: [Ref?] = Array(repeating: nil, count: records.count)
        var popup: [Ref?] = Array(repeating: nil, count: records.count)
        for (i, r) in records.enumerated() {
            if let ref = r.quire?.inReplyTo {
                let p = try resolve(ref, "inReplyTo", i)
                let page: Int
                switch p {
                case .record(let j):
                    guard j != i else { throw PDFError(.format, "annotation JSON: annotations[\(i)].quire.inReplyTo: an annotation cannot reply to itself") }
                    page = wanted[j].pageIndex
                case .existing(let e):
                    page = pagesOfObject[e.id.number]?.contains(wanted[i].pageIndex) == true ? wanted[i].pageIndex : e.page
                case .missing: page = wanted[i].pageIndex  // not in the document: no page to compare
                }
                guard page == wanted[i].pageIndex else {
                    throw PDFError(.format, "annotation JSON: annotations[\(i)].quire.inReplyTo: \"\(ref.prefix(60))\" is on page \(page), not page \(wanted[i].pageIndex); a reply is on the page of the annotation it answers")
                }
                parent[i] = p
            }
            if let ref = r.quire?.popup { popup[i] = try resolve(ref, "popup", i) }
        }
        if !repliesEnabled, let i = parent.firstIndex(where: { $0 != nil }) {
            throw PDFError(.disabled, "annotation JSON: annotations[\(i)] is a reply, and replies and review states are turned off for this document")
        }
        // No cycles, through records and the document's own replies. Each record and each
        // existing annotation is walked once in all (a chain already known to end is not
        // walked again): checking every record's whole chain took quadratic time on a long
        // chain of replies.
        var state = Array(repeating: 0, count: records.count)  // 0 new, 1 on this walk, 2 done
        var doneObjects: Set<Int> = []
        for start in records.indices where parent[start] != nil && state[start] == 0 {
            var walked: [Int] = [start]
            state[start] = 1
            var walkedObjects: [Int] = []
            var seenObjects: Set<Int> = []
            var cursor = parent[start]
            walk: while let c = cursor {
                switch c {
                case .record(let j):
                    if state[j] == 1 {
                        throw PDFError(.format, "annotation JSON: annotations[\(start)].quire.inReplyTo: the replies make a cycle")
                    }
                    if state[j] == 2 { break walk }
                    state[j] = 1
                    walked.append(j)
                    cursor = parent[j]
                case .missing:
                    break walk
                case .existing(let e):
                    // A cycle among the document's own replies is the file's, cut when read.
                    guard !doneObjects.contains(e.id.number), seenObjects.insert(e.id.number).inserted else { break walk }
                    walkedObjects.append(e.id.number)
                    if let next = e.inReplyTo {
                        if let j = recordOfObject[next.number] { cursor = .record(j) }
                        else { cursor = try annotation(next).flatMap(existingRef) }
                    } else {
                        cursor = nil
                    }
                }
            }
            for r in walked { state[r] = 2 }
            doneObjects.formUnion(walkedObjects)
        }
        // The annotation model's rules, as addAnnotation and updateAnnotation check them:
        // every field of a new annotation, the changed fields of an updated one (a value the
        // document already has is kept, so a document's own export still imports).
        for i in records.indices where !skipped[i] && wanted[i].subtype != "Widget" {
            let previous = target[i].flatMap { existingByNumber[$0.number] }
            try InstantJSON.checkRules(wanted[i], changedFrom: previous, record: records[i], path: "annotations[\(i)]")
        }
        // The form's values and the annotations that skippedPdfObjectIds deletes, checked
        // before anything changes too (functions of their own, for this frame's size).
        let fieldValues = try plannedFieldValues(json)
        let deletions = try plannedDeletions(json, records: records, target: target,
                                             existingByNumber: existingByNumber,
                                             referenced: records.indices.map { i in
                                                 [parent[i], popup[i]].map { ref -> Int? in
                                                     if case .existing(let e)? = ref { return e.id.number }
                                                     return nil
                                                 }
                                             })
        // 3. Apply: parents before replies.
        var order: [Int] = []
        var placed = Array(repeating: false, count: records.count)
        // Each record after the records it replies to, without recursion (a chain of replies
        // in the JSON is as long as the JSON makes it).
        for i in records.indices where !placed[i] {
            var chain: [Int] = []
            var next: Int? = i
            while let k = next, !placed[k] {
                placed[k] = true
                chain.append(k)
                if case .record(let j)? = parent[k] { next = j } else { next = nil }
            }
            order.append(contentsOf: chain.reversed())
        }
        var objectOf: [ObjectID?] = target
        func objectID(_ ref: Ref?) -> ObjectID? {
            switch ref {
            case .record(let j)?: return objectOf[alias[j] ?? j]
            case .existing(let e)?: return e.id
            case .missing?, nil: return nil
            }
        }
        func missingID(_ ref: Ref?) -> String? {
            if case .missing(let id)? = ref { return id }
            return nil
        }
        let steps = 2 * order.count
        for (k, i) in order.enumerated() where !skipped[i] {
            try progress?(k, steps)
            var a = wanted[i]
            a.inReplyTo = objectID(parent[i])
            a.inReplyToID = missingID(parent[i])
            if let existing = target[i] {
                if a.subtype == "Widget" { continue }  // the forms model's, left as it is
                a.id = existing
                a.recordID = existingByNumber[existing.number]?.recordID  // an existing annotation keeps its id
                try updateAnnotationUnbatched(a, importedOver: existingByNumber[existing.number])
            } else if Annotation.creatableSubtypes.contains(a.subtype) {
                objectOf[i] = try addAnnotationUnbatched(a, imported: true).id
            } else {
                let page = try self.page(at: a.pageIndex)
                let id = try addObject(.dictionary(a.written(into: PDFDictionary(), pageObject: page.id)))
                try appendToAnnots(pageIndex: a.pageIndex, id)
                objectOf[i] = id
            }
        }
        // 4. Every entry exactly as the record says (addAnnotation's defaults undone), and
        // the popups linked both ways.
        for (k, i) in order.enumerated() where !skipped[i] && wanted[i].subtype != "Widget" {
            try progress?(order.count + k, steps)
            guard let id = objectOf[i] else { continue }
            var a = wanted[i]
            a.id = id
            a.inReplyTo = objectID(parent[i])
            a.inReplyToID = missingID(parent[i])
            a.popup = objectID(popup[i])
            a.popupID = missingID(popup[i])
            guard case .dictionary(let current) = try object(id.number) else { continue }
            // A record with neither name nor id keeps the UUID addAnnotation gave it (an exact
            // record without `name` has none).
            if a.name == nil, records[i].id == nil || !options.exactRecords, case .string(let nm)? = current["NM"] { a.name = nm.text }
            // An annotation this import made: its record's id, when its /NM (or object
            // number) would not give it back. One that was there keeps the id it has (it
            // may be an object two pages list, whose second record this was).
            if target[i] != nil {
                a.recordID = existingByNumber[id.number]?.recordID
            } else if let rid = records[i].id, rid != (a.name ?? String(id.number)) {
                a.recordID = rid
            } else {
                a.recordID = nil
            }
            var d = a.written(into: current, pageObject: try page(at: a.pageIndex).id)
            if a.color == [] { d["C"] = .array([]) }
            if a.interiorColor == [] { d["IC"] = .array([]) }
            if a.borderWidth == nil {
                if var bs = d["BS"]?.dictionary, bs["W"] != nil {
                    bs["W"] = nil
                    d["BS"] = bs.isEmpty ? nil : .dictionary(bs)
                }
                if let border = d["Border"]?.array, border.count >= 3 { d["Border"] = nil }
            }
            // /A as the record says, unless the record's action is what the annotation's own
            // /A exports as: an action the JSON cannot carry (a Screen's rendition, a form
            // submission) is kept, not erased by a record that could not name it.
            if !recordKeepsAction(of: current, records[i].action) { d["A"] = try a.action.map(actionObject) }
            d["Dest"] = try a.destination.map(destinationObject)
            if let image = images[i] {
                // A new image (or another one): stored, and the appearance drawn from it.
                let stored = try imageAttachment(of: id)
                if stored?.bytes != image.bytes || stored?.contentType != image.contentType {
                    d[Document.imageKey] = try addImage(image.image, bytes: image.bytes, contentType: image.contentType)
                    d = try withAppearance(a, d, strict: false)
                }
            }
            if let file = files[i] {
                // A new file (or another name, type or description): a new file specification.
                let stored = try? attachedFile(of: id)
                if stored != file { d["FS"] = try storeAttachedFile(file) }
            }
            try setObject(id.number, .dictionary(d))
            if let p = a.popup, isInUse(p.number), case .dictionary(var pd) = try object(p.number) {
                pd["Parent"] = .reference(id)
                try setObject(p.number, .dictionary(pd))
            }
        }
        let stored = try records.indices.filter { !skipped[$0] || alias[$0] != nil }.map { i in
            if let a = direct[i] { return a }
            guard let id = objectOf[alias[i] ?? i], let stored = try annotation(id) else {
                throw PDFError(.notFound, "annotation JSON: annotations[\(i)] was not stored")
            }
            return stored
        }
        // Links kept by id to an annotation this import created: objects again.
        var created: [String: ObjectID] = [:]
        for i in records.indices where target[i] == nil && !skipped[i] {
            guard let id = objectOf[i] else { continue }
            for name in [records[i].id, wanted[i].name].compactMap({ $0 }) { created[name] = id }
        }
        try relinkKeptLinks(created, candidates: existingByNumber.values.filter { $0.inReplyToID != nil || $0.popupID != nil })
        // 5. The form's values, through the forms model; then the deletions.
        try applyFieldValues(fieldValues)
        for id in deletions where isInUse(id.number) {
            if try annotation(id) != nil { try deleteAnnotationUnbatched(id) }
        }
        try progress?(steps, steps)
        return stored
    }

    /// Makes the links kept by id (``Annotation/inReplyToID``, ``Annotation/popupID``) of
    /// `candidates` whose id is a key of `created` (a new annotation's /NM) name that object
    /// again: /IRT or /Popup set, the private entry removed. Nothing else changes.
    private func relinkKeptLinks(_ created: [String: ObjectID], candidates: [Annotation]) throws {
        guard !created.isEmpty else { return }
        for old in candidates {
            guard let id = old.id, isInUse(id.number), let a = try annotation(id),
                  case .dictionary(var d) = try object(id.number) else { continue }
            var changed = false
            if let x = a.inReplyToID, let t = created[x], let parent = try annotation(t), parent.pageIndex == a.pageIndex,
               (try? checkReplyTarget(t, from: id, page: a.pageIndex)) != nil {
                d["IRT"] = .reference(t)
                d[Annotation.inReplyToIDKey] = nil
                changed = true
            }
            if let x = a.popupID, let t = created[x] {
                d["Popup"] = .reference(t)
                d[Annotation.popupIDKey] = nil
                changed = true
            }
            if changed { try setObject(id.number, .dictionary(d)) }
        }
    }

    /// The JSON as import uses it: when its `pdfId` names another file, the object numbers
    /// in it (`pdfObjectId`, an `id` of digits alone, `skippedPdfObjectIds`) are another
    /// file's, so they are dropped with a warning and records match by /NM alone.
    private func importedObjectNumbers(_ json: InstantJSONDocument) -> InstantJSONDocument {
        guard pdfIdNamesAnotherFile(json) else { return json }
        var out = json
        file.warn("annotation JSON: pdfId names another PDF (permanent \((json.pdfId?.permanent ?? "").prefix(64))); its object numbers (pdfObjectId, skippedPdfObjectIds) are ignored and records match annotations by name")
        out.annotations = json.annotations.map { r in
            var r = r
            r.pdfObjectId = nil
            if r.name == nil, let id = r.id, InstantJSON.digits(id) != nil { r.name = id }
            return r
        }
        out.comments = json.comments?.map { c in
            var c = c
            c.pdfObjectId = nil
            return c
        }
        out.skippedPdfObjectIds = nil
        return out
    }

    /// The annotations that `skippedPdfObjectIds` deletes: those of the list that no record
    /// replaces (a record with that `pdfObjectId`, or one matched to that object). An
    /// object that is not an annotation of the document, and a widget (the forms model's),
    /// is left alone with a warning; deleting an annotation that a record of the JSON
    /// replies to or names as its popup is an error.
    private func plannedDeletions(_ json: InstantJSONDocument, records: [InstantJSONAnnotation], target: [ObjectID?],
                                  existingByNumber: [Int: Annotation],
                                  referenced: [[Int?]]) throws -> [ObjectID] {
        guard let skipped = json.skippedPdfObjectIds, !skipped.isEmpty else { return [] }
        var replaced: Set<Int> = Set(records.compactMap(\.pdfObjectId))
        for t in target { if let t { replaced.insert(t.number) } }
        var referencedBy: [Int: String] = [:]
        for (i, refs) in referenced.enumerated() {
            let path = i < json.annotations.count ? "annotations[\(i)]" : "comments[\(i - json.annotations.count)]"
            for (k, n) in refs.enumerated() {
                if let n, referencedBy[n] == nil { referencedBy[n] = "\(path).quire.\(k == 0 ? "inReplyTo" : "popup")" }
            }
        }
        var out: [ObjectID] = []
        var seen: Set<Int> = []
        for (k, n) in skipped.enumerated() where !replaced.contains(n) && seen.insert(n).inserted {
            guard let a = existingByNumber[n], let id = a.id else {
                file.warn("annotation JSON: skippedPdfObjectIds[\(k)]: object \(n) is not an annotation of the document; nothing to delete")
                continue
            }
            guard a.subtype != "Widget" else {
                file.warn("annotation JSON: skippedPdfObjectIds[\(k)]: object \(n) is a form widget; not deleted (the forms model owns widgets)")
                continue
            }
            if let by = referencedBy[n] {
                throw PDFError(.format, "annotation JSON: skippedPdfObjectIds[\(k)]: annotation \(n) is deleted by the list, but \(by) names it")
            }
            out.append(id)
        }
        return out
    }

    /// Writes a FileAttachment's file into its record (`fileAttachmentId`, the lowercase
    /// hexadecimal SHA-256 of the bytes; `fileName`, `description`, `contentType`) and the
    /// bytes into `attachments`. A file specification naming a file outside the document
    /// gives its name and description only; a file that cannot be read (a damaged stream,
    /// one past ``Annotation/AttachedFile/maxBytes``) is left out with a warning.
    private func exportAttachedFile(_ a: Annotation, into r: inout InstantJSONAnnotation,
                                    attachments: inout [String: InstantJSONAttachment]) {
        r.fileName = a.fileInfo?.name
        r.description = a.fileInfo?.description
        r.contentType = a.fileInfo?.contentType
        guard let object = a.id else { return }
        let file: Annotation.AttachedFile?
        do {
            file = try attachedFile(of: object)
        } catch {
            self.file.warn("annotation \(a.name ?? object.description) on page \(a.pageIndex + 1): its attached file cannot be read (\(error)); left out of the JSON")
            return
        }
        guard let file else { return }
        let key = InstantJSON.hex(JournalCodec.sha256(file.bytes)).lowercased()
        r.fileAttachmentId = key
        attachments[key] = InstantJSONAttachment(binary: Data(file.bytes).base64EncodedString(), contentType: file.contentType)
    }

    /// The file of a `pspdfkit/file` record: its attachment base64-decoded (at most
    /// ``Annotation/AttachedFile/maxBytes``, and when the key is a SHA-256, one whose bytes
    /// have that hash), with the record's name, media type and description, checked as
    /// ``Annotation/AttachedFile/init(bytes:name:contentType:description:)`` checks them.
    /// Nil when the record names no attachment. Errors name the record's field or the
    /// attachment.
    private func checkedFile(_ r: InstantJSONAnnotation, _ attachments: [String: InstantJSONAttachment]?,
                             path: String) throws -> Annotation.AttachedFile? {
        guard let key = r.fileAttachmentId else { return nil }
        guard let attachment = attachments?[key] else {
            throw PDFError(.format, "annotation JSON: \(path).fileAttachmentId: no attachment \"\(key.prefix(80))\" in attachments")
        }
        let where_ = "annotation JSON: attachments.\(key.prefix(80))"
        let maxBytes = Annotation.AttachedFile.maxBytes
        guard attachment.binary.utf8.count <= (maxBytes / 3 + 1) * 4 + 64 else {
            throw PDFError(.limit, "\(where_).binary: \(attachment.binary.utf8.count) characters of base64 (an attached file is at most \(maxBytes) bytes)")
        }
        guard let data = Data(base64Encoded: attachment.binary) else {
            throw PDFError(.format, "\(where_).binary: not base64 data")
        }
        let bytes = [UInt8](data)
        guard bytes.count <= maxBytes else {
            throw PDFError(.limit, "\(where_).binary: the file is \(bytes.count) bytes long (at most \(maxBytes))")
        }
        if key.utf8.count == 64, key.utf8.allSatisfy({ Hex.value($0) != nil }) {
            let actual = InstantJSON.hex(JournalCodec.sha256(bytes)).lowercased()
            guard actual == key.lowercased() else {
                throw PDFError(.format, "\(where_): the file's SHA-256 is \(actual), not its key")
            }
        }
        try InstantJSON.checkFileFields(r, path: path)
        let type = r.contentType ?? attachment.contentType
        if let type, let problem = Annotation.AttachedFile.contentTypeProblem(type) {
            throw PDFError(.format, "\(where_).contentType: \(problem)")
        }
        return try Annotation.AttachedFile(bytes: bytes, name: r.fileName ?? "file", contentType: type, description: r.description)
    }

    /// The image of a `pspdfkit/image` record: its attachment, base64-decoded and read
    /// (``ImageAttachment/read(_:contentType:)``). Errors name the record's field or the
    /// attachment.
    private func checkedImage(_ r: InstantJSONAnnotation, _ attachments: [String: InstantJSONAttachment]?,
                              path: String) throws -> (image: ImageAttachment, bytes: [UInt8], contentType: String) {
        guard let key = r.imageAttachmentId else {
            throw PDFError(.format, "annotation JSON: \(path): an image (\(InstantJSON.imageType)) needs its imageAttachmentId")
        }
        guard let attachment = attachments?[key] else {
            throw PDFError(.format, "annotation JSON: \(path).imageAttachmentId: no attachment \"\(key.prefix(80))\" in attachments")
        }
        let where_ = "annotation JSON: attachments.\(key.prefix(80))"
        guard attachment.binary.utf8.count <= (ImageAttachment.maxBytes / 3 + 1) * 4 + 64 else {
            throw PDFError(.limit, "\(where_).binary: \(attachment.binary.utf8.count) characters of base64 (an image is at most \(ImageAttachment.maxBytes) bytes)")
        }
        guard let data = Data(base64Encoded: attachment.binary), !data.isEmpty else {
            throw PDFError(.format, "\(where_).binary: not base64 data")
        }
        guard let type = r.contentType ?? attachment.contentType else {
            throw PDFError(.format, "\(where_).contentType: the image's media type is missing (image/jpeg or image/png)")
        }
        let bytes = [UInt8](data)
        do {
            return (try ImageAttachment.read(bytes, contentType: type), bytes, type)
        } catch let e as PDFError {
            throw PDFError(e.kind, "\(where_): \(e.message)")
        }
    }

    /// Appends annotation `id` to the /Annots of page `pageIndex`, in place when /Annots is
    /// an indirect array.
    private func appendToAnnots(pageIndex: Int, _ id: ObjectID) throws {
        let page = try self.page(at: pageIndex)
        guard let pageID = page.id else {
            throw PDFError(.unsupported, "page \(pageIndex + 1) is a direct object; its annotations cannot be changed")
        }
        var annots = try page.dictionary["Annots"].map(resolve)?.array ?? []
        annots.append(.reference(id))
        if case .reference(let arrayID)? = page.dictionary["Annots"], isInUse(arrayID.number) {
            try setObject(arrayID.number, .array(annots))
        } else {
            try setValue(.array(annots), forKey: "Annots", inObject: pageID.number)
        }
    }

    /// An action dictionary (§12.6) for `action` and its /Next chain.
    private func actionObject(_ action: Action) throws -> PDFObject {
        var d = PDFDictionary()
        switch action.kind {
        case .goTo(let dest):
            d["S"] = .name("GoTo")
            d["D"] = try dest.map(destinationObject) ?? .null
        case .goToRemote(let file, let destination, let newWindow):
            d["S"] = .name("GoToR")
            d["F"] = file.map { .string(PDFString(text: $0.path)) }
            switch destination {
            case .named(let bytes)?: d["D"] = .string(PDFString(bytes: bytes))
            case .explicit(let dest)?: d["D"] = .array([.integer(Int64(dest.pageIndex))] + fitObjects(dest.fit))
            case nil: break
            }
            d["NewWindow"] = newWindow.map { .bool($0) }
        case .uri(let uri, let isMap):
            d["S"] = .name("URI")
            d["URI"] = .string(PDFString(bytes: Array(uri.utf8)))
            if isMap { d["IsMap"] = .bool(true) }
        case .named(let name):
            d["S"] = .name("Named")
            d["N"] = .name(PDFName(name))
        case .launch(let file, let newWindow):
            d["S"] = .name("Launch")
            d["F"] = file.map { .string(PDFString(text: $0.path)) }
            d["NewWindow"] = newWindow.map { .bool($0) }
        case .other(let type, let dict):
            d = dict
            d["S"] = .name(PDFName(type))
        }
        if action.next.count == 1 {
            d["Next"] = try actionObject(action.next[0])
        } else if action.next.count > 1 {
            d["Next"] = .array(try action.next.map(actionObject))
        } else {
            d["Next"] = nil
        }
        return .dictionary(d)
    }

    /// A destination of this document: by its name when this document defines the name,
    /// else explicit ([page /Fit ...]).
    private func destinationObject(_ dest: Destination) throws -> PDFObject {
        if let name = dest.name, try resolveNamedDestination(name) != nil {
            return .string(PDFString(bytes: name))
        }
        let page = try self.page(at: dest.pageIndex)
        let first: PDFObject = page.id.map { .reference($0) } ?? .integer(Int64(dest.pageIndex))
        return .array([first] + fitObjects(dest.fit))
    }

    private func fitObjects(_ fit: Destination.Fit) -> [PDFObject] {
        func n(_ v: Double?) -> PDFObject { v.map(Annotation.number) ?? .null }
        switch fit {
        case .xyz(let l, let t, let z): return [.name("XYZ"), n(l), n(t), n(z)]
        case .fit: return [.name("Fit")]
        case .fitH(let t): return [.name("FitH"), n(t)]
        case .fitV(let l): return [.name("FitV"), n(l)]
        case .fitR(let l, let b, let r, let t): return [.name("FitR"), n(l), n(b), n(r), n(t)]
        case .fitB: return [.name("FitB")]
        case .fitBH(let t): return [.name("FitBH"), n(t)]
        case .fitBV(let l): return [.name("FitBV"), n(l)]
        }
    }
}

extension Document {
    /// The text a text markup annotation covers, for `quire.markedText` in the export: nil
    /// for other annotations, for markup without quads, and when it covers no text (or the
    /// page's text cannot be read). `pages` keeps each page's text for the next record.
    func markedTextForExport(_ a: Annotation, pages: inout [Int: TextPage?]) -> String? {
        guard Annotation.textMarkupSubtypes.contains(a.subtype), !a.quadPoints.isEmpty else { return nil }
        if pages[a.pageIndex] == nil { pages[a.pageIndex] = .some(try? textPage(at: a.pageIndex)) }
        guard let page = pages[a.pageIndex] ?? nil else { return nil }
        let q = a.quadPoints
        var quads: [TextQuad] = []
        var i = 0
        while i + 8 <= q.count {
            if let quad = TextQuad(quadPoints: q[i..<(i + 8)]) { quads.append(quad) }
            i += 8
        }
        guard !quads.isEmpty else { return nil }
        let text = page.text(under: quads)
        return text.isEmpty ? nil : text
    }
}

extension InstantJSONAnnotation {
    /// The record without `quire.markedText`, which export derives from the page's text and
    /// import ignores: two records that differ only there stand for the same annotation.
    var withoutMarkedText: InstantJSONAnnotation {
        guard var q = quire, q.markedText != nil else { return self }
        var r = self
        q.markedText = nil
        r.quire = q.isEmpty ? nil : q
        return r
    }
}
