import AsyncHTTPClient
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import QuireSyncProtocol
import QuireSyntax
import QuireSyncClient
import Logging
import NIOSSL
import Synchronization
import WSClient

// The sync client's HTTP transport: AsyncHTTPClient (SwiftNIO, TLS through
// swift-nio-ssl's BoringSSL), built only when QUIRE_NO_SERVER is unset, as quire-server is.

/// Sends the client's requests to a server at `http://` or `https://` base URL, through
/// one AsyncHTTPClient client for the process (its event loops and connection pool live
/// for the process; nothing to shut down). Each call blocks the calling thread (a descriptor's
/// worker or listener) until the answer.
public struct HTTPTransport: SyncTransport {
    /// The base URL without a trailing slash.
    public let baseURL: String
    /// Connections the process keeps to one server at most: two per descriptor (a long poll
    /// and a sync) for 2,048 descriptors. Past it, requests wait for a free connection.
    public static let maxConnectionsPerServer = 4_096
    /// The largest answer read (a PDF of the server's largest upload, 256 MiB, and more).
    public static let maxResponseBytes = 300 << 20

    public init(baseURL: String) throws {
        let lower = baseURL.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), baseURL.utf8.count <= 2048,
              !baseURL.contains(where: { $0 == " " || $0 == "?" || $0 == "#" }) else {
            throw SyncClientError(.invalidArgument, "the server URL must be http:// or https:// with no query (\(baseURL.prefix(80)))")
        }
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
    }

    static func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + Hex.string([b], uppercase: true)
            }
        }
        return out
    }

    /// How long connecting may take before the request fails (and the descriptor retries,
    /// within 3 s: `SyncDescriptor.retryDelay`). A server that takes longer to accept a
    /// connection is as good as unreachable; the kernel's own retries of a connection whose
    /// first packets were lost back off to tens of seconds, so that after a network
    /// partition healed a client waited 22 to 25 s on them (issue 30).
    public static let connectTimeout = TimeAmount.seconds(2)
    /// How long a request other than a long poll may wait with no byte of the answer
    /// arriving: a connection that stopped carrying data (a partition, a proxy that holds
    /// it) fails after this instead of after the request's whole timeout (60 s).
    public static let readTimeout = TimeAmount.seconds(20)

    /// The process's HTTP clients (never shut down, like `HTTPClient.shared`): a failed
    /// connection fails the request at once instead of being retried until the request's
    /// deadline (the descriptor retries, and reports the failure now), and connecting gives
    /// up after ``connectTimeout``. Long polls (requests with `wait`, which the server
    /// answers only when a change comes or the wait ends) go through a client of their own
    /// without ``readTimeout``.
    ///
    /// Connections per server: every listening descriptor holds one for its long poll, and
    /// its syncs need another, so the pool's default of 8 per host let the ninth listening
    /// descriptor of a process (a backend syncing many layers) wait behind the long polls
    /// until its requests timed out. The limit is ``maxConnectionsPerServer``.
    static let client = makeClient(read: readTimeout)
    static let longPollClient = makeClient(read: nil)

    static func makeClient(read: TimeAmount?) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: connectTimeout, read: read)
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnectionsPerServer)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    private final class Box: @unchecked Sendable {
        var result: Result<SyncResponse, any Error> = .failure(SyncClientError(.network, "no answer"))
    }

    public func send(_ request: SyncRequest, timeoutSeconds: Int) throws -> SyncResponse {
        var url = baseURL + request.path
        if !request.query.isEmpty {
            url += "?" + request.query.sorted { $0.key < $1.key }
                .map { Self.percentEncoded($0.key) + "=" + Self.percentEncoded($0.value) }.joined(separator: "&")
        }
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if !request.body.isEmpty { outgoing.body = .bytes(ByteBuffer(bytes: request.body)) }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let timeout = TimeAmount.seconds(Int64(max(1, timeoutSeconds)))
        let client = request.query["wait"] != nil ? Self.longPollClient : Self.client
        Task {
            do {
                let response = try await client.execute(outgoing, timeout: timeout)
                let body = try await response.body.collect(upTo: Self.maxResponseBytes)
                box.result = .success(SyncResponse(status: Int(response.status.code),
                                                   headers: response.headers.map { ($0.name, $0.value) },
                                                   body: Array(buffer: body)))
            } catch {
                box.result = .failure(SyncClientError(.network, "\(request.method) \(baseURL): \(Self.describe(error))"))
            }
            done.signal()
        }
        done.wait()
        return try box.result.get()
    }
}

extension HTTPTransport {
    /// What went wrong, for a person: a system call's error as the C library names it
    /// ("Connection refused (errno 111)"); SwiftNIO's own description of it reads
    /// "connection reset (error set): Connection refused) (errno: 111)".
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError {
            return "\(String(cString: strerror(io.errnoCode))) (errno \(io.errnoCode))"
        }
        return "\(error)"
    }
}

extension HTTPTransport: SyncSocketTransport {
    /// The messages a WebSocket received, handed from its task to the listener's thread.
    private final class Inbox: @unchecked Sendable {
        private struct State {
            var messages: [String] = []
            var ended: (any Error)?? = nil
        }

        private let state = Mutex(State())
        let signal = DispatchSemaphore(value: 0)

        func add(_ text: String) {
            state.withLock { $0.messages.append(text) }
            signal.signal()
        }

        func end(_ error: (any Error)?) {
            state.withLock { $0.ended = .some(error) }
            signal.signal()
        }

        /// The messages received so far, and how the connection ended (nil: still open).
        func take() -> ([String], (any Error)??) {
            state.withLock { s in
                let out = s.messages
                s.messages.removeAll()
                return (out, s.ended)
            }
        }
    }

    /// Follows a layer over quire-server's WebSocket (`ws://` or `wss://` for the base
    /// URL's `http://` or `https://`), with WSClient (swift-websocket, on SwiftNIO and
    /// swift-nio-ssl). The client answers the server's pings itself.
    public func follow(path: String, hello: String, onMessage: (String) -> Void, shouldStop: () -> Bool) throws {
        let url = (baseURL.lowercased().hasPrefix("https://") ? "wss://" + baseURL.dropFirst(8) : "ws://" + baseURL.dropFirst(7)) + path
        let inbox = Inbox()
        let task = Task {
            do {
                try await WebSocketClient.connect(
                    url: url, configuration: .init(maxFrameSize: Self.maxResponseBytes, autoPing: .disabled),
                    tlsConfiguration: url.hasPrefix("wss://") ? .makeClientConfiguration() : nil,
                    eventLoopGroup: HTTPClient.defaultEventLoopGroup, logger: Self.socketLogger
                ) { inbound, outbound, _ in
                    try await outbound.write(.text(hello))
                    for try await message in inbound.messages(maxSize: Self.maxResponseBytes) {
                        if case .text(let text) = message { inbox.add(text) }
                    }
                }
                inbox.end(nil)
            } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
                inbox.end(SyncSocketUnavailable())
            } catch {
                inbox.end(SyncClientError(.network, "WebSocket \(baseURL): \(Self.describe(error))"))
            }
        }
        defer { task.cancel() }
        while true {
            _ = inbox.signal.wait(timeout: .now() + .milliseconds(100))
            let (messages, ended) = inbox.take()
            for text in messages { onMessage(text) }
            if let ended {
                if let error = ended { throw error }
                return
            }
            if shouldStop() { return }
        }
    }

    /// WSClient logs nothing the client reports (its failures come back as errors).
    static let socketLogger = Logger(label: "quire.sync.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
}
