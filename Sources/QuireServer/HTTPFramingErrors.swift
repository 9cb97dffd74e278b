// What quire-server answers to a request that is not HTTP the decoder accepts (a garbage
// request line, a NUL in the request line or a header, a header past its limit, a body that
// ends before its Content-Length): the protocol's JSON error with an X-Request-Id, as every
// other answer (docs/sync-protocol.md), instead of Hummingbird's empty 400. NIO's HTTP/1
// decoder (llhttp) finds the error; this only writes the answer.

import HTTPTypes
import HummingbirdCore
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
        logger.info(
            "request",
            metadata: [
                "request_id": "\(answer.header("X-Request-Id") ?? "-")", "method": "-", "path": "-",
                "status": "\(answer.status)", "error": "\(parseError)",
            ]
        )
        let response = HTTPHost.response(answer, head: false)
        context.write(wrapOutboundOut(.head(response.head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: answer.body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
