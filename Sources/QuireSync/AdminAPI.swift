import Crypto
import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import QuireSyntax

// The admin API (`Authorization: Token <api token>`).

extension SyncService {
    static func documentJSON(_ d: SyncDocumentInfo) -> JSONOut {
        .object([("id", .string(d.id)), ("sha256", .string(d.sha256)), ("pages", .int(d.pages)),
                 ("bytes", .int(d.bytes)), ("created", .string(d.created))])
    }

    static func layerJSON(_ l: SyncLayerInfo) -> JSONOut {
        .object([("name", .string(l.name)), ("seq", .integer(l.seq)), ("records", .int(l.records))])
    }

    /// Opens a PDF of a request body; a 400 when Quire cannot.
    private func openPDF(_ bytes: [UInt8]) throws -> Document {
        guard !bytes.isEmpty else { throw SyncHTTPError.badRequest("the body is empty: send the PDF's bytes") }
        do {
            let document = try Document(data: bytes)
            _ = try document.pageCount()
            return document
        } catch {
            throw SyncHTTPError.badRequest("Quire cannot open the PDF: \(errorMessage(error))")
        }
    }

    /// The annotation records of an open PDF, as its own export gives them.
    private func exportedRecords(_ document: Document) throws -> [InstantJSONValue] {
        do {
            let json = try InstantJSONValue(parsing: try document.exportAnnotationsJSON(page: nil, prettyPrinted: false))
            guard case .array(let items)? = json.objectValue?["annotations"] else { return [] }
            return items
        } catch {
            throw SyncHTTPError.badRequest("Quire cannot read the PDF's annotations: \(errorMessage(error))")
        }
    }

    // MARK: POST /admin/documents[?id=ID]

    func uploadDocument(_ request: SyncRequest) async throws -> SyncResponse {
        for key in request.query.keys where key != "id" {
            throw SyncHTTPError.badRequest("unknown query parameter \"\(key.prefix(40))\" (id)")
        }
        let id: String
        if let chosen = request.query["id"] {
            try checkID(chosen, "document id")
            id = chosen
        } else {
            id = SyncIDs.ulid()
        }
        let body = request.body
        let document = try openPDF(body)
        let pages: Int
        let checker: AnnotationRecordChecker
        do {
            pages = try document.pageCount()
            checker = try AnnotationRecordChecker(document)
        } catch {
            throw SyncHTTPError.badRequest("Quire cannot read the PDF's pages: \(errorMessage(error))")
        }
        // A file Quire opens only by repairing it may come out with no page (a truncated
        // upload): nothing could be annotated in it, so it is refused rather than stored.
        guard pages > 0 else {
            throw SyncHTTPError.badRequest("the PDF has no page (none was found, even after repairing the file: is it truncated?)")
        }
        let initial = InstantJSONValue.array(try exportedRecords(document)).canonicalBytes
        let sha = SHA256.hash(data: body).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
        let info = SyncDocumentInfo(id: id, sha256: sha, pages: pages, bytes: body.count, created: iso8601UTC(Date()))
        let inserted = try await store.write { tx in try await tx.insertDocument(info, pdf: body, initialRecords: initial) }
        guard inserted else { throw SyncHTTPError.conflict("a document \(id) exists") }
        cacheChecker(checker, for: info)
        return SyncService.json(201, .object([("document", SyncService.documentJSON(info))]))
    }

    // MARK: GET /admin/documents

    func listDocuments() async throws -> SyncResponse {
        let documents = try await store.read { tx in try await tx.documents() }
        return SyncService.json(200, .object([("documents", .array(documents.map(SyncService.documentJSON)))]))
    }

    // MARK: GET and DELETE /admin/documents/{doc}

    func describeDocument(_ id: String) async throws -> SyncResponse {
        let found: (SyncDocumentInfo, [SyncLayerInfo])? = try await store.read { tx in
            guard let info = try await tx.document(id) else { return nil }
            return (info, try await tx.layers(id))
        }
        guard let (info, layers) = found else { throw SyncHTTPError.notFound("no document \(id)") }
        return SyncService.json(200, .object([("document", SyncService.documentJSON(info)), ("layers", .array(layers.map(SyncService.layerJSON)))]))
    }

    func deleteDocument(_ id: String) async throws -> SyncResponse {
        guard try await store.write({ tx in try await tx.deleteDocument(id) }) else { throw SyncHTTPError.notFound("no document \(id)") }
        listeners.forget(document: id, layer: nil)
        feeds.forget(document: id, layer: nil)
        return SyncResponse(status: 204)
    }

    // MARK: DELETE /admin/documents/{doc}/layers/{layer}

    func deleteLayer(_ document: String, _ layer: String) async throws -> SyncResponse {
        let deleted = try await store.write { tx -> Bool? in
            guard try await tx.document(document) != nil else { return nil }
            return try await tx.deleteLayer(document, layer)
        }
        guard let deleted else { throw SyncHTTPError.notFound("no document \(document)") }
        guard deleted else { throw SyncHTTPError.notFound("no layer \(layer) in document \(document)") }
        listeners.forget(document: document, layer: layer)
        feeds.forget(document: document, layer: layer)
        // The layer's records named attachments that may now be named by none.
        _ = try? await collectAttachments(document)
        return SyncResponse(status: 204)
    }

    // MARK: POST /admin/documents/{doc}/layers/{layer}/copy {"from": "other"}

    func copyLayer(_ document: String, _ layer: String, _ request: SyncRequest) async throws -> SyncResponse {
        let value: InstantJSONValue
        do {
            value = try InstantJSONValue(parsing: request.body)
        } catch {
            throw SyncHTTPError.invalidJSON(SyncService.jsonMessage(error))
        }
        guard let fields = value.objectValue else { throw SyncHTTPError.badRequest("the body is {\"from\": \"layer\"}") }
        for key in fields.keys.sorted() where key != "from" {
            throw SyncHTTPError.unknownField("unknown field \"\(key.prefix(60))\" (from)")
        }
        guard let from = fields["from"]?.stringValue else { throw SyncHTTPError.badRequest("from must be a layer name") }
        try checkID(from, "layer name")
        let info = try await store.write { tx -> SyncLayerInfo in
            guard try await tx.document(document) != nil else { throw SyncHTTPError.notFound("no document \(document)") }
            guard try await tx.layer(document, from) != nil else { throw SyncHTTPError.notFound("no layer \(from) in document \(document)") }
            guard try await tx.layer(document, layer) == nil else { throw SyncHTTPError.conflict("the layer \(layer) exists") }
            // Records copied; the feed starts again at 0, so every record is at revision 0.
            var records = try await tx.records(document, from)
            for i in records.indices {
                records[i].revision = 0
                records[i].fieldRevisions = nil  // every field at 0 too
            }
            try await tx.createLayer(document, layer, records: records)
            let digest = LayerDigest.of(records.map { ($0.id, $0.revision, $0.json) })
            try await tx.setLayerDigest(document, layer, digest)
            return SyncLayerInfo(name: layer, seq: 0, records: records.count, prunedThrough: 0, digest: digest)
        }
        return SyncService.json(201, .object([("layer", SyncService.layerJSON(info))]))
    }

    // MARK: GET /admin/documents/{doc}/layers/{layer}/annotations

    func layerAnnotations(_ document: String, _ layer: String) async throws -> SyncResponse {
        let (info, records) = try await withLayer(document, layer) { tx, _ -> (SyncDocumentInfo, [SyncStoredRecord]) in
            guard let info = try await tx.document(document) else { throw SyncHTTPError.notFound("no document \(document)") }
            return (info, try await tx.records(document, layer))
        }
        return SyncService.json(200, SyncService.annotationJSON(records, pageCount: info.pages))
    }

    /// A layer's records as annotation JSON: page by page, each page's in the layer's order;
    /// its form values in `formFieldValues` and its bookmarks in `bookmarks` (Instant JSON's
    /// keys), each as the layer holds it, when it has any.
    static func annotationJSON(_ records: [SyncStoredRecord], pageCount: Int?) -> JSONOut {
        let ordered = records.filter { $0.pageIndex >= 0 }.enumerated()
            .sorted { ($0.element.pageIndex, $0.offset) < ($1.element.pageIndex, $1.offset) }.map(\.element)
        var quire: [(String, JSONOut)] = []
        if let pageCount { quire.append(("pageCount", .int(pageCount))) }
        quire.append(("version", .int(1)))
        var values: [JSONOut] = [], marks: [JSONOut] = []
        for r in records where r.pageIndex < 0 {
            let kind = (try? InstantJSONValue(parsing: r.json)).map(LayerRecords.kind(of:))
            if kind == .formFieldValue { values.append(.raw(r.json)) } else if kind == .bookmark { marks.append(.raw(r.json)) }
        }
        var out: [(String, JSONOut)] = [("annotations", .array(ordered.map { .raw($0.json) }))]
        if !marks.isEmpty { out.append(("bookmarks", .array(marks))) }
        out.append(("format", .string(InstantJSONDocument.instantJSONFormat)))
        if !values.isEmpty { out.append(("formFieldValues", .array(values))) }
        out.append(("quire", .object(quire)))
        return .object(out)
    }

    // MARK: GET /admin/documents/{doc}/layers/{layer}/pdf

    /// What `?flatten=` asks of a layer's PDF export: nothing (absent, `0`, `false`); the
    /// annotations and the form fields burned into the pages (`1`, `true`, `all`); or the
    /// annotations only, the form staying fillable (`annotations`). Links stay links.
    enum ExportFlattening: Equatable {
        case none, all, annotations

        init(query: [String: String]) throws {
            for key in query.keys where key != "flatten" {
                throw SyncHTTPError.badRequest("unknown query parameter \"\(key.prefix(40))\" (flatten)")
            }
            switch query["flatten"] {
            case nil, "0", "false": self = .none
            case "1", "true", "all": self = .all
            case "annotations": self = .annotations
            case let other?:
                throw SyncHTTPError.badRequest("flatten is 0, 1 or annotations, not \"\(other.prefix(40))\"")
            }
        }
    }

    /// The layer exported to its PDF; with `rights` (a client's export), only the records
    /// the token may view are written (the others are left out as if deleted).
    func layerPDF(_ document: String, _ layer: String, _ request: SyncRequest,
                  rights: CollaborationPermissions? = nil) async throws -> SyncResponse {
        let flattening = try ExportFlattening(query: request.query)
        var (pdf, records, attachments) = try await withLayer(document, layer) { tx, _ -> ([UInt8], [SyncStoredRecord], [String: SyncAttachment]) in
            guard let pdf = try await tx.documentPDF(document) else { throw SyncHTTPError.notFound("no document \(document)") }
            let records = try await tx.records(document, layer)
            return (pdf, records, try await SyncService.attachments(of: records, tx, document))
        }
        if let rights { records = records.filter { rights.canView(json: $0.json) } }
        let bytes: [UInt8]
        let breakage: String?
        do {
            (bytes, breakage) = try SyncService.pdfAndSignatureBreakage(pdf, withLayer: records, attachments: attachments,
                                                                          flattening: flattening)
        } catch let e as SyncHTTPError {
            throw e
        } catch {
            throw SyncHTTPError.internal("the layer cannot be written into its PDF: \(errorMessage(error))")
        }
        var headers = [("Content-Type", "application/pdf")]
        // The export is made either way; a signature it invalidates is said (issue 37).
        if let breakage { headers.append(("Quire-Signature-Warning", breakage)) }
        return SyncResponse(status: 200, headers: headers, body: bytes)
    }

    /// The uploaded PDF with a layer's records written in by Quire's engine, saved
    /// incrementally:
    ///
    /// 1. The PDF's own annotations that the layer deleted (or that it holds on another
    ///    page, after a delete and a put of the same id) are deleted.
    /// 2. The layer's records are imported as annotation JSON: those that came from the PDF
    ///    match their annotation back (by `pdfObjectId`, then /NM) and update it, the others
    ///    are created. Records the layer never changed are left out of the import (their
    ///    annotations are in the PDF as they are), so a layer that nobody changed exports
    ///    the PDF unchanged, even one with annotations Quire would refuse to import.
    ///    References the layer cannot resolve any more (a reply whose parent was deleted,
    ///    a popup deleted) are left out, as Quire's export leaves out an /IRT that points
    ///    nowhere; a `pdfObjectId` that does not name the PDF's annotation of the same id is
    ///    left out too, so that a record never takes over another annotation.
    ///
    /// 3. With `flattening` (`?flatten=`), the result's annotations (the layer's, and the
    ///    form fields unless only annotations are asked) are burned into the page content
    ///    by ``Document/flatten(_:)``: drawn as they look, no longer annotations (links
    ///    stay; replies, popups and hidden ones are removed undrawn).
    ///
    /// A PDF's annotation written directly in /Annots (not an object) cannot be deleted or
    /// changed this way: a layer that changed one does not export (a 500 naming it).
    ///
    /// The layer's changes are written even where the PDF's certification forbids them (the
    /// signature guard allows them here); the second result says which signatures the
    /// export invalidates (``Document/signatureBreakage()``), nil when none (issue 37).
    static func pdfAndSignatureBreakage(_ pdf: [UInt8], withLayer records: [SyncStoredRecord],
                                        attachments: [String: SyncAttachment] = [:],
                                        flattening: ExportFlattening = .none) throws -> (pdf: [UInt8], breakage: String?) {
        let document = try Document(data: pdf)
        document.signatureGuard = .allow
        let original = try document.annotationsInstantJSON(page: nil).annotations
        var annotations: [Annotation] = []
        for index in try document.pages().indices { annotations += try document.annotations(onPage: index) }
        guard annotations.count == original.count,
              case .array(let exported)? = try InstantJSONValue(parsing: document.exportAnnotationsJSON(page: nil, prettyPrinted: false)).objectValue?["annotations"],
              exported.count == original.count else {
            throw SyncHTTPError.internal("the PDF's annotations and their export disagree")
        }
        // Each original record as the layer got it (compact JSON, as stored).
        var originalJSON: [String: [UInt8]] = [:]
        for (r, item) in zip(original, exported) { if let id = r.id { originalJSON[id] = item.canonicalBytes } }
        var byID: [String: SyncStoredRecord] = [:]
        for r in records { byID[r.id] = r }
        // 1. Deletions.
        var originalObject: [String: Int] = [:]
        try document.batch {
            for (r, a) in zip(original, annotations) {
                guard let id = r.id else { continue }
                if let kept = byID[id], kept.pageIndex == r.pageIndex {
                    if let object = a.id?.number { originalObject[id] = object }
                    continue
                }
                if let object = a.id, document.isInUse(object.number), try document.annotation(object) != nil {
                    try document.deleteAnnotation(object)
                }
            }
        }
        // 2. The records, references the layer cannot resolve left out; form values and
        // bookmarks (on no page) apart.
        var items: [InstantJSONValue] = []
        let (values, marks) = try layerFormValuesAndBookmarks(records)
        let ordered = records.filter { $0.pageIndex >= 0 }.enumerated().sorted { ($0.element.pageIndex, $0.offset) < ($1.element.pageIndex, $1.offset) }.map(\.element)
        for r in ordered {
            // A record the layer never changed, whose annotation is still there and whose
            // references all still resolve, is that annotation as it is: not imported.
            // So an annotation that Quire reads but would refuse to import (a PDF may break
            // the model's rules) does not stop its layer from exporting.
            if originalJSON[r.id] == r.json, let object = originalObject[r.id], document.isInUse(object),
               r.inReplyTo.map({ byID[$0] != nil }) ?? true, r.popup.map({ byID[$0] != nil }) ?? true {
                continue
            }
            guard case .object(var fields) = try InstantJSONValue(parsing: r.json) else { continue }
            if case .integer(let n)? = fields["pdfObjectId"] {
                if originalObject[r.id].map({ Int64($0) != n || !document.isInUse($0) }) ?? true { fields["pdfObjectId"] = nil }
            }
            if case .object(var quire)? = fields["quire"] {
                if let target = quire["inReplyTo"]?.stringValue, byID[target] == nil {
                    for key in ["inReplyTo", "replyType", "state", "stateModel"] { quire[key] = nil }
                }
                if let target = quire["popup"]?.stringValue, byID[target] == nil { quire["popup"] = nil }
                fields["quire"] = .object(quire)
            }
            items.append(.object(fields))
        }
        var top: [String: InstantJSONValue] = [
            "format": .string(InstantJSONDocument.instantJSONFormat),
            "quire": .object(["version": .integer(1)]),
            "annotations": .array(items),
        ]
        // The form values through the forms model, as `quire fill` sets them (appearances
        // regenerated); a value the PDF has already is left alone.
        if !values.isEmpty { top["formFieldValues"] = .array(values) }
        // The images and files of the records imported (the others keep the PDF's).
        var used: [String: SyncAttachment] = [:]
        for item in items {
            if let id = RecordAttachment.reference(of: item)?.id, let a = attachments[id] { used[id] = a }
        }
        if !used.isEmpty { top["attachments"] = SyncService.attachmentsJSON(used) }
        _ = try document.importAnnotationsJSON(InstantJSONValue.object(top).canonicalBytes)
        try writeBookmarks(marks, into: document)
        switch flattening {
        case .none: break
        case .all: try document.flatten(FlattenOptions())
        case .annotations:
            // Every subtype the PDF has but widgets and links; popups are removed undrawn.
            let subtypes = Set(try document.allAnnotations().map(\.subtype)).subtracting(["Widget", "Link"])
            if !subtypes.isEmpty { try document.flatten(FlattenOptions(subtypes: subtypes)) }
        }
        let breakage = try document.signatureBreakage()
        return (try document.saved(.incremental), breakage)
    }

    /// The layer's form value records as `formFieldValues` items (without their `id`, the
    /// layer's key) and its bookmarks, in the layer's order.
    static func layerFormValuesAndBookmarks(_ records: [SyncStoredRecord]) throws -> (values: [InstantJSONValue], bookmarks: [Bookmark]) {
        var values: [InstantJSONValue] = []
        var marks: [Bookmark] = []
        for r in records where r.pageIndex < 0 {
            let value = try InstantJSONValue(parsing: r.json)
            switch LayerRecords.kind(of: value) {
            case .formFieldValue:
                guard case .object(var fields) = value else { continue }
                fields["id"] = nil
                values.append(.object(fields))
            case .bookmark:
                marks.append(try LayerRecords.bookmark(value))
            case .annotation:
                continue
            }
        }
        return (values, marks)
    }

    /// Makes the layer's bookmarks the document's user bookmarks (the built-in provider's,
    /// in the PDF's catalog: the PDF's own are replaced), and writes them into its outline
    /// as well, for other viewers (``Document/exportBookmarksToOutline(order:)``, in their
    /// sort keys' order). A PDF without bookmarks, of a layer without any, is left alone.
    static func writeBookmarks(_ marks: [Bookmark], into document: Document) throws {
        let manager = document.bookmarks
        let existing = try manager.bookmarks()
        guard !(marks.isEmpty && existing.isEmpty) else { return }
        for b in existing { try manager.remove(identifier: b.identifier) }
        for b in marks { try manager.add(b) }
        try document.exportBookmarksToOutline(order: .custom)
    }

    // MARK: POST /admin/documents/{doc}/layers/{layer}/import

    func importPDF(_ document: String, _ layer: String, _ request: SyncRequest) async throws -> SyncResponse {
        guard request.query.isEmpty else { throw SyncHTTPError.badRequest("the import takes no query parameters") }
        let source = try openPDF(request.body)
        let items = try exportedRecords(source)
        guard let info = try await store.read({ tx in try await tx.document(document) }) else {
            throw SyncHTTPError.notFound("no document \(document)")
        }
        let checker = try await checker(for: info)
        let maxRecordBytes = limits.maxRecordBytes
        let retention = Int64(limits.changeRetention)
        let (before, seq, count) = try await store.write { [self] tx -> (Int64, Int64, Int) in
            let layerInfo = try await ensureLayer(tx, document, layer)
            let taken = Set(try await tx.records(document, layer).map(\.id))
            // New ids where they clash with the layer's (or an earlier imported record's).
            var rename: [String: String] = [:]
            var used = taken
            var ids: [String] = []
            for (i, item) in items.enumerated() {
                let old = item.objectValue?["id"]?.stringValue ?? "imported-\(i)"
                var id = old
                if used.contains(id) || id.isEmpty {
                    repeat { id = SyncIDs.uuid() } while used.contains(id)
                    rename[old] = id
                }
                used.insert(id)
                ids.append(id)
            }
            var records: [InstantJSONValue] = []
            for (i, item) in items.enumerated() {
                guard case .object(var fields) = item else { continue }
                fields["id"] = .string(ids[i])
                // A renamed record's /NM is its new id, so that it never matches the
                // annotation whose id it had.
                if let old = item.objectValue?["id"]?.stringValue, rename[old] != nil { fields["name"] = .string(ids[i]) }
                fields["pdfObjectId"] = nil  // object numbers of another file
                if case .object(var quire)? = fields["quire"] {
                    for key in ["inReplyTo", "popup"] {
                        if let target = quire[key]?.stringValue, let renamed = rename[target] { quire[key] = .string(renamed) }
                    }
                    fields["quire"] = .object(quire)
                }
                records.append(.object(fields))
            }
            // Parents (and popups) before the records that name them.
            var index: [String: Int] = [:]
            for (i, id) in ids.enumerated() where index[id] == nil { index[id] = i }
            var order: [Int] = []
            var state = Array(repeating: 0, count: records.count)  // 0 new, 1 placing, 2 placed
            for start in records.indices where state[start] == 0 {
                var stack: [(Int, Bool)] = [(start, false)]
                while let (i, expanded) = stack.popLast() {
                    if expanded { state[i] = 2; order.append(i); continue }
                    guard state[i] == 0 else { continue }
                    state[i] = 1
                    stack.append((i, true))
                    let keys = RecordKeys(records[i])
                    for ref in [keys.inReplyTo, keys.popup].compactMap({ $0 }) {
                        if let j = index[ref], state[j] == 0 { stack.append((j, false)) }
                    }
                }
            }
            var seq = layerInfo.seq
            var digest = try await layerDigest(tx, document, layerInfo)
            for i in order {
                let m = Mutation(clientSeq: 0, op: .put, id: ids[i], baseRevision: nil,
                                 put: checkAlone(records[i], id: ids[i], checker: checker))
                let outcome = try await apply(m, tx, document, layer, seq: &seq, digest: &digest, clientID: nil, userID: nil,
                                              maxRecordBytes: maxRecordBytes)
                if case .rejected(_, let message, _, _) = outcome {
                    throw SyncHTTPError.badRequest("the PDF's annotation \(i) (\"\(ids[i].prefix(60))\") does not go into the layer: \(message)")
                }
            }
            if seq > layerInfo.seq || layerInfo.digest == nil { try await tx.setLayerDigest(document, layer, digest) }
            if seq - retention > layerInfo.prunedThrough { try await tx.pruneChanges(document, layer, through: seq - retention) }
            return (layerInfo.seq, seq, order.count)
        }
        if seq > before {
            // Not published: the live feeds read these changes from the store.
            feeds.announce(LayerFeeds.Key(document: document, layer: layer), seq: seq)
            listeners.notify(document: document, layer: layer, seq: seq)
        }
        return SyncService.json(200, .object([("imported", .int(count))]))
    }
}
