import Dispatch
import QuireConvergence
import Testing

// The convergence harness (Tests/Convergence) in the debug build: a few seeded schedules,
// with and without faults. `make test` runs 500 in release (quire-convergence), and
// `make test-convergence-long` 10,000.

@Suite("Convergence: seeded schedules of several clients", .serialized)
struct ConvergenceTests {
    /// The schedules block their thread (the clients' syncs, the service's blocking
    /// handler): they run on a thread of their own, never on the test's cooperative pool.
    func run(seed: UInt64, count: Int, faults: Bool) async throws -> ConvergenceSummary {
        var options = ConvergenceOptions(directory: defaultConvergenceDirectory() + "-swift-\(seed)")
        options.seed = seed
        options.steps = 15...35
        options.faults = faults
        let chosen = options
        return try await offload { runSchedules(chosen, first: 0, count: count) }
    }

    @Test func aPerfectNetwork() async throws {
        let summary = try await run(seed: 7, count: 4, faults: false)
        #expect(summary.failures.isEmpty, "\(summary.failures.flatMap(\.problems).prefix(30))")
        #expect(summary.accepted > 0 && summary.edits > 0)
    }

    @Test func lossDuplicatesDelaysCutsAndCrashes() async throws {
        let summary = try await run(seed: 20_261_127, count: 8, faults: true)
        #expect(summary.failures.isEmpty, "\(summary.failures.flatMap(\.problems).prefix(30))")
        #expect(summary.accepted > 0 && summary.faults.keys.count > 3, "\(summary.text)")
        // Concurrent edits of one record met on the server and were merged field by field.
        #expect(summary.merges > 0, "\(summary.text)")
    }

    /// Image stamps and file attachments (their bytes attachments uploaded before their
    /// records, fetched before they are shown) drawn among the edits, deletes racing them:
    /// every client ends equal to the server, its document's export (the attachment ids
    /// of the files it embeds) included.
    @Test func attachmentsRacingDeletes() async throws {
        let summary = try await run(seed: 33, count: 10, faults: true)
        #expect(summary.failures.isEmpty, "\(summary.failures.flatMap(\.problems).prefix(30))")
        #expect(summary.fileAttachments > 0 && summary.imageStamps > 0, "\(summary.text)")
    }
}

/// Runs `body` on a thread of its own, for code that blocks: the tests' cooperative
/// threads (as many as cores) must never wait for the clients' workers, which wait for the
/// service's tasks on those same threads. The body stays in the test's task (a task
/// executor preference, not another thread's closure), so its expectations are the test's.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(ThreadExecutor()) { try body() }
}

/// A task executor with a serial queue of its own (an overcommitting thread, outside the
/// cooperative pool).
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    let queue = DispatchQueue(label: "quire.tests.blocking")
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
