internal import CSQLite

/// An error reported by the SQLite engine.
///
/// It carries the extended result code, SQLite's own message and the SQL that failed; never the bound
/// values, which may hold a person's notes.
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    package let extendedCode: Int32
    /// SQLite's message for the error.
    package let message: String
    /// The SQL being run, if any.
    package let sql: String?

    /// An error with SQLite's extended result code, its message, and the statement when there is one.
    package init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended code), e.g. 19 (`SQLITE_CONSTRAINT`).
    package var primaryCode: Int32 { extendedCode & 0xFF }

    /// Whether a constraint (UNIQUE, CHECK, NOT NULL, a foreign key) failed: SQLITE_CONSTRAINT.
    package var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }
    /// Whether another connection holds a lock: SQLITE_BUSY or SQLITE_LOCKED.
    package var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    /// Whether the file is damaged or not a database: SQLITE_CORRUPT or SQLITE_NOTADB.
    package var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
    /// Whether the database cannot be written: SQLITE_READONLY.
    package var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
    /// Whether the file could not be opened: SQLITE_CANTOPEN.
    package var isCantOpen: Bool { primaryCode == SQLITE_CANTOPEN }
    /// Whether the disk (or a size limit) is full: SQLITE_FULL.
    package var isFull: Bool { primaryCode == SQLITE_FULL }

    /// The error in words: code, name, message and the statement.
    package var description: String {
        let name = String(cString: sqlite3_errstr(extendedCode))
        var text = "SQLite error \(extendedCode) (\(name)): \(message)"
        if let sql {
            text += " — in: \(sql)"
        }
        return text
    }
}
