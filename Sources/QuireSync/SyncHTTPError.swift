import QuireDocument
import QuireSyntax

/// An error answer: an HTTP status and the `{"error": {"code", "message"}}` body.
struct SyncHTTPError: Error, Sendable {
    let status: Int
    let code: String
    let message: String
    var headers: [(name: String, value: String)] = []
    /// The mutations a push is refused for (422 `invalid_record`, 409
    /// `missing_attachment`), named in the error as `"mutations"`.
    var mutations: [RefusedMutation] = []

    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func badRequest(_ m: String) -> SyncHTTPError { SyncHTTPError(400, "bad_request", m) }
    static func invalidJSON(_ m: String) -> SyncHTTPError { SyncHTTPError(400, "invalid_json", m) }
    static func unknownField(_ m: String) -> SyncHTTPError { SyncHTTPError(400, "unknown_field", m) }
    static func tooLarge(_ m: String) -> SyncHTTPError { SyncHTTPError(413, "too_large", m) }
    static func unauthenticated(_ m: String) -> SyncHTTPError {
        var e = SyncHTTPError(401, "unauthenticated", m)
        e.headers = [("WWW-Authenticate", "Bearer")]
        return e
    }
    static func forbidden(_ m: String) -> SyncHTTPError { SyncHTTPError(403, "forbidden", m) }
    static func notFound(_ m: String) -> SyncHTTPError { SyncHTTPError(404, "not_found", m) }
    static func conflict(_ m: String) -> SyncHTTPError { SyncHTTPError(409, "conflict", m) }
    /// 422 `invalid_record`: records refused on their own (the annotation model's checks,
    /// a form value the field refuses, a bookmark of the wrong shape); the whole push is
    /// refused and nothing applied (docs/sync-protocol.md, "Refused records").
    static func invalidRecords(_ refused: [RefusedMutation]) -> SyncHTTPError {
        let first = refused.first
        let more = refused.count > 1 ? " (and \(refused.count - 1) more mutation(s), in \"mutations\")" : ""
        var e = SyncHTTPError(
            422,
            "invalid_record",
            "client_seq \(first?.clientSeq ?? 0), record \"\(first?.id.prefix(60) ?? "")\": \(first?.message ?? "")\(more); nothing was applied"
        )
        e.mutations = refused
        return e
    }
    /// 409 `missing_attachment`: a put names an attachment the document does not have
    /// (never uploaded, or collected); the whole push is refused and nothing applied: upload
    /// it and push again.
    static func missingAttachment(_ refused: RefusedMutation) -> SyncHTTPError {
        var e = SyncHTTPError(
            409,
            "missing_attachment",
            "client_seq \(refused.clientSeq), record \"\(refused.id.prefix(60))\": \(refused.message); nothing was applied"
        )
        e.mutations = [refused]
        return e
    }
    static func `internal`(_ m: String) -> SyncHTTPError { SyncHTTPError(500, "internal", m) }
    static func unavailable(_ m: String) -> SyncHTTPError { SyncHTTPError(503, "unavailable", m) }
    /// 503 `busy` with `Retry-After`: the server cannot take this request now (a long poll
    /// past `max_listeners`); the same request may succeed after the delay.
    static func busy(retryAfter seconds: Int, _ m: String) -> SyncHTTPError {
        var e = SyncHTTPError(503, "busy", m)
        e.headers = [("Retry-After", String(seconds))]
        return e
    }
}

/// A mutation named by a refusal of its whole push.
struct RefusedMutation: Sendable {
    var clientSeq: Int64
    var id: String
    var message: String
    /// The SHA-256 of the attachment the document lacks (`missing_attachment`).
    var attachment: String? = nil

    var json: JSONOut {
        var out: [(String, JSONOut)] = [
            ("client_seq", .integer(clientSeq)), ("id", .string(id)), ("message", .string(message)),
        ]
        if let attachment { out.append(("attachment", .string(attachment))) }
        return .object(out)
    }
}

/// The message of an error for a JSON answer.
func errorMessage(_ error: any Error) -> String {
    if let e = error as? PDFError { return e.message }
    return String(describing: error)
}
