import Crypto
import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import QuireSyntax

// The client API (JWT): the PDF, a layer, its change feed, pushes.

/// What the core reads of a record's JSON without parsing it as an annotation.
struct RecordKeys {
    var id: String?
    var pageIndex: Int?
    var inReplyTo: String?
    var popup: String?
    var hasCreatorName: Bool

    init(_ value: InstantJSONValue) {
        let fields = value.objectValue ?? [:]
        id = fields["id"]?.stringValue
        if case .integer(let p)? = fields["pageIndex"], let page = Int(exactly: p) { pageIndex = page }
        let quire = fields["quire"]?.objectValue ?? [:]
        inReplyTo = quire["inReplyTo"]?.stringValue
        popup = quire["popup"]?.stringValue
        if let c = fields["creatorName"], c != .null { hasCreatorName = true } else { hasCreatorName = false }
    }
}

extension SyncService {
    // MARK: Layers

    /// Layer `layer` of `document`, created if missing with the PDF's own annotations as
    /// its records (revision 0, seq 0).
    func ensureLayer(_ tx: any SyncTransaction, _ document: String, _ layer: String) async throws -> SyncLayerInfo {
        if let info = try await tx.layer(document, layer) { return info }
        guard let initial = try await tx.initialRecords(document) else {
            throw SyncHTTPError.notFound("no document \(document)")
        }
        let records = try SyncService.storedRecords(ofArray: initial, revision: 0)
        try await tx.createLayer(document, layer, records: records)
        let digest = LayerDigest.of(records.map { ($0.id, $0.revision, $0.json) })
        try await tx.setLayerDigest(document, layer, digest)
        return SyncLayerInfo(name: layer, seq: 0, records: records.count, prunedThrough: 0, digest: digest)
    }

    /// The layer's digest: as stored, or (a layer of a store made before digests) computed
    /// from its records now.
    func layerDigest(_ tx: any SyncTransaction, _ document: String, _ info: SyncLayerInfo) async throws -> LayerDigest {
        if let d = info.digest { return d }
        return LayerDigest.of(try await tx.records(document, info.name).map { ($0.id, $0.revision, $0.json) })
    }

    /// The records of a JSON array of records (the form `initial_records` is kept in).
    static func storedRecords(ofArray bytes: [UInt8], revision: Int64) throws -> [SyncStoredRecord] {
        guard case .array(let items) = try InstantJSONValue(parsing: bytes) else {
            throw SyncHTTPError.internal("the stored initial records are not a JSON array")
        }
        return try items.map { item in
            let keys = RecordKeys(item)
            guard let id = keys.id, let page = keys.pageIndex else {
                throw SyncHTTPError.internal("a stored initial record has no id or pageIndex")
            }
            return SyncStoredRecord(
                id: id,
                revision: revision,
                pageIndex: page,
                inReplyTo: keys.inReplyTo,
                popup: keys.popup,
                json: item.canonicalBytes
            )
        }
    }

    /// Runs `body` on the layer: in a read transaction when it exists, else in the write
    /// transaction that creates it.
    func withLayer<T: Sendable>(
        _ document: String,
        _ layer: String,
        _ body: @escaping @Sendable (any SyncTransaction, SyncLayerInfo) async throws -> T
    ) async throws -> T {
        let existing: T? = try await store.read { tx in
            guard let info = try await tx.layer(document, layer) else { return nil }
            return try await body(tx, info)
        }
        if let existing { return existing }
        return try await store.write { [self] tx in
            let info = try await ensureLayer(tx, document, layer)
            return try await body(tx, info)
        }
    }

    // MARK: GET /documents/{doc}/pdf

    func downloadPDF(
        _ document: String,
        _ request: SyncRequest,
        rights: CollaborationPermissions? = nil
    ) async throws -> SyncResponse {
        if let rights, !rights.viewsEverything,
            let filtered = try await downloadPDF(document, request, filteredBy: rights)
        {
            return filtered
        }
        let found: (SyncDocumentInfo, [UInt8]?)? = try await store.read { tx in
            guard let info = try await tx.document(document) else { return nil }
            if request.header("If-None-Match") == "\"\(info.sha256)\"" { return (info, nil) }
            return (info, try await tx.documentPDF(document))
        }
        guard let (info, pdf) = found else { throw SyncHTTPError.notFound("no document \(document)") }
        let etag = "\"\(info.sha256)\""
        guard let pdf else { return SyncResponse(status: 304, headers: [("ETag", etag)]) }
        return SyncResponse(status: 200, headers: [("Content-Type", "application/pdf"), ("ETag", etag)], body: pdf)
    }

    /// The download for a token that may not view some of the PDF's own annotations: the
    /// uploaded PDF without them (written as a layer export of the visible ones), its ETag
    /// the SHA-256 of those bytes. Nil when the token views them all (the PDF as uploaded).
    private func downloadPDF(
        _ document: String,
        _ request: SyncRequest,
        filteredBy rights: CollaborationPermissions
    ) async throws -> SyncResponse? {
        let found: ([UInt8], [UInt8])? = try await store.read { tx in
            guard let pdf = try await tx.documentPDF(document), let initial = try await tx.initialRecords(document)
            else { return nil }
            return (pdf, initial)
        }
        guard let (pdf, initial) = found else { throw SyncHTTPError.notFound("no document \(document)") }
        let records = try SyncService.storedRecords(ofArray: initial, revision: 0)
        let visible = records.filter { rights.canView(json: $0.json) }
        if visible.count == records.count { return nil }
        let bytes: [UInt8]
        do {
            bytes = try SyncService.pdfAndSignatureBreakage(pdf, withLayer: visible).pdf
        } catch let e as SyncHTTPError {
            throw e
        } catch {
            throw SyncHTTPError.internal(
                "the PDF cannot be written without the annotations this token may not view: \(errorMessage(error))"
            )
        }
        let sha = SHA256.hash(data: bytes).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
        let etag = "\"\(sha)\""
        if request.header("If-None-Match") == etag { return SyncResponse(status: 304, headers: [("ETag", etag)]) }
        return SyncResponse(status: 200, headers: [("Content-Type", "application/pdf"), ("ETag", etag)], body: bytes)
    }

    // MARK: GET /documents/{doc}/layers/{layer}

    func fetchLayer(
        _ document: String,
        _ layer: String,
        rights: CollaborationPermissions? = nil
    ) async throws -> SyncResponse {
        var (seq, records, digest) = try await withLayer(document, layer) { tx, info in
            (info.seq, try await tx.records(document, layer), info.digest)
        }
        // A token with collaboration permissions sees the records it may view, and the
        // digest is theirs (what its client holds).
        if let rights, !rights.viewsEverything {
            records = records.filter { rights.canView(json: $0.json) }
            digest = nil
        }
        // The digest of these records (computed when the store has none yet).
        let d = digest ?? LayerDigest.of(records.map { ($0.id, $0.revision, $0.json) })
        return SyncService.json(
            200,
            .object([
                ("seq", .integer(seq)),
                (
                    "records",
                    .array(records.map { .object([("revision", .integer($0.revision)), ("record", .raw($0.json))]) })
                ),
                ("digest", .string(d.hex)),
            ])
        )
    }

    // MARK: GET /documents/{doc}/layers/{layer}/changes?since=N[&wait=S]

    enum FeedAnswer: Sendable {
        case reset(seq: Int64)
        case changes(seq: Int64, [SyncChange], more: Bool, digest: LayerDigest?)
    }

    func pullChanges(
        _ document: String,
        _ layer: String,
        _ request: SyncRequest,
        rights: CollaborationPermissions? = nil
    ) async throws -> SyncResponse {
        guard let sinceText = request.query["since"] else {
            throw SyncHTTPError.badRequest("since=N is required (0 for every change)")
        }
        guard let since = Int64(sinceText), since >= 0 else {
            throw SyncHTTPError.badRequest("since must be an integer, 0 or more, not \"\(sinceText.prefix(40))\"")
        }
        var wait = 0.0
        if let waitText = request.query["wait"] {
            guard let w = Double(waitText), w.isFinite, w >= 0, w <= Double(limits.maxWaitSeconds) else {
                throw SyncHTTPError.badRequest(
                    "wait must be a number of seconds from 0 to \(limits.maxWaitSeconds), not \"\(waitText.prefix(40))\""
                )
            }
            wait = w
        }
        for key in request.query.keys where key != "since" && key != "wait" {
            throw SyncHTTPError.badRequest("unknown query parameter \"\(key.prefix(40))\" (since, wait)")
        }
        let answer = try await readFeed(document, layer, since: since)
        if case .changes(_, let changes, _, _) = answer, changes.isEmpty, wait > 0 {
            guard await listeners.wait(document: document, layer: layer, after: since, seconds: wait) else {
                throw SyncHTTPError.busy(
                    retryAfter: ListenerRegistry.busyRetryAfterSeconds,
                    "the server already holds max_listeners (\(limits.maxListeners)) long polls: retry later"
                )
            }
            // Every long poll of the layer at `since` wakes at once: they share one read.
            let listeners = self.listeners
            let announced: @Sendable () -> Int64? = { listeners.latest(document: document, layer: layer) }
            let shared = try await feedReads.read(document, layer, since: since, announced: announced) { [self] in
                try await readFeed(document, layer, since: since)
            }
            let body =
                rights.map { $0.viewsEverything } ?? true
                ? shared.plainBody : SyncService.feedBody(shared.answer, rights: rights)
            return SyncResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        }
        return SyncResponse(
            status: 200,
            headers: [("Content-Type", "application/json")],
            body: SyncService.feedBody(answer, rights: rights)
        )
    }

    /// The layer's changes after `since` as the store has them (one page), or a reset.
    func readFeed(_ document: String, _ layer: String, since: Int64) async throws -> FeedAnswer {
        let limit = limits.maxChangesPerPage
        return try await withLayer(document, layer) { tx, info in
            if since < info.prunedThrough || since > info.seq { return .reset(seq: info.seq) }
            let changes = try await tx.changes(document, layer, after: since, limit: limit + 1)
            return .changes(
                seq: info.seq,
                Array(changes.prefix(limit)),
                more: changes.count > limit,
                digest: info.digest
            )
        }
    }

    /// The JSON body of a feed answer, as `GET .../changes` gives it to a token with `rights`.
    static func feedBody(_ answer: FeedAnswer, rights: CollaborationPermissions?) -> [UInt8] {
        switch answer {
        case .reset(let seq):
            return JSONOut.object([("reset", .bool(true)), ("seq", .integer(seq))]).bytes
        case .changes(let seq, var changes, let more, var digest):
            // A token with collaboration permissions: a put of a record it may not view
            // reaches it as a delete of that id (it may have seen the record before it
            // changed group), and the digest, the whole layer's, is left out.
            if let rights, !rights.viewsEverything {
                changes = changes.map { visible($0, to: rights) }
                digest = nil
            }
            // The digest of the layer at `seq` (what a client holds once it applied these
            // changes, when `more` is false), when the store has one.
            var fields: [(String, JSONOut)] = [
                ("seq", .integer(seq)),
                ("changes", .array(changes.map(SyncService.changeJSON))),
                ("more", .bool(more)),
            ]
            if let digest { fields.append(("digest", .string(digest.hex))) }
            return JSONOut.object(fields).bytes
        }
    }

    /// A change as a token with `rights` sees it: a put of a record it may not view is a
    /// delete of that id.
    static func visible(_ c: SyncChange, to rights: CollaborationPermissions) -> SyncChange {
        guard c.op == .put, let record = c.record, !rights.canView(json: record) else { return c }
        return SyncChange(seq: c.seq, id: c.id, op: .delete, record: nil, clientID: c.clientID, userID: c.userID)
    }

    static func changeJSON(_ c: SyncChange) -> JSONOut {
        var fields: [(String, JSONOut)] = [
            ("seq", .integer(c.seq)), ("id", .string(c.id)), ("op", .string(c.op.rawValue)),
        ]
        if c.op == .put { fields.append(("record", .optionalRaw(c.record))) }
        fields.append(("client_id", .optional(c.clientID)))
        fields.append(("user_id", .optional(c.userID)))
        return .object(fields)
    }
}
