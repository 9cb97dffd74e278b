import FoundationEssentials
import QuireDocument
import QuireSync
import QuireSyncProtocol
import QuireSyncClient
import QuireSyntax
import QuireTestSupport
import Synchronization
import Testing

// The sync client (QuireSyncClient) against the real sync core in this process: the
// router, JWT checks and SQLite store of SyncService, through InProcessTransport. The
// network going down is a transport that refuses while switched off.

/// The sync core in this process as the transport: the real router, store and JWT checks
/// of `SyncService`, without HTTP (tests, and programs that embed the service).
struct InProcessTransport: SyncTransport {
    let service: SyncService
    init(service: SyncService) { self.service = service }
    func send(_ request: SyncRequest, timeoutSeconds: Int) throws -> SyncResponse {
        service.handleBlocking(request)
    }
}


/// The in-process transport, with a switch that takes the network down.
final class SwitchableTransport: SyncTransport, @unchecked Sendable {
    let inner: InProcessTransport
    let online = Mutex(true)
    /// Called with each request before it is sent (and may change it): a test's hand on
    /// the wire, as the fault proxy's on a real server's.
    let beforeSend = Mutex<(@Sendable (SyncRequest) -> SyncRequest)?>(nil)
    init(_ service: SyncService) { inner = InProcessTransport(service: service) }
    struct Down: Error {}
    func send(_ request: SyncRequest, timeoutSeconds: Int) throws -> SyncResponse {
        guard online.withLock({ $0 }) else { throw Down() }
        let hook = beforeSend.withLock { $0 }
        return try inner.send(hook?(request) ?? request, timeoutSeconds: timeoutSeconds)
    }
}

/// Every event of a client, in order.
final class EventLog: @unchecked Sendable {
    let events = Mutex<[String]>([])
    func record(_ e: SyncEvent) {
        let text: String
        switch e {
        case .stateChanged(let s): text = "state \(s)"
        case .downloadProgress: text = "progress"
        case .downloadFinished: text = "downloadFinished"
        case .downloadFailed(let e): text = "downloadFailed \(e.kind)"
        case .syncFinished: text = "syncFinished"
        case .syncFailed(let e): text = "syncFailed \(e.kind)"
        case .documentChanged(let ids): text = "documentChanged \(ids.sorted().joined(separator: ","))"
        case .changeDropped(let d): text = "changeDropped \(d.id) \(d.reason)"
        case .recordsRepaired(let ids, _): text = "recordsRepaired \(ids.sorted().joined(separator: ","))"
        case .presenceChanged: text = "presenceChanged"
        case .authenticationNeeded: text = "authenticationNeeded"
        case .reauthenticationFinished: text = "reauthenticationFinished"
        case .reauthenticationFailed(let e): text = "reauthenticationFailed \(e.kind)"
        }
        events.withLock { $0.append(text) }
    }
    var all: [String] { events.withLock { $0 } }
    func contains(_ prefix: String) -> Bool { all.contains { $0.hasPrefix(prefix) } }
}

func makeClient(_ h: Harness, _ transport: SwitchableTransport, _ dir: String, log: EventLog) throws -> SyncClient {
    var configuration = SyncClientConfiguration()
    configuration.autoSyncDelay = 0  // the tests sync explicitly
    let client = try SyncClient(transport: transport, dataDirectory: dir, configuration: configuration)
    client.eventHandler = { _, e in log.record(e) }
    return client
}

/// Downloads and waits.
func downloaded(_ client: SyncClient, token: String) throws -> SyncDescriptor {
    let d = try client.descriptor(forJWT: token)
    try d.download(token: token)
    try d.waitIdle()
    return d
}

/// The server's records of layer main, without pdfObjectId, by id.
func serverRecords(_ h: Harness) async throws -> [String: String] {
    let layer = try await h.layer()
    var out: [String: String] = [:]
    for item in layer["records"]?.arrayValue ?? [] {
        guard case .object(var fields)? = item["record"], case .string(let id)? = fields["id"] else { continue }
        fields["pdfObjectId"] = nil
        out[id] = InstantJSONValue.object(fields).canonicalText
    }
    return out
}

/// A descriptor's local records (its document's export), without pdfObjectId, by id.
func localRecords(_ d: SyncDescriptor) throws -> [String: String] {
    try d.withDocument { doc in
        let v = try InstantJSONValue(parsing: doc.exportAnnotationsJSON(page: nil, prettyPrinted: false))
        var out: [String: String] = [:]
        for item in v["annotations"]?.arrayValue ?? [] {
            guard case .object(var fields) = item, case .string(let id)? = fields["id"] else { continue }
            fields["pdfObjectId"] = nil
            out[id] = InstantJSONValue.object(fields).canonicalText
        }
        return out
    }
}

func note(_ d: SyncDescriptor, _ name: String, _ text: String, page: Int = 0) throws -> ObjectID? {
    try d.withDocument { doc in
        var a = Annotation(subtype: "Text", pageIndex: page, rect: Rect(left: 50, bottom: 50, right: 70, top: 70))
        a.name = name
        a.contents = text
        a.author = "tester"
        return try doc.addAnnotation(a).id
    }
}

/// Changes annotation `name` of the descriptor's document by `change` and writes it back.
func editAnnotation(_ d: SyncDescriptor, _ name: String, _ change: (inout Annotation) -> Void) throws {
    try d.withDocument { doc in
        for page in 0..<(try doc.pageCount()) {
            for var a in try doc.annotations(onPage: page) where a.name == name {
                change(&a)
                try doc.updateAnnotation(a)
                return
            }
        }
        Issue.record("no annotation \(name)")
    }
}

func setContents(_ d: SyncDescriptor, _ name: String, _ text: String) throws {
    try editAnnotation(d, name) { $0.contents = text }
}

@Suite("Sync client against the in-process core", .serialized)
struct SyncClientTests {
    @Test func descriptorsForTokens() async throws {
        let h = try await Harness()
        defer { Task { await h.finish() } }
        let dir = try TempDir()
        defer { dir.remove() }
        let log = EventLog()
        let client = try makeClient(h, SwitchableTransport(h.service), dir.path, log: log)
        let t1 = try await sign(claims())
        let t2 = try await sign(claims(user: "bob"))
        let a = try client.descriptor(forJWT: t1)
        #expect(a === (try client.descriptor(forJWT: t2)))
        #expect(a.documentID == "doc" && a.layer == "main")
        #expect(a.state == .unknown)
        let other = try client.descriptor(forJWT: try await sign(claims(layer: "other")))
        #expect(other !== a)
        #expect(throws: SyncClientError.self) { try client.descriptor(forJWT: "garbage") }
        #expect(throws: SyncClientError.self) { try client.descriptor(forJWT: "a.b.c") }
        // A token of another layer is refused for this descriptor.
        let otherToken = try await sign(claims(layer: "other"))
        #expect(throws: SyncClientError.self) { try a.download(token: otherToken) }
        #expect(throws: SyncClientError.self) { try a.reauthenticate(token: otherToken) }
    }

    @Test func downloadEditSyncAndConverge() async throws {
        let h = try await Harness()
        let dirA = try TempDir(), dirB = try TempDir()
        defer { dirA.remove(); dirB.remove() }
        let logA = EventLog(), logB = EventLog()
        let transport = SwitchableTransport(h.service)
        let clientA = try makeClient(h, transport, dirA.path, log: logA)
        let clientB = try makeClient(h, transport, dirB.path, log: logB)
        let token = try await sign(claims())
        let a = try downloaded(clientA, token: token)
        let b = try downloaded(clientB, token: token)
        #expect(a.state == .clean, "\(logA.all)")
        #expect(logA.contains("downloadFinished"))
        #expect(fileExists(a.pdfPath) && fileExists(a.storePath))
        // The editable document holds the layer's records (the PDF's own four).
        #expect(try Set(localRecords(a).keys) == ["sq-1", "re-1", "st-1", "hl-1"])
        let initial = try await serverRecords(h)
        #expect(try localRecords(a) == initial)

        // A note and a reply by A: pending at once (durable), pushed by the sync.
        let noteID = try note(a, "note-a", "from A")
        #expect(noteID != nil)
        _ = try a.withDocument { doc in
            try doc.addReply(to: try #require(noteID), author: "A", contents: "reply by A")
        }
        #expect(a.state == .dirty)
        #expect(try a.pendingChanges() == 2)
        try a.syncNow()
        #expect(try a.pendingChanges() == 0)
        #expect(a.state == .clean)
        let server = try await serverRecords(h)
        #expect(server.keys.contains("note-a") && server.count == 6)
        // B pulls them into its document.
        try b.syncNow()
        try b.waitIdle()
        #expect(try localRecords(b) == server)
        #expect(try localRecords(a) == server)
        #expect(logB.contains("documentChanged"))

        // Both edit the same annotation: A first wins, B is told and shows A's.
        try setContents(a, "sq-1", "A's text")
        try setContents(b, "sq-1", "B's text")
        try a.syncNow()
        try b.syncNow()
        try b.waitIdle()
        #expect(logB.contains("changeDropped sq-1 conflict"), "\(logB.all)")
        try a.syncNow()
        let final = try await serverRecords(h)
        #expect(try localRecords(a) == final)
        #expect(try localRecords(b) == final)
        #expect(final["sq-1"]?.contains("A's text") == true)
        // A delete travels too.
        try b.withDocument { doc in
            for x in try doc.annotations(onPage: 1) where x.name == "hl-1" { try doc.deleteAnnotation(try #require(x.id)) }
        }
        try b.syncNow()
        try a.syncNow()
        let afterDelete = try await serverRecords(h)
        #expect(afterDelete["hl-1"] == nil)
        #expect(try localRecords(a) == afterDelete)
        #expect(try localRecords(b) == afterDelete)
        clientA.close(); clientB.close()
        await h.finish()
    }

    @Test func offlineEditsSyncExactlyOnceAndSurviveARestart() async throws {
        let h = try await Harness()
        let dir = try TempDir()
        defer { dir.remove() }
        let log = EventLog()
        let transport = SwitchableTransport(h.service)
        let token = try await sign(claims())
        var client = try makeClient(h, transport, dir.path, log: log)
        var d = try downloaded(client, token: token)
        transport.online.withLock { $0 = false }
        for i in 0..<5 { _ = try note(d, "off-\(i)", "offline \(i)") }
        try setContents(d, "off-0", "changed while offline")
        #expect(throws: SyncClientError.self) { try d.syncNow() }
        // A push that reached the server but whose answer was lost: the retry is the same
        // mutations, answered from the store, applied once.
        #expect(try d.pendingChanges() == 5)
        // The process "restarts": a new client on the same directory, no token.
        client.close()
        let log2 = EventLog()
        client = try makeClient(h, transport, dir.path, log: log2)
        d = try client.descriptor(forJWT: token)
        #expect(d.state == .dirty)
        #expect(try d.pendingChanges() == 5)
        #expect(try Set(localRecords(d).keys).isSuperset(of: (0..<5).map { "off-\($0)" }))
        transport.online.withLock { $0 = true }
        #expect(throws: SyncClientError.self) { try d.syncNow() }
        try d.waitIdle()
        #expect(log2.contains("authenticationNeeded"))
        try d.reauthenticate(token: token)
        try d.waitIdle()
        #expect(log2.contains("reauthenticationFinished"), "\(log2.all)")
        #expect(try d.pendingChanges() == 0)
        try d.syncNow()
        let server = try await serverRecords(h)
        #expect(server["off-0"]?.contains("changed while offline") == true)
        // Exactly once: the feed has one change per offline record.
        let r = await h.client("GET", "/documents/doc/layers/main/changes", token: token, query: ["since": "0"])
        let changes = try json(r)["changes"]?.arrayValue ?? []
        let ids = changes.compactMap { c -> String? in if case .string(let s)? = c["id"] { return s } else { return nil } }
        for i in 0..<5 { #expect(ids.filter { $0 == "off-\(i)" }.count == 1, "\(ids)") }
        #expect(try localRecords(d) == server)
        client.close()
        await h.finish()
    }

    @Test func tokenProviderAndExpiry() async throws {
        let h = try await Harness()
        let dir = try TempDir()
        defer { dir.remove() }
        let log = EventLog()
        let client = try makeClient(h, SwitchableTransport(h.service), dir.path, log: log)
        let good = try await sign(claims())
        let expired = try await sign(claims(expiresIn: -3600))
        let d = try downloaded(client, token: good)
        _ = try note(d, "n1", "x")
        try d.reauthenticate(token: expired)
        try d.waitIdle()
        #expect(log.contains("reauthenticationFailed authentication"), "\(log.all)")
        // The expired token is not kept: the good one still works.
        try d.syncNow()
        // Expired token in use: the sync fails with the authentication event; a provider resumes.
        let expiredSecond = try await sign(claims(layer: "second", expiresIn: -3600))
        let d2 = try client.descriptor(forJWT: expiredSecond)
        try d2.download(token: expiredSecond)
        // A failed download is never silent: waiting for it throws its failure.
        #expect(throws: SyncClientError.self) { try d2.waitIdle() }
        #expect(log.contains("downloadFailed authentication"))
        #expect(log.contains("authenticationNeeded"))
        let fresh = try await sign(claims(layer: "second"))
        client.tokenProvider = { _ in fresh }
        try d2.download(token: expiredSecond)
        try d2.waitIdle()
        #expect(d2.state == .clean, "\(log.all)")
        client.close()
        await h.finish()
    }

    @Test func removingLocalStorage() async throws {
        let h = try await Harness()
        let dir = try TempDir()
        defer { dir.remove() }
        let log = EventLog()
        let client = try makeClient(h, SwitchableTransport(h.service), dir.path, log: log)
        let main = try downloaded(client, token: try await sign(claims()))
        let second = try downloaded(client, token: try await sign(claims(layer: "second")))
        #expect(main.pdfPath == second.pdfPath)
        try main.removeLocalStorage()
        #expect(!fileExists(main.storePath) && !fileExists(main.storePath + "-wal"))
        #expect(fileExists(second.storePath) && fileExists(main.pdfPath))
        #expect(main.state == .unknown)
        #expect(try client.removeUnusedCache() == 0)  // "second" still uses the PDF
        try second.removeLocalStorage()
        #expect(try client.removeUnusedCache() == 1)
        #expect(!fileExists(main.pdfPath))
        // Removing a document removes its PDF and every layer.
        let again = try downloaded(client, token: try await sign(claims()))
        #expect(again.state == .clean)
        try client.removeLocalStorage(document: "doc")
        #expect(!fileExists(again.pdfPath) && !fileExists(again.storePath))
        client.close()
        await h.finish()
    }
}

func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
