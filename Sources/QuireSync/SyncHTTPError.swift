import QuireDocument
import QuireSyntax

/// An error answer: an HTTP status and the `{"error": {"code", "message"}}` body.
struct SyncHTTPError: Error, Sendable {
    let status: Int
    let code: String
    let message: String
    var headers: [(name: String, value: String)] = []

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

/// The message of an error for a JSON answer.
func errorMessage(_ error: any Error) -> String {
    if let e = error as? PDFError { return e.message }
    return String(describing: error)
}
