/// The kind of transaction to begin.
///
/// Writes use `.immediate`, which takes the write lock at `BEGIN` so that a busy database is reported (after
/// `busy_timeout`) before any work is done, rather than at the first write inside the transaction.
/// See https://www.sqlite.org/lang_transaction.html
package enum TransactionKind: String, Sendable {
    case deferred = "DEFERRED"
    case immediate = "IMMEDIATE"
}

/// The small database interface that every store takes.
///
/// Stores are written against this protocol rather than the C API, so the same SQL runs in the app, in the
/// command-line tool and in tests against a real in-process SQLite. `SQLiteDatabase` is its implementation.
package protocol Database: AnyObject {
    /// Runs one statement that returns no rows, binding `arguments` to its parameters in order.
    func execute(sql: String, arguments: StatementArguments) throws

    /// Runs every statement of a script of SQL, with no arguments (schema scripts, pragmas).
    func executeScript(sql: String) throws

    /// Runs a query and calls `body` once per row, in order, until `body` returns false.
    ///
    /// The row is a view onto the statement and is valid only during the call to `body`.
    func iterateRows(sql: String, arguments: StatementArguments, _ body: (Row) throws -> Bool) throws

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    func transaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T

    /// Runs `body` in a savepoint (nested inside a transaction or not): releases it when `body` returns,
    /// rolls back to it and releases it when `body` throws.
    func savepoint<T>(_ body: () throws -> T) throws -> T

    /// Attaches the database file at `path`, read-only, under the schema name `schema`.
    func attachReadOnly(path: String, as schema: String) throws

    /// Detaches a schema attached with `attachReadOnly(path:as:)`.
    func detach(_ schema: String) throws

    /// The number of rows changed by the last INSERT, UPDATE or DELETE.
    var changedRowCount: Int { get }

    /// Whether a transaction is open.
    var isInTransaction: Bool { get }
}

extension Database {
    /// Runs one statement without arguments.
    package func execute(sql: String) throws {
        try execute(sql: sql, arguments: [])
    }

    /// Runs a query and calls `body` once per row, in order; the row is valid only during the call.
    package func forEachRow(sql: String, arguments: StatementArguments = [], _ body: (Row) throws -> Void) throws {
        try iterateRows(sql: sql, arguments: arguments) { row in
            try body(row)
            return true
        }
    }

    /// Decodes every row of a query.
    package func fetchAll<T>(sql: String, arguments: StatementArguments = [],
                            _ decode: (Row) throws -> T) throws -> [T] {
        var result: [T] = []
        try forEachRow(sql: sql, arguments: arguments) { result.append(try decode($0)) }
        return result
    }

    /// Decodes the first row of a query, or returns nil when there is none.
    package func fetchOne<T>(sql: String, arguments: StatementArguments = [], _ decode: (Row) throws -> T) throws -> T? {
        var result: T?
        try iterateRows(sql: sql, arguments: arguments) { row in
            result = try decode(row)
            return false
        }
        return result
    }

    /// The first column of the first row, or `.null` when the query returns no row.
    package func scalar(sql: String, arguments: StatementArguments = []) throws -> DatabaseValue {
        try fetchOne(sql: sql, arguments: arguments) { $0.value(at: 0) } ?? .null
    }

    /// The first column of the first row as an integer, or nil for no row or NULL.
    package func int(sql: String, arguments: StatementArguments = []) throws -> Int64? {
        if case .integer(let value) = try scalar(sql: sql, arguments: arguments) { return value }
        return nil
    }

    /// The first column of the first row as text, or nil for no row or NULL.
    package func text(sql: String, arguments: StatementArguments = []) throws -> String? {
        if case .text(let value) = try scalar(sql: sql, arguments: arguments) { return value }
        return nil
    }
}
