import QuireDocument
import QuireSyntax

// Per-user rights on the records of a layer (docs/sync-protocol.md, "Collaboration
// permissions"), modelled on Nutrient Document Engine's `collaboration_permissions`.

/// Who made a record, its group, and what kind of record it is, as the rights read them.
struct RecordOwnership: Equatable {
    enum Kind: Equatable {
        /// An annotation (no `quire.inReplyTo`).
        case annotation
        /// A reply (`quire.inReplyTo`, no `quire.state`): a comment of a thread.
        case comment
        /// A review state (a reply with `quire.state`).
        case state
    }

    /// `quire.creator`: the `user_id` of the token that created the record, set by the
    /// server only (nil: made without a user, or before rights existed).
    var creator: String?
    /// `group`: mutable, set by the creator (or the token's `default_group`).
    var group: String?
    var kind: Kind
    /// `quire.inReplyTo`, for a comment or a state.
    var parent: String?

    init(_ value: InstantJSONValue) {
        let fields = value.objectValue ?? [:]
        let quire = fields["quire"]?.objectValue ?? [:]
        creator = quire["creator"]?.stringValue
        group = fields["group"]?.stringValue
        parent = quire["inReplyTo"]?.stringValue
        if parent == nil {
            kind = .annotation
        } else if let state = quire["state"], state != .null {
            kind = .state
        } else {
            kind = .comment
        }
    }

    /// The ownership of a stored record's JSON (a record that does not parse, which the
    /// store never holds, reads as an annotation of no one).
    init(json: [UInt8]) {
        self.init((try? InstantJSONValue(parsing: json)) ?? .null)
    }

    /// The content type its view, edit and delete rights are of: states are shown in
    /// their thread, as comments.
    var content: CollaborationPermissions.Content { kind == .annotation ? .annotations : .comments }
}

/// A token's `collaboration_permissions`: `<content>:<action>:<scope>` strings.
///
/// - content: `annotations` or `comments` (replies, and for `view`, `edit` and `delete`
///   also review states);
/// - action: `view`, `edit`, `delete`, `set-group`, and `reply` (comments only: reply to a
///   record of the scope) or `set-state` (annotations only: set a review state on an
///   annotation of the scope);
/// - scope: `all`, `self` (records whose creator is the token's `user_id`) or
///   `group=NAME` (records whose `group` is NAME).
///
/// Rights only add up: there is no deny. A token with the claim and no rule for an action
/// may not do it.
struct CollaborationPermissions: Sendable {
    enum Content: String, Sendable { case annotations, comments }

    enum Action: String, Sendable, CaseIterable {
        case view, edit, delete, reply
        case setState = "set-state"
        case setGroup = "set-group"
    }

    enum Scope: Hashable, Sendable {
        case all
        case own
        case group(String)
    }

    struct Rule: Hashable, Sendable {
        var content: Content
        var action: Action
        var scope: Scope
    }

    /// At most this many permission strings in a token (it is at most 8 KiB anyway).
    static let maxRules = 256

    let rules: Set<Rule>
    let userID: String?
    let defaultGroup: String?

    /// Reads the claim; a string outside the grammar is an error naming it (the token is
    /// refused: rights are never guessed).
    init(_ strings: [String], userID: String?, defaultGroup: String?) throws(SyncHTTPError) {
        guard strings.count <= CollaborationPermissions.maxRules else {
            throw .unauthenticated(
                "collaboration_permissions has more than \(CollaborationPermissions.maxRules) entries"
            )
        }
        var rules: Set<Rule> = []
        for text in strings {
            let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            func refuse(_ why: String) -> SyncHTTPError {
                .unauthenticated(
                    "collaboration_permissions: \"\(text.prefix(80))\" \(why) (<annotations|comments>:<action>:<all|self|group=NAME>)"
                )
            }
            guard parts.count == 3 else { throw refuse("is not content:action:scope") }
            guard let content = Content(rawValue: String(parts[0])) else { throw refuse("has no known content type") }
            guard let action = Action(rawValue: String(parts[1])) else { throw refuse("has no known action") }
            if action == .reply && content != .comments { throw refuse("names reply, which is an action on comments") }
            if action == .setState && content != .annotations {
                throw refuse("names set-state, which is an action on annotations")
            }
            let scopeText = String(parts[2])
            let scope: Scope
            if scopeText == "all" {
                scope = .all
            } else if scopeText == "self" {
                scope = .own
            } else if scopeText.hasPrefix("group="), scopeText.count > 6 {
                scope = .group(String(scopeText.dropFirst(6)))
            } else {
                throw refuse("has no known scope")
            }
            rules.insert(Rule(content: content, action: action, scope: scope))
        }
        self.rules = rules
        self.userID = userID
        self.defaultGroup = defaultGroup
    }

    /// Whether `action` on `content` is allowed for a record of `creator` and `group`.
    func allows(_ action: Action, _ content: Content, creator: String?, group: String?) -> Bool {
        if rules.contains(Rule(content: content, action: action, scope: .all)) { return true }
        if let userID, creator == userID, rules.contains(Rule(content: content, action: action, scope: .own)) {
            return true
        }
        if let group, rules.contains(Rule(content: content, action: action, scope: .group(group))) { return true }
        return false
    }

    func allows(_ action: Action, on owner: RecordOwnership) -> Bool {
        allows(action, owner.content, creator: owner.creator, group: owner.group)
    }

    func canView(_ owner: RecordOwnership) -> Bool { allows(.view, on: owner) }

    /// Whether every record is visible: reads need no filtering then.
    var viewsEverything: Bool {
        rules.contains(Rule(content: .annotations, action: .view, scope: .all))
            && rules.contains(Rule(content: .comments, action: .view, scope: .all))
    }

    /// Whether a stored record is visible.
    func canView(json: [UInt8]) -> Bool { viewsEverything || canView(RecordOwnership(json: json)) }

    /// Why a mutation is refused, nil when it is allowed. `current` is the record as
    /// stored, `next` the record as it would be stored (creator and group already the
    /// server's), `parent` the record `next` replies to (nil: none, or missing), `delete`
    /// for a delete (then `next` is nil).
    func refusal(current: RecordOwnership?, next: RecordOwnership?, parent: RecordOwnership?) -> String? {
        func named(_ action: Action, _ content: Content) -> String { "\(content.rawValue):\(action.rawValue)" }
        /// The right a state needs: set-state on the annotation it is the state of (on the
        /// state itself when that annotation is gone).
        func stateRight(_ state: RecordOwnership, parent: RecordOwnership?) -> String? {
            let target = parent ?? state
            if let parent, !canView(parent) { return "the record it is the state of is not visible to this token" }
            return allows(.setState, .annotations, creator: target.creator, group: target.group)
                ? nil
                : "the token does not grant \(named(.setState, .annotations)) on the annotation"
        }
        guard let next else {
            // A delete.
            guard let current else { return nil }
            switch current.kind {
            case .state: return stateRight(current, parent: parent)
            case .annotation, .comment:
                return allows(.delete, on: current)
                    ? nil : "the token does not grant \(named(.delete, current.content)) on this record"
            }
        }
        guard let current else {
            // A create.
            switch next.kind {
            case .annotation:
                return allows(.edit, on: next)
                    ? nil
                    : "the token does not grant \(named(.edit, .annotations)) on a record it would create (creator \(userID.map { "\"\($0)\"" } ?? "none"), group \(next.group.map { "\"\($0)\"" } ?? "none"))"
            case .comment:
                guard let parent else { return nil }  // a reply to a missing record: invalid, said later
                if !canView(parent) { return "the record it replies to is not visible to this token" }
                return allows(.reply, .comments, creator: parent.creator, group: parent.group)
                    ? nil
                    : "the token does not grant \(named(.reply, .comments)) on the record it replies to"
            case .state:
                return stateRight(next, parent: parent)
            }
        }
        // An update.
        switch current.kind {
        case .state:
            if let why = stateRight(current, parent: parent) { return why }
        case .annotation, .comment:
            if !allows(.edit, on: current) {
                return "the token does not grant \(named(.edit, current.content)) on this record"
            }
        }
        if next.kind != current.kind {
            // A record that becomes a reply or a state needs the right to make one.
            if let why = refusal(current: nil, next: next, parent: parent) { return why }
        }
        if next.group != current.group, !allows(.setGroup, on: current) {
            return
                "the token does not grant \(named(.setGroup, current.content)) on this record (its group is \(current.group.map { "\"\($0)\"" } ?? "none"))"
        }
        return nil
    }
}
