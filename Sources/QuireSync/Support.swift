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

enum SyncIDs {
    /// `[A-Za-z0-9._-]{1,128}`, not `.` or `..`: document ids, layer names, client ids.
    static func isValid(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard (1...128).contains(utf8.count), s != ".", s != ".." else { return false }
        return utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")
        }
    }

    /// `[A-Za-z0-9-]{1,64}`: a request id the caller may choose.
    static func isValidRequestID(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-")
        }
    }

    /// A new ULID: 48 bits of milliseconds and 80 random bits in Crockford's base 32.
    static func ulid(now: Date = Date()) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
        let ms = UInt64(max(0, min(now.timeIntervalSince1970 * 1000, Double(UInt64(1) << 47))))
        var rng = SystemRandomNumberGenerator()
        let high = UInt64.random(in: 0...UInt64.max, using: &rng) & 0xFFFF  // 16 bits
        let low = UInt64.random(in: 0...UInt64.max, using: &rng)            // 64 bits
        // 128 bits: ms (48) | high (16) | low (64), written as 26 characters of 5 bits
        // (the first character carries the top 3 bits).
        let hi: UInt64 = ms << 16 | high
        var out: [UInt8] = []
        for i in 0..<26 {
            let bit = 125 - 5 * i  // the low bit of this character's group, from 128 bits
            var v: UInt64 = 0
            for k in 0..<5 {
                let b = bit + k
                guard b < 128 else { continue }
                let set = b >= 64 ? (hi >> UInt64(b - 64)) & 1 : (low >> UInt64(b)) & 1
                v |= set << UInt64(k)
            }
            out.append(alphabet[Int(v)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 32 random hexadecimal digits: a generated request id.
    static func randomHex() -> String {
        var rng = SystemRandomNumberGenerator()
        let a = UInt64.random(in: 0...UInt64.max, using: &rng), b = UInt64.random(in: 0...UInt64.max, using: &rng)
        func hex(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return hex(a) + hex(b)
    }

    /// A new record id for an imported annotation whose id is taken: a lowercase UUID, as
    /// Quire names the annotations it creates.
    static func uuid() -> String { UUID().uuidString.lowercased() }
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

/// Percent-decodes one path segment; nil for a malformed escape or bytes that are not UTF-8.
func percentDecoded(_ s: Substring) -> String? {
    guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
    var out: [UInt8] = []
    var it = Array(s.utf8)[...]
    func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x37
        case 0x61...0x66: return c - 0x57
        default: return nil
        }
    }
    while let c = it.popFirst() {
        if c == UInt8(ascii: "%") {
            guard let h = it.popFirst().flatMap(hex), let l = it.popFirst().flatMap(hex) else { return nil }
            out.append(h << 4 | l)
        } else {
            out.append(c)
        }
    }
    return String(validating: out, as: UTF8.self)
}

/// The message of an error for a JSON answer.
func errorMessage(_ error: any Error) -> String {
    if let e = error as? PDFError { return e.message }
    return String(describing: error)
}
