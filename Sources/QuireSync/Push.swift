import QuireDocument
import QuireSyncProtocol
import QuireSyntax

// POST /documents/{doc}/layers/{layer}/mutations: the rules of a push.

/// One mutation of a push, read and checked as far as it can be without the layer.
struct Mutation: Sendable {
    var clientSeq: Int64
    var op: SyncOperation
    var id: String
    var baseRevision: Int64?
    /// A put's record and what checking it alone found.
    var put: PutCheck?
    /// The fields (``RecordFields``) a put changed from its base (push version 2): with
    /// them a put on an older base than the record's is merged, field by field.
    var fields: Set<String>? = nil
    /// The document's checker, to check a merged record again.
    var checker: AnnotationRecordChecker? = nil
}

enum PutCheck: Sendable {
    case valid(InstantJSONValue, pageIndex: Int, inReplyTo: String?, popup: String?, hasCreatorName: Bool)
    case invalid(String)
}

/// What became of a mutation.
enum MutationOutcome {
    /// Applied; `merged` is the record stored when it is not the one sent (a field-level
    /// merge), `dropped` the fields of the put that lost to concurrent changes.
    case accepted(seq: Int64, merged: [UInt8]? = nil, dropped: [String] = [])
    /// Not applied; `fields`: the fields that conflicted, when a merge was tried.
    case rejected(reason: String, message: String, current: SyncStoredRecord?, fields: [String]? = nil)

    /// Its answer, kept in the store under (client_id, client_seq).
    func json(clientSeq: Int64) -> JSONOut {
        switch self {
        case .accepted(let seq, let merged, let dropped):
            var out: [(String, JSONOut)] = [("client_seq", .integer(clientSeq)), ("status", .string("accepted")), ("seq", .integer(seq)),
                                            ("revision", .integer(seq))]
            if let merged {
                out.append(("record", .raw(merged)))
                out.append(("dropped_fields", .array(dropped.map(JSONOut.string))))
            }
            return .object(out)
        case .rejected(let reason, let message, let current, let fields):
            var out: [(String, JSONOut)] = [
                ("client_seq", .integer(clientSeq)), ("status", .string("rejected")), ("reason", .string(reason)),
                ("message", .string(message)), ("current", .optionalRaw(current?.json)),
                ("current_revision", current.map { .integer($0.revision) } ?? .null),
            ]
            if let fields { out.append(("fields", .array(fields.map(JSONOut.string)))) }
            return .object(out)
        }
    }
}

/// When each field of a record last changed (``SyncStoredRecord/fieldRevisions``).
struct FieldRevisions {
    var revisions: [String: Int64]
    /// The revision of the fields not named.
    var base: Int64

    init(_ record: SyncStoredRecord) {
        revisions = [:]
        base = record.revision
        guard let bytes = record.fieldRevisions, let object = (try? InstantJSONValue(parsing: bytes))?.objectValue else { return }
        for (field, value) in object {
            guard let r = value.integerValue else { continue }
            if field == "*" { base = r } else { revisions[field] = r }
        }
    }

    init(createdAt revision: Int64) {
        revisions = [:]
        base = revision
    }

    func revision(of field: String) -> Int64 { revisions[field] ?? base }

    var bytes: [UInt8] {
        var object: [String: InstantJSONValue] = ["*": .integer(base)]
        for (field, r) in revisions where r != base { object[field] = .integer(r) }
        return InstantJSONValue.object(object).canonicalBytes
    }
}

/// Record ids (keys in a layer) are any non-empty string up to this many bytes: those of a
/// PDF's own annotations are their /NM, which may be any text.
let maxRecordIDBytes = 4096

/// A mutation names at most this many fields.
let maxFieldsPerMutation = 256

extension SyncService {
    /// Reads a push body; a malformed one is refused whole, before anything is applied.
    func parsePush(_ body: [UInt8]) throws -> (clientID: String, version: Int64, mutations: [(Mutation, InstantJSONValue?)]) {
        let value: InstantJSONValue
        do {
            value = try InstantJSONValue(parsing: body)
        } catch {
            throw SyncHTTPError.invalidJSON(SyncService.jsonMessage(error))
        }
        guard let top = value.objectValue else { throw SyncHTTPError.badRequest("a push is a JSON object {\"client_id\", \"mutations\"}") }
        for key in top.keys.sorted() where key != "client_id" && key != "mutations" && key != "v" {
            throw SyncHTTPError.unknownField("unknown field \"\(key.prefix(60))\" in the push (v, client_id, mutations)")
        }
        let version: Int64
        switch top["v"] {
        case nil: version = 1
        case .integer(let v)? where v == 1 || v == 2: version = v
        default: throw SyncHTTPError.badRequest("v (the push's version) must be 1 or 2")
        }
        guard let clientID = top["client_id"]?.stringValue, SyncIDs.isValid(clientID) else {
            throw SyncHTTPError.badRequest("client_id must be a string of [A-Za-z0-9._-]{1,128}")
        }
        guard case .array(let items)? = top["mutations"] else { throw SyncHTTPError.badRequest("mutations must be an array") }
        guard items.count <= limits.maxMutationsPerPush else {
            throw SyncHTTPError.tooLarge("a push has at most \(limits.maxMutationsPerPush) mutations (max_mutations_per_push), not \(items.count)")
        }
        let allowed: Set<String> = version >= 2 ? ["client_seq", "op", "id", "base_revision", "record", "fields"]
            : ["client_seq", "op", "id", "base_revision", "record"]
        var out: [(Mutation, InstantJSONValue?)] = []
        for (i, item) in items.enumerated() {
            let at = "mutations[\(i)]"
            guard let m = item.objectValue else { throw SyncHTTPError.badRequest("\(at) must be an object") }
            for key in m.keys.sorted() where !allowed.contains(key) {
                throw SyncHTTPError.unknownField("unknown field \"\(key.prefix(60))\" in \(at) (client_seq, op, id, base_revision, record\(version >= 2 ? ", fields" : ""))")
            }
            guard case .integer(let clientSeq)? = m["client_seq"], clientSeq >= 0 else {
                throw SyncHTTPError.badRequest("\(at).client_seq must be an integer, 0 or more")
            }
            guard let opText = m["op"]?.stringValue, let op = SyncOperation(rawValue: opText) else {
                throw SyncHTTPError.badRequest("\(at).op must be \"put\" or \"delete\"")
            }
            guard let id = m["id"]?.stringValue, !id.isEmpty, id.utf8.count <= maxRecordIDBytes else {
                throw SyncHTTPError.badRequest("\(at).id must be a non-empty string of at most \(maxRecordIDBytes) bytes")
            }
            var base: Int64?
            switch m["base_revision"] {
            case nil, .null?: base = nil
            case .integer(let r)? where r >= 0: base = r
            default: throw SyncHTTPError.badRequest("\(at).base_revision must be null or an integer, 0 or more")
            }
            var record: InstantJSONValue?
            switch (op, m["record"]) {
            case (.put, let r?) where r.objectValue != nil: record = r
            case (.put, _): throw SyncHTTPError.badRequest("\(at).record must be an annotation record (a JSON object) for a put")
            case (.delete, nil), (.delete, .null?): record = nil
            case (.delete, _): throw SyncHTTPError.badRequest("\(at): a delete has no record")
            }
            var changed: Set<String>?
            switch m["fields"] {
            case nil: changed = nil
            case .array(let names)? where op == .put && names.count <= maxFieldsPerMutation:
                var set: Set<String> = []
                for name in names {
                    guard let n = name.stringValue, !n.isEmpty, n.utf8.count <= 256 else {
                        throw SyncHTTPError.badRequest("\(at).fields must be field names (non-empty strings of at most 256 bytes)")
                    }
                    set.insert(n)
                }
                changed = set
            case .array?:
                throw SyncHTTPError.badRequest("\(at).fields: only a put names its fields, at most \(maxFieldsPerMutation)")
            default: throw SyncHTTPError.badRequest("\(at).fields must be an array of field names")
            }
            out.append((Mutation(clientSeq: clientSeq, op: op, id: id, baseRevision: base, put: nil, fields: changed), record))
        }
        return (clientID, version, out)
    }

    /// The checks of a put that need the document's pages but not the layer: the record
    /// as the annotation model reads it.
    func checkAlone(_ record: InstantJSONValue, id: String, checker: AnnotationRecordChecker) -> PutCheck {
        guard let fields = record.objectValue else { return .invalid("the record is not a JSON object") }
        // Form field definitions are the PDF's: a layer holds their values, not the fields.
        if let type = fields["type"]?.stringValue, type.hasPrefix(InstantJSONFormField.typePrefix) {
            return .invalid("record.type: \"\(type.prefix(60))\" is a form field definition, which a layer does not sync (the PDF defines its fields; a layer holds their values as pspdfkit/form-field-value records)")
        }
        guard fields["id"]?.stringValue == id else { return .invalid("record.id must equal the mutation's id") }
        switch LayerRecords.kind(of: record) {
        case .annotation: break
        case .formFieldValue, .bookmark: return checkLayerRecord(record, checker: checker)
        }
        if id.hasPrefix(LayerRecords.formFieldValueIDPrefix) {
            return .invalid("record.id: ids that begin with \(LayerRecords.formFieldValueIDPrefix) are form values' (a pspdfkit/form-field-value record)")
        }
        let annotation: InstantJSONAnnotation
        do {
            annotation = try AnnotationRecordChecker.record(record)
            try checker.check(annotation)
        } catch {
            return .invalid(SyncService.jsonMessage(error))
        }
        if let why = checkSentGroupAndSize(record) { return .invalid(why) }
        let keys = RecordKeys(record)
        return .valid(record, pageIndex: annotation.pageIndex, inReplyTo: annotation.quire?.inReplyTo,
                      popup: annotation.quire?.popup, hasCreatorName: keys.hasCreatorName)
    }

    /// The checks of a form value or a bookmark record (docs/sync-protocol.md, "What a
    /// layer holds"): the document's rules, in QuireDocument (``AnnotationRecordChecker``).
    /// They are on no page (a stored page index of -1) and link to nothing.
    func checkLayerRecord(_ record: InstantJSONValue, checker: AnnotationRecordChecker) -> PutCheck {
        do {
            switch LayerRecords.kind(of: record) {
            case .formFieldValue: _ = try checker.checkFormFieldValue(record)
            case .bookmark: _ = try checker.checkBookmark(record)
            case .annotation: return .invalid("not a form value or a bookmark")
            }
        } catch {
            return .invalid(SyncService.jsonMessage(error))
        }
        if let why = checkSentGroupAndSize(record) { return .invalid(why) }
        return .valid(record, pageIndex: -1, inReplyTo: nil, popup: nil, hasCreatorName: true)
    }

    /// What the core itself refuses of a record as sent, whatever the layer holds: a
    /// `group` that is not a non-empty string or null, and a record past `max_record_bytes`
    /// (the record as stored is checked again: the server may add its creator's name).
    func checkSentGroupAndSize(_ record: InstantJSONValue) -> String? {
        if let group = record.objectValue?["group"], group != .null, group.stringValue?.isEmpty != false {
            return "record.group must be a non-empty string (or null: no group)"
        }
        let size = record.canonicalBytes.count
        if size > limits.maxRecordBytes {
            return "the record is \(size) bytes, more than max_record_bytes (\(limits.maxRecordBytes))"
        }
        return nil
    }

    /// A PDFError's message without the "annotation JSON: " prefix (the API says where).
    static func jsonMessage(_ error: any Error) -> String {
        let message = errorMessage(error)
        let prefix = "annotation JSON: "
        return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
    }

    func push(_ document: String, _ layer: String, _ request: SyncRequest, userID: String?,
              rights: CollaborationPermissions? = nil) async throws -> SyncResponse {
        let (clientID, version, parsed) = try parsePush(request.body)
        guard let info = try await store.read({ tx in try await tx.document(document) }) else {
            throw SyncHTTPError.notFound("no document \(document)")
        }
        var mutations: [Mutation] = []
        if parsed.contains(where: { $0.1 != nil }) {
            let checker = try await checker(for: info)
            for (m, record) in parsed {
                var m = m
                if let record { m.put = checkAlone(record, id: m.id, checker: checker) }
                if m.fields != nil { m.checker = checker }
                mutations.append(m)
            }
        } else {
            mutations = parsed.map(\.0)
        }
        let limits = self.limits
        let work = mutations
        let (before, seq, results, committed, digestAfter) = try await store.write { [self] tx in
            let layerInfo = try await ensureLayer(tx, document, layer)
            var seq = layerInfo.seq
            var digest = try await layerDigest(tx, document, layerInfo)
            // Bad input refuses the whole push, before anything is applied: a record refused
            // on its own (422 invalid_record, naming every such mutation), unless that
            // mutation was answered before (a retry gets its first answer: idempotency).
            // A version 1 push (a client that predates it, as libquire 0.4's, which would
            // retry a refused push forever) gets its per-mutation `invalid` answers instead,
            // its other mutations applied, as before.
            var refused: [RefusedMutation] = []
            for m in work where version >= 2 {
                guard case .invalid(let message)? = m.put,
                      try await tx.answer(document, layer, clientID: clientID, clientSeq: m.clientSeq) == nil else { continue }
                refused.append(RefusedMutation(clientSeq: m.clientSeq, id: m.id, message: message))
            }
            if !refused.isEmpty { throw SyncHTTPError.invalidRecords(refused) }
            var results: [JSONOut] = []
            var highest: Int64 = -1
            for m in work {
                highest = max(highest, m.clientSeq)
                if let stored = try await tx.answer(document, layer, clientID: clientID, clientSeq: m.clientSeq) {
                    results.append(.raw(stored))
                    continue
                }
                let answer = try await apply(m, tx, document, layer, seq: &seq, digest: &digest, clientID: clientID, userID: userID,
                                             maxRecordBytes: limits.maxRecordBytes, rights: rights).json(clientSeq: m.clientSeq).bytes
                try await tx.saveAnswer(document, layer, clientID: clientID, clientSeq: m.clientSeq, answer: answer)
                results.append(.raw(answer))
            }
            if seq > layerInfo.seq || layerInfo.digest == nil { try await tx.setLayerDigest(document, layer, digest) }
            // The changes made, as the feed gives them: published to the live feeds once
            // committed (read here, in the transaction, rather than by every follower).
            let committed = seq > layerInfo.seq
                ? try await tx.changes(document, layer, after: layerInfo.seq, limit: Int(clamping: seq - layerInfo.seq)) : []
            let keep = Int64(limits.answerRetention)
            if highest >= keep { try await tx.pruneAnswers(document, layer, clientID: clientID, below: highest - keep + 1) }
            let retention = Int64(limits.changeRetention)
            if seq - retention > layerInfo.prunedThrough { try await tx.pruneChanges(document, layer, through: seq - retention) }
            return (layerInfo.seq, seq, results, committed, digest)
        }
        // Committed: the live feeds get the changes, the layer's long polls wake.
        if seq > before {
            feeds.publish(LayerFeeds.Key(document: document, layer: layer), committed, digest: digestAfter,
                          now: SyncService.now())
            listeners.notify(document: document, layer: layer, seq: seq)
        }
        return SyncService.json(200, .object([("seq", .integer(seq)), ("results", .array(results))]))
    }

    /// Decides one mutation against the layer and applies it when accepted.
    func apply(_ m: Mutation, _ tx: any SyncTransaction, _ document: String, _ layer: String, seq: inout Int64,
               digest: inout LayerDigest, clientID: String?, userID: String?, maxRecordBytes: Int,
               rights: CollaborationPermissions? = nil) async throws -> MutationOutcome {
        let current = try await tx.record(document, layer, id: m.id)
        func reject(_ reason: String, _ message: String) -> MutationOutcome {
            .rejected(reason: reason, message: message, current: current)
        }
        // Collaboration permissions (docs/sync-protocol.md): a record the token may not
        // view is refused without showing it; a delete is checked before its base, a put
        // once its record (merged, with the server's creator and group) is known.
        let currentOwner = current.map { RecordOwnership(json: $0.json) }
        if let rights, let currentOwner {
            guard rights.canView(currentOwner) else {
                return .rejected(reason: "forbidden", message: "the record \"\(m.id.prefix(60))\" is not visible to this token (collaboration_permissions)",
                                 current: nil)
            }
            if m.op == .delete {
                let parent = try await currentOwner.parent.asyncFlatMap { try await tx.record(document, layer, id: $0) }
                if let why = rights.refusal(current: currentOwner, next: nil, parent: parent.map { RecordOwnership(json: $0.json) }) {
                    return reject("forbidden", why + " (collaboration_permissions)")
                }
            }
        }
        // First writer wins: the base must be the record's current revision (null: absent),
        // but a put that names its fields merges with the changes made since its base
        // unless they changed the same fields (docs/sync-protocol.md, "Field-level merge").
        var merge: (applied: Set<String>, dropped: [String])?
        switch (current, m.baseRevision) {
        case (nil, nil):
            if m.op == .delete { return reject("conflict", "the layer has no record \"\(m.id.prefix(60))\"") }
        case (nil, let base?):
            return reject("conflict", "the record \"\(m.id.prefix(60))\" does not exist (deleted, or never created); base_revision was \(base)")
        case (let c?, nil):
            return reject("conflict", "the record \"\(m.id.prefix(60))\" exists (revision \(c.revision)); base_revision was null")
        case (let c?, let base?):
            if c.revision != base {
                guard m.op == .put, let fields = m.fields, base < c.revision else {
                    return reject("conflict", "the record \"\(m.id.prefix(60))\" is at revision \(c.revision), not \(base)")
                }
                let revisions = FieldRevisions(c)
                let conflicting = fields.filter { revisions.revision(of: $0) > base }
                let applied = fields.subtracting(conflicting)
                guard !applied.isEmpty else {
                    let names = conflicting.sorted()
                    return .rejected(reason: "conflict",
                                     message: "the record \"\(m.id.prefix(60))\" is at revision \(c.revision), not \(base), and its fields \(names.joined(separator: ", ")) changed since",
                                     current: c, fields: names)
                }
                merge = (applied, conflicting.sorted())
            }
        }
        let (next, overflow) = seq.addingReportingOverflow(1)
        guard !overflow else { throw SyncHTTPError.internal("the layer's sequence number is exhausted") }
        switch m.op {
        case .delete:
            try await tx.apply(document, layer, SyncChange(seq: next, id: m.id, op: .delete, record: nil, clientID: clientID, userID: userID), record: nil)
            if let current { digest.toggle(id: current.id, revision: current.revision, record: LayerDigest.normalizedRecord(current.json)) }
            seq = next
            return .accepted(seq: next)
        case .put:
            guard let check = m.put else { return reject("invalid", "a put without a record") }
            guard case .valid(var value, let page, var inReplyTo, var popup, let hasCreator) = check else {
                if case .invalid(let message) = check { return reject("invalid", message) }
                return reject("invalid", "invalid record")
            }
            // A merge: the current record with the fields this put changed and no one else did.
            if let merge, let current, let sent = value.objectValue,
               let stored = (try? InstantJSONValue(parsing: current.json))?.objectValue {
                value = .object(RecordFields.taking(merge.applied, from: sent, into: stored))
                let keys = RecordKeys(value)
                (inReplyTo, popup) = (keys.inReplyTo, keys.popup)
                if let checker = m.checker {
                    if LayerRecords.kind(of: value) != .annotation {
                        if case .invalid(let message) = checkLayerRecord(value, checker: checker) {
                            return reject("invalid", "the merged record: " + message)
                        }
                    } else {
                        do { try checker.check(try AnnotationRecordChecker.record(value)) } catch {
                            return reject("invalid", "the merged record: " + SyncService.jsonMessage(error))
                        }
                    }
                }
            }
            // The creator (`quire.creator`) is the server's: the creating token's user when
            // it has collaboration permissions, kept from the current record on an update;
            // what the client sent is never stored. A record created without a group gets
            // the token's default_group.
            if case .object(var fields) = value {
                var quire = fields["quire"]?.objectValue ?? [:]
                let creator: String? = current != nil ? currentOwner?.creator : (rights != nil ? userID : nil)
                if quire["creator"] != nil || creator != nil {
                    quire["creator"] = creator.map(InstantJSONValue.string)
                    if quire.isEmpty { fields["quire"] = nil } else { fields["quire"] = .object(quire) }
                }
                if current == nil, let group = rights?.defaultGroup, fields["group"] == nil || fields["group"] == .null {
                    fields["group"] = .string(group)
                }
                // An update without the key keeps the group (the annotation model does not
                // carry it: a client that rebuilt the record from a document would drop
                // it); `"group": null` clears it.
                if fields["group"] == nil, let group = currentOwner?.group { fields["group"] = .string(group) }
                if fields["group"] == .null { fields["group"] = nil }
                if let group = fields["group"], group.stringValue?.isEmpty != false {
                    return reject("invalid", "record.group must be a non-empty string (or null: no group)")
                }
                value = .object(fields)
            }
            if let rights {
                let next = RecordOwnership(value)
                let parentID = next.parent ?? currentOwner?.parent
                let parent = try await parentID.asyncFlatMap { try await tx.record(document, layer, id: $0) }
                if let why = rights.refusal(current: currentOwner, next: next, parent: parent.map { RecordOwnership(json: $0.json) }) {
                    return reject("forbidden", why + " (collaboration_permissions)")
                }
            }
            if let current, current.pageIndex != page {
                return reject("invalid", "record.pageIndex: the record is on page \(current.pageIndex), not \(page); annotations do not move between pages (delete it first)")
            }
            // An image or file annotation names its image or file by the SHA-256 of its
            // bytes, an attachment the document must have (uploaded before the put,
            // docs/sync-protocol.md "Attachments"); one of the uploaded PDF may be updated
            // keeping its image or file. An image's attachment must be an image.
            if let key = RecordAttachment.key(ofType: value.objectValue?["type"]?.stringValue) {
                let named = value.objectValue?[key]?.stringValue
                let isImage = key == RecordAttachment.imageKey
                if let named, current.flatMap({ RecordAttachment.id(ofRecordJSON: $0.json) }) != named {
                    let held = SyncService.isSHA256Hex(named) ? try await tx.attachment(document, sha256: named) : nil
                    // Refusals of the whole push (thrown: the transaction's writes are undone,
                    // and no answer is kept): the client uploads the attachment and pushes
                    // again, or drops a record it cannot fix.
                    guard let held else {
                        let message = "record.\(key): the document has no attachment \"\(named.prefix(80))\"; upload the \(isImage ? "image" : "file") first (PUT /documents/\(document)/attachments/SHA256)"
                        guard SyncService.isSHA256Hex(named) else {
                            throw SyncHTTPError.invalidRecords([RefusedMutation(clientSeq: m.clientSeq, id: m.id, message: message)])
                        }
                        throw SyncHTTPError.missingAttachment(RefusedMutation(clientSeq: m.clientSeq, id: m.id, message: message, attachment: named))
                    }
                    if isImage, !SyncService.imageContentTypes.contains(held.contentType) {
                        do {
                            _ = try ImageAttachment.read(held.bytes, contentType: value.objectValue?["contentType"]?.stringValue ?? "image/png")
                        } catch {
                            throw SyncHTTPError.invalidRecords([RefusedMutation(
                                clientSeq: m.clientSeq, id: m.id,
                                message: "record.\(key): attachment \(named) is not an image the annotation model takes: \(errorMessage(error))")])
                        }
                    }
                } else if current == nil, named == nil, isImage {
                    throw SyncHTTPError.invalidRecords([RefusedMutation(
                        clientSeq: m.clientSeq, id: m.id,
                        message: "record.imageAttachmentId: an image annotation is created with its image, an attachment of the document named by its SHA-256")])
                }
            }
            // Links are ids that outlive their targets: a record may keep a link it already
            // has to a record since deleted (a reply whose parent went stays a reply to that
            // id, and may still be edited); a put may not make a new link to a missing record.
            var parent: SyncStoredRecord?
            if let target = inReplyTo { parent = try await tx.record(document, layer, id: target) }
            if let target = inReplyTo, parent != nil || current?.inReplyTo != target {
                guard target != m.id else { return reject("invalid", "record.quire.inReplyTo: an annotation cannot reply to itself") }
                guard let parent else {
                    return reject("invalid", "record.quire.inReplyTo: the layer has no record \"\(target.prefix(60))\"")
                }
                guard parent.pageIndex == page else {
                    return reject("invalid", "record.quire.inReplyTo: \"\(target.prefix(60))\" is on page \(parent.pageIndex), not page \(page); a reply is on the page of the annotation it answers")
                }
                // No cycle: the chain above the parent must not come back to this record.
                var seen: Set<String> = [target]
                var cursor = parent.inReplyTo
                while let c = cursor {
                    if c == m.id { return reject("invalid", "record.quire.inReplyTo: the replies would make a cycle") }
                    guard seen.insert(c).inserted else { break }
                    cursor = try await tx.record(document, layer, id: c)?.inReplyTo
                }
            }
            if let target = popup, current?.popup != target {
                guard target != m.id else { return reject("invalid", "record.quire.popup: an annotation cannot be its own popup") }
                // A form value or a bookmark (no page) is not an annotation a popup can be.
                guard let linked = try await tx.record(document, layer, id: target), linked.pageIndex >= 0 else {
                    return reject("invalid", "record.quire.popup: the layer has no record \"\(target.prefix(60))\"")
                }
            }
            // Instant's behaviour: a record created without an author gets the token's user.
            if current == nil, !hasCreator, let userID, case .object(var fields) = value {
                fields["creatorName"] = .string(userID)
                value = .object(fields)
            }
            let json = value.canonicalBytes
            guard json.count <= maxRecordBytes else {
                return reject("invalid", "the record is \(json.count) bytes, more than max_record_bytes (\(maxRecordBytes))")
            }
            var revisions = FieldRevisions(createdAt: next)
            if let current {
                revisions = FieldRevisions(current)
                if let before = (try? InstantJSONValue(parsing: current.json))?.objectValue, let after = value.objectValue {
                    for field in RecordFields.changed(from: before, to: after) { revisions.revisions[field] = next }
                } else {
                    revisions = FieldRevisions(createdAt: next)
                }
            }
            let stored = SyncStoredRecord(id: m.id, revision: next, pageIndex: page, inReplyTo: inReplyTo, popup: popup, json: json,
                                          fieldRevisions: revisions.bytes)
            try await tx.apply(document, layer, SyncChange(seq: next, id: m.id, op: .put, record: json, clientID: clientID, userID: userID), record: stored)
            if let current { digest.toggle(id: current.id, revision: current.revision, record: LayerDigest.normalizedRecord(current.json)) }
            digest.toggle(id: m.id, revision: next, record: LayerDigest.normalizedRecord(json))
            seq = next
            if let merge { return .accepted(seq: next, merged: json, dropped: merge.dropped) }
            return .accepted(seq: next)
        }
    }
}

extension Optional {
    /// `flatMap` with an asynchronous, throwing transform.
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
