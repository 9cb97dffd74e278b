import FoundationEssentials
import QuireConvergence

#if canImport(Glibc)
import Glibc
#endif

// quire-convergence: seeded random schedules of several sync clients over a network the
// schedule controls, each checked for convergence (Tests/Convergence/README.md).
//
//   quire-convergence [--schedules N] [--seed S] [--first K] [--clients A-B] [--steps A-B]
//                     [--no-faults] [--trace] [--keep] [--directory D]
//
// Exit status 0 when every schedule passed, 1 when one failed (each failure printed with
// the command that replays it), 2 for a bad argument.

/// Prints a line at once, also into a pipe or a file (CI's log, a long run's), so that
/// progress shows while the run goes on.
func say(_ line: String) {
    print(line)
    fflush(nil)
}

func usage() -> Never {
    print("""
        usage: quire-convergence [--schedules N] [--seed S] [--first K] [--clients A-B] [--steps A-B]
                                 [--no-faults] [--trace] [--directory D]
          --schedules N   how many schedules (default 500)
          --seed S        the run's seed (default 1; $QUIRE_CONVERGENCE_SEED)
          --first K       the first schedule's number (default 0): --first K --schedules 1 replays schedule K
          --clients A-B   clients per schedule (default 3-6)
          --steps A-B     steps per schedule before quiescence (default 30-80)
          --no-faults     a perfect network, no crashes
          --trace         print every step
          --directory D   where schedules keep their files (default: a directory under /dev/shm)
        """)
    exit(2)
}

func range(_ s: String) -> ClosedRange<Int>? {
    let parts = s.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 2, parts[0] >= 1, parts[0] <= parts[1] else { return nil }
    return parts[0]...parts[1]
}

var options = ConvergenceOptions(directory: defaultConvergenceDirectory())
if let s = getenv("QUIRE_CONVERGENCE_SEED"), let seed = UInt64(String(cString: s)) { options.seed = seed }
var count = 500
var first = 0
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--schedules": guard let v = args.next().flatMap({ Int($0) }), v >= 0 else { usage() }; count = v
    case "--seed": guard let v = args.next().flatMap({ UInt64($0) }) else { usage() }; options.seed = v
    case "--first": guard let v = args.next().flatMap({ Int($0) }), v >= 0 else { usage() }; first = v
    case "--clients": guard let v = args.next().flatMap(range) else { usage() }; options.clients = v
    case "--steps": guard let v = args.next().flatMap(range) else { usage() }; options.steps = v
    case "--no-faults": options.faults = false
    case "--trace": options.trace = true
    case "--directory": guard let v = args.next() else { usage() }; options.directory = v
    case "-h", "--help": usage()
    default: print("quire-convergence: unknown argument \(a)"); usage()
    }
}

say("quire-convergence: seed \(options.seed), schedules \(first)..<\(first + count), \(options.clients.lowerBound)-\(options.clients.upperBound) clients, \(options.steps.lowerBound)-\(options.steps.upperBound) steps, faults \(options.faults ? "on" : "off")")
let summary = runSchedules(options, first: first, count: count) { report, summary in
    if report.failed {
        say("schedule \(report.schedule) FAILED (\(report.clients) clients, \(report.steps) steps):")
        for p in report.problems.prefix(20) { say("  " + p) }
        if report.problems.count > 20 { say("  ... \(report.problems.count - 20) more") }
        say("  replay: quire-convergence --seed \(options.seed) --first \(report.schedule) --schedules 1 --trace")
    }
    if summary.schedules % 50 == 0 {
        say("  \(summary.schedules) schedules, \(summary.failures.count) failed, \(Int(summary.seconds)) s")
    }
}
say(summary.text)
if summary.failures.isEmpty {
    try? FileManager.default.removeItem(atPath: options.directory)
} else {
    say("the failing schedules' files are in \(options.directory)")
}
exit(summary.failures.isEmpty ? 0 : 1)
