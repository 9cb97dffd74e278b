import HummingbirdWebSocket
import Logging
import NIOWebSocket
import QuireDocument
import QuireSync
import QuireSyncProtocol
import Synchronization

// The WebSocket transport of quire-server (docs/sync-protocol.md, "WebSocket"): the change
// feed and pushes of one layer over one connection. Every message is answered by the sync
// core: a push as POST .../mutations with the connection's token, the feed by
// `SyncService.follow` (the token verified once; the changes committed by this process
// from memory, encoded once per layer; the store read when memory lacks some), so the
// rules (ordering, idempotency, reset, rights) are the core's, once.

/// One WebSocket connection to `document`'s `layer`.
struct WebSocketSession: Sendable {
    let service: SyncService
    let document: String
    let layer: String
    let logger: Logger
    /// How long the first message (`hello`) may take.
    static let helloTimeout: Duration = .seconds(10)
    /// The messages queued for a client before it is closed as too slow.
    static let maxQueuedMessages = 256
    /// The largest message read (a push is at most max_body_bytes; the envelope adds little).
    let maxMessageBytes: Int

    /// The path of a layer's socket, `/documents/{doc}/layers/{layer}/socket`, or nil.
    static func layer(ofPath path: String) -> (document: String, layer: String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "documents", parts[3] == "layers", parts[5] == "socket",
            let doc = percentDecoded(parts[2]), let layer = percentDecoded(parts[4]),
            SyncIDs.isValid(doc), SyncIDs.isValid(layer)
        else { return nil }
        return (doc, layer)
    }

    func run(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async {
        // One writer: every task hands its messages to this stream. It holds at most
        // `maxQueuedMessages`: a client that reads slower than its layer changes is closed
        // (it resumes from its seq on a new connection) rather than queued without bound.
        let (messages, sender) = AsyncStream<(String, close: Bool)>.makeStream(
            bufferingPolicy: .bufferingOldest(WebSocketSession.maxQueuedMessages)
        )
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await (text, close) in messages {
                    do {
                        try await outbound.write(.text(text))
                        if close {
                            try await outbound.close(.policyViolation, reason: nil)
                            return
                        }
                    } catch {
                        return
                    }
                }
                // Finished without a closing message: the session ended, or the queue
                // overflowed; closing ends the client's inbound stream too.
                try? await outbound.close(.policyViolation, reason: "the client reads too slowly")
            }
            await receive(inbound, sender)
            // The writer sends what is queued (an error before the close) and ends; it is
            // not cancelled, which would drop it. A peer gone makes its writes fail at once.
            sender.finish()
        }
    }

    /// Reads the client's messages until it goes (or a ping goes unanswered, which closes
    /// the connection and ends the stream); runs the feed between.
    private func receive(
        _ inbound: WebSocketInboundStream,
        _ sender: AsyncStream<(String, close: Bool)>.Continuation
    ) async {
        let send: @Sendable (String, Bool) -> Void = { text, close in
            if case .dropped = sender.yield((text, close)) { sender.finish() }
        }
        let token = Mutex<String?>(nil)
        let feed = Mutex<Task<Void, Never>?>(nil)
        var ticket: SyncPresenceTicket?
        defer {
            feed.withLock { $0?.cancel() }
            if let ticket { service.leavePresence(ticket) }
        }
        // Without a hello in time, the connection closes.
        let helloTimer = Task {
            try? await Task.sleep(for: WebSocketSession.helloTimeout)
            if !Task.isCancelled, token.withLock({ $0 }) == nil {
                send(Self.error(408, "timeout", "no hello within \(WebSocketSession.helloTimeout)"), true)
            }
        }
        defer { helloTimer.cancel() }
        var iterator = inbound.messages(maxSize: maxMessageBytes).makeAsyncIterator()
        while true {
            let message: WebSocketMessage?
            do { message = try await iterator.next() } catch { return }
            guard let message else { return }
            guard case .text(let text) = message, let value = try? InstantJSONValue(parsing: Array(text.utf8)),
                let fields = value.objectValue, let type = fields["type"]?.stringValue
            else {
                send(
                    Self.error(
                        400,
                        "bad_request",
                        "a message is a JSON object with a \"type\" (hello, subscribe, push, presence)"
                    ),
                    true
                )
                return
            }
            switch type {
            case "hello", "subscribe":
                if type == "hello" {
                    guard token.withLock({ $0 }) == nil, let t = fields["token"]?.stringValue else {
                        send(Self.error(400, "bad_request", "hello comes once, first, with a token"), true)
                        return
                    }
                    token.withLock { $0 = t }
                    // The token is checked here (read on the layer), and the connection
                    // joins the layer's presence: every member hears who is there.
                    do {
                        ticket = try await service.joinPresence(
                            document: document,
                            layer: layer,
                            authorization: "Bearer " + t,
                            clientID: fields["client_id"]?.stringValue,
                            onChange: { body in
                                send("{\"type\":\"presence\",\"body\":\(String(decoding: body, as: UTF8.self))}", false)
                            }
                        )
                    } catch {
                        send(Self.closing(error.response), true)
                        return
                    }
                } else if token.withLock({ $0 }) == nil {
                    send(Self.error(401, "unauthenticated", "hello (with the token) comes first"), true)
                    return
                }
                guard case .integer(let since)? = fields["since"], since >= 0 else {
                    send(
                        Self.error(
                            400,
                            "bad_request",
                            "\(type) needs since: the seq the client holds (0 for every change)"
                        ),
                        true
                    )
                    return
                }
                let t = token.withLock { $0 } ?? ""
                let next = Task { [service, document, layer] in
                    await service.follow(document: document, layer: layer, token: t, since: since, send: send)
                }
                feed.withLock { old in
                    old?.cancel()
                    old = next
                }
            case "presence":
                guard let ticket else {
                    send(Self.error(401, "unauthenticated", "hello (with the token) comes first"), true)
                    return
                }
                let cursor = fields["cursor"].flatMap { $0 == .null ? nil : $0.canonicalBytes }
                guard service.setPresenceCursor(ticket, cursor: cursor) else {
                    send(Self.error(413, "too_large", "a cursor is at most 4096 bytes of JSON"), true)
                    return
                }
            case "push":
                guard let t = token.withLock({ $0 }) else {
                    send(Self.error(401, "unauthenticated", "hello (with the token) comes first"), true)
                    return
                }
                guard let body = fields["body"], body.objectValue != nil else {
                    send(Self.error(400, "bad_request", "push needs body: the push of POST .../mutations"), true)
                    return
                }
                let request = SyncRequest(
                    method: "POST",
                    target: "/documents/\(document)/layers/\(layer)/mutations",
                    headers: [("Authorization", "Bearer " + t), ("Content-Type", "application/json")],
                    body: body.canonicalBytes
                )
                let answer = await service.handle(request)
                let id = fields["id"].map { ",\"id\":" + $0.canonicalText } ?? ""
                send("{\"type\":\"results\"\(id),\"status\":\(answer.status),\"body\":\(Self.body(answer))}", false)
                if answer.status == 401 || answer.status == 503 {
                    send(Self.closing(answer), true)
                    return
                }
            default:
                send(
                    Self.error(
                        400,
                        "bad_request",
                        "unknown message type \"\(type.prefix(40))\" (hello, subscribe, push, presence)"
                    ),
                    true
                )
                return
            }
        }
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> String {
        let body = InstantJSONValue.object(["error": .object(["code": .string(code), "message": .string(message)])])
        return "{\"type\":\"error\",\"status\":\(status),\"body\":\(body.canonicalText)}"
    }

    /// The error message for an answer that ends the connection (a token refused or
    /// expired, the server shutting down).
    static func closing(_ answer: SyncResponse) -> String { SyncService.closingMessage(answer) }

    /// An answer's JSON body (the core's answers are JSON; an empty one is null).
    static func body(_ answer: SyncResponse) -> String {
        answer.body.isEmpty ? "null" : String(decoding: answer.body, as: UTF8.self)
    }
}
