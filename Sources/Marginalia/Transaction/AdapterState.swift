/// What an adapter keeps in a store besides the log (the `adapter_state` table): small named text values, each under
/// the adapter that owns it, read and written in the caller's transaction. The one place that reads and writes that
/// table, so that no adapter writes SQL against the core's tables; `meta` holds the store's own identity only.
///
///     let state = AdapterState(db: db, owner: "archive")
///     try state.set("pending_import:x", to: record)
///     let removed = try state.remove("pending_import:x", ifStill: record)
///
/// A value is the owner's to read: the core keeps it, never interprets it.
struct AdapterState {
    let db: any Database
    /// The adapter whose values these are: `owner` in every row read or written.
    let owner: String

    /// The identity of the store file its device id belongs to (`FileIdentity`), kept for sync, which gives a copy
    /// of the file (another file, the same id) a new id before it writes in a folder. The store records it when it
    /// creates the file too, so that a copy made before the first sync is told apart.
    static let storeFile = (owner: "sync", name: "store_file")

    // MARK: - Reading

    /// Whether the store at `db` has the table: one of schema 10 or later (an older store has not, until an open that
    /// may write migrates it).
    static func isKept(in db: any Database) throws -> Bool {
        try db.int(sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'adapter_state')")
            == 1
    }

    /// The value kept under `name`, nil when there is none.
    func value(of name: String) throws -> String? {
        try db.text(sql: "SELECT value FROM adapter_state WHERE owner = ? AND name = ?", arguments: [owner, name])
    }

    /// Every value whose name starts with `prefix` (every value of the owner for ""), in the order of their names.
    func values(prefix: String = "") throws -> [(name: String, value: String)] {
        // substr, not LIKE: LIKE treats `_` and `%` in the prefix as patterns and ignores the case of ASCII letters.
        try db.fetchAll(
            sql: """
                SELECT name, value FROM adapter_state
                WHERE owner = ?1 AND substr(name, 1, length(?2)) = ?2 ORDER BY name
                """,
            arguments: [owner, prefix]) { (name: try $0.string(0), value: try $0.string(1)) }
    }

    /// Whether any value's name starts with `prefix` (any value of the owner for "").
    func hasValues(prefix: String = "") throws -> Bool {
        try db.int(
            sql: """
                SELECT EXISTS (SELECT 1 FROM adapter_state WHERE owner = ?1 AND substr(name, 1, length(?2)) = ?2)
                """,
            arguments: [owner, prefix]) == 1
    }

    // MARK: - Writing

    /// Keeps `value` under `name`, in place of the value there was.
    func set(_ name: String, to value: String) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO adapter_state (owner, name, value) VALUES (?, ?, ?)",
                       arguments: [owner, name, value])
    }

    /// Removes the value under `name`, if there is one.
    func remove(_ name: String) throws {
        try db.execute(sql: "DELETE FROM adapter_state WHERE owner = ? AND name = ?", arguments: [owner, name])
    }

    /// Removes the value under `name` only while it is still `value`, in one statement: a value another connection
    /// changed or removed since the caller read it is left as it is.
    /// - Returns: whether it was removed.
    @discardableResult
    func remove(_ name: String, ifStill value: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM adapter_state WHERE owner = ? AND name = ? AND value = ?",
                       arguments: [owner, name, value])
        return db.changedRowCount == 1
    }
}
