// The server's log lines: one per event, logfmt (`key=value` pairs, values quoted when they
// need it), on standard error, so that both a person and a log collector read them:
//
//   ts=2026-05-01T12:00:00.123Z level=info msg=request request_id=01J... method=GET
//     path=/healthz status=200 duration_ms=0.41
//
// The keys of a request line come first in a fixed order; other metadata follows, sorted.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import QuireDocument

struct LogfmtHandler: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let label: String

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The keys printed first, in this order, when present.
    private static let leading = ["request_id", "method", "path", "status", "duration_ms"]

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        var line = "ts=\(Self.timestamp()) level=\(event.level.rawValue) msg=\(Self.quoted("\(event.message)"))"
        for key in Self.leading {
            if let value = merged.removeValue(forKey: key) {
                line += " \(key)=\(Self.quoted("\(value)"))"
            }
        }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(Self.quoted(key))=\(Self.quoted("\(value)"))"
        }
        if event.level >= .warning, event.source != "QuireServer" {
            line += " source=\(Self.quoted(event.source))"
        }
        line += "\n"
        // One write(2) per line: lines of concurrent requests never interleave.
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(2, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// A value as logfmt wants it: bare when it has no space, quote, `=` or control
    /// character, else in double quotes with `"`, `\` and control characters escaped.
    static func quoted(_ value: String) -> String {
        if !value.isEmpty, !value.unicodeScalars.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }) {
            return value
        }
        // JSON's string escaping (the model's one writer of it), and DEL as well.
        let quoted = InstantJSONValue.string(value).text
        return quoted.unicodeScalars.contains("\u{7F}") ? quoted.replacing("\u{7F}", with: "\\u007f") : quoted
    }

    /// UTC, RFC 3339 with milliseconds.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + "\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
