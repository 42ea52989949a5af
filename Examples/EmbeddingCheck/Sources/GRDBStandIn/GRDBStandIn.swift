// The names a GRDB app already has in scope, declared here at top level as GRDB declares them, so that the check
// imports them beside Marginalia exactly as an app that uses GRDB does. Only the shapes matter: a toy table in
// memory stands in for SQLite.

/// A value bound to or read from a column.
public enum DatabaseValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case text(String)
}

/// A type that binds as a statement argument, conformed to by standard types as GRDB conforms them.
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}

/// Statement arguments, written as an array literal.
public struct StatementArguments: ExpressibleByArrayLiteral {
    public var values: [DatabaseValue]

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        values = elements.map { $0?.databaseValue ?? .null }
    }
}

/// One fetched row.
public struct Row: Equatable {
    public var values: [DatabaseValue]

    public subscript(_ index: Int) -> DatabaseValue { values[index] }
}

/// A failed statement, as GRDB reports one.
public struct DatabaseError: Error, Equatable {
    public var resultCode: Int32
    public var message: String?

    public init(resultCode: Int32, message: String? = nil) {
        self.resultCode = resultCode
        self.message = message
    }
}

/// How a transaction begins.
public enum TransactionKind: Sendable {
    case deferred
    case immediate
}

/// A connection to the app's own database: here one table of rows in memory.
public final class Database {
    public private(set) var rows: [Row] = []
    public private(set) var statements: [String] = []

    public init() {}

    /// Records the statement and keeps its arguments as a row.
    public func execute(sql: String, arguments: StatementArguments = []) {
        statements.append(sql)
        if !arguments.values.isEmpty { rows.append(Row(values: arguments.values)) }
    }

    /// Runs `body` as one transaction.
    public func inTransaction<T>(_ kind: TransactionKind = .deferred, _ body: (Database) throws -> T) rethrows -> T {
        execute(sql: kind == .immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        let result = try body(self)
        execute(sql: "COMMIT")
        return result
    }
}
