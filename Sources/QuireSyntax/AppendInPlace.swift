#if canImport(Glibc)
import Glibc
#endif

/// Appending an incremental update to the file it updates, in place: no copy of the
/// original, so the cost is the update's (issue 17).
///
/// Why a crash never leaves a file that readers cannot open, and never a half update:
/// 1. The file must be the one the document was read from, unchanged (identity, size,
///    times, and its first and last 4 KB against the bytes read); an exclusive `flock`
///    keeps two Quire processes from appending at once.
/// 2. The update's body (its objects, cross-reference section and trailer) is written after
///    the old end of file and flushed (`fdatasync`). Until the next step, the file's last
///    `startxref` is still the old one, and the bytes after it are dead: Quire (which looks
///    for the last `startxref` in the whole file) opens the old revision; a reader that
///    looks only near the end and misses it repairs the file by scanning, and opens it
///    (Tests/python/test_append_in_place.py kills saves at random and opens the results
///    with PDFium, qpdf, MuPDF and pypdf).
/// 3. The tail, `startxref N %%EOF`, is written by one `pwrite` that never crosses a page
///    boundary (the caller pads before it), so a process killed during the save leaves the
///    tail whole or absent, never torn; then the file is flushed again. Only this write
///    makes the new revision the file's.
/// A failed or interrupted save therefore leaves the old revision in force. A failed write
/// cuts its dead bytes off again; a process killed during the save leaves them in the file,
/// where they stay, unread (the next append goes after them; a full save drops them).
public enum AppendInPlace {
    /// The page size the tail must not straddle (the smallest Linux uses; a tail inside one
    /// 4 KB page is inside one page of any larger size too).
    public static let pageSize = 4096

    /// How many padding bytes (EOL characters, allowed before `startxref`) to put before a
    /// tail of `tailLength` bytes that would start at file offset `offset`, so that it fits
    /// in one page.
    public static func padding(beforeTailAt offset: Int, tailLength: Int) -> Int {
        let inPage = offset % pageSize
        return inPage + tailLength <= pageSize ? 0 : pageSize - inPage
    }

    /// Appends `update` to the file `origin` names, at `origin.size`, if it is unchanged
    /// (its identity and times, and its first and last 4 KB equal to `expected`, the bytes
    /// the document was read from). The last `tailLength` bytes of `update` are its tail
    /// (`startxref ... %%EOF`), written and flushed last in one write. Returns the file's
    /// new identity. Throws, with nothing written, `stale` when the file changed since it was
    /// read and `busy` when another process is appending to it; `io` when a write failed
    /// (the file then still opens as before: its dead bytes are truncated when possible).
    public static func appendInPlace(update: UnsafeRawBufferPointer, tailLength: Int, origin: FileOrigin,
                                     expected: UnsafeRawBufferPointer) throws -> FileOrigin {
        let name = String(decoding: origin.path, as: UTF8.self)
        guard tailLength > 0, tailLength <= update.count, tailLength <= pageSize,
              padding(beforeTailAt: origin.size + update.count - tailLength, tailLength: tailLength) == 0 else {
            throw PDFError(.invalidArgument, "an append in place needs a tail of at most one page that does not cross a page boundary")
        }
        let fd = origin.withCPath { open($0, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { throw AtomicFile.ioError("cannot open '\(name)' to append to it") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            throw PDFError(.busy, "'\(name)' is being saved by another process")
        }
        guard AtomicFile.isUnchanged(fd, origin, expected) else {
            throw PDFError(.stale, "'\(name)' changed since it was read (its size, times or bytes differ): save it with an atomic save instead")
        }
        guard let base = update.baseAddress else { return origin }
        let bodyLength = update.count - tailLength
        do {
            try AtomicFile.writeAll(fd, base, bodyLength, at: origin.size, "cannot write to '\(name)'")
            guard fdatasync(fd) == 0 else { throw AtomicFile.ioError("cannot flush '\(name)' to disk") }
            try AtomicFile.writeAll(fd, base + bodyLength, tailLength, at: origin.size + bodyLength, "cannot write to '\(name)'")
            guard fsync(fd) == 0 else { throw AtomicFile.ioError("cannot flush '\(name)' to disk") }
        } catch {
            // Dead bytes after the old end: cut them off if the file lets us (it opens as
            // before either way, its last startxref being the old one unless the tail was
            // written, in which case the flush failed and the state is the kernel's).
            _ = ftruncate(fd, off_t(origin.size))
            _ = fsync(fd)
            throw error
        }
        var st = stat()
        guard fstat(fd, &st) == 0, let after = FileOrigin(path: origin.path, st), after.size == origin.size + update.count else {
            throw AtomicFile.ioError("'\(name)' has an unexpected size after the append")
        }
        return after
    }
}
