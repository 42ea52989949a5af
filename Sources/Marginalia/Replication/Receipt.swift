/// How changes this store did not make arrived: one import, restore, sync segment or merge, with the file it read.
///
/// Each received change points to its receipt; a change made on this device has none (it is "local").
package struct Receipt: Equatable, Sendable {
    /// How the changes arrived.
    package enum Kind: String, Sendable, CaseIterable {
        /// `import FILE`: another store's archive merged into this one.
        case `import`
        /// `restore FILE`: the store was rebuilt from an archive.
        case restore
        /// A segment file of a sync folder, applied by `sync`.
        case sync
        /// `merge(_:)`: changes handed over by another transport, without a file.
        case merge
        /// Received before this store recorded receipts (schema 4): how they came is not known.
        case unrecorded
    }

    /// The receipt's number in this store, in the order they were made.
    package let id: Int64
    /// When the changes were received (ISO 8601); for an `unrecorded` receipt, when the newest of them was made
    /// (they arrived then or later).
    package let receivedAt: String
    /// How they arrived.
    package let kind: Kind
    /// The file read, as it was named to the command (nil for a merge or an unrecorded receipt).
    package let file: String?
    /// The file's size in bytes.
    package let size: Int64?
    /// The SHA-256 of the file as it was read, 64 hex digits.
    package let sha256: String?
    /// Change records read.
    package let changesRead: Int
    /// Changes that were new to this store (and point to this receipt).
    package let newChanges: Int
    /// Changes it already had.
    package let duplicates: Int
    /// Changes held in quarantine (dated too far ahead); they point to this receipt once merged.
    package let quarantined: Int
}

/// The file a receipt records, before the changes it brought are counted.
struct ReceiptSource {
    var kind: Receipt.Kind
    var file: String?
    var size: Int64?
    var sha256: String?
}

/// The receipt of one merge, made when the first change is added or held: a merge that brings nothing new writes
/// nothing, not even a receipt (importing the same file again leaves the store byte for byte as it was).
final class ReceiptSlot {
    let source: ReceiptSource
    private(set) var id: Int64?

    /// A receipt of `source`, not made yet.
    init(_ source: ReceiptSource) {
        self.source = source
    }

    /// A receipt that exists already (the one quarantined changes came by).
    init(existing id: Int64) {
        source = ReceiptSource(kind: .unrecorded)
        self.id = id
    }

    /// The receipt's id, made in `receipts` now (received at `wall`, milliseconds) if it does not exist yet; call
    /// it inside the merge's transaction.
    func open(in receipts: Receipts, at wall: Int64) throws -> Int64 {
        if let id { return id }
        let made = try receipts.open(source, receivedAt: wall)
        id = made
        return made
    }
}

@available(*, unavailable)
extension ReceiptSlot: Sendable {}

/// The receipts (the `receipts` table): how the changes this store did not make arrived, one per import, restore,
/// sync segment or merge, with the file read and what merging it did. A part of its own over the connection it is
/// given.
struct Receipts {
    let db: any Database

    /// Records that changes are being received from `source` at `receivedAt` (milliseconds), with zero counts
    /// (`finish` sets them); returns its id, for the changes to point to. Call it inside the write transaction
    /// that merges them.
    func open(_ source: ReceiptSource, receivedAt: Int64) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO receipts (received_at, kind, file, size, sha256, changes_read, new_changes, duplicates,
                    quarantined)
                VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0)
                """,
            arguments: [Timestamp.iso8601(milliseconds: receivedAt), source.kind.rawValue, source.file,
                        source.size, source.sha256])
        return try db.int(sql: "SELECT last_insert_rowid()") ?? 0
    }

    /// Sets the counts of a receipt made by a merge from what the merge did, and the `size` and `sha256` of the
    /// file once read; does nothing when the merge made none.
    func finish(_ slot: ReceiptSlot, _ report: MergeReport, size: Int64? = nil, sha256: String? = nil) throws {
        guard let id = slot.id else { return }
        try db.execute(
            sql: """
                UPDATE receipts SET changes_read = ?, new_changes = ?, duplicates = ?, quarantined = ?,
                    size = coalesce(?, size), sha256 = coalesce(?, sha256)
                WHERE id = ?
                """,
            arguments: [report.changesRead, report.newChanges, report.duplicates, report.quarantined,
                        size, sha256, id])
    }

    /// Every receipt, oldest first.
    func all() throws -> [Receipt] {
        try db.fetchAll(sql: "SELECT \(Self.columns) FROM receipts ORDER BY id") { try Receipt(row: $0) }
    }

    /// The receipt of each of `changeIDs` that was received (those made here are left out), by change id.
    func of(changes changeIDs: [String]) throws -> [String: Receipt] {
        var found: [String: Receipt] = [:]
        for start in stride(from: 0, to: changeIDs.count, by: 10_000) {
            let ids = try ProjectionCache.jsonList(Array(changeIDs[start..<min(start + 10_000, changeIDs.count)]))
            try db.forEachRow(
                sql: """
                    SELECT c.change_id, \(Self.columns(of: "r"))
                    FROM changes c JOIN receipts r ON r.id = c.receipt
                    WHERE c.change_id IN (SELECT value FROM json_each(?))
                    """,
                arguments: [ids]
            ) { row in found[try row.string(0)] = try Receipt(row: row, from: 1) }
        }
        return found
    }

    /// The columns a receipt is read with, in the order `Receipt(row:from:)` reads them.
    static let columns = columns(of: nil)

    /// `columns`, qualified by a table alias when one is given.
    static func columns(of table: String?) -> String {
        let prefix = table.map { "\($0)." } ?? ""
        return ["id", "received_at", "kind", "file", "size", "sha256", "changes_read", "new_changes", "duplicates",
                "quarantined"].map { prefix + $0 }.joined(separator: ", ")
    }
}

extension Receipt {
    /// Decodes a row that selects `Receipts.columns` from column `first` on.
    ///
    /// - Throws: `StoreError.corruptRow` for an unknown kind.
    init(row: Row, from first: Int = 0) throws {
        let kindText = try row.string(first + 2)
        guard let kind = Kind(rawValue: kindText) else {
            throw StoreError.corruptRow(reason: "receipt \(try row.int64(first)) has an unknown kind \"\(kindText)\"")
        }
        self.init(id: try row.int64(first), receivedAt: try row.string(first + 1), kind: kind,
                  file: row.optionalString(first + 3), size: row.isNull(first + 4) ? nil : try row.int64(first + 4),
                  sha256: row.optionalString(first + 5), changesRead: try row.int(first + 6),
                  newChanges: try row.int(first + 7), duplicates: try row.int(first + 8),
                  quarantined: try row.int(first + 9))
    }
}

extension ReceiptSlot {
    /// The receipt's id, made in `transaction` now if it does not exist yet.
    func open(in transaction: StoreTransaction) throws -> Int64 {
        try open(in: Receipts(db: transaction.db), at: transaction.wallMilliseconds)
    }
}

extension Receipts {
    /// Adds a copy of a receipt another store kept (an archive carries its store's receipts, which a restore keeps),
    /// with its time, file and counts; returns its id here.
    func insert(_ carried: Receipt) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO receipts (received_at, kind, file, size, sha256, changes_read, new_changes, duplicates,
                    quarantined)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [carried.receivedAt, carried.kind.rawValue, carried.file, carried.size, carried.sha256,
                        carried.changesRead, carried.newChanges, carried.duplicates, carried.quarantined])
        return try db.int(sql: "SELECT last_insert_rowid()") ?? 0
    }
}
