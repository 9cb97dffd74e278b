#if canImport(Glibc)
import Glibc
#endif

/// Writing a file so that it is never torn: a temporary file in the same directory,
/// written in full and flushed to disk, then renamed over the target, then the directory
/// flushed, so that after a crash the target holds either the old bytes or the new ones.
/// The one home of durable file writing for every module (issue 32: the sync client had
/// its own, with a fixed `path + ".tmp"` name two writers shared); the temporary file's
/// name is unique (mkstemp).
public enum AtomicFile {
    /// How the first bytes of a file written with a `prefix` origin got there.
    public enum PrefixCopy: Sendable, Equatable {
        /// Written from memory, like the rest: there was no origin, or it had changed, or
        /// the kernel could not copy it.
        case none
        /// Shared with the original file's blocks (FICLONE: Btrfs, XFS, bcachefs, ...): no
        /// data copied at all.
        case reflink
        /// Copied by the kernel (`copy_file_range`), without passing through this process.
        case kernelCopy
    }

    /// What ``write(_:to:copyingPrefixFrom:)`` wrote.
    public struct Written: Sendable {
        /// The file written, as it is after the rename: the origin of the bytes for the
        /// next save (nil if the path no longer leads to it).
        public var origin: FileOrigin?
        /// How its first bytes were copied.
        public var prefixCopy: PrefixCopy
    }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try bytes.withUnsafeBytes { _ = try write($0, to: path) }
    }

    /// Writes `bytes` to `path` as ``write(_:to:)-([UInt8],_)`` does, from memory the caller
    /// keeps alive (a ``ByteBuffer``'s, so that a 100 MB file is not copied to an array
    /// first).
    ///
    /// When `origin` is given and the file it names is unchanged since (its identity, size
    /// and times, and its first and last bytes against `bytes`), its `origin.size` bytes are
    /// the first bytes of `bytes`, and the kernel copies them instead of this process: by
    /// a reflink where the filesystem shares blocks, else by `copy_file_range`. If either
    /// fails, or the origin changes while it is copied, everything is written from memory
    /// as without it. The temporary file, fsync, rename and directory fsync are the same
    /// either way, so the save is as atomic and durable.
    ///
    /// `loading`, when given, is called with each range of `bytes` before it is read (a lazy
    /// ``ByteBuffer``'s ``ByteBuffer/ensure(_:)``): a prefix the kernel copies is never read
    /// into memory.
    @discardableResult
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String,
                             copyingPrefixFrom origin: FileOrigin? = nil,
                             loading: ((Range<Int>) throws -> Void)? = nil) throws -> Written {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let base = String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...])
        var template = Array((directory + "/." + base + ".quire-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw ioError("cannot create a temporary file beside '\(path)'") }
        // mkstemp replaced the X's in place; the array ends with the C string's NUL.
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        var written = Written(origin: nil, prefixCopy: .none)
        var st = stat()
        do {
            // Keep the permissions of the file being replaced, if there is one.
            if stat(path, &st) == 0 { fchmod(fd, st.st_mode & 0o7777) } else { fchmod(fd, 0o644) }
            var start = 0
            if let origin, origin.size > 0, origin.size <= bytes.count {
                try loading?(0..<Swift.min(4096, origin.size))
                try loading?(Swift.max(0, origin.size - 4096)..<origin.size)
                written.prefixCopy = copyPrefix(of: bytes, from: origin, to: fd)
                if written.prefixCopy != .none { start = origin.size }
            }
            if let base = bytes.baseAddress {
                try loading?(start..<bytes.count)
                try writeAll(fd, base + start, bytes.count - start, at: start, "cannot write '\(temporary)'")
            }
            guard fsync(fd) == 0 else { throw ioError("cannot flush '\(temporary)' to disk") }
            guard fstat(fd, &st) == 0 else { throw ioError("cannot stat '\(temporary)'") }
            closed = true
            guard close(fd) == 0 else { throw ioError("cannot close '\(temporary)'") }
            guard rename(temporary, path) == 0 else { throw ioError("cannot rename '\(temporary)' to '\(path)'") }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename is durable once the directory is flushed.
        syncDirectory(of: path)
        // The saved file's identity after the rename (which sets its change time), if the
        // path still leads to the file written.
        let (device, inode) = (st.st_dev, st.st_ino)
        if stat(path, &st) == 0, st.st_dev == device, st.st_ino == inode, Int(st.st_size) == bytes.count {
            written.origin = FileOrigin(path: Array(path.utf8), st)
        }
        return written
    }

    /// Copies the first `origin.size` bytes of `bytes` into the empty file `fd` from the
    /// file `origin` names, if it is unchanged: by reflink, else by `copy_file_range`. On
    /// any failure `fd` is left empty and the result is `.none`.
    static func copyPrefix(of bytes: UnsafeRawBufferPointer, from origin: FileOrigin, to fd: Int32) -> PrefixCopy {
        let source = origin.withCPath { open($0, O_RDONLY | O_CLOEXEC) }
        guard source >= 0 else { return .none }
        defer { close(source) }
        func unchanged() -> Bool {
            var st = stat()
            return fstat(source, &st) == 0 && origin.matches(st)
        }
        guard isUnchanged(source, origin, bytes) else { return .none }
        var method = PrefixCopy.none
        if ioctl(fd, ficlone, source) == 0 {
            method = .reflink
        } else if let copy = copyFileRange {
            var inOffset: Int64 = 0, outOffset: Int64 = 0
            method = .kernelCopy
            while inOffset < Int64(origin.size) {
                let n = copy(source, &inOffset, fd, &outOffset, origin.size - Int(inOffset), 0)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {  // not supported here (EXDEV, EOPNOTSUPP, ENOSYS...), or cut short
                    method = .none
                    break
                }
            }
        }
        // Changed while it was copied: the copy may hold the new bytes. Start again from memory.
        var st = stat()
        if method != .none && (!unchanged() || fstat(fd, &st) != 0 || Int(st.st_size) != origin.size) {
            method = .none
        }
        if method == .none { _ = ftruncate(fd, 0) }
        return method
    }

    /// Whether the open file `fd` is the file `origin` describes, unchanged: its identity,
    /// size and times, then a sample of its bytes against `bytes` (the bytes read from it):
    /// the start and the end, where an incremental update of another program would have
    /// changed /Prev and startxref. Shared by the kernel copy and the append in place.
    static func isUnchanged(_ fd: Int32, _ origin: FileOrigin, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var st = stat()
        return fstat(fd, &st) == 0 && origin.matches(st)
            && sample(fd, 0, bytes, origin.size) && sample(fd, Swift.max(0, origin.size - 4096), bytes, origin.size)
    }

    /// Writes `count` bytes from `base` to `fd` at `offset`, however many `pwrite` calls it
    /// takes; throws an I/O error with `what` (and the system's reason).
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int, at offset: Int, _ what: @autoclosure () -> String) throws {
        var done = 0
        while done < count {
            let n = pwrite(fd, base + done, count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError(what())
            }
            done += n
        }
    }

    /// Whether the (up to) 4096 bytes of file `fd` at `offset`, below `end`, are those of
    /// `bytes`.
    private static func sample(_ fd: Int32, _ offset: Int, _ bytes: UnsafeRawBufferPointer, _ end: Int) -> Bool {
        let count = Swift.min(4096, end - offset)
        guard count > 0 else { return count == 0 }
        guard let base = bytes.baseAddress, end <= bytes.count else { return false }
        var buffer = [UInt8](repeating: 0, count: count)
        var read = 0
        while read < count {
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let p = raw.baseAddress else { return -1 }
                return pread(fd, p + read, count - read, off_t(offset + read))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            read += n
        }
        return buffer.withUnsafeBytes { raw in raw.baseAddress.map { memcmp($0, base + offset, count) == 0 } ?? false }
    }

    /// FICLONE: _IOW(0x94, 9, int), which Swift cannot import (a function-like macro).
    private static let ficlone = UInt(0x4004_9409)

    /// `copy_file_range(2)`, which glibc declares only under _GNU_SOURCE (so Swift does not
    /// see it): found at run time; nil without it (glibc before 2.27).
    private typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
    private static let copyFileRange: CopyFileRange? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "copy_file_range") else { return nil }
        return unsafeBitCast(symbol, to: CopyFileRange.self)
    }()

    /// Flushes the directory holding `path` to disk: what makes a rename or a new file in
    /// it durable.
    package static func syncDirectory(of path: String) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Appends `bytes` to `fd` (opened for writing at its end), however many `write` calls
    /// it takes; throws an I/O error with `what`.
    package static func append(_ fd: Int32, _ bytes: [UInt8], _ what: @autoclosure () -> String) throws {
        try bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, base + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ioError(what())
                }
                done += n
            }
        }
    }

    package static func ioError(_ what: String) -> PDFError {
        PDFError(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}
