import FoundationEssentials
import JWTKit

/// The claims of a sync token (docs/sync-protocol.md, "Tokens") as the Swift tests sign
/// them: the one definition for the sync tests and the convergence harness (issue 32: each
/// minted its own).
public struct TestTokenClaims: JWTPayload {
    public var document_id: String
    public var layer: String
    public var permissions: [String]
    public var user_id: String?
    public var exp: ExpirationClaim
    public var nbf: NotBeforeClaim?
    /// Per-user rights (docs/sync-protocol.md, "Collaboration permissions"); nil: none.
    public var collaboration_permissions: [String]?

    public init(document: String = "doc", layer: String = "main", permissions: [String] = ["read", "write", "download"],
                user: String? = "alice", expiresIn: Double = 3600, notBefore: Double? = nil,
                collaborationPermissions: [String]? = nil) {
        collaboration_permissions = collaborationPermissions
        document_id = document
        self.layer = layer
        self.permissions = permissions
        user_id = user
        exp = ExpirationClaim(value: Date(timeIntervalSinceNow: expiresIn))
        nbf = notBefore.map { NotBeforeClaim(value: Date(timeIntervalSinceNow: $0)) }
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// These claims as a JWT signed by the key `addKey` puts in a new key collection.
    public func signed(_ addKey: (JWTKeyCollection) async -> Void) async throws -> String {
        let collection = JWTKeyCollection()
        await addKey(collection)
        return try await collection.sign(self)
    }
}
