// MARK: - Merging changes

/// What a merge does with a new change made (`Change.madeAt`) ahead of this machine's transaction.clock.
enum FutureChanges {
    /// Merged like any other: a store's own backup is judged by its own history (verifying, backing up and
    /// restoring), and `import --accept-future` takes them at once.
    case accept
    /// A change dated after `latestAllowed` (milliseconds) is held in the `quarantine` table, with the file it
    /// came from, instead of the log: another machine's clock is wrong, and this store's clock must not follow it.
    case quarantine(latestAllowed: Int64, source: String)
}

extension Merger {
    /// How many changes are merged together: one query finds which are already here, one loads the annotations
    /// they touch, and each annotation is written back once. Memory grows with it (about 12 KB a change, most of it
    /// SQLite's in-memory statement journals); from 1,000 to 2,000 an import of 100,000 annotations gains under 3 %
    /// in time and spends 13 MiB more (`marginalia-bench`).
    static let batchSize = 1000

    /// Adds each change whose id is not in the log yet, in order, and applies it to the current tables; holds
    /// back those `future` quarantines, and takes out of quarantine those it merges. The changes it adds (and those
    /// it holds) point to `receipt`, the receipt of the file or transport they came by.
    ///
    /// With `project` false the changes only go into the log: a merge into an empty store projects the whole log
    /// once at the end (`projectWholeLog`), which counts what each change did.
    /// Each item's `line` is its place in its source (a file's line, a sequence's index), for the error.
    /// - Throws: `ChangeConflict` when the log, the quarantine (or the batch) holds a different change under the
    ///   same id.
    func merge(_ batch: [(change: Change, line: Int)], receipt: ReceiptSlot,
               into report: inout MergeReport,
               future: FutureChanges, sawOwnDevice: inout Bool, project: Bool = true) throws {
        var stored = try StoredChanges(of: batch.map(\.change.changeID), in: db)
        // Changes under this store's id that a store it replaced (by a restore) made are its own past.
        let ownThrough = try transaction.log.ownChangesThrough() ?? -1
        func madeByACopy(_ change: Change) -> Bool {
            change.device == transaction.deviceID && change.hlc.packed > ownThrough
        }
        var cache = ProjectionCache()
        if project {
            try cache.prepare(batch.compactMap { item in
                item.change.entity == .annotation && stored.known[item.change.changeID] == nil
                    ? item.change.entityID : nil
            }, in: transaction.projection)
        }
        // First every change is checked, and the new ones go into the log in one statement; then they are applied.
        let fresh = try admit(batch, stored: &stored, receipt: receipt, future: future, into: &report)
        if !fresh.isEmpty { try transaction.insert(fresh, receipt: try receipt.open(in: transaction)) }
        guard project else {
            report.newChanges += fresh.count
            if fresh.contains(where: { madeByACopy($0.change) }) { sawOwnDevice = true }
            return
        }
        for (index, item) in fresh.enumerated() {
            let change = item.change
            let effect = change.entity == .annotation
                ? try cache.apply(change, in: transaction.projection, later: {
                    Set(fresh[(index + 1)...].filter { $0.change.entityID == change.entityID }.map(\.change.changeID))
                })
                : try transaction.project(change)
            report.newChanges += 1
            report.count(effect)
            if effect.deleted { report.deletionsByDevice[change.device, default: 0] += 1 }
            report.conflicts += effect.conflicts.prefix(max(0, MergeConflict.listedLimit - report.conflicts.count))
            if madeByACopy(change) { sawOwnDevice = true }
        }
        try cache.flush(to: transaction.projection)
    }

    /// Checks each change of `batch` against what the log and the quarantine hold under its id (`stored`), in
    /// order: counts a duplicate, holds one `future` quarantines, takes out of quarantine one the log holds or
    /// this merge takes, and returns the new ones, each with its canonical fields JSON.
    /// - Throws: `ChangeConflict` for a change that differs from the one held under its id.
    private func admit(_ batch: [(change: Change, line: Int)], stored: inout StoredChanges, receipt: ReceiptSlot,
                       future: FutureChanges, into report: inout MergeReport) throws
        -> [(change: Change, fieldsText: String)]
    {
        var fresh: [(change: Change, fieldsText: String)] = []
        for (change, line) in batch {
            report.changesRead += 1
            let fieldsText = try change.fields.jsonText()
            let incoming = change.storedText(fieldsText: fieldsText)
            try stored.check(change, incoming, line: line)
            let id = change.changeID
            if stored.known[id] != nil {
                if stored.held.removeValue(forKey: id) != nil { try quarantine.remove(id) }
                report.duplicates += 1
                continue
            }
            // Judged by when it was made (its wall time), not by the clock that orders it: a device whose clock was
            // ahead once keeps stamping its changes ahead of that moment, and they are plausible all the same.
            if case .quarantine(let latestAllowed, let source) = future, change.madeAt > latestAllowed {
                if stored.held[id] == nil {
                    try quarantine.hold(change, fieldsText: fieldsText, source: source,
                                        receipt: try receipt.open(in: transaction), seenAt: transaction.wallMilliseconds)
                    stored.held[id] = incoming
                }
                report.quarantined += 1
                continue
            }
            if stored.held.removeValue(forKey: id) != nil { try quarantine.remove(id) }
            stored.known[id] = incoming
            fresh.append((change, incoming[5]))
        }
        return fresh
    }
}

/// What the log (`known`) and the quarantine (`held`) hold under the ids of a batch of changes: the stored text of
/// each, by change id. The merge adds to both as it takes changes in.
private struct StoredChanges {
    var known: [String: [String]]
    var held: [String: [String]]

    init(of ids: [String], in db: WriteBehindDatabase) throws {
        let list = try ProjectionCache.jsonList(ids)
        func storedByID(sql: String) throws -> [String: [String]] {
            var found: [String: [String]] = [:]
            try db.forEachRow(sql: sql, arguments: [list]) { row in
                found[try Change.storedID(in: row)] = try Change.storedText(in: row)
            }
            return found
        }
        known = try storedByID(
            sql: "SELECT \(Change.columns) FROM changes WHERE change_id IN (SELECT value FROM json_each(?))")
        held = try storedByID(
            sql: """
                SELECT \(Change.quarantineColumns) FROM quarantine WHERE change_id IN (SELECT value FROM json_each(?))
                """)
    }

    /// Throws `ChangeConflict` when the quarantine or the log holds another change under `change`'s id than the
    /// one whose stored text is `incoming`. Byte for byte: Swift's == on strings is canonical equivalence, which
    /// would let an NFD note pass for the NFC one already stored under the same change id.
    func check(_ change: Change, _ incoming: [String], line: Int) throws {
        func same(_ existing: [String]) -> Bool {
            zip(existing, incoming).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
        }
        for (stored, place) in [(held, "held in quarantine"), (known, "already in the store")] {
            if let existing = stored[change.changeID], !same(existing) {
                throw ChangeConflict(
                    changeID: change.changeID, position: line,
                    reason: "change \(change.changeID) differs from the change with the same id \(place)")
            }
        }
    }
}
