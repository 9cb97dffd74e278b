// quire-server: the sync service of docs/sync-protocol.md over HTTP. This file reads the
// configuration (flags, with environment variables as fallbacks) and runs the server under
// swift-service-lifecycle; HTTPHost.swift translates requests. Every rule of the protocol
// lives in QuireSync: this executable holds none.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Hummingbird
import HummingbirdWebSocket
import HummingbirdCore
import Logging
import NIOCore
import QuireSync
import QuireSyncPostgres
import ServiceLifecycle
import UnixSignals

@main
struct QuireServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quire-server",
        abstract: "Quire's sync server: PDFs, annotation layers and their change feed over HTTP.",
        discussion: """
            The protocol is docs/sync-protocol.md. Clients authenticate with JWTs (RS256, RS512, \
            ES256, ES512) that the host application's backend signs; the server holds only the \
            public keys. The admin API (uploads, layers, exports) takes the admin token.

            Every option has an environment variable as a fallback (named in its help); a flag \
            given on the command line wins. Logs go to standard error, one logfmt line per \
            request (request id, method, path, status, duration).

            SIGTERM or SIGINT stops the server gracefully: long polls are answered at once, \
            requests in flight finish, and the process exits with status 0.

            Example (examples/python/mint_jwt.py --new-key backend.pem writes the backend's \
            private key, backend.pem, which signs tokens and stays with the backend, and its \
            public key, backend.pub.pem, which is all the server needs):
              quire-server --store sqlite:///var/lib/quire/quire.db \\
                --public-key backend.pub.pem --admin-token-file admin-token
            """)

    @Option(help: ArgumentHelp(
        "The address to listen on. Env: QUIRE_HOST. Default: 127.0.0.1.", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp(
        "The TCP port to listen on. Env: QUIRE_PORT. Default: 8411.", valueName: "port"))
    var port: Int?

    @Option(help: ArgumentHelp(
        """
        Where documents, layers and changes are kept: sqlite:///absolute/path.db, \
        sqlite://relative/path.db (from the working directory), sqlite::memory: (nothing \
        kept), or postgres://user:password@host:port/database (?sslmode=require, \
        ?host=/socket/dir), which several quire-server processes can share: a change \
        pushed to one wakes the long polls of all. Env: QUIRE_STORE. Default: \
        sqlite://./quire.db.
        """, valueName: "url"))
    var store: String?

    @Option(name: .customLong("public-key"), help: ArgumentHelp(
        """
        A PEM file with a public key (RSA or EC P-256/P-521) that verifies JWTs. Repeat it \
        for several keys. Env: QUIRE_PUBLIC_KEYS (file names separated by ':'), used only \
        when no --public-key is given.
        """, valueName: "file"))
    var publicKeys: [String] = []

    @Option(help: ArgumentHelp(
        "A JWKS file (JSON Web Key Set) with more JWT verification keys. Env: QUIRE_JWKS.",
        valueName: "file"))
    var jwks: String?

    @Option(help: ArgumentHelp(
        """
        A file holding the admin API's token (surrounding white space ignored). Env: \
        QUIRE_ADMIN_TOKEN_FILE, or QUIRE_ADMIN_TOKEN with the token itself. With neither, \
        the admin API is off (it answers 404).
        """, valueName: "file"))
    var adminTokenFile: String?

    @Option(help: ArgumentHelp(
        """
        The largest request body other than a PDF upload, in bytes; a larger one is refused \
        with 413 before it is read further. Env: QUIRE_MAX_BODY_BYTES. Default: 8388608 (8 MiB).
        """, valueName: "bytes"))
    var maxBodyBytes: Int?

    @Option(help: ArgumentHelp(
        """
        The largest PDF upload (admin upload and import), in bytes. Env: \
        QUIRE_MAX_UPLOAD_BYTES. Default: 268435456 (256 MiB).
        """, valueName: "bytes"))
    var maxUploadBytes: Int?

    @Option(help: ArgumentHelp(
        """
        The largest attachment upload (an image of an image annotation, a file of a file \
        attachment annotation), in bytes; a larger one is refused with 413 before it is read \
        further. Env: QUIRE_MAX_ATTACHMENT_BYTES. Default: 8388608 (8 MiB); at most 67108864 \
        (64 MiB, the largest file Quire embeds; an image is at most 16 MiB whatever this says).
        """, valueName: "bytes"))
    var maxAttachmentBytes: Int?

    @Option(help: ArgumentHelp(
        """
        How long an attachment is kept after its last upload before it is collected when no \
        record names it, in seconds (a client uploads an attachment right before each push \
        that names it, so this must exceed the longest push; 0 collects at once, for tests). \
        Env: QUIRE_ATTACHMENT_GRACE_SECONDS. Default: 3600.
        """, valueName: "seconds"))
    var attachmentGraceSeconds: Int?

    @Option(help: ArgumentHelp(
        """
        The most long polls (GET ...changes?wait=S) waiting at once; past it a long poll is \
        answered 503 busy with Retry-After, and the client retries later. 0 refuses every \
        long poll. Env: QUIRE_MAX_LISTENERS. Default: 10000.
        """, valueName: "count"))
    var maxListeners: Int?

    @Option(help: ArgumentHelp(
        """
        The least severe log level printed: trace, debug, info, notice, warning, error or \
        critical. Env: QUIRE_LOG_LEVEL. Default: info.
        """, valueName: "level"))
    var logLevel: String?

    func run() async throws {
        let settings: Settings
        do {
            settings = try Settings(self, environment: ProcessEnvironment())
        } catch let error as SettingsError {
            throw ValidationError(error.message)
        }

        LoggingSystem.bootstrap { label in LogfmtHandler(label: label, level: settings.logLevel) }
        let logger = Logger(label: "quire-server")

        let service: SyncService
        do {
            service = try SyncService(settings.sync, storeFactories: PostgresSyncStore.factories)
        } catch {
            logger.critical("cannot start the sync service", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }

        // Header limits above the default 80 KiB, so that an oversized JWT (up to 256 KiB)
        // reaches the core and gets its 401 JSON answer instead of a bare 400 from the HTTP
        // parser. Idle keep-alive connections close after 75 s; a long poll (at most 60 s)
        // is a request in progress, never idle.
        // HTTP that the decoder refuses (HTTPFramingErrorHandler, one per connection) gets
        // the protocol's JSON error and a request id, as every other answer.
        let headerLimit = 256 << 10
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTPFramingErrorHandler(logger: logger, headerLimit: headerLimit)],
            idleTimeout: .seconds(75),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: headerLimit, maxHeaderListSize: headerLimit))
        let app = Application(
            responder: HTTPHost(service: service, limits: settings.sync.limits, headerLimit: headerLimit, logger: logger),
            // WebSocket upgrades of /documents/{doc}/layers/{layer}/socket (the push
            // transport, WebSocketSession); every other request is HTTP as before. A ping
            // every 4 s: a peer that answers none within the next period is closed, so a
            // dead connection is noticed within 8 s.
            server: HTTPServerBuilder { responder in
                HTTP1WebSocketChannel(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder,
                        configuration: .init(http1: http1, ws: .init(maxFrameSize: settings.sync.limits.maxBodyBytes + 4096,
                                                                     autoPing: .enabled(timePeriod: .seconds(4)))),
                        shouldUpgrade: { head, _, logger in
                            guard head.method == .get, let target = head.path,
                                  let (document, layer) = WebSocketSession.layer(ofPath: String(target.prefix { $0 != "?" })) else {
                                return .dontUpgrade
                            }
                            let session = WebSocketSession(service: service, document: document, layer: layer, logger: logger,
                                                           maxMessageBytes: settings.sync.limits.maxBodyBytes + 4096)
                            return .upgrade([:]) { inbound, outbound, _ in
                                await session.run(inbound, outbound)
                            }
                        }),
                    logger: logger, headerLimit: headerLimit)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(settings.host, port: settings.port),
                serverName: nil),
            onServerRunning: { channel in
                let address = channel.localAddress
                logger.info("ready", metadata: [
                    "address": "\(address?.ipAddress ?? "?"):\(address?.port.map(String.init) ?? "?")",
                    "store": "\(settings.storeDescription)",
                ])
            },
            logger: logger)

        // Graceful shutdown runs through the services in reverse order: first the drain
        // (SyncService.shutdown answers every long poll and makes new requests 503), then
        // Hummingbird, which stops accepting and waits for the requests in flight. The other
        // order would hold a SIGTERM up to a long poll's whole wait.
        let group = ServiceGroup(configuration: .init(
            services: [
                .init(service: app),
                .init(service: SyncDrain(service: service, logger: logger)),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            logger.critical("server stopped", metadata: ["error": "\(error)"])
            await service.close()
            throw ExitCode.failure
        }
        await service.close()
        logger.info("stopped")
    }
}

/// Waits for the graceful shutdown, then shuts the sync service down (every waiting long
/// poll answered at once, later requests 503) before Hummingbird drains its connections.
struct SyncDrain: Service {
    let service: SyncService
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        logger.info("shutting down: draining listeners")
        await service.shutdown()
    }
}

/// The environment, read once.
struct ProcessEnvironment {
    subscript(name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}

struct SettingsError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The resolved configuration: each value from its flag, else its environment variable,
/// else its default.
struct Settings {
    var host: String
    var port: Int
    var logLevel: Logger.Level
    var sync: SyncConfiguration
    var storeDescription: String

    init(_ options: QuireServer, environment env: ProcessEnvironment) throws {
        host = options.host ?? env["QUIRE_HOST"] ?? "127.0.0.1"
        port = try options.port ?? env["QUIRE_PORT"].map { try Self.integer($0, "QUIRE_PORT") } ?? 8411
        guard (0...65535).contains(port) else { throw SettingsError("the port \(port) is not in 0...65535") }

        let levelName = options.logLevel ?? env["QUIRE_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelName.lowercased()) else {
            throw SettingsError("unknown log level '\(levelName)' (trace, debug, info, notice, warning, error, critical)")
        }
        logLevel = level

        let storeURL = SQLiteSyncStore.resolvedURL(options.store ?? env["QUIRE_STORE"] ?? "sqlite://./quire.db")
        storeDescription = Self.redacted(storeURL)

        var keyFiles = options.publicKeys
        if keyFiles.isEmpty, let list = env["QUIRE_PUBLIC_KEYS"] {
            keyFiles = list.split(separator: ":").map(String.init)
        }
        let keys = try keyFiles.map { file in
            let text = try Self.readText(file, what: "public key")
            // The server verifies; only the backend signs. A private key here would sit on
            // the server for nothing (and the help's example once named one).
            if text.contains("PRIVATE KEY-----") {
                let pub = file.hasSuffix(".pem") ? String(file.dropLast(4)) + ".pub.pem" : file + ".pub.pem"
                throw SettingsError("\(file) is a private key: the server takes only public keys (--public-key); give its public key instead (examples/python/mint_jwt.py --new-key writes it beside the private one, as \(pub)), and keep the private key with the backend that signs the tokens")
            }
            return text
        }
        let jwks = try (options.jwks ?? env["QUIRE_JWKS"]).map { try Self.readText($0, what: "JWKS") }

        var adminToken: String? = nil
        if let file = options.adminTokenFile ?? env["QUIRE_ADMIN_TOKEN_FILE"] {
            adminToken = try Self.readText(file, what: "admin token")
        } else if let token = env["QUIRE_ADMIN_TOKEN"] {
            adminToken = token
        }
        if let token = adminToken {
            adminToken = Self.trimmed(token)
            if adminToken!.isEmpty { throw SettingsError("the admin token is empty") }
        }

        var limits = SyncLimits()
        if let value = try options.maxBodyBytes ?? env["QUIRE_MAX_BODY_BYTES"].map({ try Self.integer($0, "QUIRE_MAX_BODY_BYTES") }) {
            guard value > 0 else { throw SettingsError("--max-body-bytes must be positive") }
            limits.maxBodyBytes = value
        }
        if let value = try options.maxUploadBytes ?? env["QUIRE_MAX_UPLOAD_BYTES"].map({ try Self.integer($0, "QUIRE_MAX_UPLOAD_BYTES") }) {
            guard value > 0 else { throw SettingsError("--max-upload-bytes must be positive") }
            limits.maxUploadBytes = value
        }
        if let value = try options.maxAttachmentBytes
            ?? env["QUIRE_MAX_ATTACHMENT_BYTES"].map({ try Self.integer($0, "QUIRE_MAX_ATTACHMENT_BYTES") }) {
            guard value > 0 && value <= 64 << 20 else { throw SettingsError("--max-attachment-bytes must be from 1 to 67108864") }
            limits.maxAttachmentBytes = value
        }
        if let value = try options.attachmentGraceSeconds
            ?? env["QUIRE_ATTACHMENT_GRACE_SECONDS"].map({ try Self.integer($0, "QUIRE_ATTACHMENT_GRACE_SECONDS") }) {
            guard (0...Int(Int32.max)).contains(value) else {
                throw SettingsError("--attachment-grace-seconds must be from 0 to \(Int32.max)")
            }
            limits.attachmentGraceSeconds = value
        }
        if let value = try options.maxListeners ?? env["QUIRE_MAX_LISTENERS"].map({ try Self.integer($0, "QUIRE_MAX_LISTENERS") }) {
            guard (0...Int(Int32.max)).contains(value) else { throw SettingsError("--max-listeners must be from 0 to \(Int32.max)") }
            limits.maxListeners = value
        }
        sync = SyncConfiguration(storeURL: storeURL, publicKeys: keys, jwks: jwks,
                                 adminToken: adminToken, limits: limits)
    }

    static func integer(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text) else { throw SettingsError("\(name)='\(text)' is not an integer") }
        return value
    }

    /// A store URL without its password (`postgres://user:secret@host` → `user:***@host`).
    static func redacted(_ url: String) -> String {
        let parts = url.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let slashes = parts[0].firstIndex(of: "/"),
              let colon = parts[0][slashes...].firstIndex(of: ":") else { return url }
        return String(parts[0][..<colon]) + ":***@" + String(parts[1])
    }

    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// A whole (small) text file; a configuration file that cannot be read stops the start.
    static func readText(_ path: String, what: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SettingsError("cannot read the \(what) file '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SettingsError("cannot read the \(what) file '\(path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > 16 << 20 { throw SettingsError("the \(what) file '\(path)' is larger than 16 MiB") }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SettingsError("the \(what) file '\(path)' is not UTF-8 text")
        }
        return text
    }
}
