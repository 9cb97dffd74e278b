import QuireSyntax

/// One unsaved change, in the order it was made.
///
/// The document's change log is the one journal of unsaved changes: saving writes the
/// current state it leads to, and the checkpointer and the sync client consume the log
/// itself, each from the position it last read (``Document/changeLog``).
public enum Change: Sendable, Equatable {
    /// Object `id` now has `value` (a new object, or a replaced one).
    case setObject(ObjectID, PDFObject)
    /// Object `id` was deleted.
    case deleteObject(ObjectID)
}

/// The unsaved changes of a document: the current value of every changed object, and the
/// log of changes that led there.
final class ChangeSet {
    /// Changed and new objects; `.null` for a deleted one.
    private(set) var objects: [Int: PDFObject] = [:]
    /// The generation to write each changed object with.
    private(set) var generations: [Int: Int] = [:]
    private(set) var deleted: Set<Int> = []
    private(set) var log: [Change] = []
    var nextNumber: Int
    /// Inside a batch: the first log entry that no reader has seen. A later change to an
    /// object whose latest entry is at or past it replaces that entry instead of adding
    /// one, so that a batch that rewrites one object N times (a page's /Annots while N
    /// annotations are imported) logs it once, not N growing versions (O(N²) memory).
    /// The log a reader sees after the batch leads to the same state: each entry holds
    /// the object's whole value, and the batch reaches the checkpoint journal as one group.
    private var compactFrom: Int? = nil
    /// While `compactFrom` is set: the index of each object's latest entry.
    private var latestEntry: [Int: Int] = [:]

    init(nextNumber: Int) { self.nextNumber = nextNumber }

    /// Called with an object's number before it changes (``set(_:_:)``, ``delete(_:)``):
    /// the tool manager's undo learns what a step touched, and the values before it
    /// (``Document/recordingObjectChanges(_:)``).
    var willChange: ((Int) -> Void)? = nil

    /// The outermost batch begins: its changes may be compacted.
    func beginBatch() {
        compactFrom = log.count
        latestEntry = [:]
    }

    /// The outermost batch ended: the log is complete for its readers.
    func endBatch() {
        compactFrom = nil
        latestEntry = [:]
    }

    /// A reader saw the log: what it saw stays as it is.
    func markRead() {
        if compactFrom != nil { beginBatch() }
    }

    private func append(_ change: Change, number: Int) {
        if let from = compactFrom {
            if let i = latestEntry[number], i >= from {
                log[i] = change
                return
            }
            latestEntry[number] = log.count
        }
        log.append(change)
    }

    var isEmpty: Bool { log.isEmpty }

    func value(_ number: Int) -> PDFObject? { objects[number] }

    func set(_ id: ObjectID, _ value: PDFObject) {
        willChange?(id.number)
        objects[id.number] = value
        generations[id.number] = id.generation
        deleted.remove(id.number)
        nextNumber = Swift.max(nextNumber, id.number.saturatingSuccessor)
        append(.setObject(id, value), number: id.number)
    }

    func delete(_ id: ObjectID) {
        willChange?(id.number)
        objects[id.number] = .null
        generations[id.number] = id.generation
        deleted.insert(id.number)
        append(.deleteObject(id), number: id.number)
    }

    /// Everything the set holds, to go back to with ``restore(_:)``. Copies share storage
    /// until one of them changes, so taking one costs nothing until the next change.
    struct Snapshot {
        fileprivate let objects: [Int: PDFObject]
        fileprivate let generations: [Int: Int]
        fileprivate let deleted: Set<Int>
        fileprivate let log: [Change]
        fileprivate let nextNumber: Int
        fileprivate let compactFrom: Int?
        fileprivate let latestEntry: [Int: Int]
    }

    func snapshot() -> Snapshot {
        Snapshot(objects: objects, generations: generations, deleted: deleted, log: log, nextNumber: nextNumber,
                 compactFrom: compactFrom, latestEntry: latestEntry)
    }

    /// Back to `snapshot`: the changes made since are gone, from the state and the log.
    func restore(_ snapshot: Snapshot) {
        objects = snapshot.objects
        generations = snapshot.generations
        deleted = snapshot.deleted
        log = snapshot.log
        nextNumber = snapshot.nextNumber
        compactFrom = snapshot.compactFrom
        latestEntry = snapshot.latestEntry
    }

    /// Every changed object with its generation and current value (nil: deleted), by number.
    func currentState() -> [(number: Int, generation: Int, value: PDFObject?)] {
        objects.keys.sorted().map { n in (n, generations[n] ?? 0, deleted.contains(n) ? nil : objects[n]) }
    }
}

/// How to save.
public enum SaveMode: Sendable, Equatable {
    /// Append the changed objects and a new cross-reference section: earlier bytes,
    /// signatures and revisions stay as they were.
    case incremental
    /// Rewrite the file: renumber, drop unreachable objects; `objectStreams` packs objects
    /// into object streams with a cross-reference stream.
    case full(objectStreams: Bool)
}

extension Document {
    // MARK: Objects

    /// The current value of indirect object `number`: with unsaved changes, null when free,
    /// missing or deleted.
    public func object(_ number: Int) throws -> PDFObject {
        if let changed = changes.value(number) { return changed }
        return try file.object(number)
    }

    /// Whether object `number` is in use (in the file or added, and not deleted).
    public func isInUse(_ number: Int) -> Bool {
        if changes.deleted.contains(number) { return false }
        if changes.value(number) != nil { return true }
        switch file.entry(number) {
        case .inFile?, .compressed?: return true
        default: return false
        }
    }

    /// The number of objects the cross-reference lists (in use and free), plus the objects
    /// added since the document was opened or last saved.
    public var objectCount: Int {
        file.objectCount + changes.objects.keys.filter { file.entry($0) == nil }.count
    }

    /// The trailer (the newest revision's, keys from older ones filled in).
    public var trailer: PDFDictionary { file.trailer }

    /// Whether there are changes that are not saved.
    /// Whether there are changes that are not saved: changed objects, or an encryption
    /// change that the next full save writes (``setEncryption(_:ownerPassword:)``).
    public var hasUnsavedChanges: Bool { !changes.isEmpty || pendingEncryption != nil }

    /// The unsaved changes, in the order they were made (the journal). Inside a
    /// ``batch(_:)``, an object changed several times since the log was last read keeps
    /// one entry, with its latest value, at the place of its first.
    public var changeLog: [Change] {
        changes.markRead()
        return changes.log
    }

    private func checkEditable(_ number: Int) throws {
        guard isInUse(number) else {
            throw PDFError(.range, "object \(number) is not in use")
        }
        if case .reference(let id)? = file.trailer["Encrypt"], id.number == number {
            throw PDFError(.invalidArgument, "the /Encrypt dictionary (object \(number)) cannot be changed")
        }
    }

    private func generation(_ number: Int) -> Int {
        if case .inFile(_, let g)? = file.entry(number) { return g }
        return 0
    }

    /// Replaces object `number` with `value`.
    public func setObject(_ number: Int, _ value: PDFObject) throws {
        try checkEditable(number)
        changes.set(ObjectID(number, generation(number)), value)
        invalidateModel(after: number, value)
        try journalChanges()
    }

    /// Sets `key` of the dictionary or stream that is object `number`; nil removes it.
    public func setValue(_ value: PDFObject?, forKey key: PDFName, inObject number: Int) throws {
        try checkEditable(number)
        switch try object(number) {
        case .dictionary(var d):
            d[key] = value
            try setObject(number, .dictionary(d))
        case .stream(var s):
            s.dictionary[key] = value
            try setObject(number, .stream(s))
        case let other:
            throw PDFError(.invalidArgument, "object \(number) is a \(other.typeName), not a dictionary or stream")
        }
    }

    /// Adds `value` as a new object and returns its id.
    @discardableResult
    public func addObject(_ value: PDFObject) throws -> ObjectID {
        let number = changes.nextNumber
        guard number <= options.limits.maxObjects else {
            throw PDFError(limit: "max_objects", options.limits.maxObjects, "the object number of a new object")
        }
        let id = ObjectID(number, 0)
        changes.set(id, value)
        invalidateModel(after: number, value)
        try journalChanges()
        return id
    }

    /// A new object number that holds no value yet: the caller stores one with
    /// ``storeReservedObject(_:_:)`` in the same batch (a copy of another document's
    /// objects numbers each before it copies what refers to it).
    func reserveObjectID() throws -> ObjectID {
        let number = changes.nextNumber
        guard number <= options.limits.maxObjects else {
            throw PDFError(limit: "max_objects", options.limits.maxObjects, "the object number of a new object")
        }
        changes.nextNumber = number + 1
        return ObjectID(number, 0)
    }

    /// Stores `value` as the object `id` that ``reserveObjectID()`` gave.
    func storeReservedObject(_ id: ObjectID, _ value: PDFObject) throws {
        changes.set(id, value)
        invalidateModel(after: id.number, value)
        try journalChanges()
    }

    /// Adds a stream with `dictionary` and `data` (already encoded for its filters).
    @discardableResult
    public func addStream(_ dictionary: PDFDictionary, data: [UInt8]) throws -> ObjectID {
        try addObject(.stream(PDFStream(dictionary: dictionary, data: .bytes(data))))
    }

    /// Deletes object `number`: references to it read as null.
    public func deleteObject(_ number: Int) throws {
        try checkEditable(number)
        if number == 0 || file.trailer["Root"]?.reference?.number == number {
            throw PDFError(.invalidArgument, "object \(number) is the catalog and cannot be deleted")
        }
        changes.delete(ObjectID(number, generation(number)))
        invalidateModel(after: number, nil)
        try journalChanges()
    }

    // MARK: Batches and the checkpoint journal

    /// Runs `body` as one operation: the changes it makes reach the change observers (the
    /// checkpoint journal, the sync client) as one group when the outermost batch ends
    /// (also when it throws: changes already made are unsaved changes like any other).
    public func batch<T>(_ body: () throws -> T) throws -> T {
        try runBatch(undoingOnError: false, body)
    }

    /// Runs `body` as one batch that either completes or changes nothing: when it throws
    /// (an error, or a progress handler that cancels), every change it made is undone,
    /// from the objects and from the change log, before the error is rethrown, so the
    /// change observers never see them. Warnings it added stay.
    public func allOrNothing<T>(_ body: () throws -> T) throws -> T {
        try runBatch(undoingOnError: true, body)
    }

    private func runBatch<T>(undoingOnError: Bool, _ body: () throws -> T) throws -> T {
        let before = undoingOnError ? changes.snapshot() : nil
        if batchDepth == 0 { changes.beginBatch() }
        batchDepth += 1
        let result: T
        do {
            result = try body()
        } catch {
            batchDepth -= 1
            if let before {
                // Undone before the batch ends, so that no observer sees the partial changes.
                changes.restore(before)
                invalidateModel()
            }
            if batchDepth == 0 { changes.endBatch() }
            if before == nil { try? journalChanges() }
            throw error
        }
        batchDepth -= 1
        if batchDepth == 0 { changes.endBatch() }
        try journalChanges()
        return result
    }

    /// Hands the change log to its observers (``ChangeObserver``: the checkpointer, the
    /// sync client), outside batches.
    func journalChanges() throws {
        guard batchDepth == 0 else { return }
        for observer in liveChangeObservers { try observer.changesMade(changes.log, in: self) }
    }

    /// The data of a stream of this document: decoded (filters undone) or raw (as stored,
    /// decrypted).
    public func streamData(_ stream: PDFStream, decoded: Bool) throws -> [UInt8] {
        decoded ? try file.decodedData(stream) : try file.decryptedRawData(stream)
    }

    // MARK: Saving

    /// How the writer reads this document: unsaved changes applied, strings and streams
    /// encrypted for the objects they are written as.
    private var writerSource: WriterSource {
        WriterSource(object: { [unowned self] in try self.object($0) },
                     streamData: { [unowned self] in try self.file.streamDataForWriting($0, as: $1) },
                     prepareStrings: { [unowned self] in self.file.encryptingStrings($0, for: $1) })
    }

    /// How the writer reads this document for a full save that writes `plan`'s encryption:
    /// strings and streams decrypted with the document's handler, encrypted with the plan's
    /// (none: written plain), and the plan's /Encrypt dictionary as one more object.
    private func writerSource(_ plan: EncryptionPlan) -> WriterSource {
        let output = plan.output
        let extra = plan.encryptObject
        return WriterSource(object: { [unowned self] n in
                                if let extra, extra.number == n { return extra.value }
                                return try self.object(n)
                            },
                            streamData: { [unowned self] in try self.file.streamDataForWriting($0, as: $1, with: output) },
                            prepareStrings: { PDFFile.encryptingStrings($0, for: $1, with: output) })
    }

    /// The bytes of the saved file, after every bookmark provider is asked to persist.
    /// For an incremental save: the original bytes followed by
    /// the update (the update alone is `incrementalUpdate()`).
    public func saved(_ mode: SaveMode, progress: WriteProgress? = nil) throws -> [UInt8] {
        switch mode {
        case .incremental:
            return try file.buffer.loadedCopy() + (try incrementalUpdate(progress: progress))
        case .full(let objectStreams):
            try bookmarkManager?.save()
            var options = Writer.RewriteOptions()
            options.objectStreams = objectStreams
            var version = pdfVersion()
            if objectStreams && (version.major, version.minor) < (1, 5) { version = (1, 5) }
            guard let pending = pendingEncryption else {
                options.version = version
                return try Writer.rewrite(trailer: file.trailer, source: writerSource,
                                          exempt: file.trailer["Encrypt"]?.reference?.number, options: options,
                                          progress: progress)
            }
            let plan = try encryptionPlan(pending)
            if (version.major, version.minor) < plan.minimumVersion { version = plan.minimumVersion }
            options.version = version
            return try Writer.rewrite(trailer: plan.trailer, source: writerSource(plan), exempt: plan.encryptObject?.number,
                                      options: options, progress: progress)
        }
    }

    /// The bytes an incremental save appends to the file: the changed objects and a new
    /// cross-reference section.
    /// Every bookmark provider is asked to persist first (see ``BookmarkManager/save()``).
    public func incrementalUpdate(progress: WriteProgress? = nil) throws -> [UInt8] {
        try refuseIncrementalEncryptionChange()
        if let why = fullSaveRequired { throw PDFError(.state, why + "; save in full") }
        try bookmarkManager?.save()
        guard !changes.isEmpty else {  // nothing to append
            try progress?(0, 0)
            return []
        }
        var update = Writer.Update()
        for number in changes.objects.keys.sorted() {
            let id = ObjectID(number, changes.generations[number] ?? 0)
            if changes.deleted.contains(number) {
                update.freed.append(id)
            } else if let value = changes.value(number) {
                update.objects.append((id, value))
            }
        }
        return try Writer.incrementalUpdate(of: file, update, source: writerSource, progress: progress)
    }

    /// The saved file in the buffer the document continues from. An incremental save
    /// copies the original bytes once, into that buffer, rather than into an array that
    /// is then concatenated and copied again (three copies of a 100 MB file before).
    private func savedBuffer(_ mode: SaveMode, progress: WriteProgress?, update: [UInt8]? = nil) throws -> ByteBuffer {
        switch mode {
        case .incremental: return try file.buffer.appending(try update ?? incrementalUpdate(progress: progress))
        case .full: return ByteBuffer(copying: try saved(mode, progress: progress))
        }
    }

    /// Saves to `path` atomically (a temporary file beside it, fsync, rename), then
    /// continues from the saved file.
    ///
    /// With checkpointing on, the identity of the new bytes is recorded in the checkpoint
    /// before the rename, and the checkpoint is replaced by an empty one only after the
    /// saved file is durable: a crash at any point leaves either the old file and its
    /// checkpoint, or the new file (and a checkpoint that says it is already saved).
    ///
    /// Saved to another path, the document continues as that file: with a checkpoint UID
    /// derived from the path, the checkpoint moves to the new path's UID (the old one is
    /// removed: its changes are in the saved copy); with a UID of the caller's, the
    /// checkpoint now belongs to the saved bytes.
    ///
    /// `progress` is called with the objects written so far and their total while the file
    /// is made; throwing from it cancels the save before anything is written.
    ///
    /// An incremental save of a document read from a file that is unchanged since (see
    /// ``ByteBuffer/origin``) has the kernel copy the original bytes from that file (a
    /// reflink, or `copy_file_range`) instead of writing them from memory; the bytes saved
    /// are the same.
    public func save(to path: String, mode: SaveMode = .incremental, progress: WriteProgress? = nil) throws {
        try save(to: path, mode: mode, progress: progress, update: nil)
    }

    /// Saves `update` as the incremental update of the unsaved changes, to `path` as
    /// ``save(to:mode:progress:)`` does: for a signature, whose update is the writer's
    /// (``incrementalUpdate(progress:)``) with its reserved /ByteRange and /Contents filled.
    package func saveFinished(update: [UInt8], to path: String) throws {
        try save(to: path, mode: .incremental, progress: nil, update: update)
    }

    /// Saves `update` (see ``saveFinished(update:to:)``) through `write`, as
    /// ``save(mode:progress:through:)`` does.
    package func saveFinished(update: [UInt8], through write: (UnsafeRawBufferPointer) throws -> Void) throws {
        try save(mode: .incremental, progress: nil, update: update, through: write)
    }

    private func save(to path: String, mode: SaveMode, progress: WriteProgress?, update: [UInt8]?) throws {
        let original = file.buffer.origin
        let buffer = try savedBuffer(mode, progress: progress, update: update)
        let sameFile = sourcePath.map { Checkpointer.samePath($0, path) } ?? false
        try notifyWillSave(buffer)
        // A lazy buffer reads only what the kernel does not copy from the original file.
        let written = try buffer.withBytes(loading: []) {
            try AtomicFile.write(UnsafeRawBufferPointer($0), to: path, copyingPrefixFrom: mode == .incremental ? original : nil,
                                 loading: buffer.load)
        }
        lastSavePrefixCopy = written.prefixCopy
        buffer.origin = written.origin  // what the next save copies from
        try reload(from: buffer, appended: mode == .incremental)
        sourcePath = path
        if let current = checkpointer, !sameFile, current.options.uid == nil {
            // Saved as another file: its checkpoint is another (its UID comes from the path).
            current.remove()
            checkpointer = nil
            var options = current.options
            options.existing = .discard  // the saved file replaced whatever that checkpoint was about
            let started = try Checkpointer(document: self, options: options)
            checkpointer = started
            try notifyDidSave(buffer, except: started)
        } else {
            try notifyDidSave(buffer)
        }
    }

    /// Saves through `write`, called with consecutive pieces of the file, then continues
    /// from the saved bytes. If `write` throws, the document keeps its unsaved changes.
    public func save(mode: SaveMode = .incremental, progress: WriteProgress? = nil,
                     through write: (UnsafeRawBufferPointer) throws -> Void) throws {
        try save(mode: mode, progress: progress, update: nil, through: write)
    }

    private func save(mode: SaveMode, progress: WriteProgress?, update: [UInt8]?,
                      through write: (UnsafeRawBufferPointer) throws -> Void) throws {
        let buffer = try savedBuffer(mode, progress: progress, update: update)
        // In pieces; a lazy buffer's unread bytes pass through a scratch buffer.
        try buffer.forEachChunk(write)
        try notifyWillSave(buffer)
        try reload(from: buffer, appended: mode == .incremental)
        try notifyDidSave(buffer)
    }

    /// Continues from `buffer`, a saved state of this document: unsaved changes are gone.
    /// `appended`: `buffer` is the file's bytes and an incremental update after them, so
    /// the cross-reference and the objects read so far that the update leaves alone carry
    /// over (see ``PDFFile/init(buffer:limits:password:continuing:)``).
    func reload(from buffer: ByteBuffer, appended: Bool = false) throws {
        if !appended, let change = pendingEncryption {
            // The saved bytes have the new encryption: they open with its owner password.
            switch change {
            case .encrypt(let settings): options.password = settings.effectiveOwnerPassword
            case .decrypt: options.password = nil
            }
        }
        let password = options.password.map { Array($0.utf8) }
        file = try PDFFile(buffer: buffer, limits: options.limits, password: password, continuing: appended ? file : nil)
        fileRevision += 1
        if !appended { renumberings += 1 }  // a full save renumbers the objects
        changes = ChangeSet(nextNumber: file.nextObjectNumber)
        if !appended { pendingEncryption = nil; fullSaveRequired = nil }
        unsavedModificationKind = nil
        invalidateModel()
    }
}
