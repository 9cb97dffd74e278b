import FoundationEssentials
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
}

/// `2026-11-24T13:55:03Z`.
func iso8601UTC(_ date: Date) -> String {
    let seconds = Int64(max(-62_135_596_800, min(date.timeIntervalSince1970, 253_402_300_799)).rounded(.down))
    var days = seconds / 86_400
    var rem = seconds % 86_400
    if rem < 0 {
        rem += 86_400
        days -= 1
    }
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    var y = yoe + era * 400
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    if m <= 2 { y += 1 }
    func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let year = String(y)
    return "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year)-\(two(m))-\(two(d))T\(two(rem / 3600)):\(two(rem % 3600 / 60)):\(two(rem % 60))Z"
}

/// The message of an error for a JSON answer.
func errorMessage(_ error: any Error) -> String {
    if let e = error as? PDFError { return e.message }
    return String(describing: error)
}
