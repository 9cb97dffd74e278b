import Crypto
import CryptoExtras
import FoundationEssentials
import JWTKit
import QuireDocument
import QuireSync
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Testing

// What the sync tests share: PDFs made here, keys generated here, a service on a real
// SQLite file in a temporary directory, and requests through its router.

/// A PDF of `pages` empty Letter pages (a classic xref table).
func plainPDF(pages: Int = 2) -> [UInt8] { PDFBuilder.blankPages(pages) }

/// A two-page PDF with annotations of its own: a square "sq-1" on page 1 with a reply
/// "re-1" and a review state "st-1", and a highlight "hl-1" on page 2.
func annotatedPDF() throws -> [UInt8] {
    let doc = try Document(data: plainPDF(pages: 2))
    var square = Annotation(subtype: "Square", pageIndex: 0, rect: Rect(left: 100, bottom: 500, right: 300, top: 600))
    square.name = "sq-1"
    square.author = "Ada"
    square.contents = "Check this"
    square.color = [1, 0, 0]
    let sq = try doc.addAnnotation(square)
    var reply = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 100, bottom: 580, right: 120, top: 600))
    reply.name = "re-1"
    reply.author = "Bob"
    reply.contents = "Done"
    reply.inReplyTo = sq.id
    reply.replyType = .reply
    _ = try doc.addAnnotation(reply)
    var state = Annotation(subtype: "Text", pageIndex: 0, rect: Rect(left: 100, bottom: 580, right: 120, top: 600))
    state.name = "st-1"
    state.author = "Ada"
    state.inReplyTo = sq.id
    state.replyType = .reply
    state.state = "Accepted"
    state.stateModel = "Review"
    state.flags = 2
    _ = try doc.addAnnotation(state)
    var highlight = Annotation(subtype: "Highlight", pageIndex: 1, rect: Rect(left: 72, bottom: 700, right: 300, top: 714))
    highlight.name = "hl-1"
    highlight.quadPoints = [72, 714, 300, 714, 72, 700, 300, 700]
    highlight.color = [1, 1, 0]
    _ = try doc.addAnnotation(highlight)
    return try doc.saved(.full(objectStreams: false))
}

/// Keys generated once per test run.
struct TestKeys: Sendable {
    let rsa: JWTKit.Insecure.RSA.PrivateKey
    let otherRSA: JWTKit.Insecure.RSA.PrivateKey
    let ec: ES256PrivateKey
    let ec512: ES512PrivateKey

    var rsaPublicPEM: String { rsa.publicKey.pemRepresentation }
    var ecPublicPEM: String { ec.publicKey.pemRepresentation }
    var ec512PublicPEM: String { ec512.publicKey.pemRepresentation }

    init() {
        // Test-only key generation: a failure here is a broken toolchain.
        rsa = try! JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        otherRSA = try! JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        ec = ES256PrivateKey()
        ec512 = ES512PrivateKey()
    }
}

let keys = TestKeys()

enum Signer {
    case rs256, rs512, es256, es512, otherRSA
}

func claims(doc: String = "doc", layer: String = "main", permissions: [String] = ["read", "write", "download"],
            user: String? = "alice", expiresIn: Double = 3600, notBefore: Double? = nil) -> TestTokenClaims {
    TestTokenClaims(document: doc, layer: layer, permissions: permissions, user: user, expiresIn: expiresIn, notBefore: notBefore)
}

func sign(_ c: TestTokenClaims, with signer: Signer = .rs256) async throws -> String {
    try await c.signed { collection in
        switch signer {
        case .rs256: await collection.add(rsa: keys.rsa, digestAlgorithm: .sha256)
        case .rs512: await collection.add(rsa: keys.rsa, digestAlgorithm: .sha512)
        case .es256: await collection.add(ecdsa: keys.ec)
        case .es512: await collection.add(ecdsa: keys.ec512)
        case .otherRSA: await collection.add(rsa: keys.otherRSA, digestAlgorithm: .sha256)
        }
    }
}

func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
}

/// A temporary directory, removed by `remove()`.
struct TempDir {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/quire-sync-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

let adminToken = "test-admin-token"

/// A service on a SQLite file in a temporary directory, with a document "doc" uploaded
/// (the annotated PDF) unless `upload` is false.
final class Harness: Sendable {
    let dir: TempDir
    let service: SyncService
    var dbURL: String { "sqlite://\(dir.path)/quire.db" }

    init(limits: SyncLimits = SyncLimits(), upload: Bool = true, dir: TempDir? = nil) async throws {
        self.dir = try dir ?? TempDir()
        service = try SyncService(SyncConfiguration(
            storeURL: "sqlite://\(self.dir.path)/quire.db",
            publicKeys: [keys.rsaPublicPEM, keys.ecPublicPEM, keys.ec512PublicPEM],
            adminToken: adminToken, limits: limits))
        if upload {
            let r = await admin("POST", "/admin/documents", query: ["id": "doc"], body: try annotatedPDF())
            #expect(r.status == 201, "\(text(r))")
        }
    }

    func close() async {
        await service.close()
    }

    func finish() async {
        await close()
        dir.remove()
    }

    func admin(_ method: String, _ path: String, query: [String: String] = [:], body: [UInt8] = []) async -> SyncResponse {
        await service.handle(SyncRequest(method: method, path: path, query: query,
                                         headers: [("Authorization", "Token \(adminToken)")], body: body))
    }

    func client(_ method: String, _ path: String, token: String?, query: [String: String] = [:], body: [UInt8] = [],
                headers: [(name: String, value: String)] = []) async -> SyncResponse {
        var h = headers
        if let token { h.append(("Authorization", "Bearer \(token)")) }
        return await service.handle(SyncRequest(method: method, path: path, query: query, headers: h, body: body))
    }

    /// GET the layer with a full token.
    func layer(_ doc: String = "doc", _ layer: String = "main") async throws -> InstantJSONValue {
        let token = try await sign(claims(doc: doc, layer: layer))
        let r = await client("GET", "/documents/\(doc)/layers/\(layer)", token: token)
        #expect(r.status == 200, "\(text(r))")
        return try json(r)
    }

    /// POST mutations with a full token (or `token`), as a push of `version` (2, what
    /// libquire 0.5's client sends; nil: no `v`, a version 1 push of an older client).
    func push(_ mutations: [String], client: String = "client-a", token: String? = nil, doc: String = "doc",
              layer: String = "main", version: Int? = 2) async throws -> SyncResponse {
        let t: String
        if let token { t = token } else { t = try await sign(claims(doc: doc, layer: layer)) }
        let v = version.map { "\"v\": \($0), " } ?? ""
        let body = "{\(v)\"client_id\": \"\(client)\", \"mutations\": [\(mutations.joined(separator: ","))]}"
        return await self.client("POST", "/documents/\(doc)/layers/\(layer)/mutations", token: t, body: Array(body.utf8))
    }
}

func text(_ r: SyncResponse) -> String { String(decoding: r.body, as: UTF8.self) }

func json(_ r: SyncResponse) throws -> InstantJSONValue { try InstantJSONValue(parsing: r.body) }

/// The error code of an error answer.
func errorCode(_ r: SyncResponse) -> String? { (try? json(r))?["error"]?["code"]?.stringValue }

/// The mutations a push refused whole names (422 `invalid_record`, 409
/// `missing_attachment`), by client_seq; empty when the answer is another.
func refusedMutations(_ r: SyncResponse, status: Int = 422, code: String = "invalid_record") -> [Int64: InstantJSONValue] {
    guard r.status == status, errorCode(r) == code, let items = (try? json(r))?["error"]?["mutations"]?.arrayValue else { return [:] }
    var out: [Int64: InstantJSONValue] = [:]
    for item in items { if let seq = item["client_seq"]?.integerValue { out[seq] = item } }
    return out
}

/// A put mutation of a note on `page`.
func putNote(_ seq: Int, id: String, page: Int = 0, base: Int64? = nil, text: String = "hello",
             extra: String = "", fields: [String]? = nil) -> String {
    let named = fields.map { ", \"fields\": [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
    return """
    {"client_seq": \(seq), "op": "put", "id": "\(id)", "base_revision": \(base.map(String.init) ?? "null")\(named),
     "record": {"v": 1, "type": "pspdfkit/note", "id": "\(id)", "pageIndex": \(page), "bbox": [10, 10, 20, 20], "text": "\(text)"\(extra)}}
    """
}

func deleteMutation(_ seq: Int, id: String, base: Int64?) -> String {
    "{\"client_seq\": \(seq), \"op\": \"delete\", \"id\": \"\(id)\", \"base_revision\": \(base.map(String.init) ?? "null")}"
}
