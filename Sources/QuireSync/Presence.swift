import FoundationEssentials
import QuireDocument
import QuireSyncProtocol
import Synchronization

// Presence (docs/sync-protocol.md, "Presence"): who is connected to a layer now, in this
// process. A host's live connection (quire-server's WebSocket sessions) joins when its
// token is verified and leaves when it closes; every member of the layer hears each change.

/// One connection's place in a layer's presence, from `SyncService.joinPresence`; give it
/// back to `leavePresence` when the connection ends.
public struct SyncPresenceTicket: Sendable, Hashable {
    let document: String
    let layer: String
    let id: UInt64
}

/// Why a connection may not join a layer's presence: the error answer its token gets.
public struct SyncPresenceRefusal: Error, Sendable {
    public let response: SyncResponse
}

/// The presence of every layer of this process.
final class PresenceRegistry: Sendable {
    struct Member: Sendable {
        var userID: String?
        var clientID: String
        var since: String
        /// The member's cursor or selection: a JSON value of its client's choosing.
        var cursor: InstantJSONValue?
        var onChange: @Sendable ([UInt8]) -> Void
    }

    private struct Key: Hashable {
        let document: String
        let layer: String
    }

    private struct State {
        var nextID: UInt64 = 0
        var layers: [Key: [UInt64: Member]] = [:]
    }

    private let state = Mutex(State())

    /// The largest cursor kept, in bytes of compact JSON.
    static let maxCursorBytes = 4096

    func join(_ document: String, _ layer: String, _ member: Member) -> SyncPresenceTicket {
        let key = Key(document: document, layer: layer)
        let (id, members) = state.withLock { s -> (UInt64, [UInt64: Member]) in
            s.nextID &+= 1
            s.layers[key, default: [:]][s.nextID] = member
            return (s.nextID, s.layers[key] ?? [:])
        }
        announce(members)
        return SyncPresenceTicket(document: document, layer: layer, id: id)
    }

    func leave(_ ticket: SyncPresenceTicket) {
        let key = Key(document: ticket.document, layer: ticket.layer)
        let members = state.withLock { s -> [UInt64: Member]? in
            guard s.layers[key]?.removeValue(forKey: ticket.id) != nil else { return nil }
            if s.layers[key]?.isEmpty == true { s.layers[key] = nil }
            return s.layers[key] ?? [:]
        }
        if let members { announce(members) }
    }

    func setCursor(_ ticket: SyncPresenceTicket, _ cursor: InstantJSONValue?) {
        let key = Key(document: ticket.document, layer: ticket.layer)
        let members = state.withLock { s -> [UInt64: Member]? in
            guard s.layers[key]?[ticket.id] != nil else { return nil }
            s.layers[key]?[ticket.id]?.cursor = cursor
            return s.layers[key]
        }
        if let members { announce(members) }
    }

    /// The layer's presence as its JSON answer, `{"presence": [...]}`, oldest first.
    func json(_ document: String, _ layer: String) -> [UInt8] {
        PresenceRegistry.json(state.withLock { $0.layers[Key(document: document, layer: layer)] ?? [:] })
    }

    private static func json(_ members: [UInt64: Member]) -> [UInt8] {
        let list = members.sorted { $0.key < $1.key }.map { _, m in
            JSONOut.object([
                ("user_id", .optional(m.userID)), ("client_id", .string(m.clientID)), ("since", .string(m.since)),
                ("cursor", .optionalRaw(m.cursor?.canonicalBytes)),
            ])
        }
        return JSONOut.object([("presence", .array(list))]).bytes
    }

    private func announce(_ members: [UInt64: Member]) {
        let body = PresenceRegistry.json(members)
        for member in members.values { member.onChange(body) }
    }
}

extension SyncService {
    /// Joins the presence of `layer` for a live connection whose token (`authorization`,
    /// `Bearer <JWT>`) may read the layer: `onChange` gets the layer's presence
    /// (`{"presence": [...]}`) now and at every change until `leavePresence`. A token that
    /// may not read the layer throws its error answer instead. `clientID` follows the
    /// client ids' pattern (nil: a new one).
    public func joinPresence(
        document: String,
        layer: String,
        authorization: String,
        clientID: String?,
        onChange: @escaping @Sendable ([UInt8]) -> Void
    ) async throws(SyncPresenceRefusal) -> SyncPresenceTicket {
        let request = SyncRequest(
            method: "GET",
            path: "/documents/\(document)/layers/\(layer)",
            headers: [("Authorization", authorization)]
        )
        do {
            if let clientID, !SyncIDs.isValid(clientID) {
                throw SyncHTTPError.badRequest("client_id must be a string of [A-Za-z0-9._-]{1,128}")
            }
            let userID = try await presenceUser(request, document: document, layer: layer)
            let member = PresenceRegistry.Member(
                userID: userID,
                clientID: clientID ?? SyncIDs.randomHex(),
                since: iso8601UTC(Date()),
                cursor: nil,
                onChange: onChange
            )
            return presence.join(document, layer, member)
        } catch let e as SyncHTTPError {
            throw SyncPresenceRefusal(response: SyncService.errorResponse(e))
        } catch {
            throw SyncPresenceRefusal(
                response: SyncService.errorResponse(.internal("internal error: \(errorMessage(error))"))
            )
        }
    }

    /// Sets the connection's cursor or selection (any JSON value of at most 4 KiB of
    /// compact JSON; nil clears it); every member hears it. False when the cursor is too
    /// large (it is not kept).
    @discardableResult
    public func setPresenceCursor(_ ticket: SyncPresenceTicket, cursor: [UInt8]?) -> Bool {
        guard let cursor else {
            presence.setCursor(ticket, nil)
            return true
        }
        guard let value = try? InstantJSONValue(parsing: cursor),
            value.canonicalBytes.count <= PresenceRegistry.maxCursorBytes
        else {
            return false
        }
        presence.setCursor(ticket, value)
        return true
    }

    /// Leaves the presence (the connection ended); every remaining member hears it.
    public func leavePresence(_ ticket: SyncPresenceTicket) {
        presence.leave(ticket)
    }
}
