/// A change held back from the log because it is dated ahead of this machine's clock by more than the allowed
/// drift: kept whole, with the file it came from and when it was seen, until it becomes plausible.
public struct QuarantinedChange: Equatable, Sendable {
    /// The change as the archive carried it.
    public let change: Change
    /// The archive it came from, as given to `import`.
    public let source: String
    /// When this store first saw it (ISO 8601).
    public let seenAt: String
}

extension StoreConnection {
    /// Every change held in quarantine, in clock order.
    func quarantinedChanges() throws -> [QuarantinedChange] {
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

    /// Holds a change in quarantine, with the receipt of the file it came in; call it inside the write transaction
    /// of an import.
    func quarantine(_ change: Change, fieldsText: String, source: String, receipt: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO quarantine (\(Change.quarantineColumns), source, seen_at, receipt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: StatementArguments(change.columnValues(fieldsText: fieldsText)
                + [.text(source), .text(Timestamp.iso8601(milliseconds: clock.wallMilliseconds)), .integer(receipt)]))
    }

    /// Takes a change out of quarantine once it is in the log.
    func unquarantine(_ changeID: String) throws {
        try db.execute(sql: "DELETE FROM quarantine WHERE change_id = ?", arguments: [changeID])
    }

    /// Merges every quarantined change dated at or before `latestAllowed` (milliseconds) into the log, in clock
    /// order, exactly as an import would have; call it inside a write transaction. Returns how many it merged.
    ///
    /// The merge rule does not depend on the order changes arrive in, so a change applied late picks the same
    /// winner as on a replica that took it at once.
    func releaseQuarantine(latestAllowed: Int64) throws -> Int {
        var released = 0
        while true {
            let due = try db.fetchAll(
                sql: """
                    SELECT \(Change.quarantineColumns), receipt FROM quarantine WHERE \(Self.heldMadeAt) <= ?
                    ORDER BY hlc, device, change_id LIMIT 1000
                    """,
                arguments: [latestAllowed]
            ) { row in (change: try Change(row: row), receipt: row.isNull(Change.columnCount)
                ? nil : try row.int64(Change.columnCount)) }
            guard !due.isEmpty else { return released }
            var report = MergeReport()
            var sawOwnDevice = false
            // Each merged (or already present) change leaves the quarantine, so every round takes new ones; each
            // run of changes that came by the same receipt is merged pointing to it.
            var start = 0
            while start < due.count {
                var end = start + 1
                while end < due.count, due[end].receipt == due[start].receipt { end += 1 }
                // A change carried over from a store without receipts came by an unknown way.
                let receipt = try ReceiptSlot(
                    existing: due[start].receipt ?? openReceipt(ReceiptSource(kind: .unrecorded)))
                try merge(due[start..<end].map { ($0.change, 0) }, receipt: receipt,
                          into: &report, future: .accept, sawOwnDevice: &sawOwnDevice)
                start = end
            }
            released += due.count
        }
    }

    /// On opening a store for writing: merges the quarantined changes that have become plausible (dated no more
    /// than the allowed drift ahead of the wall clock). Takes the write lock only when there is one.
    func releaseDueQuarantine() throws {
        let latest = clock.wallMilliseconds + clock.maxDrift
        guard try db.int(sql: "SELECT 1 FROM quarantine WHERE \(Self.heldMadeAt) <= ? LIMIT 1", arguments: [latest])
            != nil else { return }
        _ = try batch { try releaseQuarantine(latestAllowed: latest) }
    }

    /// Merges every change held in quarantine now, whenever it was made (`import --accept-future`,
    /// `quarantine --release`), in one transaction; returns how many.
    func releaseAllQuarantined() throws -> Int {
        try batch { try releaseQuarantine(latestAllowed: .max) }
    }

    /// When a held change was made, as a condition's expression: its wall time, or for a change recorded without
    /// one, the milliseconds of its clock (the first 15 digits of its text form).
    static let heldMadeAt = "coalesce(wall, CAST(substr(hlc, 1, 15) AS INTEGER))"

    /// Copies the quarantine of the store at `path` (the one a restore replaces) into this one, so that a
    /// restore keeps the changes it held: archives carry only the log. Changes this store's log already has
    /// are left out. A store that cannot be read (it may be why it is being restored) is skipped: it is kept
    /// as the restore's `.bak`, with its quarantine.
    func carryQuarantine(fromStoreAt path: String) {
        guard (try? db.attachReadOnly(path: path, as: "previous")) != nil else { return }
        defer { try? db.detach("previous") }
        let carried = "FROM previous.quarantine WHERE change_id NOT IN (SELECT change_id FROM main.changes)"
        // The receipts the carried changes point to come along, renumbered after this store's own.
        let withReceipts = try? db.transaction(.immediate) {
            let offset = try db.int(sql: "SELECT coalesce(max(id), 0) FROM main.receipts") ?? 0
            try db.execute(
                sql: """
                    INSERT INTO main.receipts (\(Self.receiptColumns))
                    SELECT id + ?1, \(Self.receiptColumns.dropFirst(4)) FROM previous.receipts
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
