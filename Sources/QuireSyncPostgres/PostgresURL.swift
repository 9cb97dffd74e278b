// postgres://user:password@host:port/database?host=/socket/dir&sslmode=require, read into
// postgres-nio's client configuration. The forms libpq documents for URIs, as far as the
// store needs them: percent-encoded user, password and database; `host` in the query for
// a Unix socket directory (the socket is `<dir>/.s.PGSQL.<port>`); `sslmode` disable
// (the default), prefer or require. Any other parameter is refused, rather than ignored.

import NIOSSL
import PostgresNIO
import QuireSync

struct PostgresURL {
    var user = "postgres"
    var password: String?
    var host = "127.0.0.1"
    var port = 5432
    var database: String?
    var socketDirectory: String?
    var sslmode = "disable"

    init(_ url: String) throws {
        func fail(_ why: String) -> SyncConfigurationError {
            SyncConfigurationError("the PostgreSQL URL \(Self.redacted(url)) \(why) (postgres://user:password@host:port/database)")
        }
        var rest: Substring
        if url.hasPrefix("postgres://") {
            rest = url.dropFirst("postgres://".count)
        } else if url.hasPrefix("postgresql://") {
            rest = url.dropFirst("postgresql://".count)
        } else {
            throw fail("does not start with postgres://")
        }
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                user = try Self.decoded(credentials[..<colon]) ?? { throw fail("has a bad escape") }()
                password = try Self.decoded(credentials[credentials.index(after: colon)...]) ?? { throw fail("has a bad escape") }()
            } else {
                user = try Self.decoded(credentials) ?? { throw fail("has a bad escape") }()
            }
        }
        if !rest.isEmpty {
            if let colon = rest.lastIndex(of: ":"), !rest.hasSuffix("]") {
                guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { throw fail("has a bad port") }
                port = p
                rest = rest[..<colon]
            }
            host = String(rest.hasPrefix("[") && rest.hasSuffix("]") ? rest.dropFirst().dropLast() : rest)
        }
        if !path.isEmpty {
            database = try Self.decoded(path) ?? { throw fail("has a bad escape") }()
        }
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = kv.count > 1 ? (try Self.decoded(kv[1]) ?? { throw fail("has a bad escape") }()) : ""
            switch kv[0] {
            case "host":
                if value.hasPrefix("/") { socketDirectory = value } else { host = value }
            case "port":
                guard let p = Int(value), (1...65535).contains(p) else { throw fail("has a bad port") }
                port = p
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "sslmode":
                guard ["disable", "prefer", "require"].contains(value) else {
                    throw fail("has sslmode=\(value) (disable, prefer or require)")
                }
                sslmode = value
            default:
                throw fail("has the unknown parameter \(kv[0])")
            }
        }
    }

    func configuration() throws -> PostgresClient.Configuration {
        if let dir = socketDirectory {
            return PostgresClient.Configuration(unixSocketPath: "\(dir)/.s.PGSQL.\(port)", username: user,
                                                password: password, database: database)
        }
        let tls: PostgresClient.Configuration.TLS
        switch sslmode {
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        default: tls = .disable
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                            database: database, tls: tls)
    }

    static func decoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var it = text.utf8.makeIterator()
        func hex(_ c: UInt8?) -> UInt8? {
            guard let c else { return nil }
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        while let c = it.next() {
            if c == UInt8(ascii: "%") {
                guard let h = hex(it.next()), let l = hex(it.next()) else { return nil }
                bytes.append(h << 4 | l)
            } else {
                bytes.append(c)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        let parts = url.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let slashes = parts[0].firstIndex(of: "/"),
              let colon = parts[0][slashes...].firstIndex(of: ":") else { return url }
        return String(parts[0][..<colon]) + ":***@" + String(parts[1])
    }
}
