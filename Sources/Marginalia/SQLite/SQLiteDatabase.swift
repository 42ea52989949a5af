internal import CSQLite
internal import CSearchRank
import Foundation

/// A connection to an SQLite database: the one implementation of `Database`.
///
/// A connection is confined to one thread at a time. Statements are prepared once and cached by their SQL.
///
///     let db = try SQLiteDatabase(path: "user.db")
///     try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: ["device", id])
package final class SQLiteDatabase: Database {
    /// How to open the file.
    package enum OpenMode: Sendable {
        /// Read only; the file must exist.
        case readOnly
        /// Read and write; the file must exist.
        case readWrite
        /// Read and write; the file is created when absent.
        case readWriteCreate
    }

    /// How long a connection waits for a lock held by another (30 s). The busy handler "will sleep multiple
    /// times until at least "ms" milliseconds of sleeping have accumulated"
    /// https://www.sqlite.org/c3ref/busy_timeout.html
    package static let busyTimeoutMilliseconds: Int32 = 30_000

    let handle: OpaquePointer
    /// The path or URI the connection was opened with.
    package let location: String
    private var statements: [String: Statement] = [:]
    var savepointDepth = 0

    /// Opens a database file (or, when `location` starts with `file:`, an SQLite URI).
    ///
    /// Extended result codes are turned on, foreign keys enforced and `busy_timeout` set: a write waits that
    /// long for another connection's write (an import, a re-anchor) before it fails with `SQLITE_BUSY`.
    /// - Throws: `SQLiteError` when the file cannot be opened.
    package init(path location: String, mode: OpenMode = .readWriteCreate,
                busyTimeoutMilliseconds: Int32 = SQLiteDatabase.busyTimeoutMilliseconds) throws {
        var flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(location, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let error: SQLiteError
            if let handle {
                error = SQLiteDatabase.error(database: handle, code: rc, sql: nil)
            } else {
                error = SQLiteError(extendedCode: rc, message: String(cString: sqlite3_errstr(rc)))
            }
            sqlite3_close_v2(handle)
            throw SQLiteError(
                extendedCode: error.extendedCode, message: "cannot open \(location): \(error.message)", sql: nil)
        }
        self.handle = handle
        self.location = location
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try executeScript(sql: "PRAGMA foreign_keys = ON")
        // The rank function of a reader's search (`Search`), for the full-text tables of this connection.
        let registered = marginalia_register_rank(handle)
        guard registered == SQLITE_OK else { throw SQLiteDatabase.error(database: handle, code: registered, sql: nil) }
    }

    /// The version of the SQLite library in use, e.g. "3.40.1".
    package static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// The version of the SQLite library in use as a number, e.g. 3040001 for 3.40.1.
    package static var libraryVersionNumber: Int32 { sqlite3_libversion_number() }

    /// Opens a private in-memory database.
    package static func inMemory() throws -> SQLiteDatabase {
        try SQLiteDatabase(path: ":memory:")
    }

    deinit {
        statements.removeAll()
        // close_v2 defers the close until any statement still alive is finalized.
        sqlite3_close_v2(handle)
    }

    // MARK: - Database

    /// Runs one statement with `arguments` bound to its parameters.
    package func execute(sql: String, arguments: StatementArguments) throws {
        try withStatement(sql: sql, arguments: arguments) { statement in
            while true {
                let rc = sqlite3_step(statement.handle)
                if rc == SQLITE_DONE { return }
                if rc != SQLITE_ROW { throw SQLiteDatabase.error(database: handle, code: rc, sql: sql) }
            }
        }
    }

    /// Runs several statements separated by semicolons, without arguments (schema scripts).
    package func executeScript(sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Runs a query with `arguments` bound, handing each row to `body` until it returns false.
    package func iterateRows(sql: String, arguments: StatementArguments, _ body: (Row) throws -> Bool) throws {
        try withStatement(sql: sql, arguments: arguments) { statement in
            let row = Row(statement: statement.handle, sql: sql)
            while true {
                let rc = sqlite3_step(statement.handle)
                if rc == SQLITE_DONE { return }
                guard rc == SQLITE_ROW else { throw SQLiteDatabase.error(database: handle, code: rc, sql: sql) }
                guard try body(row) else { return }
            }
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection (`sqlite3_changes64`).
    package var changedRowCount: Int { Int(sqlite3_changes64(handle)) }

    /// Whether a transaction is open on this connection (autocommit is off).
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// The total number of rows changed since the connection opened; tells whether a transaction wrote.
    package var totalChangedRowCount: Int { Int(sqlite3_total_changes64(handle)) }

    // MARK: - Statements

    /// Runs `body` with a prepared, bound statement, then resets it.
    ///
    /// Statements come from the cache; when the cached one is already running (a query nested in the
    /// iteration of the same query), a one-off statement is prepared instead.
    private func withStatement<T>(sql: String, arguments: StatementArguments,
                                  _ body: (Statement) throws -> T) throws -> T {
        let statement: Statement
        if let cached = statements[sql], !cached.isBusy {
            statement = cached
        } else {
            statement = try Statement(database: handle, sql: sql)
            if statements[sql] == nil {
                statements[sql] = statement
                StatementLog.shared.record(sql, location: location)
            }
        }
        statement.isBusy = true
        defer {
            statement.reset()
            statement.isBusy = false
        }
        try statement.bind(arguments, database: handle)
        return try body(statement)
    }

    /// Finalizes every cached statement (before DETACH, or to release memory).
    package func clearStatementCache() {
        statements = statements.filter { $0.value.isBusy }
    }

    // MARK: - Errors

    /// The single funnel from a C return code to a thrown error.
    func check(_ rc: Int32, sql: String? = nil) throws {
        guard rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw SQLiteDatabase.error(database: handle, code: rc, sql: sql)
        }
    }

    static func error(database: OpaquePointer, code: Int32, sql: String?) -> SQLiteError {
        // The connection's error code is the extended one when it matches the primary code returned.
        let extended = sqlite3_extended_errcode(database)
        let chosen = (extended & 0xFF) == (code & 0xFF) ? extended : code
        return SQLiteError(extendedCode: chosen, message: String(cString: sqlite3_errmsg(database)), sql: sql)
    }
}

@available(*, unavailable, message: "A connection is confined to one thread at a time.")
extension SQLiteDatabase: Sendable {}
