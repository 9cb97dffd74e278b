#if canImport(Glibc)
import Glibc
#endif

/// A PDF date (ISO 32000-2 §7.9.4): `D:YYYYMMDDHHmmSSOHH'mm`, with its time zone.
///
/// Parsing is lenient as in other readers: every field after the year is optional, the
/// `D:` prefix and the apostrophes may be missing, and out-of-range fields are clamped.
public struct PDFDate: Sendable, Equatable, Comparable, CustomStringConvertible {
    public var year, month, day, hour, minute, second: Int
    /// Offset from UTC in minutes (east positive); nil when the string gives no zone.
    public var utcOffsetMinutes: Int?

    public init(year: Int, month: Int = 1, day: Int = 1, hour: Int = 0, minute: Int = 0, second: Int = 0,
                utcOffsetMinutes: Int? = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.utcOffsetMinutes = utcOffsetMinutes
    }

    /// Parses a PDF date string; nil when it does not start with a year.
    public init?(_ text: String) {
        // Read in place from the String's UTF-8: copying it into an array (and the `D:`
        // prefix into another, then shifting it out) was most of the cost of the dates of
        // every annotation read.
        var text = text
        guard let fields = text.withUTF8({ PDFDate.lenientFields($0) }) else { return nil }
        self.init(year: fields.year, month: fields.month, day: fields.day, hour: fields.hour, minute: fields.minute,
                  second: fields.second, utcOffsetMinutes: fields.offset)
    }

    /// The fields of a PDF date read leniently (see ``init(_:)``); nil without a year.
    private static func lenientFields(_ chars: UnsafeBufferPointer<UInt8>)
        -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int?)? {
        var i = 0
        if chars.count >= 2 && chars[0] == UInt8(ascii: "D") && chars[1] == UInt8(ascii: ":") { i = 2 }
        func digits(_ n: Int) -> Int? {
            guard i + n <= chars.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = chars[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        guard let year = digits(4) else { return nil }
        let month = Swift.min(Swift.max(digits(2) ?? 1, 1), 12)
        let day = Swift.min(Swift.max(digits(2) ?? 1, 1), 31)
        let hour = Swift.min(digits(2) ?? 0, 23)
        let minute = Swift.min(digits(2) ?? 0, 59)
        let second = Swift.min(digits(2) ?? 0, 59)
        var offset: Int? = nil
        if i < chars.count {
            switch chars[i] {
            case UInt8(ascii: "Z"):
                offset = 0
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = chars[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                let h = Swift.min(digits(2) ?? 0, 23)
                if i < chars.count && chars[i] == UInt8(ascii: "'") { i += 1 }
                let m = Swift.min(digits(2) ?? 0, 59)
                offset = sign * (h * 60 + m)
            default:
                break
            }
        }
        return (year, month, day, hour, minute, second, offset)
    }

    /// Parses a PDF date strictly, for input from a program: `D:` then the year, then
    /// optional month, day, hour, minute and second (two digits each, in range), then
    /// optionally `Z` or `+HH'mm'` / `-HH'mm'` (the minutes optional), and nothing more.
    public static func strict(_ text: String) -> PDFDate? {
        var c = Array(text.utf8)
        if c.starts(with: Array("D:".utf8)) { c.removeFirst(2) }
        func two(_ at: Int) -> Int? {
            guard at + 2 <= c.count, (0x30...0x39).contains(c[at]), (0x30...0x39).contains(c[at + 1]) else { return nil }
            return Int(c[at] - 0x30) * 10 + Int(c[at + 1] - 0x30)
        }
        var i = 0
        while i < c.count && (0x30...0x39).contains(c[i]) { i += 1 }
        let numeric = i
        // 4 to 14 digits, in whole fields.
        guard numeric >= 4, numeric <= 14, numeric % 2 == 0 else { return nil }
        let ranges = [1...12, 1...31, 0...23, 0...59, 0...59]
        var fields: [Int] = []
        var at = 4
        for range in ranges where at < numeric {
            guard let v = two(at), range.contains(v) else { return nil }
            fields.append(v)
            at += 2
        }
        guard var date = PDFDate(String(decoding: c[0..<numeric], as: UTF8.self)) else { return nil }
        date.utcOffsetMinutes = nil
        guard i < c.count else { return date }
        if c[i] == UInt8(ascii: "Z") {
            guard i + 1 == c.count || (i + 3 == c.count && c[i + 1] == 0x30 && c[i + 2] == 0x30) else { return nil }
            date.utcOffsetMinutes = 0
            return date
        }
        guard c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-"), let h = two(i + 1), h <= 23 else { return nil }
        let sign = c[i] == UInt8(ascii: "-") ? -1 : 1
        var j = i + 3
        var m = 0
        if j < c.count {
            guard c[j] == UInt8(ascii: "'"), let mm = two(j + 1), mm <= 59 else { return nil }
            m = mm
            j += 3
            if j < c.count && c[j] == UInt8(ascii: "'") { j += 1 }
        }
        guard j == c.count else { return nil }
        date.utcOffsetMinutes = sign * (h * 60 + m)
        return date
    }

    /// The current time, in UTC.
    public static func now() -> PDFDate {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return PDFDate(secondsSinceEpoch: Int(ts.tv_sec))
    }

    /// The UTC date of a Unix time.
    public init(secondsSinceEpoch t: Int) {
        let days = t >= 0 ? t / 86400 : (t - 86399) / 86400
        let rest = t - days * 86400
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d,
                  hour: rest / 3600, minute: rest % 3600 / 60, second: rest % 60, utcOffsetMinutes: 0)
    }

    /// Seconds since the Unix epoch (a date without a zone counts as UTC).
    public var secondsSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86400 + hour * 3600 + minute * 60 + second - (utcOffsetMinutes ?? 0) * 60
    }

    static func pad(_ v: Int, _ n: Int) -> String {
        let s = String(abs(v))
        return (v < 0 ? "-" : "") + String(repeating: "0", count: Swift.max(0, n - s.count)) + s
    }

    /// Appends `v` in decimal, zero-padded to `n` digits, as ``pad(_:_:)`` writes it.
    static func appendPadded(_ out: inout [UInt8], _ v: Int, _ n: Int) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        let m = v.magnitude
        var digits = 1
        var power: UInt = 1
        while m / power >= 10 {
            power *= 10
            digits += 1
        }
        if n > digits { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: n - digits)) }
        while power > 0 {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (m / power) % 10))
            power /= 10
        }
    }

    /// The PDF form, `D:YYYYMMDDHHmmSS` plus `Z` or `+HH'mm'`. Written as bytes: the
    /// concatenation of padded strings was 14% of the instructions of a bulk read of
    /// annotations (quire_page_annotation_infos), which gives both dates of each.
    public var description: String {
        var s: [UInt8] = []
        s.reserveCapacity(24)
        appendDescription(to: &s)
        return String(decoding: s, as: UTF8.self)
    }

    /// Appends ``description``'s UTF-8 to `s` (what a bulk read of annotations writes into
    /// its string area without a String per date).
    public func appendDescription(to s: inout [UInt8]) {
        s.append(UInt8(ascii: "D"))
        s.append(UInt8(ascii: ":"))
        PDFDate.appendPadded(&s, year, 4)
        PDFDate.appendPadded(&s, month, 2)
        PDFDate.appendPadded(&s, day, 2)
        PDFDate.appendPadded(&s, hour, 2)
        PDFDate.appendPadded(&s, minute, 2)
        PDFDate.appendPadded(&s, second, 2)
        if let offset = utcOffsetMinutes {
            if offset == 0 {
                s.append(UInt8(ascii: "Z"))
            } else {
                s.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                PDFDate.appendPadded(&s, abs(offset) / 60, 2)
                s.append(UInt8(ascii: "'"))
                PDFDate.appendPadded(&s, abs(offset) % 60, 2)
                s.append(UInt8(ascii: "'"))
            }
        }
    }

    /// ISO 8601, as in Instant JSON: `2026-11-21T14:09:00Z` or with `+02:00`.
    public var iso8601: String {
        var s = PDFDate.pad(year, 4) + "-" + PDFDate.pad(month, 2) + "-" + PDFDate.pad(day, 2) + "T"
            + PDFDate.pad(hour, 2) + ":" + PDFDate.pad(minute, 2) + ":" + PDFDate.pad(second, 2)
        let offset = utcOffsetMinutes ?? 0
        s += offset == 0 ? "Z" : (offset < 0 ? "-" : "+") + PDFDate.pad(abs(offset) / 60, 2) + ":" + PDFDate.pad(abs(offset) % 60, 2)
        return s
    }

    /// Parses ISO 8601 as Instant JSON writes it: `YYYY-MM-DDTHH:MM:SS`, an optional
    /// fraction (ignored), then `Z` or `±HH:MM` (none counts as UTC).
    public init?(iso8601 text: String) {
        let c = Array(text.utf8)
        func number(_ at: Int, _ n: Int) -> Int? {
            guard at + n <= c.count else { return nil }
            var v = 0
            for k in at..<(at + n) {
                guard c[k] >= 0x30 && c[k] <= 0x39 else { return nil }
                v = v * 10 + Int(c[k] - 0x30)
            }
            return v
        }
        guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2),
              let h = number(11, 2), let mi = number(14, 2), let s = number(17, 2),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        self.init(year: y, month: mo, day: d, hour: h, minute: mi, second: Swift.min(s, 59))
        var i = 19
        if i < c.count && c[i] == UInt8(ascii: ".") {
            i += 1
            while i < c.count && c[i] >= 0x30 && c[i] <= 0x39 { i += 1 }
        }
        guard i < c.count else { return }
        if c[i] == UInt8(ascii: "Z") { return }
        guard c[i] == UInt8(ascii: "+") || c[i] == UInt8(ascii: "-"), let zh = number(i + 1, 2), let zm = number(i + 4, 2) else {
            return nil
        }
        utcOffsetMinutes = (c[i] == UInt8(ascii: "-") ? -1 : 1) * (zh * 60 + zm)
    }

    public static func < (a: PDFDate, b: PDFDate) -> Bool { a.secondsSinceEpoch < b.secondsSinceEpoch }
}

/// Random identifiers for new annotations' /NM: version 4 UUIDs, lowercase.
public enum UUIDString {
    public static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { b -> String in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }.joined()
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-" + String(h[16..<20]) + "-" + String(h[20..<32])
    }
}
