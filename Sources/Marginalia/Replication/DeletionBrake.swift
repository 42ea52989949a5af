/// The brake on mass deletion: a merge (a sync round's segment, an import) that would delete more than half of the
/// store's live annotations, and more than `minimum` of them, writes nothing unless it is let through.
///
/// The most frequent loss in annotation sync is a sync that deletes nearly everything (a device reset, a bad file,
/// a bug elsewhere). Deletions and tombstones otherwise merge as ever.
package enum DeletionBrake {
    /// Fewer deletions than this never trip the brake, whatever the store holds.
    package static let minimum = 50

    /// Whether deleting `deleting` of `live` live annotations is a mass deletion.
    package static func trips(deleting: Int, live: Int) -> Bool {
        deleting > minimum && deleting * 2 > live
    }

    /// Throws `StoreError.massDeletion` when the deletions a staged archive holds (`table`, as
    /// `StagedArchive` stages it, in a database attached to `db`) would trip the brake: counted before any of it is
    /// merged, for an import that commits in steps. A deletion counts when its annotation is live here.
    static func checkStaged(_ table: String, in db: some Database) throws {
        let live = try Snapshot(db).live
        var byDevice: [String: Int] = [:]
        try db.forEachRow(
            sql: """
                SELECT s.device, count(DISTINCT s.entity_id) FROM \(table) s
                JOIN main.annotations a ON a.id = s.entity_id AND a.deleted = 0
                WHERE s.kind = 'change' AND s.entity = 'annotation' AND s.op = 'delete' GROUP BY s.device
                """
        ) { row in byDevice[try row.string(0)] = Int(try row.int64(1)) }
        let deleting = byDevice.values.reduce(0, +)
        guard trips(deleting: deleting, live: live) else { return }
        throw StoreError.massDeletion(wouldDelete: deleting, live: live, byDevice: byDevice)
    }

    /// The annotations as a merge found them: how many were live and deleted, and the newest row, so that its
    /// end can tell how many of those live before it deletes (not those it both creates and deletes).
    struct Snapshot {
        let live: Int
        let deleted: Int
        let newestRow: Int64

        /// Reads the store's annotations (`main`'s, whatever else is attached) in one pass.
        init(_ db: some Database) throws {
            (live, deleted, newestRow) = try db.fetchOne(
                sql: """
                    SELECT count(*) FILTER (WHERE deleted = 0), count(*) FILTER (WHERE deleted = 1),
                        coalesce(max(number), 0)
                    FROM main.annotations
                    """
            ) { row in (Int(try row.int64(0)), Int(try row.int64(1)), try row.int64(2)) } ?? (0, 0, 0)
        }

        /// How many annotations live at the snapshot the store now holds deleted (less any brought back).
        func deletedSince(_ db: some Database) throws -> Int {
            let now = Int(try db.int(sql: "SELECT count(*) FROM annotations WHERE deleted = 1 AND number <= ?",
                                     arguments: [newestRow]) ?? 0)
            return max(0, now - deleted)
        }

        /// Throws `StoreError.massDeletion` when what the merge did since the snapshot trips the brake.
        func check(_ db: some Database, byDevice: [String: Int]) throws {
            let deleting = try deletedSince(db)
            guard DeletionBrake.trips(deleting: deleting, live: live) else { return }
            throw StoreError.massDeletion(wouldDelete: deleting, live: live, byDevice: byDevice)
        }
    }
}
