import FoundationEssentials
import QuireDocument
@testable import QuireSync
import QuireSQLite
import QuireSyncProtocol
import QuireSyntax
import Testing

// The SQLite store's opening and closing, as the C handler's statuses rely on them.

@Suite struct SQLiteStoreFiles {
    /// Stores that cannot be opened say why (`SyncStoreError.kind`, which the C handler turns
    /// into QUIRE_EIO or QUIRE_EFORMAT), another program's database is left untouched, and
    /// `close()` closes the file at once (its WAL gone when it returns).
    @Test func storesThatCannotBeOpenedAndClosing() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        func kind(_ url: String) -> SyncStoreError.Kind? {
            do {
                _ = try SyncService(SyncConfiguration(storeURL: url, publicKeys: [keys.rsaPublicPEM]))
                return nil
            } catch let e as SyncStoreError {
                return e.kind
            } catch {
                Issue.record("\(url): \(error)")
                return nil
            }
        }
        #expect(kind("sqlite://\(dir.path)/no/such/dir/x.db") == .unavailable)
        #expect(kind("sqlite://\(dir.path)") == .unavailable)
        let garbage = dir.path + "/garbage.db"
        try Data(repeating: UInt8(ascii: "x"), count: 4096).write(to: URL(fileURLWithPath: garbage))
        #expect(kind("sqlite://\(garbage)") == .notAStore)
        // Another program's database: refused, and not one table of Quire's added to it.
        let foreign = dir.path + "/foreign.db"
        do {
            let other = try SQLiteConnection(path: foreign)
            try other.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('mine')")
            other.close()
        }
        let bytesBefore = try Data(contentsOf: URL(fileURLWithPath: foreign))
        #expect(kind("sqlite://\(foreign)") == .notAStore)
        // Not one byte written (WAL mode would rewrite the header).
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == bytesBefore)
        let after = try SQLiteConnection(path: foreign)
        let tables = try after.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.text(0) }
        #expect(tables == ["notes"])
        after.close()
        // A Quire store closes its file before close() returns.
        let path = dir.path + "/quire.db"
        let service = try SyncService(SyncConfiguration(storeURL: "sqlite://\(path)", publicKeys: [keys.rsaPublicPEM], adminToken: adminToken))
        let auth = [(name: "Authorization", value: "Token \(adminToken)")]
        let r = await service.handle(SyncRequest(method: "POST", path: "/admin/documents", query: ["id": "d"], headers: auth, body: plainPDF()))
        #expect(r.status == 201)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        await service.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // Reopened: the same store (its application id and schema accepted).
        let again = try SyncService(SyncConfiguration(storeURL: "sqlite://\(path)", publicKeys: [keys.rsaPublicPEM], adminToken: adminToken))
        let list = await again.handle(SyncRequest(method: "GET", path: "/admin/documents", headers: auth))
        #expect(String(decoding: list.body, as: UTF8.self).contains("\"d\""))
        await again.close()
    }
}
