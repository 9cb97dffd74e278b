// Versioned structs of include/quire.h (libgit2's and zstd's rule): the library reads
// `version` first, then only the bytes that version has, so a struct that grows in a later
// header never makes this library read past the end of an older caller's struct, and a
// newer caller's struct is refused instead of misread.
import CQuire
import QuireDocument

/// The versions of one struct: `sizes[v - 1]` is how many bytes version `v` has (the
/// offset of the first field added after it, or the whole struct for the current one).
struct StructVersions<T> {
    let name: String
    let sizes: [Int]

    var current: UInt32 { UInt32(sizes.count) }

    /// `*pointer`, of the caller's version, over `defaults`: the fields an older version
    /// lacks keep the defaults. Returns the value and the caller's version.
    func read(_ pointer: UnsafePointer<T>, defaults: T) throws -> (value: T, version: UInt32) {
        let raw = UnsafeRawPointer(pointer)
        let version = raw.loadUnaligned(as: UInt32.self)
        try check(version)
        var value = defaults
        withUnsafeMutableBytes(of: &value) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: sizes[Int(version) - 1]))
        }
        return (value, version)
    }

    /// Writes the fields of `value` that the caller's version has (its `version` field is
    /// read first, and kept).
    func write(_ value: T, to pointer: UnsafeMutablePointer<T>) throws {
        let raw = UnsafeMutableRawPointer(pointer)
        let version = raw.loadUnaligned(as: UInt32.self)
        try check(version)
        withUnsafeBytes(of: value) { source in
            guard let base = source.baseAddress else { return }
            // Bytes 0..<4 are the version: the caller's stays.
            (raw + 4).copyMemory(from: base + 4, byteCount: sizes[Int(version) - 1] - 4)
        }
    }

    /// Fills `pointer` with `defaults` as version `version` has them.
    func initialize(_ pointer: UnsafeMutablePointer<T>?, version: UInt32, defaults: T) throws {
        guard let pointer else { throw CallError(code: QUIRE_EINVAL, message: "\(name) is NULL") }
        try check(version)
        let raw = UnsafeMutableRawPointer(pointer)
        withUnsafeBytes(of: defaults) { source in
            guard let base = source.baseAddress else { return }
            raw.copyMemory(from: base, byteCount: sizes[Int(version) - 1])
        }
        raw.storeBytes(of: version, as: UInt32.self)
    }

    /// A hint for a "version" that no header ever had: versions are small numbers, so one
    /// past 65,535 is most likely another argument passed where the struct goes (issue 40:
    /// `quire_document_save(doc, "out.pdf", &options)` read the path's bytes "out." as the
    /// version 779384175, and the message spoke of a newer library).
    static func notAVersion(_ version: UInt32) -> String {
        guard version > 0xFFFF else { return "" }
        let bytes = withUnsafeBytes(of: version.littleEndian) { Array($0) }
        let text = bytes.allSatisfy { (0x20..<0x7F).contains($0) } ? ", whose bytes read as the text \"\(String(decoding: bytes, as: UTF8.self))\"" : ""
        return ": no header has that version\(text), so this is likely not the struct at all; check the arguments' order against quire.h (a string or another pointer where the struct goes)"
    }

    private func check(_ version: UInt32) throws {
        guard version >= 1 else {
            throw CallError(code: QUIRE_EINVAL, message: "\(name)->version is 0: initialise the struct with its _INIT macro or _init function")
        }
        guard version <= current else {
            throw CallError(code: QUIRE_EVERSION, message: "\(name)->version is \(version); this library knows versions 1 to \(current)" + StructVersions.notAVersion(version))
        }
    }
}
