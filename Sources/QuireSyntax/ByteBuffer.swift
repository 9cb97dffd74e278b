import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a PDF file, held in memory the buffer owns. Reads go through bounds-checked
/// accessors; the parser never indexes past `count`.
///
/// The file is read rather than memory-mapped: a mapped file that another process
/// truncates raises SIGBUS in the host, and Quire must not take its host down.
///
/// **Lazy buffers** (issue 17): a file of ``lazyThreshold`` bytes or more, and any
/// ``RandomAccessSource`` (a host's read callback), is not read when it is opened. Its
/// bytes live in anonymous memory reserved for the whole file (`MAP_NORESERVE`: untouched
/// pages cost no memory, and read as zeros) and are filled with `pread` (or the callback)
/// in 64 KB blocks when ``ensure(_:)`` asks for them: memory grows with what is read, not
/// with the file. Another process truncating the file leaves zeros where the bytes were,
/// never a signal. Whoever reads `bytes` directly first makes sure of the range it reads:
/// the searches, ``slice(_:)`` and ``matches(_:at:)`` do it themselves, the parser through
/// ``withLoaded(from:_:)``, which re-runs a parse that read past the loaded bytes, and a
/// whole-file scan (repair) through ``loadAll()``.
public final class ByteBuffer: @unchecked Sendable {
    /// Immutable after init; shared read-only, hence `@unchecked Sendable`. Not public: a
    /// pointer that outlives its buffer is a use-after-free; other modules use
    /// ``copyBytes()`` or ``withBytes(_:)``.
    package let bytes: UnsafeBufferPointer<UInt8>

    /// A copy of all the bytes.
    public func copyBytes() -> [UInt8] { withBytes { Array($0) } }

    /// A copy of all the bytes, which throws when a lazy buffer could not read them all.
    public func loadedCopy() throws -> [UInt8] {
        try load(0..<count)
        return withExtendedLifetime(self) { Array(bytes) }
    }

    /// Calls `body` with the bytes, keeping the buffer alive meanwhile. A lazy buffer
    /// reads every byte first (see ``withBytes(loading:_:)`` for less).
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        loadAll()
        return try withExtendedLifetime(self) { try body(bytes) }
    }

    /// Calls `body` with the bytes after reading only `ranges` of a lazy buffer (an I/O
    /// error when they cannot be read, see ``load(_:)``): `body` must read nothing else
    /// (other bytes of a lazy buffer may read as zeros).
    public func withBytes<R>(loading ranges: [Range<Int>], _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        for r in ranges { try load(r) }
        return try withExtendedLifetime(self) { try body(bytes) }
    }

    public var count: Int { bytes.count }

    /// The allocation the bytes live in, shared by the buffers that ``appending(_:)`` made
    /// from one another: each sees a prefix of it, and only the buffer that ends where the
    /// claimed bytes end may write past them, into spare capacity that no buffer sees yet.
    private let storage: Storage

    private final class Storage: @unchecked Sendable {
        let memory: UnsafeMutableBufferPointer<UInt8>
        /// How many bytes some buffer sees (the longest prefix handed out).
        let claimed: Mutex<Int>
        /// Set for the memory of a lazy buffer: what fills it, and which blocks are filled.
        let lazy: LazyFill?

        init(capacity: Int, claimed: Int) {
            memory = .allocate(capacity: Swift.max(capacity, 1))
            self.claimed = Mutex(claimed)
            lazy = nil
        }

        init(adopting memory: UnsafeMutableBufferPointer<UInt8>, claimed: Int) {
            self.memory = memory
            self.claimed = Mutex(claimed)
            lazy = nil
        }

        /// Reserves address space for `size` bytes of `source` and `spare` bytes after them;
        /// nil when the system refuses the reservation.
        init?(lazy source: RandomAccessSource, size: Int, spare: Int, blockShift: Int = 16) {
            let capacity = size + spare
            guard let raw = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
                  raw != MAP_FAILED else { return nil }
            // Huge pages would turn a 4 KB read into 2 MB of memory.
            // (By name: the 14 written here before is MADV_HUGEPAGE, which asked for them.)
            _ = madvise(raw, capacity, MADV_NOHUGEPAGE)
            memory = UnsafeMutableBufferPointer(start: raw.assumingMemoryBound(to: UInt8.self), count: capacity)
            claimed = Mutex(size)
            lazy = LazyFill(source: source, size: size, blockShift: blockShift)
        }

        deinit {
            if lazy != nil {
                if let base = memory.baseAddress { munmap(base, memory.count) }
            } else {
                memory.deallocate()
            }
        }
    }

    /// What fills a lazy buffer's memory: the source, its size, and a bit per block (64 KB
    /// unless a test asks for less) that is filled.
    final class LazyFill: @unchecked Sendable {
        let blockShift: Int
        let source: RandomAccessSource
        /// The source's size: bytes past it (an incremental save's update) are in memory.
        let size: Int
        struct State {
            var filled: [UInt64]
            var remaining: Int
            var firstError: String?
            var lastError: String?
            var failures = 0
            /// Where the data ended before its size (a file truncated since it was opened):
            /// the bytes from here on are zeros, for good.
            var truncatedAt: Int?

            /// Whether block `block` is filled.
            func has(_ block: Int) -> Bool { filled[block >> 6] & (1 << UInt64(block & 63)) != 0 }
        }

        /// The message of a read of the source that failed at `offset`: with the source's
        /// reason after an error, or said to end early (`reason` nil).
        func failure(at offset: Int, reason: String?, error: Bool) -> String {
            "cannot read \(source.name) at byte \(offset)"
                + (error ? (reason.map { ": \($0)" } ?? "") : ": it ends before its size when opened")
        }
        let state: Mutex<State>
        /// Set once every block is filled: ``ensure(_:)`` then costs one atomic load.
        let complete = Atomic<Bool>(false)

        init(source: RandomAccessSource, size: Int, blockShift: Int) {
            self.source = source
            self.size = size
            self.blockShift = blockShift
            let blocks = (size + (1 << blockShift) - 1) >> blockShift
            state = Mutex(State(filled: [UInt64](repeating: 0, count: (blocks + 63) / 64), remaining: blocks, firstError: nil))
            if blocks == 0 { complete.store(true, ordering: .releasing) }
        }
    }

    /// Spare capacity kept after a file's bytes when they are read, so that an incremental
    /// save continues from the saved bytes without copying the file in memory: 1/64 of the
    /// size, from 64 KB to 4 MB.
    static func slack(for size: Int) -> Int { Swift.min(Swift.max(size / 64, 64 << 10), 4 << 20) }

    /// Copies `data`.
    public init<C: Collection>(copying data: C) where C.Element == UInt8 {
        storage = Storage(capacity: data.count, claimed: data.count)
        _ = storage.memory.initialize(from: data)
        bytes = UnsafeBufferPointer(rebasing: storage.memory[0..<data.count])
    }

    /// Copies `count` bytes from `pointer`.
    public init(copying pointer: UnsafeRawPointer, count: Int) {
        storage = Storage(capacity: count, claimed: count)
        if count > 0, let base = storage.memory.baseAddress {
            base.initialize(from: pointer.assumingMemoryBound(to: UInt8.self), count: count)
        }
        bytes = UnsafeBufferPointer(rebasing: storage.memory[0..<count])
    }

    private init(storage: Storage, count: Int) {
        self.storage = storage
        bytes = UnsafeBufferPointer(rebasing: storage.memory[0..<count])
    }

    /// A lazy buffer over `source`, of `size` bytes: nothing is read until asked for. Falls
    /// back to reading everything at once if the system refuses to reserve the memory.
    /// `blockShift` sets the block size (2^blockShift bytes, 6 to 24): tests and the fuzz
    /// targets use small blocks, so that small inputs take every path of lazy reading.
    public static func lazy(_ source: RandomAccessSource, size: Int, blockShift: Int = 16) throws -> ByteBuffer {
        let size = Swift.max(size, 0)
        // Twice the size is reserved: past 2^46 (64 TiB) no system has the address space.
        guard size <= 1 << 46 else {
            throw PDFError(.invalidArgument, "a document of \(size) bytes is larger than this library can address")
        }
        if let storage = Storage(lazy: source, size: size, spare: Swift.max(size, 64 << 20),
                                 blockShift: Swift.min(Swift.max(blockShift, 6), 24)) {
            return ByteBuffer(storage: storage, count: size)
        }
        // The system refused the reservation (a limit on address space): read it all, if
        // that much memory can be asked for without the allocation failing the process.
        guard size <= 1 << 30 else {
            throw PDFError(.io, "cannot reserve memory for a document of \(size) bytes: \(String(cString: strerror(errno)))")
        }
        let storage = Storage(capacity: size + slack(for: size), claimed: size)
        var done = 0
        while done < size, let base = storage.memory.baseAddress {
            let n = source.read(into: UnsafeMutableRawPointer(base + done), count: size - done, at: done)
            guard n > 0 else {
                throw PDFError(.io, "cannot read \(source.name) at byte \(done)" + (source.lastError.map { ": \($0)" } ?? ""))
            }
            done += n
        }
        return ByteBuffer(storage: storage, count: size)
    }

    /// Files this large or larger are read lazily by ``read(path:)`` (see the type's
    /// documentation): 1 MiB, or the `QUIRE_LAZY_MIN_BYTES` environment variable, which
    /// tests set to 0 to read every file of the corpus lazily.
    public static var lazyThreshold: Int {
        if let text = getenv("QUIRE_LAZY_MIN_BYTES"), let value = Int(String(cString: text)), value >= 0 { return value }
        return 1 << 20
    }

    /// Whether bytes are read when asked for (a lazy buffer that is not yet read whole).
    public var isLazy: Bool {
        guard let lazy = storage.lazy else { return false }
        return !lazy.complete.load(ordering: .acquiring)
    }

    /// The first error a lazy buffer met reading its source (nil when none): its bytes
    /// there read as zeros, which the parser meets as damage.
    public var readError: String? { storage.lazy?.state.withLock { $0.firstError } }

    /// How many reads of a lazy buffer's source have failed with an error so far (0 for
    /// other buffers; the end of a truncated file is not one, as it does not pass):
    /// what was parsed while it grew may have read zeros, and is not to be remembered.
    public var readFailures: Int { storage.lazy?.state.withLock { $0.failures } ?? 0 }

    /// The last error a lazy buffer met reading its source (nil when none).
    public var lastReadError: String? { storage.lazy?.state.withLock { $0.lastError } }

    /// Makes sure bytes `range` (clamped to the buffer) are read: a no-op but for a lazy
    /// buffer, whose missing 64 KB blocks in the range are read, consecutive ones at once.
    /// A block the source cannot read stays zeros: tried again next time after an error
    /// (the source may recover), for good past the end of the data (a file truncated since
    /// it was opened).
    public func ensure(_ range: Range<Int>) {
        guard let lazy = storage.lazy, !lazy.complete.load(ordering: .acquiring) else { return }
        let lower = Swift.max(range.lowerBound, 0)
        let upper = Swift.min(range.upperBound, lazy.size)
        guard lower < upper, let base = storage.memory.baseAddress else { return }
        let shift = lazy.blockShift
        let first = lower >> shift, last = (upper - 1) >> shift
        lazy.state.withLock { state in
            var block = first
            while block <= last {
                if state.has(block) { block += 1; continue }
                var end = block + 1
                while end <= last && !state.has(end) { end += 1 }
                let start = block << shift
                let stop = Swift.min(end << shift, lazy.size)
                var done = 0
                while start + done < stop {
                    let n = lazy.source.read(into: UnsafeMutableRawPointer(base + start + done), count: stop - start - done, at: start + done)
                    if n == 0 {
                        // The end of the data before its size (a file truncated since it was
                        // opened): for good. What is missing stays zeros and is not asked
                        // for again (``load(_:)`` refuses it).
                        state.lastError = lazy.failure(at: start + done, reason: nil, error: false)
                        if state.firstError == nil { state.firstError = state.lastError }
                        state.truncatedAt = Swift.min(state.truncatedAt ?? Int.max, start + done)
                        done = stop - start
                        break
                    }
                    if n < 0 {
                        // An error, perhaps passing (a host's storage): asked for again.
                        state.failures += 1
                        state.lastError = lazy.failure(at: start + done, reason: lazy.source.lastError, error: true)
                        if state.firstError == nil { state.firstError = state.lastError }
                        break
                    }
                    done += n
                }
                // Whole blocks read are filled; the block where an error stopped it is not.
                let filledEnd = start + done == stop ? end : (start + done) >> shift
                for b in block..<filledEnd {
                    state.filled[b >> 6] |= 1 << UInt64(b & 63)
                    state.remaining -= 1
                }
                block = end
            }
            if state.remaining == 0 { lazy.complete.store(true, ordering: .releasing) }
        }
    }

    /// Reads every byte of a lazy buffer (for a whole-file scan, or a copy).
    public func loadAll() { ensure(0..<count) }

    /// Reads `range` (clamped) as ``ensure(_:)`` does, and throws an I/O error when any of
    /// it could not be read: for bytes that leave the library (a save, a stream's data),
    /// where zeros in place of what could not be read would be silent damage. The parser
    /// uses ``ensure(_:)``, for which such zeros are damage it reports.
    public func load(_ range: Range<Int>) throws {
        guard let lazy = storage.lazy, !lazy.complete.load(ordering: .acquiring) || lazy.state.withLock({ $0.truncatedAt != nil }) else { return }
        ensure(range)
        let lower = Swift.max(range.lowerBound, 0)
        let upper = Swift.min(range.upperBound, lazy.size)
        guard lower < upper else { return }
        let shift = lazy.blockShift
        try lazy.state.withLock { state in
            if let cut = state.truncatedAt, cut < upper {
                throw PDFError(.io, state.lastError ?? lazy.failure(at: cut, reason: nil, error: false))
            }
            for block in (lower >> shift)...((upper - 1) >> shift) where !state.has(block) {
                throw PDFError(.io, state.lastError ?? lazy.failure(at: block << shift, reason: nil, error: true))
            }
        }
    }

    /// The lazy buffer's file source, when it reads a file: told of the file's new identity
    /// after Quire appended to it (``FileSource`` refuses to read a file that changed).
    public func sourceFileChanged(to origin: FileOrigin) {
        (storage.lazy?.source as? FileSource)?.expect(origin)
    }

    /// Runs `body`, a parse of the bytes from `offset`, after reading the first block from
    /// there; `body` sets its `reach` to the furthest byte its parse read (see
    /// ``Lexer/highWater``). When that is past what was read, the parse ran into bytes not
    /// yet read (zeros): four times as much is read and `body` runs again. Its result, or
    /// error, is kept once its parse stayed within the bytes read.
    public func withLoaded<T>(from offset: Int, _ body: (_ reach: inout Int) throws -> T) rethrows -> T {
        guard isLazy else {
            var reach = 0
            return try body(&reach)
        }
        var window = Swift.max(storage.lazy.map { 1 << $0.blockShift } ?? 0, 64)
        let start = Swift.min(Swift.max(offset, 0), count)
        while true {
            let end = start + Swift.min(window, count - start)
            ensure(start..<end)
            var reach = offset
            // Complete when the parse began (not merely by its end: a nested load may fill
            // the last blocks after this parse read zeros).
            let completeAtStart = !isLazy
            let stayed = { reach + 16 <= end || end >= self.count || completeAtStart }
            do {
                let value = try body(&reach)
                if stayed() { return value }
            } catch {
                if stayed() { throw error }
            }
            window = window <= (count >> 2) ? window * 4 : count
        }
    }

    /// Calls `body` with consecutive pieces of the bytes, in order. A lazy buffer's pieces
    /// not yet read are read into a scratch buffer instead of into the buffer, so that
    /// hashing or copying a whole file does not keep it in memory.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let lazy = storage.lazy, isLazy else {
            try withBytes { bytes in
                let raw = UnsafeRawBufferPointer(bytes)
                var start = 0
                while start < raw.count {
                    let end = Swift.min(start + (1 << 20), raw.count)  // pieces of 1 MiB, from memory
                    try body(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                    start = end
                }
            }
            return
        }
        let chunk = 1 << 18  // a 256 KB scratch buffer: part of a streamed save's peak memory
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { scratch.deallocate() }
        var start = 0
        try withExtendedLifetime(self) {
            while start < count {
                let end = Swift.min(start + chunk, count)
                if start >= lazy.size || isFilled(start..<end) {
                    try load(start..<end)  // filled, but perhaps with the zeros of a truncation
                    try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<end]))
                    start = end
                    continue
                }
                let stop = Swift.min(end, lazy.size)
                var done = 0
                while start + done < stop, let p = scratch.baseAddress {
                    let (n, reason) = lazy.state.withLock { _ in
                        let n = lazy.source.read(into: p + done, count: stop - start - done, at: start + done)
                        return (n, n < 0 ? lazy.source.lastError : nil)
                    }
                    guard n > 0 else { throw PDFError(.io, lazy.failure(at: start + done, reason: reason, error: n < 0)) }
                    done += n
                }
                try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(scratch)[0..<done]))
                start = stop
            }
        }
    }

    /// Whether every block of `range` of a lazy buffer is filled.
    private func isFilled(_ range: Range<Int>) -> Bool {
        guard let lazy = storage.lazy else { return true }
        let upper = Swift.min(range.upperBound, lazy.size)
        guard range.lowerBound < upper else { return true }
        let shift = lazy.blockShift
        return lazy.state.withLock { state in
            (range.lowerBound >> shift ... (upper - 1) >> shift).allSatisfy(state.has)
        }
    }

    /// These bytes followed by `tail`. When this buffer is the longest of its allocation and
    /// the tail fits in its spare capacity, the new buffer shares the allocation and only
    /// `tail` is copied (this buffer still sees exactly its own bytes); else everything is
    /// copied once into a new allocation with spare capacity of its own. An incremental save
    /// thus continues from the saved file without copying the original in memory.
    public func appending(_ tail: [UInt8]) throws -> ByteBuffer {
        let count = bytes.count
        let total = count + tail.count
        let extended: Bool = storage.claimed.withLock { claimed in
            guard claimed == count, total <= storage.memory.count else { return false }
            claimed = total
            return true
        }
        if extended {
            tail.withUnsafeBufferPointer { t in
                if let from = t.baseAddress, t.count > 0, let base = storage.memory.baseAddress {
                    (base + count).initialize(from: from, count: t.count)
                }
            }
            return ByteBuffer(storage: storage, count: total)
        }
        try load(0..<count)  // a lazy buffer copied into new memory: every byte is needed
        let fresh = Storage(capacity: total + Self.slack(for: total), claimed: total)
        if let base = fresh.memory.baseAddress {
            if let from = bytes.baseAddress, count > 0 { base.initialize(from: from, count: count) }
            tail.withUnsafeBufferPointer { t in
                if let from = t.baseAddress, t.count > 0 { (base + count).initialize(from: from, count: t.count) }
            }
        }
        return withExtendedLifetime(self) { ByteBuffer(storage: fresh, count: total) }
    }

    /// Reads the whole file at `path`.
    public static func read(path: String) throws -> ByteBuffer {
        try path.withCString { try read(cPath: $0) }
    }

    /// The file these bytes are, as it was when they were read or written (see
    /// ``FileOrigin``); nil for bytes from memory, or a file that changed while it was
    /// read. A save copies the original bytes from it instead of writing them from memory.
    public var origin: FileOrigin? {
        get { originStorage.withLock { $0 } }
        set { originStorage.withLock { $0 = newValue } }
    }
    private let originStorage = Mutex<FileOrigin?>(nil)

    /// Reads the whole file at the C string `cPath`, whose bytes are passed to the system
    /// as they are (a path need not be valid UTF-8).
    public static func read(cPath: UnsafePointer<CChar>) throws -> ByteBuffer {
        let path = String(decoding: UnsafeRawBufferPointer(start: cPath, count: strlen(cPath)), as: UTF8.self)
        let fd = open(cPath, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let err = errno
            let kind: PDFErrorKind = (err == ENOENT || err == ENOTDIR) ? .notFound : .io
            throw PDFError(kind, "cannot open '\(path)': \(String(cString: strerror(err)))")
        }
        var closeOnExit = true
        defer { if closeOnExit { close(fd) } }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw PDFError(.io, "cannot stat '\(path)': \(String(cString: strerror(errno)))")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw PDFError(.io, "cannot read '\(path)': it is a directory")
        }
        guard Int(st.st_size) <= 1 << 46 else {
            throw PDFError(.limit, "'\(path)' is \(st.st_size) bytes: larger than this library can address")
        }
        if Int(st.st_size) >= lazyThreshold, let origin = FileOrigin(path: cPath, st) {
            let source = FileSource(descriptor: fd, name: "'\(path)'", origin: origin)
            if let storage = Storage(lazy: source, size: origin.size, spare: Swift.max(origin.size, 64 << 20)) {
                closeOnExit = false  // the source owns it now
                let buffer = ByteBuffer(storage: storage, count: origin.size)
                buffer.origin = origin
                return buffer
            }
            source.relinquish()  // refused: the descriptor stays this function's, to read it whole
        }
        // The size is a hint: a file that grows or shrinks while it is read is handled by
        // reading until end of file.
        // Read whole: small files, and (when the system refused to reserve its memory) a
        // large one up to 1 GiB; past that, refused rather than asking malloc for it.
        guard Int(st.st_size) <= 1 << 30 else {
            throw PDFError(.io, "cannot reserve memory to read '\(path)' (\(st.st_size) bytes)")
        }
        var capacity = Swift.max(Int(st.st_size), 0) + 1 + slack(for: Swift.max(Int(st.st_size), 0))
        var storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
        var used = 0
        while true {
            if used == capacity {
                let bigger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity * 2)
                bigger.baseAddress!.moveInitialize(from: storage.baseAddress!, count: used)
                storage.deallocate()
                storage = bigger
                capacity *= 2
            }
            let n = Glibc.read(fd, storage.baseAddress! + used, capacity - used)
            if n < 0 {
                if errno == EINTR { continue }
                let message = String(cString: strerror(errno))
                storage.deallocate()
                throw PDFError(.io, "cannot read '\(path)': \(message)")
            }
            if n == 0 { break }
            used += n
        }
        let buffer = ByteBuffer(storage: Storage(adopting: storage, claimed: used), count: used)
        // The origin only when the file did not change while it was read.
        var after = stat()
        if fstat(fd, &after) == 0, let origin = FileOrigin(path: cPath, st), origin.size == used, origin.matches(after) {
            buffer.origin = origin
        }
        return buffer
    }

    /// The byte at `index`, or nil past either end.
    @inline(__always)
    public subscript(checked index: Int) -> UInt8? {
        index >= 0 && index < bytes.count ? bytes[index] : nil
    }

    /// A copy of the bytes in `range`, clamped to the buffer, which throws when a lazy
    /// buffer could not read them (see ``load(_:)``).
    public func loadedSlice(_ range: Range<Int>) throws -> [UInt8] {
        let lower = Swift.min(Swift.max(range.lowerBound, 0), bytes.count)
        let upper = Swift.min(Swift.max(range.upperBound, lower), bytes.count)
        try load(lower..<upper)
        return Array(bytes[lower..<upper])
    }

    /// A copy of the bytes in `range`, clamped to the buffer.
    public func slice(_ range: Range<Int>) -> [UInt8] {
        let lower = Swift.min(Swift.max(range.lowerBound, 0), bytes.count)
        let upper = Swift.min(Swift.max(range.upperBound, lower), bytes.count)
        ensure(lower..<upper)
        return Array(bytes[lower..<upper])
    }

    /// The offset of the last occurrence of `needle` that starts at or after `from` and ends
    /// at or before `to`, or nil.
    public func lastIndex(of needle: [UInt8], from: Int = 0, to: Int? = nil) -> Int? {
        let end = Swift.min(to ?? bytes.count, bytes.count)
        guard !needle.isEmpty, end - needle.count >= Swift.max(from, 0) else { return nil }
        ensure(Swift.max(from, 0)..<end)
        var i = end - needle.count
        while i >= Swift.max(from, 0) {
            if bytes[i] == needle[0] && matches(needle, at: i) { return i }
            i -= 1
        }
        return nil
    }

    /// The offset of the first occurrence of `needle` at or after `from`, before `to`.
    ///
    /// libc's memchr and memcmp: searching for `endstream` past a wrong /Length, or for the
    /// names a repair peeks at, is a hot path on damaged files, and a byte loop in Swift
    /// costs several times more (in the fuzz targets, an instrumented comparison per byte).
    public func firstIndex(of needle: [UInt8], from: Int, to: Int? = nil) -> Int? {
        needle.withUnsafeBufferPointer { search($0, from: from, to: to ?? bytes.count) }
    }

    /// Whether `needle` occurs within bytes `from..<to` (clamped to the buffer).
    public func contains(_ needle: StaticString, from: Int, to: Int) -> Bool {
        search(UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount), from: from, to: to) != nil
    }

    private func search(_ needle: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
        let end = Swift.min(to, bytes.count)
        var i = Swift.max(from, 0)
        ensure(i..<Swift.max(i, end))
        guard let first = needle.first, let n = needle.baseAddress, let base = bytes.baseAddress else { return nil }
        // The last offset a match can start at is end - needle.count.
        while i <= end - needle.count {
            guard let hit = memchr(base + i, Int32(first), end - needle.count + 1 - i) else { return nil }
            let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            if memcmp(base + at, n, needle.count) == 0 { return at }
            i = at + 1
        }
        return nil
    }

    /// The keywords whose next occurrence the parser looks for when a stream's /Length is
    /// wrong: `endstream`, and `endobj` when there is none.
    public enum Keyword: Int, Sendable { case endstream = 0, endobj = 1 }

    /// How many direct searches for a keyword run before its offsets are indexed.
    static let directKeywordSearches = 8

    /// Per keyword: the number of direct searches so far, then every offset, sorted.
    private let keywordOffsets = Mutex<[(searches: Int, offsets: [Int]?)]>([(0, nil), (0, nil)])

    /// The first offset at or after `from` where `keyword` stands as a word: white space
    /// (or either end of the buffer) on both sides, as PDFium's FindWordPos takes it. In a
    /// stream's data, `endstream.` and `(endstream is text)` are text, not the keyword.
    ///
    /// The first few calls search the bytes; later calls use the offsets of every
    /// occurrence, found in one pass and then found by binary search. A file of N streams
    /// whose /Length is wrong and which have no `endstream` would otherwise cost N searches
    /// to the end of the file (O(N · size)).
    public func nextOccurrence(of keyword: Keyword, from: Int) -> Int? {
        let needle: StaticString = keyword == .endstream ? "endstream" : "endobj"
        let word = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        let indexed: [Int]? = keywordOffsets.withLock { state in
            if let offsets = state[keyword.rawValue].offsets { return offsets }
            state[keyword.rawValue].searches += 1
            guard state[keyword.rawValue].searches > Self.directKeywordSearches else { return nil }
            loadAll()
            // An index of bytes a failing source left as zeros would be kept for good.
            guard !isLazy, readFailures == 0, storage.lazy?.state.withLock({ $0.truncatedAt }) == nil else { return nil }
            var offsets: [Int] = []
            var i = 0
            while let at = wordSearch(word, from: i) {
                offsets.append(at)
                i = at + 1
            }
            state[keyword.rawValue].offsets = offsets
            return offsets
        }
        guard let offsets = indexed else { return wordSearch(word, from: from) }
        var lo = 0, hi = offsets.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if offsets[mid] < from { lo = mid + 1 } else { hi = mid }
        }
        return lo < offsets.count ? offsets[lo] : nil
    }

    /// The first occurrence of `word` at or after `from` with white space or an end of the
    /// buffer on both sides.
    private func wordSearch(_ word: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var i = from
        while let at = search(word, from: i, to: bytes.count) {
            ensure((at - 1)..<(at + word.count + 1))
            let before = at > 0 ? bytes[at - 1] : 0x20, after = at + word.count < bytes.count ? bytes[at + word.count] : 0x20
            if CharClass.isWhitespace(before) && CharClass.isWhitespace(after) { return at }
            i = at + 1
        }
        return nil
    }

    /// Whether `needle` stands at `offset`.
    @inline(__always)
    public func matches(_ needle: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + needle.count <= bytes.count else { return false }
        ensure(offset..<(offset + needle.count))
        for (k, b) in needle.enumerated() where bytes[offset + k] != b { return false }
        return true
    }
}

/// A regular file as it was at one moment: where it is, and the identity, size and times
/// that any change to it changes (a write changes the size or the modification time, and
/// always the change time, which no program can set back; a file replaced by a rename is
/// another inode). An unchanged identity means unchanged bytes, within the timestamp
/// granularity of the filesystem (Linux 6.13 and later give a file whose times were just
/// read a finer timestamp on its next change, so that the change shows).
public struct FileOrigin: Sendable, Equatable {
    /// The path as given to the system (its bytes, not necessarily UTF-8), without the NUL.
    public let path: [UInt8]
    public let device: UInt64
    public let inode: UInt64
    public let size: Int
    public let modified: Duration
    public let changed: Duration

    /// The file at `path` as `st` (its stat) describes it; nil unless it is a regular file.
    public init?(path: UnsafePointer<CChar>, _ st: stat) {
        self.init(path: Array(UnsafeRawBufferPointer(start: path, count: strlen(path))), st)
    }

    /// The file at `path` (its bytes) as `st` describes it; nil unless it is a regular file.
    public init?(path: [UInt8], _ st: stat) {
        guard (st.st_mode & S_IFMT) == S_IFREG, st.st_size >= 0, !path.isEmpty, !path.contains(0) else { return nil }
        self.path = path
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int(st.st_size)
        modified = FileOrigin.time(st.st_mtim)
        changed = FileOrigin.time(st.st_ctim)
    }

    /// Whether `st` describes this file, unchanged (wherever its path now leads).
    public func matches(_ st: stat) -> Bool {
        matchesContent(st) && FileOrigin.time(st.st_ctim) == changed
    }

    /// Whether `st` describes this file with the same bytes, as far as its identity, size
    /// and modification time tell: ``matches(_:)`` without the change time, which a rename
    /// over the file's path (an unlink) changes too.
    public func matchesContent(_ st: stat) -> Bool {
        (st.st_mode & S_IFMT) == S_IFREG && UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
            && Int(st.st_size) == size && FileOrigin.time(st.st_mtim) == modified
    }

    private static func time(_ t: timespec) -> Duration {
        .seconds(Int64(t.tv_sec)) + .nanoseconds(Int64(t.tv_nsec))
    }

    /// Calls `body` with the path as a C string.
    public func withCPath<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        let c = path.map { CChar(bitPattern: $0) } + [0]
        return try c.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}

/// Where a lazy ``ByteBuffer`` reads its bytes: a file descriptor (``FileSource``) or a
/// host's read callback (the C layer's). Called from whichever thread reads the document,
/// one call at a time per buffer.
public protocol RandomAccessSource: AnyObject, Sendable {
    /// What to call it in messages ("'/path/file.pdf'", "the read callback").
    var name: String { get }
    /// Reads up to `count` bytes at `offset` into `into`: how many were read, 0 at the end
    /// of the data, -1 on an error (then ``lastError`` says which).
    func read(into: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int
    /// The reason of the last failed read, if known.
    var lastError: String? { get }
}

/// An open file read with `pread`: never mapped, so a truncation by another process reads
/// as the end of the file, not SIGBUS. Closes the descriptor when released.
public final class FileSource: RandomAccessSource, @unchecked Sendable {
    public let descriptor: Int32
    public let name: String
    private let error = Mutex<String?>(nil)
    /// The file as it was opened (or as Quire's own append left it): a read of a file that
    /// no longer matches it is an error, so that a document never mixes the bytes it read
    /// with those another program wrote in place since.
    private let expected = Mutex<FileOrigin?>(nil)

    /// Takes ownership of `descriptor`, a file that `origin` describes (nil: not checked).
    public init(descriptor: Int32, name: String, origin: FileOrigin? = nil) {
        self.descriptor = descriptor
        self.name = name
        expected.withLock { $0 = origin }
    }

    /// Whether the descriptor is closed with the source (see ``relinquish()``).
    private var owns = true

    deinit { if owns { close(descriptor) } }

    /// Gives the descriptor back to whoever made the source: it is not closed with it.
    public func relinquish() { owns = false }

    /// The file's identity after Quire changed it (an append in place).
    public func expect(_ origin: FileOrigin) { expected.withLock { $0 = origin } }

    public func read(into: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        if let origin = expected.withLock({ $0 }) {
            var st = stat()
            // Not the change time: unlinking the file (another file renamed over its path,
            // as Quire's own saves do) changes it, and leaves the bytes read here intact.
            guard fstat(descriptor, &st) == 0, origin.matchesContent(st) else {
                error.withLock { $0 = "it changed since it was opened (another program wrote to it in place)" }
                return -1
            }
        }
        while true {
            let n = pread(descriptor, into, count, off_t(offset))
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                let message = String(cString: strerror(errno))
                error.withLock { $0 = message }
            }
            return n
        }
    }

    public var lastError: String? { error.withLock { $0 } }
}

/// Bytes in memory served as a ``RandomAccessSource``, optionally cut short at `available`
/// bytes (what a file truncated after it was opened gives): for tests and the fuzz targets.
public final class MemorySource: RandomAccessSource, @unchecked Sendable {
    public let bytes: [UInt8]
    /// How many bytes can be read: lower it to cut the source short (a file truncated by
    /// another process after it was opened).
    public var available: Int
    public let name = "the bytes in memory"
    /// How many bytes were asked for, in all.
    public private(set) var asked = 0

    public init(_ bytes: [UInt8], available: Int? = nil) {
        self.bytes = bytes
        self.available = Swift.min(available ?? bytes.count, bytes.count)
    }

    public func read(into: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        guard offset >= 0, offset < available, count > 0 else { return 0 }
        let n = Swift.min(count, available - offset)
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { into.copyMemory(from: base + offset, byteCount: n) }
        }
        asked += n
        return n
    }

    public var lastError: String? { nil }
}
