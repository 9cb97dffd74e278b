import CSQLite

// A thin layer over the system SQLite's C API: one connection, prepared statements cached
// by their SQL text, values bound and read with explicit lengths (no NUL-terminated
// strings, so a NUL inside a value is kept). Not thread-safe: SQLiteSyncStore serializes
// every use of a connection.

/// SQLITE_TRANSIENT: SQLite copies the bound bytes before the bind call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

package enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

package struct SQLiteError: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String
    package var description: String { "SQLite error \(code): \(message)" }
}

package final class SQLiteConnection {
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// Opens (creating) the database at `path` (`:memory:` for one in memory).
    package init(path: String) throws {
        var handle: OpaquePointer?
        // NOMUTEX: the store serializes every call on this connection itself.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: rc, message: "cannot open \(path): \(message)")
        }
        db = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    /// Finalizes the statements and closes the database; later calls fail with
    /// SQLITE_MISUSE instead of touching a closed handle. Idempotent.
    package func close() {
        guard let handle = db else { return }
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        sqlite3_close_v2(handle)
        db = nil
    }

    deinit { close() }

    private func error(_ rc: Int32, _ what: String) -> SQLiteError {
        SQLiteError(code: rc, message: "\(what): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "the database is closed")")
    }

    /// Runs SQL text of one or more statements without parameters (schema, pragmas,
    /// BEGIN/COMMIT).
    package func execute(_ sql: String) throws {
        guard let db else { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed") }
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: "\(text) (in \(sql.prefix(80)))")
        }
    }

    package func setBusyTimeout(milliseconds: Int32) {
        if let db { sqlite3_busy_timeout(db, milliseconds) }
    }

    private func statement(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        guard let db else { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed") }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, "prepare \(sql.prefix(80))") }
        statements[sql] = stmt
        return stmt
    }

    private func bind(_ stmt: OpaquePointer, _ values: [SQLiteValue]) throws {
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(stmt, index)
            case .integer(let v):
                rc = sqlite3_bind_int64(stmt, index, v)
            case .text(let s):
                let utf8 = Array(s.utf8)
                if utf8.isEmpty {
                    // A NULL pointer would bind SQL NULL: an empty string needs a real one.
                    rc = sqlite3_bind_text64(stmt, index, "", 0, transient, UInt8(SQLITE_UTF8))
                } else {
                    rc = utf8.withUnsafeBytes { raw in
                        sqlite3_bind_text64(stmt, index, raw.baseAddress?.assumingMemoryBound(to: CChar.self),
                                            UInt64(raw.count), transient, UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let bytes):
                if bytes.isEmpty {
                    rc = sqlite3_bind_zeroblob(stmt, index, 0)
                } else {
                    rc = bytes.withUnsafeBytes { sqlite3_bind_blob64(stmt, index, $0.baseAddress, UInt64($0.count), transient) }
                }
            }
            guard rc == SQLITE_OK else { throw error(rc, "bind") }
        }
    }

    /// Runs one statement to its end.
    package func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        let stmt = try statement(sql)
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        try bind(stmt, values)
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            if rc != SQLITE_ROW { throw error(rc, "step \(sql.prefix(80))") }
        }
    }

    /// The rows of one statement, each read by `row`.
    package func query<T>(_ sql: String, _ values: [SQLiteValue] = [], _ row: (SQLiteRow) throws -> T) throws -> [T] {
        let stmt = try statement(sql)
        defer {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        try bind(stmt, values)
        var out: [T] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return out }
            guard rc == SQLITE_ROW else { throw error(rc, "step \(sql.prefix(80))") }
            out.append(try row(SQLiteRow(stmt: stmt)))
        }
    }

    /// The number of rows the last statement changed.
    package var changes: Int { db.map { Int(sqlite3_changes($0)) } ?? 0 }
}

package struct SQLiteRow {
    let stmt: OpaquePointer

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(stmt, column) == SQLITE_NULL }

    package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(stmt, column) }

    package func blob(_ column: Int32) -> [UInt8] {
        // The pointer first, then the length (SQLite's documented order).
        guard let p = sqlite3_column_blob(stmt, column) else { return [] }
        let n = Int(sqlite3_column_bytes(stmt, column))
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    package func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, column) else { return "" }
        let n = Int(sqlite3_column_bytes(stmt, column))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    package func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }
    package func optionalBlob(_ column: Int32) -> [UInt8]? { isNull(column) ? nil : blob(column) }
}
