import Dispatch
import QuireDocument
import QuireSync
import QuireSyncClient
import QuireSyncProtocol
import Synchronization

// The server and the network of a convergence run: the real sync core (SyncService with a
// SQLite store on a file, restartable), and each client's transport, which the schedule
// controls: deliver, drop the request, drop the answer, duplicate, delay (delivered later,
// in any order, possibly to a restarted server), cut the client off.

/// The sync service of a run, on a SQLite file: restartable, as a server process that is
/// killed and started again on the same database.
final class ServerBox: @unchecked Sendable {
    let path: String
    let configuration: SyncConfiguration
    private let lock = Mutex<SyncService?>(nil)

    init(path: String, publicKey: String) throws {
        self.path = path
        var limits = SyncLimits()
        // Every change and answer kept: the checks replay the whole feed.
        limits.changeRetention = 1_000_000
        limits.answerRetention = 1_000_000
        // No grace period: an attachment that no record names is collected at every upload
        // and at the schedule's collections, so that a push held in flight, delayed or cut
        // off finds its attachment gone and the client uploads it again (issue 33).
        limits.attachmentGraceSeconds = 0
        configuration = SyncConfiguration(storeURL: "sqlite://" + path, publicKeys: [publicKey],
                                          adminToken: ServerBox.adminToken, limits: limits)
        let service = try SyncService(configuration)
        lock.withLock { $0 = service }
    }

    static let adminToken = "convergence-admin"

    var service: SyncService? { lock.withLock { $0 } }

    /// One request through the router, as an HTTP host would hand it over.
    func handle(_ request: SyncRequest) -> SyncResponse {
        guard let service else { return SyncResponse(status: 503) }
        return service.handleBlocking(request)
    }

    func admin(_ method: String, _ path: String, query: [String: String] = [:], body: [UInt8] = []) -> SyncResponse {
        handle(SyncRequest(method: method, path: path, query: query, headers: [("Authorization", "Token \(ServerBox.adminToken)")],
                           body: body))
    }

    /// Stops the service (its store closed, as a killed process's is left) and starts a new
    /// one on the same file.
    func restart() throws {
        let old = lock.withLock { s -> SyncService? in
            let o = s
            s = nil
            return o
        }
        if let old { _ = try? blocking { await old.close() } }
        let fresh = try SyncService(configuration)
        lock.withLock { $0 = fresh }
    }

    func close() {
        let old = lock.withLock { s -> SyncService? in
            let o = s
            s = nil
            return o
        }
        if let old { _ = try? blocking { await old.close() } }
    }
}

/// Runs `body` to its end from synchronous code.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do { let v = try await body(); box.withLock { $0 = .success(v) } } catch { box.withLock { $0 = .failure(error) } }
        done.signal()
    }
    done.wait()
    // The task always sets it before signalling.
    guard let result = box.withLock({ $0 }) else { throw NetworkFault(what: "no result") }
    return try result.get()
}

/// What the network does with one request.
enum Fault: String, CaseIterable, Sendable {
    case deliver, dropRequest, dropAnswer, duplicate, delay, interleave
}

/// The network error a client sees when the schedule loses its request or answer.
struct NetworkFault: Error, CustomStringConvertible {
    let what: String
    var description: String { "convergence network: \(what)" }
}

/// A client's transport: asks the run what to do with each request.
final class ScheduledTransport: SyncTransport, @unchecked Sendable {
    let client: Int
    unowned(unsafe) let run: ScheduleRun

    init(client: Int, run: ScheduleRun) {
        self.client = client
        self.run = run
    }

    func send(_ request: SyncRequest, timeoutSeconds: Int) throws -> SyncResponse {
        try run.send(request, from: client)
    }
}

/// What the server answered to each mutation key, as the network saw it (answers that
/// were then lost included): the checks of "applied once" and "in order".
struct AnswerLog {
    /// (client id, client seq) -> the seqs of the accepted answers seen (one expected).
    var accepted: [String: Set<Int64>] = [:]
    /// (client id, client seq) of rejected answers.
    var rejected: Set<String> = []
    /// client id -> [(client seq, seq)] accepted, as seen.
    var acceptedByClient: [String: [(Int64, Int64)]] = [:]
    /// (client id, client seq) of the puts accepted as a field-level merge.
    var merged: Set<String> = []

    mutating func record(_ request: SyncRequest, _ response: SyncResponse) {
        guard request.method == "POST", request.path.hasSuffix("/mutations"), response.status == 200,
              let body = try? InstantJSONValue(parsing: request.body), let clientID = body["client_id"]?.stringValue,
              let answer = try? InstantJSONValue(parsing: response.body), let results = answer["results"]?.arrayValue else { return }
        for result in results {
            guard let cs = result["client_seq"]?.integerValue else { continue }
            let key = "\(clientID)#\(cs)"
            if result["status"]?.stringValue == "accepted", let seq = result["seq"]?.integerValue {
                accepted[key, default: []].insert(seq)
                acceptedByClient[clientID, default: []].append((cs, seq))
                if result["record"] != nil { merged.insert(key) }
            } else {
                rejected.insert(key)
            }
        }
    }
}

