// The translation between Hummingbird and the sync core: a Hummingbird request becomes a
// `SyncRequest` (method, the raw target whose query the core decodes, header fields, the body collected up to its
// limit), the core's `SyncResponse` becomes the HTTP response, and each request is logged
// in one line. Nothing here knows a route but the body limit's.

import Hummingbird
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import QuireSync
import QuireSyncProtocol

struct HTTPHost: HTTPResponder {
    typealias Context = BasicRequestContext

    let service: SyncService
    let limits: SyncLimits
    /// The HTTP decoder's limit on the request head, in bytes (named in a 431 answer).
    let headerLimit: Int
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        let method = request.method.rawValue
        let path = request.uri.path
        // The raw target (path and query as they came): the core decodes the query.
        var syncRequest = SyncRequest(
            method: method,
            target: request.uri.query.map { path + "?" + $0 } ?? path,
            headers: request.headers.map { (name: $0.name.rawName, value: $0.value) })

        let answer: SyncResponse
        let isUpload = Self.isUpload(method: method, path: path)
        var (limit, limitName) = isUpload ? (limits.maxUploadBytes, "max_upload_bytes") : (limits.maxBodyBytes, "max_body_bytes")
        if Self.isAttachmentUpload(method: method, path: path) { (limit, limitName) = (limits.maxAttachmentBytes, "max_attachment_bytes") }
        switch await Self.collect(request, limit: limit) {
        case .complete(let body):
            syncRequest.body = body
            answer = await service.handle(syncRequest)
        case .tooLarge:
            // Hummingbird reads what the client still sends and drops it (so that the
            // client, which usually sends its whole body before it reads, gets this answer
            // rather than a reset connection); nothing more is kept in memory.
            answer = Self.error(status: 413, code: "too_large",
                                message: "the body is larger than \(limit) bytes (\(limitName))",
                                for: syncRequest, extraHeaders: [("Connection", "close")])
        case .unreadable(let error as HTTPParserError):
            // A body that breaks HTTP (it ends before its Content-Length, a malformed
            // chunk): answered in the protocol's shape, and the connection closed.
            answer = framingErrorResponse(error, headerLimit: headerLimit)
        case .unreadable(let error):
            // A broken connection: no one to answer.
            logger.info("request", metadata: [
                "request_id": "-", "method": "\(method)", "path": "\(path)", "status": "-",
                "error": "the body could not be read: \(error)",
            ])
            throw error
        }

        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        logger.log(level: answer.status >= 500 ? .error : .info, "request", metadata: [
            "request_id": "\(answer.header("X-Request-Id") ?? "-")",
            "method": "\(method)",
            "path": "\(path)",
            "status": "\(answer.status)",
            "duration_ms": "\(Self.formatted(milliseconds))",
        ])
        return Self.response(answer, head: request.method == .head)
    }

    // MARK: The request

    /// POST /admin/documents and POST /admin/documents/{doc}/layers/{layer}/import carry
    /// a PDF and take `maxUploadBytes`; every other body takes `maxBodyBytes`. The core
    /// checks the same limits on what it is given; the host must know them too, to stop
    /// reading a body past its limit instead of collecting it whole first.
    static func isUpload(method: String, path: String) -> Bool {
        guard method == "POST" else { return false }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.first == "admin", segments.dropFirst().first == "documents" else { return false }
        let rest = Array(segments.dropFirst(2))
        return rest.isEmpty || (rest.count == 4 && rest[1] == "layers" && rest[3] == "import")
    }

    /// PUT /documents/{doc}/attachments/{sha256} carries an attachment and takes
    /// `maxAttachmentBytes` (issue 33).
    static func isAttachmentUpload(method: String, path: String) -> Bool {
        guard method == "PUT" else { return false }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return segments.count == 4 && segments.first == "documents" && segments.dropFirst(2).first == "attachments"
    }

    enum Body {
        case complete([UInt8])
        case tooLarge
        case unreadable(any Error)
    }

    /// The body, read until its end or until it passes `limit` (then nothing more is
    /// read here). A Content-Length above the limit is refused before any byte is read.
    static func collect(_ request: Request, limit: Int) async -> Body {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            return .tooLarge
        }
        var body: [UInt8] = []
        do {
            for try await chunk in request.body {
                if chunk.readableBytes > limit - body.count {
                    return .tooLarge
                }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch {
            return .unreadable(error)
        }
        return .complete(body)
    }

    // MARK: The response

    static func response(_ answer: SyncResponse, head: Bool) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let status = HTTPResponse.Status(code: answer.status)
        // 1xx, 204 and 304 have no body and no Content-Length; HEAD keeps the length only.
        if answer.status < 200 || answer.status == 204 || answer.status == 304 {
            fields[.contentLength] = nil
            return Response(status: status, headers: fields, body: ResponseBody())
                .withoutContentLength()
        }
        if head {
            fields[.contentLength] = String(answer.body.count)
            return Response(status: status, headers: fields, body: ResponseBody())
        }
        return Response(status: status, headers: fields,
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// An error the host answers itself (a body past its limit, a body that could not be
    /// read), in the shape of the core's errors, with the request's id when it sent a valid
    /// one.
    static func error(status: Int, code: String, message: String, for request: SyncRequest,
                      extraHeaders: [(name: String, value: String)] = []) -> SyncResponse {
        SyncService.errorResponse(status: status, code: code, message: message, for: request, extraHeaders: extraHeaders)
    }

    static func formatted(_ milliseconds: Double) -> String {
        let hundredths = Int((milliseconds * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

extension Response {
    /// Response.init sets Content-Length from the body; a 204 or 304 must not have one.
    func withoutContentLength() -> Response {
        var copy = self
        copy.headers[.contentLength] = nil
        return copy
    }
}
