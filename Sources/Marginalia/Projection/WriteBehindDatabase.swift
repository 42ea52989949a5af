/// A `Database` that first writes what a batch held back, whenever a statement of its own is about to run.
///
/// Inside a batch the rows of new annotations wait to be written together (`StoreConnection.deferCreate`); no
/// statement may see the tables without them. Every statement the store runs goes through this connection, so
/// running `pending` before each one keeps that promise without any hook in the `Database` protocol itself: the
/// fast path is this one type, and the plain `Database` under it knows nothing of it.
final class WriteBehindDatabase: Database {
    /// The connection the statements run on.
    let base: any Database
    /// Writes what is held back; set while anything is. Cleared before it runs, so it runs once.
    var pending: (() throws -> Void)?

    init(_ base: any Database) {
        self.base = base
    }

    /// Runs `pending`, if set, once.
    func flush() throws {
        guard let write = pending else { return }
        pending = nil
        try write()
    }

    func execute(sql: String, arguments: StatementArguments) throws {
        try flush()
        try base.execute(sql: sql, arguments: arguments)
    }

    func executeScript(sql: String) throws {
        try flush()
        try base.executeScript(sql: sql)
    }

    func iterateRows(sql: String, arguments: StatementArguments, _ body: (Row) throws -> Bool) throws {
        try flush()
        try base.iterateRows(sql: sql, arguments: arguments, body)
    }

    func transaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        try flush()
        return try base.transaction(kind, body)
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try flush()
        return try base.savepoint(body)
    }

    func attachReadOnly(path: String, as schema: String) throws {
        try flush()
        try base.attachReadOnly(path: path, as: schema)
    }

    func detach(_ schema: String) throws {
        try flush()
        try base.detach(schema)
    }

    var changedRowCount: Int { base.changedRowCount }

    var isInTransaction: Bool { base.isInTransaction }
}

@available(*, unavailable, message: "A connection is confined to one thread at a time.")
extension WriteBehindDatabase: Sendable {}
