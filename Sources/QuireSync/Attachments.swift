import Crypto
import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import QuireSyntax
import Synchronization

// Attachments (issue 33, docs/sync-protocol.md "Attachments"): the images of image
// annotations (`pspdfkit/image`) and the files of file attachment annotations
// (`pspdfkit/file`), content-addressed by the SHA-256 of their bytes, which is the record's
// `imageAttachmentId` or `fileAttachmentId` (``RecordAttachment``). Uploaded once per
// document, fetched on demand, written into the layer's PDF export, collected when no
// record names them any more ("Collection" below).

extension SyncService {
    /// 64 lowercase hexadecimal digits.
    static func isSHA256Hex(_ s: String) -> Bool { RecordAttachment.isSHA256Hex(s) }

    static func sha256Hex(_ bytes: [UInt8]) -> String { RecordAttachment.sha256Hex(bytes) }

    static func attachmentJSON(_ a: SyncAttachment) -> JSONOut {
        .object([
            (
                "attachment",
                .object([
                    ("sha256", .string(a.sha256)), ("content_type", .string(a.contentType)),
                    ("bytes", .int(a.bytes.count)),
                ])
            )
        ])
    }

    /// The media types whose attachments are checked as images when uploaded.
    static let imageContentTypes: Set<String> = ["image/jpeg", "image/png"]

    // MARK: PUT /documents/{doc}/attachments/{sha256}

    /// Keeps an attachment for the document's records: the body's SHA-256 must be the id;
    /// its `Content-Type` any media type (`application/octet-stream` when absent), and an
    /// image (image/jpeg, image/png) one the annotation model takes
    /// (``ImageAttachment/read(_:contentType:)``: the checks of an image stamp). 201 when
    /// new, 200 when the document had it (its upload time refreshed, which starts its
    /// grace period again); nothing is kept on a refusal.
    func uploadAttachment(_ document: String, _ sha: String, _ request: SyncRequest) async throws -> SyncResponse {
        guard SyncService.isSHA256Hex(sha) else {
            throw SyncHTTPError.badRequest(
                "an attachment's id is the SHA-256 of its bytes, 64 lowercase hexadecimal digits"
            )
        }
        guard request.query.isEmpty else {
            throw SyncHTTPError.badRequest("an attachment upload takes no query parameters")
        }
        let declared = (request.header("Content-Type") ?? "").split(separator: ";").first ?? ""
        var type = String(declared.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()).lowercased()
        if type.isEmpty { type = "application/octet-stream" }
        if let problem = Annotation.AttachedFile.contentTypeProblem(type) {
            throw SyncHTTPError.badRequest("an attachment's Content-Type: \(problem)")
        }
        let actual = SyncService.sha256Hex(request.body)
        guard actual == sha else {
            throw SyncHTTPError.badRequest("the body's SHA-256 is \(actual), not the attachment's id \(sha)")
        }
        if SyncService.imageContentTypes.contains(type) {
            do {
                _ = try ImageAttachment.read(request.body, contentType: type)
            } catch {
                throw SyncHTTPError.badRequest("the image is refused: \(errorMessage(error))")
            }
        }
        let attachment = SyncAttachment(sha256: sha, contentType: type, bytes: request.body)
        let now = SyncService.nowSeconds()
        // The document's attachments that no record names: collected by uploads at most
        // once per grace period, before this one is kept (and at each layer deletion, and
        // when the admin API asks).
        let due = lastCollection.withLock { last -> Bool in
            guard now - (last[document] ?? Int64.min / 2) >= Int64(limits.attachmentGraceSeconds) else { return false }
            last[document] = now
            return true
        }
        if due { _ = try? await collectAttachments(document) }
        // An attachment the document has keeps the media type of its first upload: the
        // answer says what is kept.
        let (created, kept) = try await store.write { tx -> (Bool, SyncAttachment) in
            guard try await tx.document(document) != nil else {
                throw SyncHTTPError.notFound("no document \(document)")
            }
            if try await tx.insertAttachment(document, attachment, uploaded: now) { return (true, attachment) }
            return (false, try await tx.attachment(document, sha256: sha) ?? attachment)
        }
        return SyncService.json(created ? 201 : 200, SyncService.attachmentJSON(kept))
    }

    // MARK: GET /documents/{doc}/attachments/{sha256}

    /// The bytes, with their media type and an `ETag` (the id); 304 to `If-None-Match`.
    func downloadAttachment(_ document: String, _ sha: String, _ request: SyncRequest) async throws -> SyncResponse {
        guard SyncService.isSHA256Hex(sha) else { throw SyncHTTPError.notFound("no attachment \(sha.prefix(80))") }
        let etag = "\"\(sha)\""
        let found = try await store.read { tx in try await tx.attachment(document, sha256: sha) }
        guard let found else { throw SyncHTTPError.notFound("document \(document) has no attachment \(sha)") }
        if request.header("If-None-Match") == etag { return SyncResponse(status: 304, headers: [("ETag", etag)]) }
        return SyncResponse(
            status: 200,
            headers: [("Content-Type", found.contentType), ("ETag", etag)],
            body: found.bytes
        )
    }

    /// The attachments the records of `records` name, from the store, by id.
    static func attachments(
        of records: [SyncStoredRecord],
        _ tx: any SyncTransaction,
        _ document: String
    ) async throws -> [String: SyncAttachment] {
        var out: [String: SyncAttachment] = [:]
        for r in records {
            guard let id = RecordAttachment.id(ofRecordJSON: r.json), out[id] == nil else { continue }
            if let a = try await tx.attachment(document, sha256: id) { out[id] = a }
        }
        return out
    }

    /// Instant JSON's `attachments` for `attachments`: base64 and the media type.
    static func attachmentsJSON(_ attachments: [String: SyncAttachment]) -> InstantJSONValue {
        var out: [String: InstantJSONValue] = [:]
        for (id, a) in attachments {
            out[id] = .object([
                "binary": .string(Data(a.bytes).base64EncodedString()), "contentType": .string(a.contentType),
            ])
        }
        return .object(out)
    }

    // MARK: Collection

    /// Deletes the attachments of `document` that no record names any more: those uploaded
    /// (or uploaded again) at least `attachmentGraceSeconds` ago that no record of any of
    /// the document's layers, nor of the PDF's own records, names. A client uploads an
    /// attachment right before each push that names it, so a push in flight finds its
    /// attachment: the grace period is the longest such a push may take. Runs in one write
    /// transaction, ordered with pushes. Returns the ids deleted, sorted.
    func collectAttachments(_ document: String) async throws -> [String] {
        let cutoff = SyncService.nowSeconds() - Int64(limits.attachmentGraceSeconds)
        return try await store.write { tx -> [String] in
            let candidates = try await tx.attachmentIDs(document, uploadedBefore: cutoff + 1)
            guard !candidates.isEmpty else { return [] }
            var named: Set<String> = []
            for layer in try await tx.layers(document) {
                for r in try await tx.records(document, layer.name) {
                    if let id = RecordAttachment.id(ofRecordJSON: r.json) { named.insert(id) }
                }
            }
            if let initial = try await tx.initialRecords(document), let items = try? InstantJSONValue(parsing: initial)
            {
                for item in items.arrayValue ?? [] {
                    if let id = RecordAttachment.reference(of: item)?.id { named.insert(id) }
                }
            }
            let unnamed = candidates.filter { !named.contains($0) }.sorted()
            if !unnamed.isEmpty { try await tx.deleteAttachments(document, unnamed) }
            return unnamed
        }
    }
}
