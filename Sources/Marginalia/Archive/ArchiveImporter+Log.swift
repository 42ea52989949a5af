// MARK: - Filling an empty log from a staged archive

/// The changes a staged archive put into an empty log at once (`fillLog(from:receipt:)`).
struct FilledLog {
    /// How many changes went in: every change record of the file.
    let count: Int
    /// Whether one of them was made under this store's own device id.
    let sawOwnDevice: Bool
}

extension ArchiveImporter {
    /// Whether the staged changes can go into the log as they are, in file order and with their staged digests,
    /// which is exactly what merging them one by one would do: the log, the quarantine and the current tables
    /// are empty, the file was staged for an empty store, no change id comes twice in it (a duplicate is counted
    /// or refused by the merge), and none is dated after `latestAllowed` milliseconds (nil: every change is
    /// accepted), which the merge would hold in quarantine. Call it inside the write transaction.
    func canFillLog(from staged: StagedArchive, latestAllowed: Int64?) throws -> Bool {
        guard staged.forEmptyStore, try Merger.projectionIsEmpty(db),
              try db.int(sql: "SELECT count(*) FROM (SELECT 1 FROM quarantine LIMIT 1)") == 0 else { return false }
        let (count, distinct, latest) = try db.fetchOne(
            sql: """
                SELECT count(*), count(DISTINCT change_id), max(coalesce(wall, clock / 100000)) FROM \(staged.table)
                WHERE kind = 'change'
                """
        ) { row in (try row.int(0), try row.int(1), row.value(at: 2)) } ?? (0, 0, .null)
        guard count == distinct else { return false }
        // Judged as the merge judges each change: by when it was made.
        if let latestAllowed, case .integer(let madeAt) = latest, madeAt > latestAllowed { return false }
        return true
    }

    /// Marks the staged changes the log holds already, the same text byte for byte, as `known`, and returns how
    /// many: merging one would only count it as a duplicate. A change also held in quarantine is left to the merge,
    /// which takes it out; one that differs from the log's is left to the merge too, which refuses it.
    /// Call it inside the write transaction.
    func markKnownChanges(_ staged: StagedArchive) throws -> Int {
        // The subquery's columns are the log's: its own table comes first in name resolution. Comparing TEXT
        // with = uses the BINARY collation unless a column says otherwise: "BINARY - Compares string data using
        // memcmp()" https://www.sqlite.org/datatype3.html#collation
        try db.execute(sql: """
            UPDATE \(staged.table) SET kind = 'known'
            WHERE kind = 'change'
                AND (SELECT \(Change.columns) FROM main.changes WHERE change_id = staged_records.change_id)
                    IS (change_id, hlc, device, entity, entity_id, op, body, wall)
                AND change_id NOT IN (SELECT change_id FROM main.quarantine)
            """)
        return db.changedRowCount
    }

    /// Appends every staged change to the empty log in file order, in one statement, each with the digest staged
    /// for it and pointing to `receipt`; call it inside the write transaction, after `canFillLog` said yes.
    ///
    /// Their devices are numbered as merging the changes a batch (`Merger.batchSize`) at a time numbers them: each
    /// batch's new devices in the order of their ids. The log is not projected: `projectWholeLog` does that.
    func fillLog(from staged: StagedArchive, receipt: Int64) throws -> FilledLog {
        let expected = staged.summary.counts.changes
        // The entity and clock indexes take annotation ids and clocks in no particular order: they are built after.
        let filled = try store.db.buildingIndexesAfter(on: "changes") {
            try store.log.appendStaged(from: staged.table, receipt: receipt, batchSize: Merger.batchSize)
        }
        let transaction = try store.currentTransaction
        transaction.devicesChanged()
        guard filled == expected else {
            throw StoreError.corruptRow(reason: "\(filled) of the \(expected) staged changes went into the log")
        }
        if let latest = try db.int(sql: "SELECT max(hlc) FROM changes").flatMap({ HLC(packed: $0) }) {
            transaction.observe(latest)
        }
        let own = try db.int(
            sql: "SELECT EXISTS (SELECT 1 FROM \(staged.table) WHERE kind = 'change' AND device = ?)",
            arguments: [transaction.deviceID]) == 1
        return FilledLog(count: expected, sawOwnDevice: own)
    }
}
