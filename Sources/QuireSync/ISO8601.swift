import FoundationEssentials

// The timestamps of the API's answers (docs/sync-protocol.md): UTC, to the second.

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
