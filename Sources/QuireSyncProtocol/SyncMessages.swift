// A request in and a response out: what the sync core handles and what the client sends,
// the one shape for every host (quire-server on Hummingbird, the C request handler, the
// client's transports). The contract is docs/sync-protocol.md; hosts hand over the raw
// request target and hold no rule of their own: the query is decoded here, once.

/// One HTTP request, as the host received it.
public struct SyncRequest: Sendable {
    /// `GET`, `POST`, `DELETE`, ... (compared case-sensitively, as HTTP methods are).
    public var method: String
    /// The path without the query, still percent-encoded as it came (`/documents/a%2Fb/pdf`):
    /// the router decodes each segment after splitting, so an encoded `/` never splits one.
    public var path: String
    /// The query parameters, percent-decoded (``decodeQuery(_:)``).
    public var query: [String: String]
    /// Why the target could not be decoded (a NUL character, raw or as `%00`, anywhere in
    /// it; a malformed escape or bytes that are not UTF-8 in the query): the core answers
    /// such a request 400 `bad_request` before it routes it.
    public var queryError: String?

    /// The answer to a NUL character in a target, raw or percent-encoded (`%00`): no id,
    /// name or query value of the protocol may hold one, and a C string cannot carry it,
    /// so a host that meets one raw passes it on as `%00` and gets this 400.
    public static let nulInTarget = "the target contains a NUL character"

    /// The header fields in order; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// A request whose query is already decoded (tests and in-process callers that build
    /// one by hand).
    public init(method: String, path: String, query: [String: String] = [:],
                headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// A request from its raw target as it came on the request line (`/path?a=1&b=x%20y`):
    /// what every host hands over, so that a query means the same to quire-server and to
    /// the C handler (issue 32: `?id=%41%4` was `%41%4` to one and `A%4` to the other).
    public init(method: String, target: String, headers: [(name: String, value: String)] = [],
                body: [UInt8] = []) {
        let path: Substring, rawQuery: Substring?
        if let mark = target.firstIndex(of: "?") {
            path = target[..<mark]
            rawQuery = target[target.index(after: mark)...]
        } else {
            path = target[...]
            rawQuery = nil
        }
        self.init(method: method, path: String(path), headers: headers, body: body)
        if target.utf8.contains(0) {
            queryError = Self.nulInTarget
            return
        }
        switch Self.decodeQuery(rawQuery ?? "") {
        case .success(let q): query = q
        case .failure(let e): queryError = e.message
        }
    }

    /// Why a query does not decode.
    public struct QueryError: Error, Sendable {
        public var message: String
    }

    /// `a=1&b=x%2Fy` as ["a": "1", "b": "x/y"]: names and values percent-decoded, `+` a
    /// space (HTML forms), empty parts skipped, the first of repeated names kept. A
    /// malformed escape (`%4`, `%G0`) or bytes that are not UTF-8 (`%FF`) fail: a query is
    /// never guessed at.
    public static func decodeQuery(_ raw: Substring) -> Result<[String: String], QueryError> {
        var result: [String: String] = [:]
        for part in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ s: Substring) -> String? {
                percentDecoded(Substring(String(s).replacingPlusWithSpace()))
            }
            guard let name = decoded(pair[0]), let value = pair.count > 1 ? decoded(pair[1]) : "" else {
                let shown = part.count > 64 ? part.prefix(64) + "..." : part
                return .failure(QueryError(message: "the query part \"\(shown)\" has a malformed percent escape or is not UTF-8"))
            }
            if name.utf8.contains(0) || value.utf8.contains(0) { return .failure(QueryError(message: nulInTarget)) }
            if result[name] == nil { result[name] = value }
        }
        return .success(result)
    }

    /// The value of the first header field named `name` (any case).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

/// One HTTP response: always a complete one (errors are JSON bodies with a 4xx or 5xx).
public struct SyncResponse: Sendable {
    public var status: Int
    /// Always has `X-Request-Id`, and `Content-Type` when there is a body.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header field named `name` (any case).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}


private extension String {
    func replacingPlusWithSpace() -> String {
        String(decoding: utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}
