internal import CSQLite

/// A prepared statement, owned by one `SQLiteDatabase` and reused through its statement cache.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    /// Set while a query runs, so that a nested use of the same SQL prepares a second statement.
    var isBusy = false

    init(database: OpaquePointer, sql: String) throws {
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw SQLiteDatabase.error(database: database, code: rc, sql: sql)
        }
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds `arguments` to the parameters in order; the count must match exactly.
    func bind(_ arguments: StatementArguments, database: OpaquePointer) throws {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.values.count == expected else {
            throw SQLiteError(
                extendedCode: SQLITE_MISUSE,
                message: "\(arguments.values.count) arguments for \(expected) parameters",
                sql: sql)
        }
        for (offset, value) in arguments.values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                rc = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                rc = sqlite3_bind_double(handle, index, real)
            case .text(let text):
                rc = Statement.bindText(text, to: handle, at: index)
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(
                        handle, index, buffer.baseAddress, UInt64(buffer.count), marginalia_sqlite_transient())
                }
            }
            guard rc == SQLITE_OK else { throw SQLiteDatabase.error(database: database, code: rc, sql: sql) }
        }
    }

    /// Resets the statement so it can run again, and drops its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private static func bindText(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        // Native Swift strings are contiguous UTF-8; withUTF8 makes bridged ones so before handing out bytes.
        return text.withUTF8 { utf8 in
            // SQLITE_TRANSIENT: "SQLite makes its own private copy of the data immediately, before the
            // sqlite3_bind_*() routine returns." https://www.sqlite.org/c3ref/bind_blob.html
            sqlite3_bind_text64(
                handle, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self),
                UInt64(utf8.count), marginalia_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }
}
