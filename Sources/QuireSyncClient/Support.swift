import FoundationEssentials
import JWTKit
import QuireDocument
import QuireSyncProtocol
import QuireSyntax
#if canImport(Glibc)
import Glibc
#endif

// What the sync client shares: its errors, the token's claims, JSON helpers and a lock.

/// An error of the sync client, by kind (the C layer maps each kind to a status).
public struct SyncClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A bad argument: an unreadable token, an id with path characters, a bad URL.
        case invalidArgument
        /// The call does not fit the descriptor's state (no download yet, storage removed).
        case state
        /// A download is already running for this descriptor.
        case busy
        /// The server refused the token (401): reauthenticate.
        case authentication
        /// The server refused the call for this token (403), or the document is gone (404).
        case forbidden
        /// The server could not be reached or answered 5xx: retried on the next sync.
        case network
        /// The local store failed (SQLite, files).
        case storage
        /// The server's answer is not what the protocol says.
        case protocolError
        /// The build has no transport for this (QUIRE_NO_SERVER).
        case unsupported
    }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}

/// The claims of a JWT that the client reads, without checking the signature (the
/// server's job): which document and layer it grants.
public struct SyncTokenClaims: Sendable, Equatable {
    public var documentID: String
    public var layer: String
    public var userID: String?
    /// `exp`, in seconds since 1970.
    public var expires: Double?

    private struct Payload: JWTPayload {
        var document_id: String
        var layer: String
        var user_id: String?
        var exp: ExpirationClaim?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The largest token read (the server's `max_token_bytes`).
    public static let maxTokenBytes = 8 << 10

    /// Reads `token`'s claims; an unreadable token, or one whose `document_id` or `layer`
    /// is not an id of the protocol, is an invalid-argument error.
    public init(token: String) throws {
        guard token.utf8.count <= Self.maxTokenBytes else {
            throw SyncClientError(.invalidArgument, "the token is larger than \(Self.maxTokenBytes) bytes")
        }
        let payload: Payload
        do {
            payload = try DefaultJWTParser().parse(Array(token.utf8), as: Payload.self).payload
        } catch {
            throw SyncClientError(.invalidArgument, "the token is not a JWT with document_id and layer claims")
        }
        guard SyncIDs.isValid(payload.document_id), SyncIDs.isValid(payload.layer) else {
            throw SyncClientError(.invalidArgument, "the token's document_id or layer is not an id ([A-Za-z0-9._-]{1,128})")
        }
        documentID = payload.document_id
        layer = payload.layer
        userID = payload.user_id
        expires = payload.exp.map { $0.value.timeIntervalSince1970 }
    }
}

/// The recursive mutex of QuireDocument.
public typealias RecursiveLock = DocumentLock

/// Writes `bytes` to `path` atomically and durably, through the one durable writer of the
/// model (``AtomicFile``: a uniquely named temporary file, fsync, rename, fsync of the
/// directory), its error as a storage error.
func writeFileDurably(_ bytes: [UInt8], to path: String) throws {
    do { try AtomicFile.write(bytes, to: path) } catch {
        throw SyncClientError(.storage, "cannot write \(path): \(error)")
    }
}

/// The whole file at `path`; nil when it is absent or cannot be read.
func readFile(_ path: String) -> [UInt8]? { (try? AtomicFile.read(path)) ?? nil }

func makeDirectories(_ path: String) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
        current += "/" + part
        if mkdir(current, 0o755) != 0 && errno != EEXIST {
            throw SyncClientError(.storage, "cannot create the directory \(current): errno \(errno)")
        }
    }
}

/// Removes `path` and everything under it; a missing path is fine.
func removeTree(_ path: String) throws {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    if (st.st_mode & S_IFMT) == S_IFDIR {
        guard let dir = opendir(path) else { throw SyncClientError(.storage, "cannot read \(path): errno \(errno)") }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = entryName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names { try removeTree(path + "/" + name) }
        guard rmdir(path) == 0 else { throw SyncClientError(.storage, "cannot remove \(path): errno \(errno)") }
    } else {
        guard unlink(path) == 0 || errno == ENOENT else { throw SyncClientError(.storage, "cannot remove \(path): errno \(errno)") }
    }
}

/// A directory entry's name, read byte by byte up to its NUL: the bytes of `d_name` after it
/// are not initialized (valgrind saw the word-wide UTF-8 checks read them), and the names
/// this module makes are ASCII ids (others come out as Latin-1, and no id matches them).
func entryName(_ entry: UnsafeMutablePointer<dirent>) -> String {
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

func listDirectory(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = entryName(entry)
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

func fileExists(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0
}
