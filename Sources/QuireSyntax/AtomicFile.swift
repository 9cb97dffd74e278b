#if canImport(Glibc)
import Glibc
#endif

/// Writing a file so that it is never torn: a temporary file in the same directory,
/// written in full and flushed to disk, then renamed over the target, then the directory
/// flushed, so that after a crash the target holds either the old bytes or the new ones.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String) throws {
        try bytes.withUnsafeBytes { try write($0, to: path) }
    }

    /// Writes `bytes` to `path` as ``write(_:to:)-([UInt8],_)`` does, from memory the caller
    /// keeps alive (a ``ByteBuffer``'s, so that a 100 MB file is not copied to an array
    /// first).
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
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
        do {
            // Keep the permissions of the file being replaced, if there is one.
            var st = stat()
            if stat(path, &st) == 0 { fchmod(fd, st.st_mode & 0o7777) } else { fchmod(fd, 0o644) }
            if let base = bytes.baseAddress {
                let raw = bytes
                var written = 0
                while written < raw.count {
                    let n = Glibc.write(fd, base + written, raw.count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw ioError("cannot write '\(temporary)'")
                    }
                    written += n
                }
            }
            guard fsync(fd) == 0 else { throw ioError("cannot flush '\(temporary)' to disk") }
            closed = true
            guard close(fd) == 0 else { throw ioError("cannot close '\(temporary)'") }
            guard rename(temporary, path) == 0 else { throw ioError("cannot rename '\(temporary)' to '\(path)'") }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename is durable once the directory is flushed.
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    static func ioError(_ what: String) -> PDFError {
        PDFError(.io, "\(what): \(String(cString: strerror(errno)))")
    }
}
