import QuireDocument
import Testing

@testable import QuireSync

// The grammar and the decisions of collaboration permissions (issue 34), on the core's
// types alone; Tests/server/test_server_rights.py checks every path on every host.

@Suite struct CollaborationPermissionsRules {
    func rights(_ strings: [String], user: String? = "bob", group: String? = nil) throws -> CollaborationPermissions {
        try CollaborationPermissions(strings, userID: user, defaultGroup: group)
    }

    func owner(
        _ creator: String?,
        group: String? = nil,
        kind: RecordOwnership.Kind = .annotation,
        parent: String? = nil
    ) -> RecordOwnership {
        var quire: [String: InstantJSONValue] = [:]
        if let creator { quire["creator"] = .string(creator) }
        if let parent { quire["inReplyTo"] = .string(parent) }
        if kind == .state { quire["state"] = .string("Accepted") }
        var fields: [String: InstantJSONValue] = ["quire": .object(quire)]
        if let group { fields["group"] = .string(group) }
        return RecordOwnership(json: Array(InstantJSONValue.object(fields).canonicalText.utf8))
    }

    @Test func grammar() throws {
        for good in [
            "annotations:view:all", "comments:reply:self", "annotations:set-state:group=reviewers",
            "comments:set-group:all", "annotations:delete:group=a:b",
        ] {
            #expect(throws: Never.self) { try rights([good]) }
        }
        for bad in [
            "annotations:view", "annotations:fly:all", "notes:view:all", "annotations:view:everyone",
            "annotations:reply:all", "comments:set-state:all", "annotations:view:group=", "", "::",
        ] {
            #expect(throws: SyncHTTPError.self) { try rights([bad]) }
        }
        #expect(throws: SyncHTTPError.self) { try rights(Array(repeating: "annotations:view:all", count: 257)) }
    }

    @Test func scopes() throws {
        let r = try rights(["annotations:edit:self", "annotations:edit:group=g", "comments:view:all"])
        #expect(r.allows(.edit, .annotations, creator: "bob", group: nil))
        #expect(!r.allows(.edit, .annotations, creator: "ada", group: nil))
        #expect(r.allows(.edit, .annotations, creator: "ada", group: "g"))
        #expect(!r.allows(.edit, .annotations, creator: nil, group: "h"))
        #expect(!r.allows(.edit, .comments, creator: "bob", group: nil))
        #expect(!r.viewsEverything)
        // Without a user, `self` matches no record, not even one of no creator.
        let anonymous = try rights(["annotations:edit:self"], user: nil)
        #expect(!anonymous.allows(.edit, .annotations, creator: nil, group: nil))
    }

    @Test func records() {
        #expect(owner("ada").kind == .annotation && owner("ada").creator == "ada")
        #expect(owner(nil, parent: "p").kind == .comment)
        #expect(owner(nil, kind: .state, parent: "p").kind == .state)
        #expect(owner(nil, group: "g").group == "g")
        #expect(RecordOwnership(json: Array("not json".utf8)) == RecordOwnership(json: Array("{}".utf8)))
    }

    @Test func decisions() throws {
        let bob = try rights([
            "annotations:view:all", "comments:view:all", "annotations:edit:self", "comments:reply:all",
            "annotations:set-state:self",
        ])
        let adas = owner("ada")
        let bobs = owner("bob")
        #expect(bob.refusal(current: nil, next: bobs, parent: nil) == nil)  // create his own
        #expect(bob.refusal(current: adas, next: adas, parent: nil) != nil)  // edit Ada's
        #expect(bob.refusal(current: bobs, next: bobs, parent: nil) == nil)  // edit his own
        #expect(bob.refusal(current: bobs, next: nil, parent: nil) != nil)  // no delete right
        #expect(bob.refusal(current: nil, next: owner("bob", parent: "a"), parent: adas) == nil)  // reply to all
        #expect(bob.refusal(current: nil, next: owner("bob", kind: .state, parent: "a"), parent: adas) != nil)
        #expect(bob.refusal(current: nil, next: owner("bob", kind: .state, parent: "b"), parent: bobs) == nil)
        // A group change needs set-group.
        #expect(bob.refusal(current: bobs, next: owner("bob", group: "g"), parent: nil) != nil)
        let mover = try rights(["annotations:view:all", "annotations:edit:self", "annotations:set-group:self"])
        #expect(mover.refusal(current: bobs, next: owner("bob", group: "g"), parent: nil) == nil)
        // A reply to a record the token cannot see is refused.
        let blind = try rights(["comments:view:all", "comments:reply:all"])
        #expect(blind.refusal(current: nil, next: owner("bob", parent: "a"), parent: adas) != nil)
    }
}
