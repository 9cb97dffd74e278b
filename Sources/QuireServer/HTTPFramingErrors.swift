// What quire-server answers to a request that is not HTTP the decoder accepts (a garbage
// request line, a NUL in the request line or a header, a header past its limit, a body that
// ends before its Content-Length): the protocol's JSON error with an X-Request-Id, as every
// other answer (docs/sync-protocol.md), instead of Hummingbird's empty 400. NIO's HTTP/1
// decoder (llhttp) finds the error; this only writes the answer.

import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import QuireSync
import QuireSyncProtocol

/// The answer to an HTTP parse error: 431 `too_large` for a header past the decoder's
/// limit, else 400 `bad_request`, always with `Connection: close` (the decoder cannot go on
/// after an error).
func framingErrorResponse(_ error: HTTPParserError, headerLimit: Int) -> SyncResponse {
    let (status, code, message): (Int, String, String)
    switch error {
    case .headerOverflow:
        (status, code, message) = (431, "too_large", "the request's header is larger than \(headerLimit) bytes")
    case .invalidEOFState:
        (status, code, message) = (
            400, "bad_request", "the connection ended before the request did (a body shorter than its Content-Length?)"
        )
    default:
        (status, code, message) = (400, "bad_request", "the request is not valid HTTP/1.1 (\(error))")
    }
    return SyncService.errorResponse(
        status: status,
        code: code,
        message: message,
        for: SyncRequest(method: "", target: "/"),
        extraHeaders: [("Connection", "close")]
    )
}

/// The request log line of a framing error that a channel handler answers itself (no
/// method or path: the request line could not be read).
func logFramingError(_ logger: Logger, _ answer: SyncResponse, _ error: HTTPParserError) {
    logger.info(
        "request",
        metadata: [
            "request_id": "\(answer.header("X-Request-Id") ?? "-")", "method": "-", "path": "-",
            "status": "\(answer.status)", "error": "\(error)",
        ]
    )
}

/// Sits after Hummingbird's HTTP/1 codec (`HTTP1Channel.Configuration.additionalChannelHandlers`,
/// one instance per connection). An HTTP parse error before a request reached the responder
/// (in the request line or the headers) is answered here, and the connection closed,
/// without passing the error on (so Hummingbird writes no empty 400 after it). One in the
/// middle of a request's body is passed on: the responder reading the body gets it and
/// answers (HTTPHost), since it is the one writing that request's response.
final class HTTPFramingErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let logger: Logger
    private let headerLimit: Int
    /// A request's head went to the responder and its response has not ended.
    private var requestInFlight = false

    init(logger: Logger, headerLimit: Int) {
        self.logger = logger
        self.headerLimit = headerLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { requestInFlight = true }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { requestInFlight = false }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !requestInFlight else {
            context.fireErrorCaught(error)
            return
        }
        let answer = framingErrorResponse(parseError, headerLimit: headerLimit)
        logFramingError(logger, answer, parseError)
        let response = HTTPHost.response(answer, head: false)
        context.write(wrapOutboundOut(.head(response.head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: answer.body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Answers an HTTP parse error in a connection's first request, which the WebSocket
/// upgrade pipeline decodes before Hummingbird's HTTP/1 handlers (and
/// ``HTTPFramingErrorHandler``) are added: without it such a request got no answer at all.
/// It sits at the end of the upgrade pipeline, passes everything through, and answers
/// (then closes) only an error that comes before anything was read; once a request went
/// by, ``HTTPFramingErrorHandler`` (added after it) answers as it does without WebSocket.
final class FirstRequestFramingErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    private let logger: Logger
    private let headerLimit: Int
    private var readSomething = false

    init(logger: Logger, headerLimit: Int) {
        self.logger = logger
        self.headerLimit = headerLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        readSomething = true
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !readSomething else {
            context.fireErrorCaught(error)
            return
        }
        readSomething = true
        let answer = framingErrorResponse(parseError, headerLimit: headerLimit)
        logFramingError(logger, answer, parseError)
        var headers = HTTPHeaders(answer.headers.map { ($0.name, $0.value) })
        headers.replaceOrAdd(name: "Content-Length", value: String(answer.body.count))
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: answer.body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Hummingbird's HTTP/1 channel with WebSocket upgrades, plus
/// ``FirstRequestFramingErrorHandler`` at the end of its pipeline.
struct HTTP1WebSocketChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel
    let logger: Logger
    let headerLimit: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(
                FirstRequestFramingErrorHandler(logger: self.logger, headerLimit: self.headerLimit)
            )
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
