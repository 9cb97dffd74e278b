#if canImport(Glibc)
import Glibc
#endif

/// The file-system calls the modules share (the checkpointer, the sync client): whole
/// reads, directories made, listed and removed. Errors are I/O errors naming the path and
/// the system's reason. Writing a file durably is ``AtomicFile``'s.
package enum FileSystem {
    /// The whole content of the file at `path`; nil when there is no such file.
    package static func read(_ path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw AtomicFile.ioError("cannot open '\(path)'")
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.ioError("cannot read '\(path)'")
            }
            if n == 0 { return out }
            out += chunk[0..<n]
        }
    }

    /// Makes `path` and every missing directory above it with `mode`; existing ones are fine.
    package static func makeDirectories(_ path: String, mode: mode_t) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, mode) != 0 && errno != EEXIST {
                throw AtomicFile.ioError("cannot create the directory '\(current)'")
            }
        }
    }

    /// The names in directory `path` but `.` and `..`, sorted; empty when it cannot be read.
    package static func entries(of path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = entryName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Removes `path` and everything under it; a missing path is fine.
    package static func removeTree(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            guard opendir(path).map({ closedir($0) }) != nil else { throw AtomicFile.ioError("cannot read '\(path)'") }
            for name in entries(of: path) { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 else { throw AtomicFile.ioError("cannot remove '\(path)'") }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw AtomicFile.ioError("cannot remove '\(path)'") }
        }
    }

    /// Whether something is at `path`.
    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// A directory entry's name, read byte by byte up to its NUL: the bytes of `d_name`
    /// after it are not initialized (valgrind saw the word-wide UTF-8 checks read them).
    /// Bytes past ASCII come out as Latin-1: the names the modules make are ASCII.
    private static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeMutablePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { p in
                var name = ""
                var i = 0
                while i < MemoryLayout.size(ofValue: entry.pointee.d_name), p[i] != 0 {
                    name.unicodeScalars.append(Unicode.Scalar(p[i]))
                    i += 1
                }
                return name
            }
        }
    }
}
