/// A store's append-only change log: the only way a row enters `changes` (one change or a batch, `append`; a
/// staged file's changes in one statement, `appendStaged`), the hash chain over its rows, and reading it by cursor.
///
/// It owns no state but the connection: the clock the appended changes move and the devices a batch has seen are
/// the caller's (`StoreConnection.insert`).
struct ChangeLog {
    let db: any Database

    /// When a change of the log was made, as an expression over `changes`: its wall time, or its clock's
    /// milliseconds for a change recorded without one.
    static let madeAt = "coalesce(wall, hlc / 100000)"

    // MARK: - Appending

    /// Appends changes, in order, each with its canonical fields JSON, its digest (which chains it to the row
    /// before, see `ChangeDigest`) and the receipt it arrived by (nil: made on this device). Call it inside a write
    /// transaction. Returns whether it numbered a device for the first time (a cached `DeviceTable` is then stale).
    ///
    /// - Parameter knownDevices: the devices table as the caller read it in this transaction, if it did: a device
    ///   it holds needs no insert. Many rows are first put in a temporary table, one bound insert each, then
    ///   copied in one statement.
    func append(_ changes: [(change: Change, fieldsText: String)], receipt: Int64?,
                knownDevices: DeviceTable?) throws -> Bool {
        guard !changes.isEmpty else { return false }
        var digest = try head().digest
        var rows: [[DatabaseValue]] = []
        rows.reserveCapacity(changes.count)
        var devices: Set<String> = []
        for (change, fields) in changes {
            digest = try ChangeDigest.next(after: digest, change: change, fieldsText: fields)
            rows.append(change.logValues(fieldsText: fields)
                + [.text(digest), receipt.map(DatabaseValue.integer) ?? .null])
            devices.insert(change.device)
        }
        var numbered = false
        for device in devices.sorted() where !(knownDevices?.contains(device) ?? false) {
            try db.execute(sql: "INSERT INTO devices (id) VALUES (?) ON CONFLICT (id) DO NOTHING", arguments: [device])
            numbered = true
        }
        let columns = "change_id, hlc, device, entity, entity_id, op, fields, wall, digest, receipt"
        if rows.count == 1 {
            try db.execute(
                sql: """
                    INSERT INTO changes (\(columns))
                    VALUES (?, ?, (SELECT number FROM devices WHERE id = ?), ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments(rows[0]))
            return numbered
        }
        try db.executeScript(sql: """
            CREATE TEMP TABLE IF NOT EXISTS change_rows (
                change_id TEXT, hlc INTEGER, device TEXT, entity TEXT, entity_id TEXT, op TEXT, fields TEXT,
                wall INTEGER, digest TEXT, receipt INTEGER
            );
            DELETE FROM temp.change_rows;
            """)
        for row in rows {
            try db.execute(
                sql: "INSERT INTO temp.change_rows (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: StatementArguments(row))
        }
        try db.execute(sql: """
            INSERT INTO main.changes (\(columns))
            SELECT r.change_id, r.hlc, d.number, r.entity, r.entity_id, r.op, r.fields, r.wall, r.digest, r.receipt
            FROM temp.change_rows AS r JOIN main.devices AS d ON d.id = r.device ORDER BY r.rowid
            """)
        return numbered
    }

    /// Appends every change of the staging table `table` (rows of kind `change`, each with the digest staged for
    /// it as the next row of an empty log) in their `line` order, in one statement, pointing to `receipt`; the
    /// bulk load of an empty store. Returns how many rows it appended.
    ///
    /// Their devices are numbered as appending them `batchSize` at a time would number them: each batch's new
    /// devices in the order of their ids.
    func appendStaged(from table: String, receipt: Int64, batchSize: Int) throws -> Int {
        let devices = try db.fetchAll(
            sql: """
                SELECT device FROM (
                    SELECT device, (row_number() OVER (ORDER BY line) - 1) / ? AS batch FROM \(table)
                    WHERE kind = 'change'
                )
                GROUP BY device ORDER BY min(batch), device
                """,
            arguments: [batchSize]) { try $0.string(0) }
        for device in devices {
            try db.execute(sql: "INSERT INTO devices (id) VALUES (?) ON CONFLICT (id) DO NOTHING", arguments: [device])
        }
        try db.execute(
            sql: """
                INSERT INTO main.changes (change_id, hlc, device, entity, entity_id, op, fields, wall, digest, receipt)
                SELECT s.change_id, s.clock, d.number, s.entity, s.entity_id, s.op, s.body, s.wall, s.digest, ?
                FROM \(table) AS s JOIN main.devices AS d ON d.id = s.device
                WHERE s.kind = 'change' ORDER BY s.line
                """,
            arguments: [receipt])
        return db.changedRowCount
    }

    // MARK: - The hash chain

    /// The log's head: its newest row by `seq`, with its stored digest (zeros and 0 for an empty log).
    func head() throws -> LogHead {
        try db.fetchOne(sql: "SELECT seq, coalesce(digest, '') FROM changes ORDER BY seq DESC LIMIT 1") { row in
            LogHead(sequence: try row.int64(0), digest: try row.string(1))
        } ?? LogHead(sequence: 0, digest: ChangeDigest.genesis)
    }

    /// Recomputes the chain from the first row, in `seq` order, up to `sequence` (the whole log when nil).
    ///
    /// Returns the recomputed head (the last row reached) and the first row whose stored digest differs from the
    /// recomputed one (nil when none does). Streams: memory does not grow with the log.
    func recomputeChain(through sequence: Int64? = nil) throws -> (head: LogHead, firstBreak: ChainBreak?) {
        var digest = ChangeDigest.genesis
        var last: Int64 = 0
        var firstBreak: ChainBreak?
        try db.forEachRow(
            sql: "SELECT \(Change.columns), seq, digest FROM changes WHERE seq <= ? ORDER BY seq",
            arguments: [sequence ?? Int64.max]
        ) { row in
            digest = try ChangeDigest.next(after: digest, row: row)
            last = try row.int64(Change.columnCount)
            // Byte for byte, not Swift's canonical equivalence.
            if firstBreak == nil, !(row.optionalString(Change.columnCount + 1) ?? "").utf8.elementsEqual(digest.utf8) {
                firstBreak = ChainBreak(sequence: last, changeID: try Change.storedID(in: row))
            }
        }
        return (LogHead(sequence: last, digest: digest), firstBreak)
    }

    // MARK: - Reading

    /// Every change the log holds for one entity, oldest first by clock.
    func changes(of entity: EntityKind, id: String) throws -> [Change] {
        try db.fetchAll(
            sql: """
                SELECT \(Change.columns) FROM changes
                WHERE entity = ? AND entity_id = ? ORDER BY \(Change.clockOrder)
                """,
            arguments: [entity.rawValue, id], Change.init(row:))
    }

    /// The cursor after the newest change the log holds.
    func cursor() throws -> ChangeCursor {
        ChangeCursor(sequence: try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? 0, log: try identity())
    }

    /// Every change after `cursor`, in the log's order; `nil` means from the start.
    ///
    ///     let incoming = try laptop.changes(after: nil)
    ///     let report = try phone.merge(incoming)
    func changes(after cursor: ChangeCursor?) throws -> [Change] {
        var all: [Change] = []
        _ = try forEachChange(after: cursor) { change, _ in all.append(change) }
        return all
    }

    /// At most `limit` changes after `cursor`, and the cursor after them: for reading a large log in pages.
    func changePage(after cursor: ChangeCursor?, limit: Int) throws -> ChangePage {
        let log = try identity()
        let start = try startSequence(of: cursor, log: log)
        let changes = try db.fetchAll(
            sql: """
                SELECT \(Change.columns), seq FROM changes
                WHERE seq > ? ORDER BY seq LIMIT ?
                """,
            arguments: [start, Int64(max(0, limit))]
        ) { row in (try Change(row: row), try row.int64(Change.columnCount)) }
        let last = changes.last?.1 ?? start
        return ChangePage(changes: changes.map(\.0), cursor: ChangeCursor(sequence: last, log: log))
    }

    /// Streams every change after `cursor` to `body`, each with the cursor just after it, without holding them in
    /// memory; one snapshot of the log. Returns the cursor after the last one.
    @discardableResult
    func forEachChange(after cursor: ChangeCursor?, _ body: (Change, ChangeCursor) throws -> Void) throws
        -> ChangeCursor
    {
        try db.transaction(.deferred) {
            let log = try identity()
            var last = try startSequence(of: cursor, log: log)
            try db.forEachRow(
                sql: "SELECT \(Change.columns), seq FROM changes WHERE seq > ? ORDER BY seq",
                arguments: [last]
            ) { row in
                last = try row.int64(Change.columnCount)
                try body(try Change(row: row), ChangeCursor(sequence: last, log: log))
            }
            return ChangeCursor(sequence: last, log: log)
        }
    }

    /// Where reading after `cursor` starts: its sequence when it belongs to this log, else the start.
    private func startSequence(of cursor: ChangeCursor?, log: String) throws -> Int64 {
        guard let cursor, cursor.log == log else { return 0 }
        return cursor.sequence
    }

    // MARK: - Identity across restores

    /// The log's name, as sync segments and cursors record it: the store's creation time, which a restore renews
    /// (a restore makes a new log).
    func identity() throws -> String {
        try db.text(sql: "SELECT value FROM meta WHERE key = 'created_at'") ?? ""
    }

    /// The names of the logs this store continues (those of the stores a restore replaced, newest first).
    func formerIdentities() throws -> [String] {
        let text = try db.text(sql: "SELECT value FROM meta WHERE key = 'former_logs'") ?? ""
        return text.split(separator: "\t").map(String.init)
    }

    /// The clock up to which changes under this store's device id were made by a store it replaced (restored
    /// from a backup): such a change is its own past, not the work of a copy. Nil when it continues none.
    func ownChangesThrough() throws -> Int64? {
        try db.text(sql: "SELECT value FROM meta WHERE key = 'own_changes_through'").flatMap { Int64($0) }
    }

    /// Makes this log continue the logs `formerLogs` of a store it replaces, whose changes are clocked up to
    /// `ownChangesThrough` (packed); the store takes that store's device id too (`StoreTransaction.keepDeviceID`).
    /// Call it inside a write transaction.
    func continueIdentity(formerLogs: [String], ownChangesThrough: Int64) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO meta (key, value)
                VALUES ('former_logs', ?1), ('own_changes_through', ?2)
                """,
            arguments: [formerLogs.joined(separator: "\t"), String(ownChangesThrough)])
    }
}
