// MARK: - Version 4: the hash-chained log and the receipts of received changes

extension UserSchema {
    /// Version 4: every change row carries its digest in the log's hash chain (`ChangeDigest`) and the receipt it
    /// arrived by (nil: made on this device); `receipts` records each import, restore, sync segment or merge.
    ///
    /// The digests of the rows already there are computed in the migration's own transaction, with the update
    /// guard of the log lifted for that transaction only and put back as it was. Rows made under another device id
    /// than the store's (and the changes held in quarantine) arrived before receipts were kept: they point to one
    /// receipt of kind `unrecorded`.
    static let version4: [Migration.Step] = [
        .sql("""
            CREATE TABLE receipts (
                id INTEGER PRIMARY KEY,
                received_at TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('import', 'restore', 'sync', 'merge', 'unrecorded')),
                file TEXT,
                size INTEGER CHECK (size >= 0),
                sha256 TEXT CHECK (length(sha256) = 64),
                changes_read INTEGER NOT NULL CHECK (changes_read >= 0),
                new_changes INTEGER NOT NULL CHECK (new_changes >= 0),
                duplicates INTEGER NOT NULL CHECK (duplicates >= 0),
                quarantined INTEGER NOT NULL CHECK (quarantined >= 0)
            ) STRICT;
            """),
        .sql("ALTER TABLE changes ADD COLUMN digest TEXT CHECK (length(digest) = 64);"),
        .sql("ALTER TABLE changes ADD COLUMN receipt INTEGER REFERENCES receipts (id);"),
        .sql("ALTER TABLE quarantine ADD COLUMN receipt INTEGER REFERENCES receipts (id);"),
        .sql("DROP TRIGGER changes_refuse_update;"),
        .code(chainExistingChanges),
        .sql(refuseUpdate),
    ]

    /// The log's update guard, exactly as version 1 made it.
    private static let refuseUpdate = """
        CREATE TRIGGER changes_refuse_update BEFORE UPDATE ON changes
        BEGIN
            SELECT RAISE(ABORT, 'changes is append-only: a change cannot be updated');
        END;
        """

    /// Computes the digest of every row of the log in `seq` order, and points the rows that did not come from this
    /// device to an `unrecorded` receipt.
    @Sendable private static func chainExistingChanges(_ db: SQLiteDatabase) throws {
        let device = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") ?? ""
        let received = try db.int(sql: "SELECT count(*) FROM changes WHERE device <> ?", arguments: [device]) ?? 0
        let held = try db.int(sql: "SELECT count(*) FROM quarantine") ?? 0
        var receipt: DatabaseValue = .null
        if received + held > 0 {
            // When they arrived is not known, only that it was not before the newest of them was made; dated so,
            // the migration gives the same store whenever it runs.
            let newestClock = try db.text(sql: """
                SELECT max(hlc) FROM (SELECT hlc FROM changes WHERE device <> ? UNION ALL SELECT hlc FROM quarantine)
                """, arguments: [device]) ?? ""
            let newest = HLC(newestClock)?.milliseconds ?? 0
            try db.execute(
                sql: """
                    INSERT INTO receipts (received_at, kind, changes_read, new_changes, duplicates, quarantined)
                    VALUES (?, 'unrecorded', ?, ?, 0, ?)
                    """,
                arguments: [Timestamp.iso8601(milliseconds: newest), received + held, received, held])
            receipt = .integer(try db.int(sql: "SELECT last_insert_rowid()") ?? 0)
            try db.execute(sql: "UPDATE quarantine SET receipt = ?", arguments: [receipt])
        }
        // In pages, so that memory stays bounded and no row is updated while a statement reads the table.
        var digest = ChangeDigest.genesis
        var last: Int64 = 0
        while true {
            var page: [(seq: Int64, digest: String, received: Bool)] = []
            try db.forEachRow(
                // The log's columns as version 4 keeps them: all text, in the order of `Change.columns`.
                sql: """
                    SELECT change_id, hlc, device, entity, entity_id, op, fields, seq FROM changes
                    WHERE seq > ? ORDER BY seq LIMIT 10000
                    """,
                arguments: [last]
            ) { row in
                digest = try ChangeDigest.next(after: digest, row: row, withWall: false)
                let rowDevice = try row.string(Change.Column.device.rawValue)
                // `seq` follows the seven columns.
                page.append((try row.int64(7), digest, rowDevice != device))
            }
            guard let end = page.last?.seq else { return }
            for row in page {
                try db.execute(sql: "UPDATE changes SET digest = ?, receipt = ? WHERE seq = ?",
                               arguments: [row.digest, row.received ? receipt : DatabaseValue.null, row.seq])
            }
            last = end
        }
    }
}
