import Crypto
import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import QuireSyntax

// Attachments (issue 33, docs/sync-protocol.md "Attachments"): the images of image
// annotations (`pspdfkit/image`), content-addressed by the SHA-256 of their bytes, which is
// the record's `imageAttachmentId`. Uploaded once per document, fetched on demand, written
// into the layer's PDF export.

extension SyncService {
    /// 64 lowercase hexadecimal digits.
    static func isSHA256Hex(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined()
    }

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

    // MARK: PUT /documents/{doc}/attachments/{sha256}

    /// Keeps an image for the document's records: the body's SHA-256 must be the id, its
    /// `Content-Type` image/jpeg or image/png, and the image one the annotation model takes
    /// (``ImageAttachment/read(_:contentType:)``: the checks of an image stamp). 201 when
    /// new, 200 when the document had it; nothing is kept on a refusal.
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
        let type = String(declared.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()).lowercased()
        guard type == "image/jpeg" || type == "image/png" else {
            throw SyncHTTPError.badRequest(
                "an attachment is an image: Content-Type image/jpeg or image/png, not \"\(type.prefix(60))\""
            )
        }
        let actual = SyncService.sha256Hex(request.body)
        guard actual == sha else {
            throw SyncHTTPError.badRequest("the body's SHA-256 is \(actual), not the attachment's id \(sha)")
        }
        do {
            _ = try ImageAttachment.read(request.body, contentType: type)
        } catch {
            throw SyncHTTPError.badRequest("the image is refused: \(errorMessage(error))")
        }
        let attachment = SyncAttachment(sha256: sha, contentType: type, bytes: request.body)
        let created = try await store.write { tx -> Bool in
            guard try await tx.document(document) != nil else {
                throw SyncHTTPError.notFound("no document \(document)")
            }
            return try await tx.insertAttachment(document, attachment)
        }
        return SyncService.json(created ? 201 : 200, SyncService.attachmentJSON(attachment))
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

    /// The attachments the image records of `records` name, from the store, by id.
    static func attachments(
        of records: [SyncStoredRecord],
        _ tx: any SyncTransaction,
        _ document: String
    ) async throws -> [String: SyncAttachment] {
        var out: [String: SyncAttachment] = [:]
        for r in records {
            guard let id = imageAttachmentID(r.json), out[id] == nil else { continue }
            if let a = try await tx.attachment(document, sha256: id) { out[id] = a }
        }
        return out
    }

    /// The `imageAttachmentId` of an image record's JSON.
    static func imageAttachmentID(_ json: [UInt8]) -> String? {
        guard let value = try? InstantJSONValue(parsing: json), value["type"]?.stringValue == "pspdfkit/image" else {
            return nil
        }
        return value["imageAttachmentId"]?.stringValue
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
}
