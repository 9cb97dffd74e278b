import Dispatch
import JWTKit
import FoundationEssentials
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyncProtocol
import QuireSyntax
import QuireTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One schedule, run to its end on the calling thread. The clients' workers call back
/// into it (their transports), one at a time: the schedule is deterministic for its seed.
public final class ScheduleRun: @unchecked Sendable {
    let options: ConvergenceOptions
    let index: Int
    var rng: SplitMix64
    let directory: String
    var server: ServerBox!
    var clients: [SimClient] = []
    var transports: [ScheduledTransport] = []
    var delayed: [SyncRequest] = []
    var answers = AnswerLog()
    /// Clients inside a sync or download (their worker is taken).
    var busy: Set<Int> = []
    var depth = 0
    var faultsOn = true
    var report: ScheduleReport
    /// Ids recently created or touched by anyone: a target drawn from these more often, so
    /// that users edit the same records.
    var hot: [String] = []
    var names = 0
    /// The layer's records before any change (revision 0), for the feed's replay.
    var initialRecords: [String: [UInt8]] = [:]

    public init(options: ConvergenceOptions, schedule: Int) {
        self.options = options
        index = schedule
        rng = SplitMix64(seed: options.seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(schedule) &* 0xD1B5_4A32_D192_ED03)
        directory = options.directory + "/schedule-\(options.seed)-\(schedule)"
        report = ScheduleReport(schedule: schedule)
    }

    func trace(_ s: @autoclosure () -> String) {
        if options.trace { print("  [\(index)] " + s()) }
    }

    func error(_ s: String) {
        report.errors.append(s)
        trace("ERROR " + s)
    }

    // MARK: Running

    /// Runs the schedule and its checks.
    public func run() -> ScheduleReport {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        do {
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try setUp()
            faultsOn = options.faults
            let steps = Int(rng.next(options.steps.count)) + options.steps.lowerBound
            report.steps = steps
            for step in 0..<steps {
                trace("step \(step)")
                try topLevelAction()
            }
            try quiesce()
            try check()
        } catch {
            self.error("the schedule stopped: \(error)")
        }
        for c in clients { c.client.close() }
        server?.close()
        if !report.failed || !options.keepFailures { try? FileManager.default.removeItem(atPath: directory) }
        return report
    }

    func setUp() throws {
        server = try ServerBox(path: directory + "/server.db", publicKey: runKey.publicKey.pemRepresentation)
        let up = server.admin("POST", "/admin/documents", query: ["id": "doc"], body: try startingPDF())
        guard up.status == 201 else { throw Missing(what: "the upload answered \(up.status)") }
        let count = Int(rng.next(options.clients.count)) + options.clients.lowerBound
        report.clients = count
        faultsOn = false
        for i in 0..<count {
            let transport = ScheduledTransport(client: i, run: self)
            transports.append(transport)
            let c = try SimClient(index: i, directory: directory + "/client\(i)", transport: transport)
            clients.append(c)
            busy.insert(i)
            defer { busy.remove(i) }
            try c.descriptor.downloadNow(token: c.token)
        }
        for (id, json) in try layerRecords() { initialRecords[id] = json.json }
    }

    // MARK: The network

    func send(_ request: SyncRequest, from client: Int) throws -> SyncResponse {
        if clients.indices.contains(client), clients[client].offline {
            count("cut")
            throw NetworkFault(what: "client \(client) is cut off")
        }
        let fault = faultsOn ? pickFault() : .deliver
        count(fault.rawValue)
        switch fault {
        case .deliver:
            return deliver(request)
        case .dropRequest:
            trace("client \(client): \(request.method) \(request.path) lost")
            throw NetworkFault(what: "request lost")
        case .dropAnswer:
            _ = deliver(request)
            trace("client \(client): answer to \(request.method) \(request.path) lost")
            throw NetworkFault(what: "answer lost")
        case .duplicate:
            _ = deliver(request)
            trace("client \(client): \(request.method) \(request.path) duplicated")
            return deliver(request)
        case .delay:
            delayed.append(request)
            trace("client \(client): \(request.method) \(request.path) delayed (the client times out)")
            throw NetworkFault(what: "timed out")
        case .interleave:
            if depth < 2 {
                depth += 1
                defer { depth -= 1 }
                trace("client \(client): while \(request.method) \(request.path) is in flight:")
                for _ in 0..<(1 + Int(rng.next(3))) { try nestedAction(during: client) }
            }
            return deliver(request)
        }
    }

    func count(_ fault: String) { report.faults[fault, default: 0] += 1 }

    func deliver(_ request: SyncRequest) -> SyncResponse {
        let r = server.handle(request)
        answers.record(request, r)
        if r.status == 409, request.method == "POST" { report.missingAttachments += 1 }
        if options.trace, request.method == "POST", let body = try? InstantJSONValue(parsing: request.body),
           let answer = try? InstantJSONValue(parsing: r.body) {
            let ms = (body["mutations"]?.arrayValue ?? []).map { "\($0["op"]?.stringValue ?? "?") \($0["id"]?.stringValue ?? "?")" }
            let rs = (answer["results"]?.arrayValue ?? []).map { $0["status"]?.stringValue ?? "?" }
            trace("  push \(body["client_id"]?.stringValue ?? "?"): \(zip(ms, rs).map { "\($0.0) \($0.1)" }.joined(separator: ", "))")
        }
        if options.trace, r.status >= 400 || request.method == "PUT" {
            trace("  \(request.method) \(request.path): \(r.status) \(String(decoding: r.body.prefix(400), as: UTF8.self))")
        }
        return r
    }

    func pickFault() -> Fault {
        let roll = rng.next(100)
        switch roll {
        case 0..<70: return .deliver
        case 70..<76: return .dropRequest
        case 76..<83: return .dropAnswer
        case 83..<88: return .duplicate
        case 88..<93: return .delay
        default: return .interleave
        }
    }

    // MARK: Actions

    func topLevelAction() throws {
        let c = Int(rng.next(clients.count))
        let roll = rng.next(100)
        switch roll {
        case 0..<56: try edit(c)
        case 56..<82: sync(c)
        case 82..<86 where options.faults:
            clients[c].offline.toggle()
            trace("client \(c) \(clients[c].offline ? "cut off" : "back")")
        case 86..<90 where options.faults: deliverDelayed(all: false)
        case 90..<95 where options.faults:
            trace("client \(c) crashes and restarts")
            try clients[c].restart(transports[c])
        case 95..<98 where options.faults:
            trace("the server restarts")
            try server.restart()
        case 98..<100 where options.faults:
            let r = server.admin("POST", "/admin/documents/doc/attachments/collect")
            trace("the server collects attachments: \(String(decoding: r.body, as: UTF8.self))")
        default: sync(c)
        }
    }

    /// What happens while a client's request is in flight: edits (by its own user too)
    /// and other clients' syncs.
    func nestedAction(during client: Int) throws {
        let c = Int(rng.next(clients.count))
        if rng.next(100) < 65 || busy.contains(c) {
            try edit(c)
        } else {
            sync(c)
        }
    }

    func sync(_ c: Int) {
        guard !busy.contains(c) else { return }
        busy.insert(c)
        defer { busy.remove(c) }
        report.syncs += 1
        let d = clients[c].descriptor
        do {
            try d.syncNow()
            trace("client \(c) synced")
        } catch {
            trace("client \(c) sync failed: \(error)")
        }
        try? d.waitIdle()
    }

    func deliverDelayed(all: Bool) {
        guard !delayed.isEmpty else { return }
        var pending = delayed
        delayed = []
        // In any order.
        for i in stride(from: pending.count - 1, to: 0, by: -1) { pending.swapAt(i, Int(rng.next(i + 1))) }
        let n = all ? pending.count : 1 + Int(rng.next(pending.count))
        for r in pending.prefix(n) {
            trace("a delayed \(r.method) \(r.path) arrives")
            _ = deliver(r)
        }
        delayed = Array(pending.dropFirst(n))
    }

    // MARK: Quiescence and checks

    func quiesce() throws {
        trace("quiescence")
        faultsOn = false
        for c in clients { c.offline = false }
        deliverDelayed(all: true)
        var rounds = 0
        while rounds < 12 {
            rounds += 1
            var waiting = 0
            for c in clients { waiting += (try? c.descriptor.pendingChanges()) ?? 0 }
            let before = try serverSeq()
            for i in clients.indices { sync(i) }
            if waiting == 0, try serverSeq() == before, rounds > 1 { return }
        }
        error("no quiescence after 12 rounds of syncs")
    }

    func serverSeq() throws -> Int64 {
        let r = server.handle(SyncRequest(method: "GET", path: "/documents/doc/layers/main/changes", query: ["since": "0"],
                                          headers: [("Authorization", "Bearer \(clients[0].token)")], body: []))
        guard r.status == 200, let v = try? InstantJSONValue(parsing: r.body), let seq = v["seq"]?.integerValue else {
            throw Missing(what: "the feed answered \(r.status)")
        }
        return seq
    }

    /// The server's layer: id -> (revision, record without pdfObjectId, canonical).
    func layerRecords() throws -> [String: (revision: Int64, json: [UInt8])] {
        let r = server.handle(SyncRequest(method: "GET", path: "/documents/doc/layers/main", query: [:],
                                          headers: [("Authorization", "Bearer \(clients[0].token)")], body: []))
        guard r.status == 200, let v = try? InstantJSONValue(parsing: r.body), let items = v["records"]?.arrayValue else {
            throw Missing(what: "the layer answered \(r.status)")
        }
        var out: [String: (Int64, [UInt8])] = [:]
        for item in items {
            guard let revision = item["revision"]?.integerValue, var fields = item["record"]?.objectValue, let id = fields["id"]?.stringValue else {
                throw Missing(what: "a record without id or revision")
            }
            fields["pdfObjectId"] = nil
            out[id] = (revision, Array(InstantJSONValue.object(fields).canonicalText.utf8))
        }
        return out
    }

    /// The whole feed.
    func feed() throws -> [InstantJSONValue] {
        var out: [InstantJSONValue] = []
        var since: Int64 = 0
        while true {
            let r = server.handle(SyncRequest(method: "GET", path: "/documents/doc/layers/main/changes", query: ["since": String(since)],
                                              headers: [("Authorization", "Bearer \(clients[0].token)")], body: []))
            guard r.status == 200, let v = try? InstantJSONValue(parsing: r.body), let changes = v["changes"]?.arrayValue else {
                throw Missing(what: "the feed answered \(r.status)")
            }
            out += changes
            guard v["more"] == .bool(true), let last = changes.last?["seq"]?.integerValue else { return out }
            since = last
        }
    }

    func check() throws {
        let layer = try layerRecords()
        let server = layer.mapValues { String(decoding: $0.json, as: UTF8.self) }
        // 1. Every client equals the server: its records, and its document's export.
        for c in clients {
            let d = c.descriptor
            if d.state != .clean { report.divergences.append("client \(c.index) ends \(d.state), not clean") }
            if let n = try? d.pendingChanges(), n > 0 { report.divergences.append("client \(c.index) ends with \(n) pending") }
            var stored: [String: String] = [:]
            for r in try d.records() { stored[r.id] = String(decoding: r.json, as: UTF8.self) }
            compare(stored, server, "client \(c.index)'s record")
            let exported: [String: String] = try d.withDocument { doc in
                var out: [String: String] = [:]
                let v = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
                for item in v["annotations"]?.arrayValue ?? [] {
                    guard var fields = item.objectValue, let id = fields["id"]?.stringValue else { continue }
                    fields["pdfObjectId"] = nil
                    out[id] = InstantJSONValue.object(fields).canonicalText
                }
                // Its form values (those the layer has a record of: the others keep the
                // PDF's value) and every bookmark, as the layer's records (issue 33).
                for value in doc.formFieldValueRecords() {
                    let record = LayerRecords.record(value)
                    if let id = record["id"]?.stringValue, server[id] != nil { out[id] = record.canonicalText }
                }
                for b in try doc.bookmarks.bookmarks() {
                    if let record = LayerRecords.record(b) { out[b.identifier] = record.canonicalText }
                }
                return out
            }
            compare(exported, server, "client \(c.index)'s document's")
            let repairs = c.repairs.withLock { $0 }
            report.repairs += repairs
            // A repair means the client's records had differed from the server's: the
            // digest caught it, but it should never happen.
            if repairs > 0 { report.divergences.append("client \(c.index) repaired its records \(repairs) time(s)") }
        }
        // 2. The layer is its feed replayed.
        let changes = try feed()
        var replay: [String: (Int64, String)] = initialRecords.mapValues { (0, String(decoding: $0, as: UTF8.self)) }
        var lastSeq: Int64 = 0
        for change in changes {
            guard let seq = change["seq"]?.integerValue, let id = change["id"]?.stringValue, let op = change["op"]?.stringValue else {
                report.errors.append("a change of the feed without seq, id or op")
                continue
            }
            if seq <= lastSeq { report.disordered.append("the feed's seq \(seq) after \(lastSeq)") }
            lastSeq = seq
            if op == "delete" {
                replay[id] = nil
            } else if var fields = change["record"]?.objectValue {
                fields["pdfObjectId"] = nil
                replay[id] = (seq, InstantJSONValue.object(fields).canonicalText)
            }
        }
        for id in Set(replay.keys).union(layer.keys).sorted() {
            let r = replay[id], l = layer[id]
            if r?.0 != l?.revision || r?.1 != l.map({ String(decoding: $0.json, as: UTF8.self) }) {
                report.divergences.append("the layer's \(id) (revision \(l.map { String($0.revision) } ?? "absent")) is not its feed replayed (\(r.map { String($0.0) } ?? "absent"))")
            }
        }
        // 3. Applied at most once, each client's in order.
        for (key, seqs) in answers.accepted where seqs.count > 1 {
            report.duplicated.append("\(key) accepted as \(seqs.sorted())")
        }
        var feedByClient: [String: Int] = [:]
        for change in changes { if let c = change["client_id"]?.stringValue { feedByClient[c, default: 0] += 1 } }
        for c in clients {
            let id = c.clientID
            let distinct = Set((answers.acceptedByClient[id] ?? []).map(\.0)).count
            if feedByClient[id, default: 0] != distinct {
                report.duplicated.append("client \(c.index): \(feedByClient[id, default: 0]) changes in the feed for \(distinct) accepted mutations")
            }
            var seen: [Int64: Int64] = [:]
            for (cs, seq) in answers.acceptedByClient[id] ?? [] { seen[cs] = seq }
            var previous: Int64 = 0
            for cs in seen.keys.sorted() {
                let seq = seen[cs] ?? 0
                if seq <= previous { report.disordered.append("client \(c.index): client_seq \(cs) applied at \(seq), after \(previous)") }
                previous = seq
            }
            report.accepted += distinct
            report.merges += answers.merged.filter { $0.hasPrefix(id + "#") }.count
        }
        // 4. Nothing lost: each record's last local change is on the server, or reported
        // dropped by the change id the edit got.
        for c in clients {
            let dropped = c.dropped.withLock { $0 }
            report.droppedChanges += dropped.count
            let id = c.clientID
            let mine = changes.filter { $0["client_id"]?.stringValue == id }
            for (record, e) in c.expected.sorted(by: { $0.key < $1.key }) {
                if dropped.contains(e.change) || e.op == "none" { continue }
                let found = mine.contains { change in
                    guard change["id"]?.stringValue == record, change["op"]?.stringValue == e.op else { return false }
                    if e.op == "delete" { return true }
                    guard var fields = change["record"]?.objectValue, let expected = e.record,
                          let want = try? InstantJSONValue(parsing: expected) else { return false }
                    fields["pdfObjectId"] = nil
                    // The server names the user as the creator of a record made without one.
                    if want["creatorName"] == nil, fields["creatorName"] == .string(c.user) { fields["creatorName"] = nil }
                    if InstantJSONValue.object(fields) == want { return true }
                    // Merged with other clients' changes: this change's fields are as it made them.
                    guard let changed = e.fields, !changed.isEmpty, let wanted = want.objectValue else { return false }
                    return RecordFields.taking(changed, from: wanted, into: fields) == fields
                }
                if !found {
                    let pushed = mine.filter { $0["id"]?.stringValue == record }.map { change -> String in
                        guard var f = change["record"]?.objectValue else { return change["op"]?.stringValue ?? "?" }
                        f["pdfObjectId"] = nil
                        return InstantJSONValue.object(f).canonicalText
                    }
                    let wanted = e.record.map { String(decoding: $0, as: UTF8.self) } ?? e.op
                    report.lost.append("client \(c.index)'s change \(e.change) (\(e.op) \(record)) is neither on the server nor reported dropped: expected \(wanted.prefix(500)); its changes in the feed: \(pushed.map { $0.prefix(500) })")
                }
            }
        }
    }

    func compare(_ mine: [String: String], _ server: [String: String], _ what: String) {
        for id in Set(mine.keys).union(server.keys).sorted() where mine[id] != server[id] {
            report.divergences.append("\(what) \(id): \(mine[id]?.prefix(400) ?? "absent") / server: \(server[id]?.prefix(400) ?? "absent")")
        }
    }
}
