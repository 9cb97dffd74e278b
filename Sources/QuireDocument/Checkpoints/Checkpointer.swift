import Dispatch
import QuireSyntax
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How and where a document keeps checkpoints of its unsaved changes.
public struct CheckpointOptions: Sendable, Equatable {
    /// When checkpoints are written.
    public enum Strategy: Sendable, Equatable {
        /// Only when ``Document/checkpoint()`` is called.
        case manual
        /// Every `seconds` while there are unsaved changes, on a background thread.
        case timed(seconds: Double)
        /// On every change, before the call that made it returns.
        case immediate
    }

    public var strategy: Strategy
    /// The directory of the checkpoint files; nil for the default,
    /// `$XDG_STATE_HOME/quire/checkpoints`, else `~/.local/state/quire/checkpoints`.
    public var directory: String?
    /// The name of the checkpoint: nil to derive it from the path the document was opened
    /// from. Required for a document opened from memory; the caller keeps it unique.
    public var uid: String?
    /// What to do with a checkpoint that exists when checkpointing starts (one left by a
    /// crash, or by a program that closed the document without saving): applied by
    /// default. Recovery data is never thrown away unless ``ExistingCheckpoint/discard``
    /// says so.
    public var existing: ExistingCheckpoint
    /// Checkpoint files older than this many seconds are removed from the directory when
    /// checkpointing starts (a week by default).
    public var maxAge: Double

    public init(strategy: Strategy = .manual, directory: String? = nil, uid: String? = nil,
                existing: ExistingCheckpoint = .load, maxAge: Double = 7 * 24 * 3600) {
        self.strategy = strategy
        self.directory = directory
        self.uid = uid
        self.existing = existing
        self.maxAge = maxAge
    }

    /// The default directory, from the environment.
    public static func defaultDirectory() -> String {
        if let state = getenv("XDG_STATE_HOME"), state.pointee != 0 {
            return String(cString: state) + "/quire/checkpoints"
        }
        let home = getenv("HOME").map { String(cString: $0) } ?? "."
        return home + "/.local/state/quire/checkpoints"
    }
}

/// What starting checkpoints does with a checkpoint that already exists for the document.
public enum ExistingCheckpoint: Sendable, Equatable {
    /// Apply its changes as unsaved changes (the default). A checkpoint taken against
    /// another version of the file is not applied: starting fails with a stale error and
    /// the checkpoint stays.
    case load
    /// Leave it as it is and fail with an ``PDFErrorKind/exists`` error when it holds
    /// changes that were never saved (or is stale), so that the program can ask its user
    /// first (see ``Checkpointer/inspect(_:options:)``). An empty checkpoint, or one whose
    /// changes a completed save already holds, is replaced.
    case refuse
    /// Throw it away and start afresh. The only option that loses recovery data.
    case discard
}

/// What a checkpoint holds, read without applying it.
public struct CheckpointInfo: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// There is no checkpoint file.
        case none
        /// Nothing to recover: an empty checkpoint, or one whose changes a completed save
        /// already holds.
        case empty
        /// Unsaved changes that starting with ``ExistingCheckpoint/load`` applies.
        case changes
        /// Taken against another version of the file: it cannot be applied.
        case stale
        /// Not a checkpoint this version can read, or a record in it cannot be decoded.
        case damaged
    }
    public var state: State
    /// The checkpoint file's path.
    public var path: String
    /// Its size in bytes (0 when there is none).
    public var size: Int
    /// When it was last written, in seconds since 1970 (0 when there is none).
    public var modified: Double
    /// How many objects its applicable changes touch (created, changed or deleted).
    public var changedObjects: Int
    /// Whether another open document, in this process or another, holds it.
    public var inUse: Bool
}

/// The checkpoint file of one document: an append-only journal of its unsaved changes.
///
/// Every change of the document's journal (``Document/changeLog``) becomes a record,
/// serialized on the caller's thread when the change is made (a cost in proportion to the
/// change). The immediate strategy writes the records of each operation at once, as one
/// group closed by a commit record; the timed and manual strategies keep them in memory
/// until a checkpoint writes them. Each record carries a CRC-32; on recovery, a torn last
/// record and an unfinished group are dropped. When the file holds much more than the
/// changes it describes, it is rewritten with the current state only (compaction).
///
/// The file is named after the document's UID and locked (`flock`) while the document is
/// open, so that a second document with the same UID is refused. Encrypted documents get
/// their records sealed with AES-256-GCM under a key derived from the file key.
public final class Checkpointer: ChangeObserver {
    /// The journal file.
    public let path: String
    public let options: CheckpointOptions
    /// Whether starting applied an existing checkpoint.
    public private(set) var loadedCheckpoint = false

    private weak var document: Document?
    private let lockFD: Int32
    private let key: [UInt8]?
    private var identity: [UInt8]
    /// How many entries of the document's change log are serialized.
    private var logged = 0
    /// The length of the journal once what is pending is written.
    private var journalBytes = 0
    /// Where the last record of each changed object is in the journal (what the current
    /// state needs), and the sum of their lengths, to decide on compaction.
    private var liveRecords: [Int: Span] = [:]
    private var liveTotal = 0
    /// The compaction running in the background, if any, and the records appended since it
    /// took its snapshot.
    private var compaction: Compaction? = nil
    private var sinceSnapshot: [(number: Int, span: Span)] = []

    struct Span: Sendable {
        var offset: Int
        var length: Int
    }

    /// A compaction's result, filled in by the background thread.
    private final class Compaction: @unchecked Sendable {
        let cutoff: Int
        let lock = Mutex(false)
        var temporary = ""
        var records: [Int: Span] = [:]
        var length = 0
        var total = 0
        var error: PDFError? = nil
        init(cutoff: Int) { self.cutoff = cutoff }
        var isDone: Bool { lock.withLock { $0 } }
    }

    /// The file and what is waiting to be written, shared with the timer's thread.
    private struct Shared: Sendable {
        var fd: Int32 = -1
        var pending: [UInt8] = []
        var error: PDFError? = nil
    }
    private final class Locked: Sendable {
        let state = Mutex(Shared())
        func withLock<R>(_ body: (inout Shared) throws -> R) rethrows -> R { try state.withLock { try body(&$0) } }
    }
    private let shared = Locked()
    private var timer: DispatchSourceTimer? = nil
    private let queue = DispatchQueue(label: "quire.checkpoint")

    static let magic = Array("QUIRECKP1\n".utf8)

    init(document: Document, options: CheckpointOptions) throws {
        self.document = document
        self.options = options
        let (directory, uid) = try Self.location(of: document, options)
        try FileSystem.makeDirectories(directory, mode: 0o700)
        path = directory + "/" + uid + ".qcheckpoint"
        lockFD = try Self.lock(directory + "/" + uid + ".lock")
        // What a process killed during a compaction or a journal start left: ours to remove,
        // as the lock is ours.
        unlink(path + ".compact")
        unlink(path + ".tmp")
        key = document.file.security?.derivedJournalKey
        identity = try JournalCodec.sha256(document.file.buffer)
        let preexisting = document.hasUnsavedChanges
        // Every stored property is set: if what follows throws, deinit releases the lock.
        Self.clean(directory, olderThan: options.maxAge, except: uid)
        if let existing = try FileSystem.read(path) {
            switch options.existing {
            case .load:
                loadedCheckpoint = try load(existing, into: document)
            case .refuse:
                // A stale or damaged checkpoint throws here, and stays.
                let parsed = try Self.parse(existing, path: path, identity: identity, key: key)
                if !parsed.saved && parsed.groups.contains(where: { !$0.isEmpty }) {
                    throw PDFError(.exists, "the checkpoint '\(path)' holds unsaved changes; load it or discard it")
                }
            case .discard:
                break
            }
        }
        let unjournaled = document.hasUnsavedChanges && !loadedCheckpoint || document.changeLog.count > 0 && loadedCheckpoint && preexisting
        if !loadedCheckpoint { try startJournal() }
        logged = document.changeLog.count
        // Changes made before checkpointing started are written now, as the current state.
        if unjournaled { try compact(document) }
        if case .timed(let seconds) = options.strategy {
            let source = DispatchSource.makeTimerSource(queue: queue)
            let interval = DispatchTimeInterval.milliseconds(Int(Swift.max(0.01, Swift.min(seconds, 86_400)) * 1000))
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler { [shared] in _ = try? Self.flush(shared, sync: true) }  // an error is kept for the next call
            source.resume()
            timer = source
        }
    }

    deinit {
        timer?.cancel()
        // Let queued work end (asynchronous checkpoints, a compaction) before the file closes.
        queue.sync {}
        if let job = compaction, !job.temporary.isEmpty { unlink(job.temporary) }
        if options.strategy != .manual { _ = try? Self.flush(shared, sync: true) }
        shared.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
        }
        flock(lockFD, LOCK_UN)
        close(lockFD)
    }

    /// The directory and UID of `document`'s checkpoint under `options`.
    static func location(of document: Document, _ options: CheckpointOptions) throws -> (directory: String, uid: String) {
        guard options.directory != "" else {
            throw PDFError(.invalidArgument, "the checkpoint directory is empty (nil means the default)")
        }
        let directory = options.directory ?? CheckpointOptions.defaultDirectory()
        guard let uid = try options.uid ?? document.sourcePath.map(Self.uid(forPath:)) else {
            throw PDFError(.invalidArgument, "a document opened from memory needs a checkpoint uid")
        }
        guard !uid.isEmpty, !uid.contains("/"), uid != ".", uid != ".." else {
            throw PDFError(.invalidArgument, "the checkpoint uid '\(uid)' is not a file name")
        }
        return (directory, uid)
    }

    /// What the checkpoint of `document` under `options` holds, without applying it,
    /// locking it or changing any file.
    public static func inspect(_ document: Document, options: CheckpointOptions) throws -> CheckpointInfo {
        let (directory, uid) = try location(of: document, options)
        let path = directory + "/" + uid + ".qcheckpoint"
        var info = CheckpointInfo(state: .none, path: path, size: 0, modified: 0, changedObjects: 0, inUse: false)
        guard let bytes = try FileSystem.read(path) else { return info }
        var st = stat()
        if stat(path, &st) == 0 {
            info.modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        }
        info.size = bytes.count
        let lockPath = directory + "/" + uid + ".lock"
        let fd = open(lockPath, O_RDWR | O_CLOEXEC)
        if fd >= 0 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { flock(fd, LOCK_UN) } else { info.inUse = errno == EWOULDBLOCK }
            close(fd)
        }
        let identity = try JournalCodec.sha256(document.file.buffer)
        do {
            let parsed = try parse(bytes, path: path, identity: identity, key: document.file.security?.derivedJournalKey)
            var objects = Set<Int>()
            for group in parsed.groups { for (change, _) in group { objects.insert(change.objectNumber) } }
            info.changedObjects = parsed.saved ? 0 : objects.count
            info.state = info.changedObjects > 0 ? .changes : .empty
        } catch let e as PDFError where e.kind == .stale {
            info.state = .stale
        } catch let e as PDFError where e.kind == .format {
            info.state = .damaged
        }
        return info
    }

    /// Whether two paths name the same file (or, for files that do not exist, are equal).
    static func samePath(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0, stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return a == b
    }

    /// The default UID of a file: a digest of its absolute path.
    static func uid(forPath path: String) throws -> String {
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let absolute = realpath(path, &resolved) != nil
            ? String(decoding: resolved.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : path
        return Hex.string(JournalCodec.sha256(Array(absolute.utf8)).prefix(16))
    }

    // MARK: Recording changes

    /// Called by the document after each change outside a batch, and at the end of each
    /// batch: serializes the new entries of the change log as one group and, for the
    /// immediate strategy, writes them before returning.
    public func changesMade(_ log: [Change], in document: Document) throws {
        guard logged < log.count else { return }
        try finishCompaction()
        var out: [UInt8] = []
        for change in log[logged...] {
            let payload = try record(change, document)
            let before = out.count
            try frame(payload, to: &out)
            noteRecord(change.objectNumber, Span(offset: journalBytes + before, length: out.count - before))
        }
        try frame([UInt8(ascii: "G")], to: &out)
        logged = log.count
        journalBytes += out.count
        shared.withLock { $0.pending += out }
        if options.strategy == .immediate {
            try Self.flush(shared, sync: true)  // durable before the call returns: a power cut loses nothing acknowledged either
            startCompactionIfWorthIt()
        } else if options.strategy != .manual, compaction == nil, journalBytes > 1 << 20, journalBytes > 4 * liveTotal {
            // Timed: compaction needs what is pending in the file first (a
            // write, without waiting for the disk).
            try Self.flush(shared, sync: false)
            startCompactionIfWorthIt()
        }
    }

    private func noteRecord(_ number: Int, _ span: Span) {
        liveTotal += span.length - (liveRecords[number]?.length ?? 0)
        liveRecords[number] = span
        if compaction != nil { sinceSnapshot.append((number, span)) }
    }

    /// Writes what is pending: a checkpoint of every change made so far.
    public func checkpoint() throws {
        try finishCompaction()
        try Self.flush(shared, sync: true)
        startCompactionIfWorthIt()
    }

    /// Writes what is pending on a background thread, then calls `completion` there with
    /// nil or the error.
    public func checkpoint(completion: @escaping @Sendable (PDFError?) -> Void) {
        queue.async { [shared] in
            do {
                try Self.flush(shared, sync: true)
                completion(nil)
            } catch let e as PDFError {
                completion(e)
            } catch {
                completion(PDFError(.internal, "\(error)"))
            }
        }
    }

    /// Appends the pending bytes to the journal; `sync` also flushes them to disk.
    @discardableResult
    private static func flush(_ shared: Locked, sync: Bool) throws -> Int {
        try shared.withLock { s in
            if let e = s.error { throw e }
            guard !s.pending.isEmpty else { return 0 }
            guard s.fd >= 0 else {
                throw PDFError(.state, "checkpointing stopped before the checkpoint was written")
            }
            do {
                try AtomicFile.append(s.fd, s.pending, "cannot write the checkpoint")
                if sync { _ = fdatasync(s.fd) }
            } catch let e as PDFError {
                s.error = e
                throw e
            }
            let n = s.pending.count
            s.pending.removeAll(keepingCapacity: true)
            return n
        }
    }

    /// The payload of one change (see ``CheckpointRecord``).
    private func record(_ change: Change, _ document: Document) throws -> [UInt8] {
        try CheckpointRecord.encode(change, file: document.file)
    }

    /// Frames `payload`, sealed first for an encrypted document (the header stays clear).
    private func frame(_ payload: [UInt8], to out: inout [UInt8]) throws {
        if let key, payload.first != UInt8(ascii: "H") {
            JournalCodec.frame([UInt8(ascii: "E")] + (try JournalCodec.seal(payload, key: key)), to: &out)
        } else {
            JournalCodec.frame(payload, to: &out)
        }
    }

    // MARK: The journal file

    /// Starts a new journal for the current state of the document: its header (the file's
    /// identity) and, if there are unsaved changes, a group with the current value of
    /// every changed object. Written to a temporary file and renamed over the old journal;
    /// the file stays open to append to. The temporary file's fixed name (`.tmp`, like the
    /// compaction's `.compact`) is safe: only the holder of the document's lock file writes
    /// it, and the next holder removes what a killed one left.
    private func startJournal(with state: [UInt8] = []) throws {
        var out = Self.magic
        try frame([UInt8(ascii: "H")] + identity, to: &out)
        out += state
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFile.ioError("cannot create '\(temporary)'") }
        do {
            try AtomicFile.append(fd, out, "cannot write the checkpoint")
            guard fsync(fd) == 0 else { throw AtomicFile.ioError("cannot flush '\(temporary)'") }
            guard rename(temporary, path) == 0 else { throw AtomicFile.ioError("cannot rename '\(temporary)'") }
            AtomicFile.syncDirectory(of: path)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        _ = lseek(fd, 0, SEEK_END)
        shared.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = fd
            s.pending.removeAll()
            s.error = nil
        }
        journalBytes = out.count
    }

    // MARK: Compaction

    /// Starts rewriting the journal with the current state alone, on the background
    /// thread, once it has grown past 1 MiB and four times what that state needs: each
    /// change pays a constant share, and the caller never waits for the copy.
    private func startCompactionIfWorthIt() {
        guard compaction == nil, journalBytes > 1 << 20, journalBytes > 4 * liveTotal else { return }
        guard shared.withLock({ $0.pending.isEmpty && $0.error == nil }) else { return }
        let job = Compaction(cutoff: journalBytes)
        compaction = job
        sinceSnapshot = []
        let spans = liveRecords  // a copy-on-write snapshot: O(1) here
        let path = self.path, identity = self.identity
        queue.async {
            Self.compact(job, journal: path, header: identity, spans: spans)
        }
    }

    /// The background half: copies the live records, unchanged, into a new file.
    private static func compact(_ job: Compaction, journal: String, header: [UInt8], spans: [Int: Span]) {
        let temporary = journal + ".compact"
        var result: [Int: Span] = [:]
        var out = magic
        JournalCodec.frame([UInt8(ascii: "H")] + header, to: &out)
        let source = open(journal, O_RDONLY | O_CLOEXEC)
        let target = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            if source >= 0 { close(source) }
            if target >= 0 { close(target) }
        }
        do {
            guard source >= 0, target >= 0 else { throw AtomicFile.ioError("cannot open '\(journal)' for compaction") }
            for (number, span) in spans.sorted(by: { $0.value.offset < $1.value.offset }) {
                let bytes = try readRange(source, span.offset, span.length)
                result[number] = Span(offset: job.length + out.count, length: span.length)
                out += bytes
                if out.count > 1 << 22 {  // write as it goes, in 4 MiB pieces
                    try AtomicFile.append(target, out, "cannot write the checkpoint")
                    job.length += out.count
                    out.removeAll(keepingCapacity: true)
                }
            }
            JournalCodec.frame([UInt8(ascii: "G")], to: &out)
            try AtomicFile.append(target, out, "cannot write the checkpoint")
            job.length += out.count
            guard fsync(target) == 0 else { throw AtomicFile.ioError("cannot flush '\(temporary)'") }
            job.temporary = temporary
            job.records = result
            job.total = result.values.reduce(0) { $0 + $1.length }
        } catch let e as PDFError {
            job.error = e
            unlink(temporary)
        } catch {
            job.error = PDFError(.io, "\(error)")
            unlink(temporary)
        }
        job.lock.withLock { $0 = true }
    }

    /// On the caller's thread: if a compaction has finished, appends what was written
    /// since its snapshot and puts the new file in place of the journal.
    private func finishCompaction() throws {
        guard let job = compaction, job.isDone else { return }
        compaction = nil
        defer { sinceSnapshot = [] }
        if job.error != nil { return }  // the journal is still whole; try again later
        try shared.withLock { s in
            if !s.pending.isEmpty {
                try AtomicFile.append(s.fd, s.pending, "cannot write the checkpoint")
                s.pending.removeAll(keepingCapacity: true)
            }
            let tail = try Self.readRange(s.fd, job.cutoff, journalBytes - job.cutoff, reopen: path)
            let target = open(job.temporary, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard target >= 0 else { throw AtomicFile.ioError("cannot open '\(job.temporary)'") }
            do {
                try AtomicFile.append(target, tail, "cannot write the checkpoint")
                guard fsync(target) == 0 else { throw AtomicFile.ioError("cannot flush '\(job.temporary)'") }
                guard rename(job.temporary, path) == 0 else { throw AtomicFile.ioError("cannot rename '\(job.temporary)'") }
            } catch {
                close(target)
                unlink(job.temporary)
                throw error
            }
            AtomicFile.syncDirectory(of: path)
            if s.fd >= 0 { close(s.fd) }
            s.fd = target
        }
        let shift = job.length - job.cutoff
        var records = job.records
        var total = job.total
        for (number, span) in sinceSnapshot {
            total += span.length - (records[number]?.length ?? 0)
            records[number] = Span(offset: span.offset + shift, length: span.length)
        }
        liveRecords = records
        liveTotal = total
        journalBytes += shift
    }

    /// Replaces the journal, now, by one group holding the current value of every changed
    /// object (re-serialized from the document).
    func compact(_ document: Document) throws {
        try Self.flush(shared, sync: false)
        var state: [UInt8] = []
        var spans: [Int: Span] = [:]
        let base = Self.magic.count + 8 + 1 + identity.count
        for (number, generation, value) in document.changes.currentState() {
            let change: Change = value.map { .setObject(ObjectID(number, generation), $0) } ?? .deleteObject(ObjectID(number, generation))
            let before = state.count
            try frame(try record(change, document), to: &state)
            spans[number] = Span(offset: base + before, length: state.count - before)
        }
        if !state.isEmpty { try frame([UInt8(ascii: "G")], to: &state) }
        try startJournal(with: state)
        liveRecords = spans
        liveTotal = spans.values.reduce(0) { $0 + $1.length }
    }

    /// Before a save replaces the file: records the identity of the new bytes, durably, so
    /// that recovery knows the changes are in the file if the process dies after the rename.
    public func willSave(_ saved: ByteBuffer, of document: Document) throws {
        try Self.flush(shared, sync: false)
        var out: [UInt8] = []
        try frame([UInt8(ascii: "V")] + (try JournalCodec.sha256(saved)), to: &out)
        journalBytes += out.count
        shared.withLock { $0.pending += out }
        try Self.flush(shared, sync: true)
    }

    /// After a save is durable: the old checkpoint is removed, and a new journal starts
    /// from the saved bytes.
    public func didSave(_ saved: ByteBuffer, of document: Document) throws {
        identity = (try JournalCodec.sha256(saved))
        abandonCompaction()
        liveRecords = [:]
        liveTotal = 0
        logged = 0
        do {
            try startJournal()
        } catch let e as PDFError {
            // The old journal ends with the marker of this save, so a later change appended
            // to it would be taken as saved on recovery, and lost. Every later change fails
            // instead (nothing is acknowledged that the checkpoint does not hold), until
            // checkpointing is started again.
            shared.withLock { $0.error = e }
            throw e
        }
    }

    /// Forgets a running compaction (its file is removed when it ends).
    private func abandonCompaction() {
        guard let job = compaction else { return }
        compaction = nil
        sinceSnapshot = []
        queue.async {
            if !job.temporary.isEmpty { unlink(job.temporary) }
        }
    }

    /// Stops checkpointing and removes the checkpoint file (after a save, or to discard).
    func remove() {
        abandonCompaction()
        timer?.cancel()
        queue.sync {}  // queued asynchronous checkpoints end first
        timer = nil
        shared.withLock { s in
            if s.fd >= 0 { close(s.fd) }
            s.fd = -1
            s.pending.removeAll()
        }
        unlink(path)
        AtomicFile.syncDirectory(of: path)
    }

    // MARK: Recovery

    /// A checkpoint file, read: its committed groups of changes (each change with where its
    /// record is), where its whole groups end, and whether a completed save holds them.
    struct Parsed {
        var groups: [[(change: Change, span: Span)]] = []
        var validEnd = 0
        var saved = false
    }

    /// Reads a checkpoint file. Recovery is strict about the right things: a torn record,
    /// one that does not authenticate, and an unfinished group end the journal (a crash
    /// while they were written: what they held was never acknowledged); a whole, authentic
    /// record that cannot be decoded is a format error, as is a record of an unknown kind.
    /// Throws a stale error for a checkpoint of another version of the file.
    static func parse(_ bytes: [UInt8], path: String, identity: [UInt8], key: [UInt8]?) throws -> Parsed {
        guard bytes.starts(with: magic) else {
            throw PDFError(.format, "'\(path)' is not a Quire checkpoint")
        }
        let framed = JournalCodec.framedRecords(bytes, from: magic.count)
        guard let header = framed.first?.payload, header.first == UInt8(ascii: "H"), header.count == 33 else {
            throw PDFError(.format, "the checkpoint '\(path)' has no header")
        }
        // Decrypted records, each with the offset just past it; a record that does not
        // authenticate ends the journal like a torn one.
        var records: [(payload: [UInt8], end: Int, span: Span)] = []
        for (payload, end) in framed.dropFirst() {
            let span = Span(offset: end - 8 - payload.count, length: 8 + payload.count)
            if payload.first == UInt8(ascii: "E") {
                guard let key, let plain = JournalCodec.open(Array(payload.dropFirst()), key: key) else { break }
                records.append((plain, end, span))
            } else {
                records.append((payload, end, span))
            }
        }
        var parsed = Parsed()
        if Array(header.dropFirst()) != identity {
            let saved = records.contains { $0.payload.first == UInt8(ascii: "V") && Array($0.payload.dropFirst()) == identity }
            if saved {  // the save completed; its changes are in the file
                parsed.saved = true
                parsed.validEnd = framed[0].end
                return parsed
            }
            throw PDFError(.stale, "the checkpoint '\(path)' was taken against a different version of the file; it is not applied")
        }
        // Whole groups only: what follows the last commit record is an unfinished operation.
        var group: [(change: Change, span: Span)] = []
        parsed.validEnd = framed[0].end
        for (index, (record, end, span)) in records.enumerated() {
            switch record.first {
            case UInt8(ascii: "S"), UInt8(ascii: "D"):
                do {
                    group.append((try CheckpointRecord.decode(record), span))
                } catch let e as PDFError {
                    throw PDFError(.format, "the checkpoint '\(path)' holds a damaged record (record \(index + 1), at byte \(span.offset)): \(e.message)")
                }
            case UInt8(ascii: "G"):
                parsed.groups.append(group)
                group = []
                parsed.validEnd = end
            case UInt8(ascii: "V"):
                if group.isEmpty { parsed.validEnd = end }  // a save marker between groups
            default:
                throw PDFError(.format, "the checkpoint '\(path)' holds a record of an unknown kind (record \(index + 1), at byte \(span.offset))")
            }
        }
        return parsed
    }

    /// Applies the checkpoint `bytes` to `document` as unsaved changes. Returns false when
    /// there is nothing to apply (an empty checkpoint, or one whose changes a completed save
    /// already holds); throws a stale error for a checkpoint of another version of the file.
    private func load(_ bytes: [UInt8], into document: Document) throws -> Bool {
        let parsed = try Self.parse(bytes, path: path, identity: identity, key: key)
        if parsed.saved { return false }
        var applied = 0
        for group in parsed.groups {
            for (change, span) in group {
                switch change {
                case .setObject(let id, let value): document.changes.set(id, value)
                case .deleteObject(let id): document.changes.delete(id)
                }
                noteRecord(change.objectNumber, span)
                applied += 1
            }
        }
        document.invalidateModel()
        // Continue the same journal, without the torn or unfinished tail.
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AtomicFile.ioError("cannot open '\(path)'") }
        guard ftruncate(fd, off_t(parsed.validEnd)) == 0 else {
            close(fd)
            throw AtomicFile.ioError("cannot truncate '\(path)'")
        }
        _ = lseek(fd, 0, SEEK_END)
        shared.withLock { $0.fd = fd }
        journalBytes = parsed.validEnd
        return applied > 0
    }

    // MARK: Files

    /// `length` bytes at `offset` of `fd` (with `reopen`, of a new read-only descriptor of
    /// that path, for a descriptor opened for appending only).
    private static func readRange(_ fd: Int32, _ offset: Int, _ length: Int, reopen: String? = nil) throws -> [UInt8] {
        guard length > 0 else { return [] }
        var source = fd
        if let reopen {
            source = open(reopen, O_RDONLY | O_CLOEXEC)
            guard source >= 0 else { throw AtomicFile.ioError("cannot open '\(reopen)'") }
        }
        defer { if reopen != nil { close(source) } }
        var out = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let n = out.withUnsafeMutableBytes { raw in
                pread(source, raw.baseAddress.map { $0 + done }, length - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.ioError("cannot read the checkpoint")
            }
            guard n > 0 else { throw PDFError(.io, "the checkpoint ended before its byte \(offset + length)") }
            done += n
        }
        return out
    }

    private static func lock(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AtomicFile.ioError("cannot open the lock '\(path)'") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            close(fd)
            if busy {
                throw PDFError(.busy, "the checkpoint '\(path)' is in use by another open document")
            }
            throw AtomicFile.ioError("cannot lock '\(path)'")
        }
        return fd
    }

    /// Removes checkpoints older than `age` seconds that no open document holds.
    private static func clean(_ directory: String, olderThan age: Double, except uid: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for name in FileSystem.entries(of: directory) {
            guard name.hasSuffix(".qcheckpoint"), name != uid + ".qcheckpoint" else { continue }
            let file = directory + "/" + name
            var st = stat()
            guard stat(file, &st) == 0, Double(now.tv_sec - st.st_mtim.tv_sec) > age else { continue }
            let stem = String(name.dropLast(".qcheckpoint".count))
            guard let fd = try? lock(directory + "/" + stem + ".lock") else { continue }  // in use
            unlink(file)
            unlink(directory + "/" + stem + ".lock")
            flock(fd, LOCK_UN)
            close(fd)
        }
    }
}
