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
public final class ByteBuffer: @unchecked Sendable {
    /// Immutable after init; shared read-only, hence `@unchecked Sendable`. Not public: a
    /// pointer that outlives its buffer is a use-after-free; other modules use
    /// ``copyBytes()`` or ``withBytes(_:)``.
    package let bytes: UnsafeBufferPointer<UInt8>

    /// A copy of all the bytes.
    public func copyBytes() -> [UInt8] { withBytes { Array($0) } }

    /// Calls `body` with the bytes, keeping the buffer alive meanwhile.
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(bytes) }
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

        init(capacity: Int, claimed: Int) {
            memory = .allocate(capacity: Swift.max(capacity, 1))
            self.claimed = Mutex(claimed)
        }

        init(adopting memory: UnsafeMutableBufferPointer<UInt8>, claimed: Int) {
            self.memory = memory
            self.claimed = Mutex(claimed)
        }

        deinit { memory.deallocate() }
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

    /// These bytes followed by `tail`. When this buffer is the longest of its allocation and
    /// the tail fits in its spare capacity, the new buffer shares the allocation and only
    /// `tail` is copied (this buffer still sees exactly its own bytes); else everything is
    /// copied once into a new allocation with spare capacity of its own. An incremental save
    /// thus continues from the saved file without copying the original in memory.
    public func appending(_ tail: [UInt8]) -> ByteBuffer {
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
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw PDFError(.io, "cannot stat '\(path)': \(String(cString: strerror(errno)))")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw PDFError(.io, "cannot read '\(path)': it is a directory")
        }
        // The size is a hint: a file that grows or shrinks while it is read is handled by
        // reading until end of file.
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

    /// A copy of the bytes in `range`, clamped to the buffer.
    public func slice(_ range: Range<Int>) -> [UInt8] {
        let lower = Swift.min(Swift.max(range.lowerBound, 0), bytes.count)
        let upper = Swift.min(Swift.max(range.upperBound, lower), bytes.count)
        return Array(bytes[lower..<upper])
    }

    /// The offset of the last occurrence of `needle` that starts at or after `from` and ends
    /// at or before `to`, or nil.
    public func lastIndex(of needle: [UInt8], from: Int = 0, to: Int? = nil) -> Int? {
        let end = Swift.min(to ?? bytes.count, bytes.count)
        guard !needle.isEmpty, end - needle.count >= Swift.max(from, 0) else { return nil }
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

    /// The first offset at or after `from` where `keyword` stands.
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
            var offsets: [Int] = []
            var i = 0
            while let at = search(word, from: i, to: bytes.count) {
                offsets.append(at)
                i = at + 1
            }
            state[keyword.rawValue].offsets = offsets
            return offsets
        }
        guard let offsets = indexed else { return search(word, from: from, to: bytes.count) }
        var lo = 0, hi = offsets.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if offsets[mid] < from { lo = mid + 1 } else { hi = mid }
        }
        return lo < offsets.count ? offsets[lo] : nil
    }

    /// Whether `needle` stands at `offset`.
    @inline(__always)
    public func matches(_ needle: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + needle.count <= bytes.count else { return false }
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
        (st.st_mode & S_IFMT) == S_IFREG && UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
            && Int(st.st_size) == size && FileOrigin.time(st.st_mtim) == modified
            && FileOrigin.time(st.st_ctim) == changed
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
