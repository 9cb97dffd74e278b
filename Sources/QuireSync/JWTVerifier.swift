import FoundationEssentials
import JWTKit
import QuireDocument

/// The claims of a Quire sync token (docs/sync-protocol.md, "JWT").
struct SyncClaims: JWTPayload {
    var documentID: String
    var layer: String
    var permissions: [String]
    var userID: String?
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?
    /// Per-user rights on records (``CollaborationPermissions``); nil: the token may do
    /// what `permissions` grants on every record.
    var collaborationPermissions: [String]?
    /// The group of the records this token creates without one.
    var defaultGroup: String?

    enum CodingKeys: String, CodingKey {
        case documentID = "document_id", layer, permissions, userID = "user_id", exp, nbf
        case collaborationPermissions = "collaboration_permissions", defaultGroup = "default_group"
    }

    /// Times are checked by `JWTVerifier`, with its leeway, after the signature.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    func allows(_ permission: String) -> Bool { permissions.contains(permission) }

    /// The token's collaboration permissions, nil without the claim; a claim outside the
    /// grammar is `unauthenticated`.
    func collaboration() throws(SyncHTTPError) -> CollaborationPermissions? {
        guard let collaborationPermissions else { return nil }
        return try CollaborationPermissions(collaborationPermissions, userID: userID, defaultGroup: defaultGroup)
    }
}

/// Verifies sync JWTs with jwt-kit against public keys loaded at start.
///
/// - Algorithms: RS256, RS512, ES256 and ES512 only. The header's `alg` is checked against
///   this list before any key is tried, and a key is tried only for the algorithm it was
///   loaded for (an RSA key as RS256 and as RS512, a P-256 key as ES256, a P-521 key as
///   ES512), so `none`, HS* (the HMAC-with-the-public-key confusion) and an `alg` that does
///   not match the key never reach a verification. jwt-kit itself would verify with the
///   key's own algorithm whatever the header says; the check here makes the header honest.
/// - Keys: PEM texts (`-----BEGIN PUBLIC KEY-----`, RSA or EC) and a JWKS (RSA and EC keys
///   with a `kid`; keys of other types, or for encryption, are left out). A token whose
///   `kid` names a JWKS key is verified with that key only; other tokens are tried against
///   the PEM keys (and, without `kid`, the JWKS keys) of their algorithm.
/// - Claims: `document_id`, `layer`, `permissions`, `exp` required; `user_id`, `nbf`,
///   `collaboration_permissions` and `default_group` optional; `exp` and `nbf` with a leeway (60 s).
final class JWTVerifier: Sendable {
    static let allowedAlgorithms: Set<String> = ["RS256", "RS512", "ES256", "ES512"]

    private enum Key: Sendable {
        case rsa(Insecure.RSA.PublicKey, DigestAlgorithm)
        case es256(ES256PublicKey)
        case es512(ES512PublicKey)
    }

    private struct Candidate: Sendable {
        let algorithm: String
        let kid: String?
        let keys: JWTKeyCollection
    }

    private let candidates: Task<[Candidate], Never>
    let maxTokenBytes: Int
    let leeway: Double
    let hasKeys: Bool

    /// Loads the keys; a PEM or a JWKS that does not give a usable key is an error.
    init(publicKeys: [String], jwks: String?, maxTokenBytes: Int, leewaySeconds: Int) throws {
        var loaded: [(algorithm: String, kid: String?, key: Key)] = []
        for (i, pem) in publicKeys.enumerated() {
            if let rsa = try? Insecure.RSA.PublicKey(pem: pem) {
                loaded.append(("RS256", nil, .rsa(rsa, .sha256)))
                loaded.append(("RS512", nil, .rsa(rsa, .sha512)))
            } else if let ec = try? ES256PublicKey(pem: pem) {
                loaded.append(("ES256", nil, .es256(ec)))
            } else if let ec = try? ES512PublicKey(pem: pem) {
                loaded.append(("ES512", nil, .es512(ec)))
            } else {
                throw SyncConfigurationError("public key \(i + 1): not an RSA (2048 bits or more) or EC P-256 or P-521 public key in PEM")
            }
        }
        if let jwks {
            loaded += try JWTVerifier.keys(ofJWKS: jwks)
        }
        hasKeys = !loaded.isEmpty
        self.maxTokenBytes = maxTokenBytes
        self.leeway = Double(leewaySeconds)
        // jwt-kit's key collection is an actor: the keys, already parsed and checked above,
        // go in asynchronously, and verification waits for that once.
        candidates = Task {
            var out: [Candidate] = []
            for (algorithm, kid, key) in loaded {
                let collection = JWTKeyCollection()
                let identifier = kid.map { JWKIdentifier(string: $0) }
                switch key {
                case .rsa(let k, let digest): await collection.add(rsa: k, digestAlgorithm: digest, kid: identifier)
                case .es256(let k): await collection.add(ecdsa: k, kid: identifier)
                case .es512(let k): await collection.add(ecdsa: k, kid: identifier)
                }
                out.append(Candidate(algorithm: algorithm, kid: kid, keys: collection))
            }
            return out
        }
    }

    /// The usable keys of a JWKS text.
    private static func keys(ofJWKS text: String) throws -> [(algorithm: String, kid: String?, key: Key)] {
        let document: InstantJSONValue
        do {
            document = try InstantJSONValue(parsing: Array(text.utf8))
        } catch {
            throw SyncConfigurationError("the JWKS is not JSON: \(error)")
        }
        guard case .array(let items)? = document.objectValue?["keys"] else {
            throw SyncConfigurationError("the JWKS has no \"keys\" array")
        }
        var out: [(algorithm: String, kid: String?, key: Key)] = []
        for (i, item) in items.enumerated() {
            guard let fields = item.objectValue else { throw SyncConfigurationError("JWKS key \(i): not an object") }
            let kty = fields["kty"]?.stringValue
            guard kty == "RSA" || kty == "EC", fields["use"]?.stringValue != "enc" else { continue }
            let jwk: JWK
            do {
                jwk = try JSONDecoder().decode(JWK.self, from: Data(item.canonicalBytes))
            } catch {
                throw SyncConfigurationError("JWKS key \(i): \(error)")
            }
            guard let kid = jwk.keyIdentifier?.string else { throw SyncConfigurationError("JWKS key \(i): no kid") }
            let alg = jwk.algorithm?.rawValue
            if let alg, !allowedAlgorithms.contains(alg) {
                continue  // a key for an algorithm Quire does not accept verifies nothing here
            }
            do {
                if kty == "RSA" {
                    guard let n = jwk.modulus, let e = jwk.exponent else { throw SyncConfigurationError("an RSA key needs n and e") }
                    let key = try Insecure.RSA.PublicKey(modulus: n, exponent: e)
                    if alg == nil || alg == "RS256" { out.append(("RS256", kid, .rsa(key, .sha256))) }
                    if alg == nil || alg == "RS512" { out.append(("RS512", kid, .rsa(key, .sha512))) }
                } else {
                    guard let x = jwk.x, let y = jwk.y else { throw SyncConfigurationError("an EC key needs x and y") }
                    switch jwk.curve?.rawValue {
                    case "P-256"?:
                        if alg == nil || alg == "ES256" { out.append(("ES256", kid, .es256(try ES256PublicKey(parameters: (x, y))))) }
                    case "P-521"?:
                        if alg == nil || alg == "ES512" { out.append(("ES512", kid, .es512(try ES512PublicKey(parameters: (x, y))))) }
                    default:
                        continue  // P-384 (ES384) is not accepted
                    }
                }
            } catch let e as SyncConfigurationError {
                throw SyncConfigurationError("JWKS key \(i) (\(kid)): \(e.message)")
            } catch {
                throw SyncConfigurationError("JWKS key \(i) (\(kid)): \(error)")
            }
        }
        if out.isEmpty { throw SyncConfigurationError("the JWKS has no RSA, P-256 or P-521 key for RS256, RS512, ES256 or ES512") }
        return out
    }

    /// The verified claims of `token`, or an `unauthenticated` error saying why not.
    func verify(_ token: String, now: Date = Date()) async throws(SyncHTTPError) -> SyncClaims {
        let bytes = Array(token.utf8)
        guard bytes.count <= maxTokenBytes else {
            throw .unauthenticated("the token is larger than \(maxTokenBytes) bytes")
        }
        // The header, read by jwt-kit's parser, only to choose the key; nothing in it is
        // trusted before the signature is verified.
        let header: JWTHeader
        do {
            header = try DefaultJWTParser().parse(bytes, as: SyncClaims.self).header
        } catch {
            throw .unauthenticated("the token is not a JWT with Quire's claims (document_id, layer, permissions, exp)")
        }
        guard let alg = header.alg, JWTVerifier.allowedAlgorithms.contains(alg) else {
            throw .unauthenticated("the token's algorithm \(header.alg.map { "\"\($0.prefix(20))\"" } ?? "(none)") is not allowed (RS256, RS512, ES256, ES512)")
        }
        let all = await candidates.value.filter { $0.algorithm == alg }
        var tried = all.filter { $0.kid == nil }
        if let kid = header.kid {
            let named = all.filter { $0.kid == kid }
            if !named.isEmpty { tried = named }
        } else {
            tried = all
        }
        var claims: SyncClaims?
        for candidate in tried {
            if let verified = try? await candidate.keys.verify(bytes, as: SyncClaims.self) {
                claims = verified
                break
            }
        }
        guard let claims else { throw .unauthenticated("the token's signature does not verify with any key of the server") }
        let t = now.timeIntervalSince1970
        guard claims.exp.value.timeIntervalSince1970 + leeway > t else { throw .unauthenticated("the token has expired") }
        if let nbf = claims.nbf, nbf.value.timeIntervalSince1970 - leeway > t {
            throw .unauthenticated("the token is not valid yet (nbf)")
        }
        return claims
    }
}
