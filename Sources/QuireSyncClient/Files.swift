import QuireDocument
import QuireSyntax

// The client's files, through the model's (``AtomicFile``, ``FileSystem``), their errors
// as storage errors.

func storage<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as PDFError { throw SyncClientError(.storage, e.message) }
}

func writeFileDurably(_ bytes: [UInt8], to path: String) throws { try storage { try AtomicFile.write(bytes, to: path) } }
func readFile(_ path: String) -> [UInt8]? { (try? FileSystem.read(path)) ?? nil }
func makeDirectories(_ path: String) throws { try storage { try FileSystem.makeDirectories(path, mode: 0o755) } }
func removeTree(_ path: String) throws { try storage { try FileSystem.removeTree(path) } }
func listDirectory(_ path: String) -> [String] { FileSystem.entries(of: path) }
func fileExists(_ path: String) -> Bool { FileSystem.exists(path) }
