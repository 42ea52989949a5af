// MARK: - Merging changes

/// What a merge does with a new change dated ahead of this machine's clock.
enum FutureChanges {
    /// Merged like any other: a store's own backup is judged by its own history (verifying, backing up and
    /// restoring), and `import --accept-future` takes them at once.
    case accept
    /// A change dated after `latestAllowed` (milliseconds) is held in the `quarantine` table, with the file it
    /// came from, instead of the log: another machine's clock is wrong, and this store's clock must not follow it.
    case quarantine(latestAllowed: Int64, source: String)
}

extension StoreConnection {
    /// How many changes are merged together: one query finds which are already here, one loads the annotations
    /// they touch, and each annotation is written back once. Memory grows with it (about 12 KB a change, most of it
    /// SQLite's in-memory statement journals); from 1,000 to 2,000 an import of 100,000 annotations gains under 3 %
    /// in time and spends 13 MiB more (`marginalia-bench`).
    static let mergeBatchSize = 1000

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
        let ids = try ProjectionCache.jsonList(batch.map(\.change.changeID))
        /// The stored text of each change of the batch a statement finds, by change id.
        func storedByID(sql: String) throws -> [String: [String]] {
            var found: [String: [String]] = [:]
            try db.forEachRow(sql: sql, arguments: [ids]) { row in
                found[try Change.storedID(in: row)] = try Change.storedText(in: row)
            }
            return found
        }
        var known = try storedByID(
            sql: "SELECT \(Change.columns) FROM changes WHERE change_id IN (SELECT value FROM json_each(?))")
        var held = try storedByID(
            sql: "SELECT \(Change.quarantineColumns) FROM quarantine WHERE change_id IN (SELECT value FROM json_each(?))")
        var cache = ProjectionCache()
        if project {
            try cache.prepare(batch.compactMap { item in
                item.change.entity == .annotation && known[item.change.changeID] == nil ? item.change.entityID : nil
            }, in: self)
        }
        // First every change is checked, and the new ones go into the log in one statement; then they are applied.
        var fresh: [(change: Change, fieldsText: String)] = []
        for (change, line) in batch {
            report.changesRead += 1
            let fieldsText = try change.fields.jsonText()
            let incoming = change.storedText(fieldsText: fieldsText)
            // Byte for byte: Swift's == on strings is canonical equivalence, which would let an NFD note pass for
            // the NFC one already stored under the same change id.
            func same(_ existing: [String]) -> Bool { zip(existing, incoming).allSatisfy { $0.utf8.elementsEqual($1.utf8) } }
            if let existing = held[change.changeID] {
                guard same(existing) else {
                    throw ChangeConflict(
                        changeID: change.changeID, position: line,
                        reason: "change \(change.changeID) differs from the change with the same id held in "
                            + "quarantine")
                }
            }
            if let existing = known[change.changeID] {
                guard same(existing) else {
                    throw ChangeConflict(
                        changeID: change.changeID, position: line,
                        reason: "change \(change.changeID) differs from the change with the same id already "
                            + "in the store")
                }
                if held.removeValue(forKey: change.changeID) != nil { try unquarantine(change.changeID) }
                report.duplicates += 1
                continue
            }
            if case .quarantine(let latestAllowed, let source) = future, change.hlc.milliseconds > latestAllowed {
                if held[change.changeID] == nil {
                    try quarantine(change, fieldsText: fieldsText, source: source, receipt: try receipt.open(in: self))
                    held[change.changeID] = incoming
                }
                report.quarantined += 1
                continue
            }
            if held.removeValue(forKey: change.changeID) != nil { try unquarantine(change.changeID) }
            known[change.changeID] = incoming
            fresh.append((change, incoming[5]))
        }
        if !fresh.isEmpty { try insert(fresh, receipt: try receipt.open(in: self)) }
        guard project else {
            report.newChanges += fresh.count
            if fresh.contains(where: { $0.change.device == deviceID }) { sawOwnDevice = true }
            return
        }
        for (index, item) in fresh.enumerated() {
            let change = item.change
            let effect = change.entity == .annotation
                ? try cache.apply(change, in: self, later: {
                    Set(fresh[(index + 1)...].filter { $0.change.entityID == change.entityID }.map(\.change.changeID))
                })
                : try projectPosition(change)
            report.newChanges += 1
            report.count(effect)
            report.conflicts += effect.conflicts.prefix(max(0, MergeConflict.listedLimit - report.conflicts.count))
            if change.device == deviceID { sawOwnDevice = true }
        }
        try cache.flush(to: self)
    }
}
