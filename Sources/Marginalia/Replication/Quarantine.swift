/// The changes held back from the log (the `quarantine` table): each received change made more than the allowed
/// drift ahead of this machine's clock, kept whole with where it came from, until its time comes or the person lets
/// it in. A part of its own over the connection it is given; the merger decides what to hold, and merges what is
/// let out (`StoreConnection.releaseQuarantine`).
struct Quarantine {
    let db: any Database

    /// When a held change was made, as a condition's expression: its wall time, or for a change recorded without
    /// one, the milliseconds of its clock (the first 15 digits of its text form).
    static let madeAt = "coalesce(wall, CAST(substr(hlc, 1, 15) AS INTEGER))"

    /// Every change held, in clock order.
    func all() throws -> [QuarantinedChange] {
        try db.fetchAll(
            sql: """
                SELECT \(Change.quarantineColumns), source, seen_at FROM quarantine
                ORDER BY hlc, device, change_id
                """
        ) { row in
            QuarantinedChange(change: try Change(row: row), source: try row.string(Change.columnCount),
                              seenAt: try row.string(Change.columnCount + 1))
        }
    }

    /// How many changes are held.
    func count() throws -> Int {
        Int(try db.int(sql: "SELECT count(*) FROM quarantine") ?? 0)
    }

    /// Holds `change` (its fields as `fieldsText`), which came from `source` by `receipt`, first seen at
    /// `seenAt` (milliseconds); call it inside the write transaction of the merge.
    func hold(_ change: Change, fieldsText: String, source: String, receipt: Int64, seenAt: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO quarantine (\(Change.quarantineColumns), source, seen_at, receipt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: StatementArguments(change.columnValues(fieldsText: fieldsText)
                + [.text(source), .text(Timestamp.iso8601(milliseconds: seenAt)), .integer(receipt)]))
    }

    /// Lets a change go once it is in the log.
    func remove(_ changeID: String) throws {
        try db.execute(sql: "DELETE FROM quarantine WHERE change_id = ?", arguments: [changeID])
    }

    /// Whether any held change was made at or before `latestAllowed` (milliseconds), with a clock the log can hold.
    func hasDue(latestAllowed: Int64) throws -> Bool {
        try db.int(sql: "SELECT 1 FROM quarantine WHERE \(Self.madeAt) <= ? AND hlc <= ? LIMIT 1",
                   arguments: [latestAllowed, HLC.latestStored.description]) != nil
    }

    /// The first `limit` held changes made at or before `latestAllowed`, in clock order, each with the receipt it
    /// came by (nil for one carried over from a store without receipts).
    ///
    /// A change whose clock the log cannot hold (`HLC.isStorable`; held by an earlier version, which did not check)
    /// is never due: it stays held, and a release of every held change refuses it (`unstorable()`). The text form
    /// is fixed-width, so text order is clock order.
    func due(latestAllowed: Int64, limit: Int) throws -> [(change: Change, receipt: Int64?)] {
        try db.fetchAll(
            sql: """
                SELECT \(Change.quarantineColumns), receipt FROM quarantine WHERE \(Self.madeAt) <= ? AND hlc <= ?
                ORDER BY hlc, device, change_id LIMIT ?
                """,
            arguments: [latestAllowed, HLC.latestStored.description, limit]
        ) { row in
            (change: try Change(row: row),
             receipt: row.isNull(Change.columnCount) ? nil : try row.int64(Change.columnCount))
        }
    }

    /// The first held change, in clock order, whose clock the log cannot hold; nil when there is none.
    func unstorable() throws -> Change? {
        try db.fetchOne(
            sql: """
                SELECT \(Change.quarantineColumns) FROM quarantine WHERE hlc > ?
                ORDER BY hlc, device, change_id LIMIT 1
                """,
            arguments: [HLC.latestStored.description]
        ) { try Change(row: $0) }
    }

    /// Copies the quarantine of the store at `path` (the one a restore replaces) into this one, so that a
    /// restore keeps the changes it held: archives carry only the log. Changes this store's log already has
    /// are left out. A store that cannot be read (it may be why it is being restored) is skipped: it is kept
    /// as the restore's `.bak`, with its quarantine.
    func carry(fromStoreAt path: String) {
        guard (try? db.attachReadOnly(path: path, as: "previous")) != nil else { return }
        defer { try? db.detach("previous") }
        let carried = "FROM previous.quarantine WHERE change_id NOT IN (SELECT change_id FROM main.changes)"
        // The receipts the carried changes point to come along, renumbered after this store's own.
        let withReceipts: Void? = try? db.transaction(.immediate) {
            let offset = try db.int(sql: "SELECT coalesce(max(id), 0) FROM main.receipts") ?? 0
            try db.execute(
                sql: """
                    INSERT INTO main.receipts (\(Receipts.columns))
                    SELECT id + ?1, \(Receipts.columns.dropFirst(4)) FROM previous.receipts
                    WHERE id IN (SELECT receipt \(carried))
                    """,
                arguments: [offset])
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO main.quarantine (\(Change.quarantineColumns), source, seen_at, receipt)
                    SELECT \(Change.quarantineColumns), source, seen_at, receipt + ?1 \(carried)
                    """,
                arguments: [offset])
        }
        guard withReceipts == nil else { return }
        // A store of an older schema has no receipts: its changes are released pointing to an unrecorded one.
        _ = try? db.transaction(.immediate) {
            try db.execute(sql: """
                INSERT OR IGNORE INTO main.quarantine (\(Change.quarantineColumns), source, seen_at)
                SELECT \(Change.quarantineColumns), source, seen_at \(carried)
                """)
        }
    }
}
