import Dispatch
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What a run of many schedules found.
public struct ConvergenceSummary: Sendable {
    public var schedules = 0
    public var failures: [ScheduleReport] = []
    public var edits = 0
    public var syncs = 0
    public var accepted = 0
    public var droppedChanges = 0
    /// Puts merged field by field with concurrent changes (issue 33).
    public var merges = 0
    public var formFills = 0
    public var bookmarkEdits = 0
    public var imageStamps = 0
    public var fileAttachments = 0
    public var missingAttachments = 0
    public var repairs: Int64 = 0
    public var divergences = 0
    public var lost = 0
    public var duplicated = 0
    public var disordered = 0
    public var errors = 0
    public var faults: [String: Int] = [:]
    public var seconds = 0.0

    mutating func add(_ r: ScheduleReport) {
        schedules += 1
        edits += r.edits
        syncs += r.syncs
        accepted += r.accepted
        droppedChanges += r.droppedChanges
        merges += r.merges
        formFills += r.formFills
        bookmarkEdits += r.bookmarkEdits
        imageStamps += r.imageStamps
        fileAttachments += r.fileAttachments
        missingAttachments += r.missingAttachments
        repairs += r.repairs
        divergences += r.divergences.count
        lost += r.lost.count
        duplicated += r.duplicated.count
        disordered += r.disordered.count
        errors += r.errors.count
        for (k, v) in r.faults { faults[k, default: 0] += v }
        if r.failed { failures.append(r) }
    }

    public var text: String {
        let f = faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return """
            \(schedules) schedules in \((seconds * 10).rounded() / 10) s: \(failures.count) failed
              divergences \(divergences), lost \(lost), duplicated \(duplicated), out of order \(disordered), errors \(errors)
              edits \(edits), syncs \(syncs), mutations accepted \(accepted), local changes reported dropped \(droppedChanges), merges \(merges), repairs \(repairs)
              of which form fills \(formFills), bookmark edits \(bookmarkEdits), image stamps \(imageStamps), file attachments \(fileAttachments)
              pushes refused for an attachment collected before them \(missingAttachments)
              network: \(f)
            """
    }
}

/// Runs schedules `first ..< first + count` of `options`; `progress` after each.
public func runSchedules(_ options: ConvergenceOptions, first: Int, count: Int,
                         progress: (ScheduleReport, ConvergenceSummary) -> Void = { _, _ in }) -> ConvergenceSummary {
    var summary = ConvergenceSummary()
    let start = DispatchTime.now().uptimeNanoseconds
    for i in first..<(first + count) {
        let report = ScheduleRun(options: options, schedule: i).run()
        summary.add(report)
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        progress(report, summary)
    }
    return summary
}

/// A directory for the schedules' files: under /dev/shm when it exists (the stores fsync
/// every write), else under TMPDIR or /tmp.
public func defaultConvergenceDirectory() -> String {
    var st = stat()
    let base: String
    if stat("/dev/shm", &st) == 0 {
        base = "/dev/shm"
    } else if let t = getenv("TMPDIR") {
        base = String(cString: t)
    } else {
        base = "/tmp"
    }
    return base + "/quire-convergence-\(getpid())"
}
