import FoundationEssentials
import JWTKit
import QuireDocument
import QuireSync
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Testing

// Issue 15's attacks on the tokens, and hostile requests: each refused with the right
// status and code, and nothing changed.

@Suite struct Tokens {
    @Test func validTokensOfEveryAlgorithm() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        for (i, signer) in [Signer.rs256, .rs512, .es256, .es512].enumerated() {
            let token = try await sign(claims(), with: signer)
            let r = try await h.push([putNote(i, id: "n\(i)")], token: token)
            #expect(r.status == 200, "\(signer): \(text(r))")
            #expect(try json(r)["results"]?[0]?["status"]?.stringValue == "accepted")
        }
        // Within the 60 s leeway.
        let late = try await sign(claims(expiresIn: -30))
        #expect(await h.client("GET", "/documents/doc/layers/main", token: late).status == 200)
        let early = try await sign(claims(notBefore: 30))
        #expect(await h.client("GET", "/documents/doc/layers/main", token: early).status == 200)
    }

    @Test func attacksAreRefusedAndChangeNothing() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let before = try await h.layer()
        let valid = try await sign(claims())
        let parts = valid.split(separator: ".").map(String.init)

        // alg none, made by jwt-kit's own unsecured signer.
        let none = JWTKeyCollection()
        await none.addUnsecuredNone()
        let algNone = try await none.sign(claims())
        // HS256 with the server's RSA public key (its PEM text) as the HMAC secret.
        let hmac = JWTKeyCollection()
        await hmac.add(hmac: HMACKey(from: keys.rsaPublicPEM), digestAlgorithm: .sha256)
        let confused = try await hmac.sign(claims())
        // The payload changed after signing (another layer and every permission).
        let forged = try JSONEncoder().encode(claims(layer: "main", permissions: ["read", "write", "download", "admin"], user: "mallory"))
        let tampered = parts[0] + "." + base64URL(Array(forged)) + "." + parts[2]
        // The header's alg changed after signing (RS256 to RS512).
        let header512 = base64URL(Array(#"{"alg":"RS512","typ":"JWT"}"#.utf8))
        let algSwapped = header512 + "." + parts[1] + "." + parts[2]

        let unauthenticated: [(String, String?)] = [
            ("no token", nil),
            ("alg none", algNone),
            ("HS256 with the public key", confused),
            ("tampered payload", tampered),
            ("alg swapped", algSwapped),
            ("expired", try await sign(claims(expiresIn: -120))),
            ("not yet valid", try await sign(claims(notBefore: 600))),
            ("another key", try await sign(claims(), with: .otherRSA)),
            ("100 KB", String(repeating: "a", count: 50_000) + "." + String(repeating: "b", count: 50_000) + ".c"),
            ("garbage", "garbage"),
            ("three garbage parts", "a.b.c"),
            ("empty signature", parts[0] + "." + parts[1] + "."),
            ("binary", "\u{0}\u{1}.\u{FFFF}.x"),
        ]
        for (name, token) in unauthenticated {
            for (method, path, body) in [("GET", "/documents/doc/layers/main", ""),
                                         ("POST", "/documents/doc/layers/main/mutations",
                                          "{\"client_id\": \"evil\", \"mutations\": [\(deleteMutation(1, id: "sq-1", base: 0))]}"),
                                         ("GET", "/documents/doc/pdf", "")] {
                let r = await h.client(method, path, token: token, body: Array(body.utf8))
                #expect(r.status == 401 && errorCode(r) == "unauthenticated", "\(name) \(method) \(path): \(r.status) \(text(r))")
            }
        }
        // The Authorization header in other forms.
        for header in ["Basic abc", "Bearer", "Token \(adminToken)", "bearer"] {
            let r = await h.service.handle(SyncRequest(method: "GET", path: "/documents/doc/layers/main", headers: [("Authorization", header)]))
            #expect(r.status == 401, "\(header)")
        }

        let forbidden: [(String, String, String)] = [
            ("another document", try await sign(claims(doc: "other")), "/documents/doc/layers/main"),
            ("another layer", try await sign(claims(layer: "other")), "/documents/doc/layers/main"),
            ("read only writing", try await sign(claims(permissions: ["read"])), "/documents/doc/layers/main/mutations"),
            ("write only reading", try await sign(claims(permissions: ["write"])), "/documents/doc/layers/main"),
            ("no download", try await sign(claims(permissions: ["read", "write"])), "/documents/doc/pdf"),
        ]
        for (name, token, path) in forbidden {
            let isPush = path.hasSuffix("mutations")
            let body = isPush ? "{\"client_id\": \"evil\", \"mutations\": [\(deleteMutation(1, id: "sq-1", base: 0))]}" : ""
            let r = await h.client(isPush ? "POST" : "GET", path, token: token, body: Array(body.utf8))
            #expect(r.status == 403 && errorCode(r) == "forbidden", "\(name): \(r.status) \(text(r))")
        }
        // A JWT on the admin API, and the admin token wrong or missing.
        var r = await h.client("GET", "/admin/documents", token: valid)
        #expect(r.status == 401)
        r = await h.service.handle(SyncRequest(method: "GET", path: "/admin/documents", headers: [("Authorization", "Token wrong")]))
        #expect(r.status == 401)
        r = await h.service.handle(SyncRequest(method: "DELETE", path: "/admin/documents/doc"))
        #expect(r.status == 401)

        // Nothing changed: the layer is as it was, no layer "other" was made.
        #expect(try await h.layer() == before)
        r = await h.admin("GET", "/admin/documents/doc")
        #expect(try json(r)["layers"]?.arrayValue?.count == 1)
    }

    @Test func jwksAndBadKeys() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        // A JWKS with the EC key (kid "ec1") and an HMAC key, which is left out.
        guard let params = keys.ec.publicKey.parameters else { Issue.record("no EC parameters"); return }
        let jwks = """
            {"keys": [
              {"kty": "oct", "kid": "h1", "k": "c2VjcmV0"},
              {"kty": "EC", "kid": "ec1", "crv": "P-256", "x": "\(params.x)", "y": "\(params.y)", "alg": "ES256"}
            ]}
            """
        let service = try SyncService(SyncConfiguration(storeURL: "sqlite://\(dir.path)/j.db", jwks: jwks, adminToken: adminToken))
        let upload = await service.handle(SyncRequest(method: "POST", path: "/admin/documents", query: ["id": "doc"],
                                                      headers: [("Authorization", "Token \(adminToken)")], body: plainPDF()))
        #expect(upload.status == 201)
        let token = try await claims().signed { await $0.add(ecdsa: keys.ec, kid: "ec1") }
        let r = await service.handle(SyncRequest(method: "GET", path: "/documents/doc/layers/main", headers: [("Authorization", "Bearer \(token)")]))
        #expect(r.status == 200, "\(text(r))")
        // The RSA key is not in this service's keys.
        let rsa = try await sign(claims())
        let r2 = await service.handle(SyncRequest(method: "GET", path: "/documents/doc/layers/main", headers: [("Authorization", "Bearer \(rsa)")]))
        #expect(r2.status == 401)
        await service.close()
        // Keys and URLs that do not start a service.
        #expect(throws: SyncConfigurationError.self) {
            _ = try SyncService(SyncConfiguration(storeURL: "sqlite::memory:", publicKeys: ["not a key"]))
        }
        #expect(throws: SyncConfigurationError.self) {
            _ = try SyncService(SyncConfiguration(storeURL: "sqlite::memory:", jwks: #"{"keys": [{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}]}"#))
        }
        #expect(throws: SyncConfigurationError.self) {
            _ = try SyncService(SyncConfiguration(storeURL: "mysql://x"))
        }
        // A relative SQLite path is the working directory's file, for every host alike
        // (issue 35): resolved, not refused.
        let resolved = SQLiteSyncStore.resolvedURL("sqlite://./relative.db")
        #expect(resolved.hasPrefix("sqlite:///") && resolved.hasSuffix("/relative.db") && !resolved.contains("/./"), "\(resolved)")
        #expect(SQLiteSyncStore.resolvedURL("sqlite::memory:") == "sqlite::memory:")
    }
}

@Suite struct HostileRequests {
    @Test func limitsMalformedAndUnknown() async throws {
        var limits = SyncLimits()
        limits.maxBodyBytes = 4096
        limits.maxMutationsPerPush = 3
        limits.maxRecordBytes = 600
        let h = try await Harness(limits: limits)
        defer { Task { await h.finish() } }
        let before = try await h.layer()
        let token = try await sign(claims())
        func post(_ body: String) async -> SyncResponse {
            await h.client("POST", "/documents/doc/layers/main/mutations", token: token, body: Array(body.utf8))
        }
        // Too large a body; too many mutations.
        var r = await post("{\"client_id\": \"a\", \"mutations\": [], \"pad\": \"\(String(repeating: "x", count: 5000))\"}")
        #expect(r.status == 413 && errorCode(r) == "too_large")
        r = await post("{\"client_id\": \"a\", \"mutations\": [\((1...4).map { putNote($0, id: "m\($0)") }.joined(separator: ","))]}")
        #expect(r.status == 413 && errorCode(r) == "too_large")
        // A record larger than max_record_bytes: the push is refused (422 naming it).
        r = await post("{\"v\": 2, \"client_id\": \"a\", \"mutations\": [\(putNote(1, id: "big", text: String(repeating: "y", count: 700)))]}")
        #expect(refusedMutations(r)[1]?["message"]?.stringValue?.contains("max_record_bytes") == true, "\(text(r))")
        // Malformed JSON, in many ways.
        for body in ["", "{", "[1,", "{\"client_id\": \"a\", \"mutations\": [}", "nul", "\u{FF}\u{FE}", "{\"a\":1} x",
                     String(repeating: "[", count: 100) + String(repeating: "]", count: 100)] {
            r = await post(body)
            #expect(r.status == 400 && errorCode(r) == "invalid_json", "\(body.prefix(20)): \(text(r))")
        }
        // Well-formed JSON of the wrong shape.
        for body in ["[]", "1", "{\"mutations\": []}", "{\"client_id\": \"a/b\", \"mutations\": []}",
                     "{\"client_id\": \"a\", \"mutations\": {}}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": -1, \"op\": \"put\", \"id\": \"x\", \"record\": {}}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1, \"op\": \"move\", \"id\": \"x\"}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1, \"op\": \"put\", \"id\": \"\", \"record\": {}}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1, \"op\": \"put\", \"id\": \"x\"}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1.5, \"op\": \"delete\", \"id\": \"x\"}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1, \"op\": \"delete\", \"id\": \"x\", \"base_revision\": \"1\"}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1, \"op\": \"delete\", \"id\": \"x\", \"record\": {}}]}",
                     "{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 99999999999999999999, \"op\": \"delete\", \"id\": \"x\"}]}"] {
            r = await post(body)
            #expect(r.status == 400 && errorCode(r) == "bad_request", "\(body): \(text(r))")
        }
        // Unknown fields in a push or a mutation (not in a record: that is the record's).
        r = await post("{\"client_id\": \"a\", \"mutations\": [], \"extra\": 1}")
        #expect(r.status == 400 && errorCode(r) == "unknown_field")
        r = await post("{\"client_id\": \"a\", \"mutations\": [{\"client_seq\": 1, \"op\": \"delete\", \"id\": \"x\", \"force\": true}]}")
        #expect(r.status == 400 && errorCode(r) == "unknown_field")
        r = await post("{\"client_id\": \"a\", \"mutations\": [\(putNote(2, id: "u1", extra: #", "someField": 1"#))]}")
        #expect(try json(r)["results"]?[0]?["status"]?.stringValue == "accepted")
        #expect(try json(r)["seq"]?.integerValue == 1)
        // Only that one accepted put changed the layer.
        let after = try await h.layer()
        #expect(after["records"]?.arrayValue?.count == (before["records"]?.arrayValue?.count ?? 0) + 1)
    }

    @Test func idsWithPathCharactersRoutesAndMethods() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        // Ids with path characters, encoded or not.
        for path in ["/documents/..%2F..%2Fetc/pdf", "/documents/a%2Fb/pdf", "/documents/../pdf", "/documents/./layers/main",
                     "/documents/doc/layers/..", "/documents/doc/layers/a%00b", "/documents/d%C3%A9j%C3%A0/pdf",
                     "/documents/\(String(repeating: "a", count: 129))/pdf", "/documents/doc/layers/%zz"] {
            let r = await h.client("GET", path, token: token)
            #expect(r.status == 400 && errorCode(r) == "bad_request", "\(path): \(r.status) \(text(r))")
        }
        for id in ["../x", "a/b", ".", "..", "", "a b", "é"] {
            let r = await h.admin("POST", "/admin/documents", query: ["id": id], body: plainPDF())
            #expect(r.status == 400, "\(id)")
        }
        var r = await h.admin("GET", "/admin/documents/..%2Fdoc")
        #expect(r.status == 400)
        // Routes and methods.
        for path in ["/", "", "/nope", "/documents", "/documents/doc", "/documents/doc/layers", "/documents/doc/layers/main/x",
                     "/admin/documents/doc/layers/main/zip", "//documents/doc/pdf", "/documents/doc/pdf/"] {
            r = await h.client("GET", path, token: token)
            #expect(r.status == 404 && errorCode(r) == "not_found", "\(path): \(r.status)")
        }
        r = await h.client("DELETE", "/documents/doc/layers/main", token: token)
        #expect(r.status == 405 && errorCode(r) == "method_not_allowed" && r.header("Allow") == "GET")
        r = await h.client("GET", "/documents/doc/layers/main/mutations", token: token)
        #expect(r.status == 405 && r.header("Allow") == "POST")
        // Every answer has a request id: the caller's when it is well formed.
        r = await h.service.handle(SyncRequest(method: "GET", path: "/healthz", headers: [("X-Request-Id", "abc-123")]))
        #expect(r.status == 200 && r.header("X-Request-Id") == "abc-123")
        #expect(try json(r)["status"]?.stringValue == "ok")
        r = await h.service.handle(SyncRequest(method: "GET", path: "/healthz", headers: [("X-Request-Id", "bad id!")]))
        #expect(r.header("X-Request-Id")?.utf8.count == 32)
        r = await h.client("GET", "/nope", token: nil)
        #expect(r.header("X-Request-Id") != nil && r.header("Content-Type") == "application/json")
        // The admin API off: 404.
        let dir = try TempDir()
        defer { dir.remove() }
        let off = try SyncService(SyncConfiguration(storeURL: "sqlite://\(dir.path)/off.db", publicKeys: [keys.rsaPublicPEM]))
        r = await off.handle(SyncRequest(method: "GET", path: "/admin/documents", headers: [("Authorization", "Token x")]))
        #expect(r.status == 404)
        await off.close()
    }
}

@Suite struct Configuration {
    @Test func uploadLimitAndStoreFactories() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        var limits = SyncLimits()
        limits.maxUploadBytes = 100_000
        // A store of a scheme of the host's own, made by its factory (here, SQLite again).
        let path = dir.path + "/custom.db"
        let service = try SyncService(
            SyncConfiguration(storeURL: "custom://anything", publicKeys: [keys.rsaPublicPEM], adminToken: adminToken, limits: limits),
            storeFactories: ["custom": { url in
                #expect(url == "custom://anything")
                return try SQLiteSyncStore(path: path)
            }])
        let auth = [(name: "Authorization", value: "Token \(adminToken)")]
        var r = await service.handle(SyncRequest(method: "POST", path: "/admin/documents", query: ["id": "big"], headers: auth,
                                                 body: plainPDF() + Array(repeating: 0x20, count: 100_000)))
        #expect(r.status == 413 && errorCode(r) == "too_large")
        r = await service.handle(SyncRequest(method: "POST", path: "/admin/documents", query: ["id": "small"], headers: auth, body: plainPDF()))
        #expect(r.status == 201)
        await service.close()
        #expect(FileManager.default.fileExists(atPath: path))
        // Limits out of range do not start a service.
        var bad = SyncLimits()
        bad.maxChangesPerPage = 0
        #expect(throws: SyncConfigurationError.self) {
            _ = try SyncService(SyncConfiguration(storeURL: "sqlite::memory:", limits: bad))
        }
        bad = SyncLimits()
        bad.maxBodyBytes = -1
        #expect(throws: SyncConfigurationError.self) {
            _ = try SyncService(SyncConfiguration(storeURL: "sqlite::memory:", limits: bad))
        }
    }
}

@Suite struct RandomRequests {
    /// Thousands of random requests, with and without valid credentials: every answer is
    /// a status the API uses, errors are the JSON error shape, and nothing traps.
    @Test func noRequestTraps() async throws {
        var limits = SyncLimits()
        limits.maxBodyBytes = 64 << 10
        let h = try await Harness(limits: limits)
        defer { Task { await h.finish() } }
        let token = try await sign(claims())
        var rng = SplitMix64(state: 15)
        let segments = ["documents", "doc", "layers", "main", "changes", "mutations", "pdf", "admin", "copy", "import",
                        "annotations", "healthz", "..", ".", "%2F", "%", "%zz", "a%00", "", "x", "\u{E9}", String(repeating: "z", count: 200)]
        let methods = ["GET", "POST", "DELETE", "PUT", "get", ""]
        let bodies: [String] = [
            "", "{}", "[]", "null", "{\"client_id\": \"c\", \"mutations\": []}",
            "{\"client_id\": \"c\", \"mutations\": [\(putNote(1, id: "r"))]}",
            "{\"client_id\": \"c\", \"mutations\": [{\"client_seq\": 1, \"op\": \"put\", \"id\": \"r\", \"record\": {\"v\": 1, \"type\": \"pspdfkit/ink\", \"id\": \"r\", \"pageIndex\": 0, \"bbox\": [0, 0, 1e308, -1], \"lines\": {\"points\": [[[1e999]]]}}}]}",
            "{\"client_id\": \"c\", \"mutations\": [{\"client_seq\": 9223372036854775807, \"op\": \"delete\", \"id\": \"r\", \"base_revision\": 9223372036854775807}]}",
            "{\"from\": \"main\"}", "{\"from\": \"../x\"}", "%PDF-1.7\n", "\u{0}\u{1}\u{2}",
        ]
        let known: Set<Int> = [200, 201, 204, 304, 400, 401, 403, 404, 405, 409, 413]
        for _ in 0..<1500 {
            let n = Int.random(in: 0...7, using: &rng)
            let path = "/" + (0..<n).map { _ in segments.randomElement(using: &rng) ?? "" }.joined(separator: "/")
            var headers: [(name: String, value: String)] = []
            switch Int.random(in: 0...3, using: &rng) {
            case 0: headers.append(("Authorization", "Bearer \(token)"))
            case 1: headers.append(("Authorization", "Token \(adminToken)"))
            case 2: headers.append(("Authorization", "Bearer \(token.dropLast(Int.random(in: 0...5, using: &rng)))"))
            default: break
            }
            var query: [String: String] = [:]
            if Bool.random(using: &rng) { query["since"] = ["0", "-1", "99999999999999999999", "x", "3"].randomElement(using: &rng) }
            if Bool.random(using: &rng) { query["wait"] = ["0", "0.01", "nan", "inf", "1e300", "-0"].randomElement(using: &rng) }
            var body = Array((bodies.randomElement(using: &rng) ?? "").utf8)
            if Int.random(in: 0...9, using: &rng) == 0, !body.isEmpty {
                body[Int.random(in: 0..<body.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            let r = await h.service.handle(SyncRequest(method: methods.randomElement(using: &rng) ?? "GET", path: path,
                                                       query: query, headers: headers, body: body))
            #expect(known.contains(r.status), "\(path): \(r.status) \(text(r))")
            #expect(r.header("X-Request-Id") != nil)
            if r.status >= 400 { #expect(errorCode(r) != nil, "\(path): \(text(r))") }
        }
    }
}
