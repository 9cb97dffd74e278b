import FoundationEssentials
import JWTKit
import QuireSyncProtocol

/// The claims of a JWT that the client reads, without checking the signature (the
/// server's job): which document and layer it grants.
public struct SyncTokenClaims: Sendable, Equatable {
    public var documentID: String
    public var layer: String
    public var userID: String?
    /// `exp`, in seconds since 1970.
    public var expires: Double?

    private struct Payload: JWTPayload {
        var document_id: String
        var layer: String
        var user_id: String?
        var exp: ExpirationClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The largest token read (the server's `max_token_bytes`).
    public static let maxTokenBytes = 8 << 10

    /// Reads `token`'s claims; an unreadable token, or one whose `document_id` or `layer`
    /// is not an id of the protocol, is an invalid-argument error.
    public init(token: String) throws {
        guard token.utf8.count <= Self.maxTokenBytes else {
            throw SyncClientError(.invalidArgument, "the token is larger than \(Self.maxTokenBytes) bytes")
        }
        let payload: Payload
        do {
            payload = try DefaultJWTParser().parse(Array(token.utf8), as: Payload.self).payload
        } catch {
            throw SyncClientError(.invalidArgument, "the token is not a JWT with document_id and layer claims")
        }
        guard SyncIDs.isValid(payload.document_id), SyncIDs.isValid(payload.layer) else {
            throw SyncClientError(.invalidArgument, "the token's document_id or layer is not an id ([A-Za-z0-9._-]{1,128})")
        }
        documentID = payload.document_id
        layer = payload.layer
        userID = payload.user_id
        expires = payload.exp.map { $0.value.timeIntervalSince1970 }
    }
}
