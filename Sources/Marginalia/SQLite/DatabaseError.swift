internal import CSQLite

/// An error reported by the SQLite engine.
///
/// It carries the extended result code, SQLite's own message and the SQL that failed; never the bound
/// values, which may hold a person's notes.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    public let extendedCode: Int32
    /// SQLite's message for the error.
    public let message: String
    /// The SQL being run, if any.
    public let sql: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (the low byte of the extended code), e.g. 19 (`SQLITE_CONSTRAINT`).
    public var primaryCode: Int32 { extendedCode & 0xFF }

    public var isConstraintViolation: Bool { primaryCode == SQLITE_CONSTRAINT }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }
    public var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
    public var isCantOpen: Bool { primaryCode == SQLITE_CANTOPEN }
    public var isFull: Bool { primaryCode == SQLITE_FULL }

    public var description: String {
        let name = String(cString: sqlite3_errstr(extendedCode))
        var text = "SQLite error \(extendedCode) (\(name)): \(message)"
        if let sql {
            text += " — in: \(sql)"
        }
        return text
    }
}
