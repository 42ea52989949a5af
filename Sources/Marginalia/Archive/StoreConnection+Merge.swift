/// What merging one archive into a store did, and what it checked.
struct MergeResult {
    var report: ImportReport
    var verification: ArchiveVerification
    /// The archive held new changes made under this store's own device id.
    var sawOwnDevice: Bool
}

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
    /// Reads an archive and merges its changes into this store; call it inside a write transaction, which the
    /// caller commits only if this returns.
    ///
    /// With `checkState` (for a store that was empty, so that its state is the archive's own), each state record
    /// of a full archive must equal the state rebuilt from the archive's changes, and `live`'s too when given.
    /// - Throws: `ArchiveError` naming the file, the line and the reason.
    func mergeArchive(path: String, limits: ArchiveLimits, checkState: Bool, comparingWith live: StoreConnection?,
                      future: FutureChanges = .accept) throws -> MergeResult
    {
        try mergeRecords(file: path, checkState: checkState, comparingWith: live, future: future) { handle in
            try ArchiveReader(path: path, limits: limits).readAhead(handle)
        }
    }

    /// Merges the records `records` hands to its handler, in file order, and returns the summary it returns; see
    /// `mergeArchive`. Changes quarantined by `future` leave the state unchecked: it cannot be the archive's.
    func mergeRecords(file path: String, checkState: Bool, comparingWith live: StoreConnection?,
                      future: FutureChanges,
                      records: ((ArchiveRecord, Int) throws -> Void) throws -> ArchiveSummary) throws -> MergeResult
    {
        var report = ImportReport()
        var sawOwnDevice = false
        var checkRecords = checkState
        var annotationsChecked = 0
        var positionsChecked = 0
        func mismatch(_ line: Int?, _ reason: String) -> ArchiveError {
            ArchiveError(file: path, line: line, kind: .mismatch, reason: reason)
        }
        var batch: [(change: Change, line: Int)] = []
        func mergeBatch() throws {
            guard !batch.isEmpty else { return }
            try merge(batch, file: path, into: &report, future: future, sawOwnDevice: &sawOwnDevice)
            batch.removeAll(keepingCapacity: true)
            try reportProgress("importing changes", done: report.changesRead, every: 1)
        }
        var states: [(id: String, record: JSONObject, line: Int)] = []
        func checkStates() throws {
            guard !states.isEmpty else { return }
            try checkAnnotationStates(states, comparingWith: live, file: path)
            annotationsChecked += states.count
            states.removeAll(keepingCapacity: true)
        }
        let summary = try records { record, line in
            if case .change(let change) = record {
                batch.append((change, line))
                if batch.count >= Self.mergeBatchSize { try mergeBatch() }
                return
            }
            // The state records follow every change: the state they describe is complete once these are in.
            try mergeBatch()
            if report.quarantined > 0 { checkRecords = false }
            if case .annotation(let object) = record {
                if checkRecords, case .string(let id)? = object["id"] {
                    states.append((id, object, line))
                    if states.count >= Self.mergeBatchSize { try checkStates() }
                }
                return
            }
            try checkStates()
            switch record {
            case .header(let header):
                // A partial archive's state cannot be rebuilt from its changes alone.
                checkRecords = checkRecords && !header.partial
            case .change:
                break
            case .annotation:
                break
            case .position(let object):
                guard checkRecords, case .string(let document)? = object["document"] else { return }
                guard try position(document: document).map(ArchiveFormat.record) == .object(object) else {
                    throw mismatch(line, "the reading position of \(document) differs from the replay of its changes")
                }
                if let live, try live.position(document: document).map(ArchiveFormat.record) != .object(object) {
                    throw mismatch(line, "the reading position of \(document) differs from the live store")
                }
                positionsChecked += 1
            }
        }
        try mergeBatch()
        if report.quarantined > 0 { checkRecords = false }
        try checkStates()
        report.header = summary.header
        if checkRecords {
            let rebuilt = try annotationCounts()
            guard rebuilt.live + rebuilt.deleted == summary.counts.annotations,
                  try positions().count == summary.counts.positions else {
                throw mismatch(nil, "the changes rebuild \(rebuilt.live + rebuilt.deleted) annotations, "
                    + "but the archive's state holds \(summary.counts.annotations)")
            }
            if let live {
                let liveCounts = try live.annotationCounts()
                let liveChanges = try live.changeCount()
                guard liveCounts.live + liveCounts.deleted == summary.counts.annotations,
                      liveChanges == summary.counts.changes else {
                    throw mismatch(nil, "the archive holds \(summary.counts.changes) changes and "
                        + "\(summary.counts.annotations) annotations, the live store \(liveChanges) and "
                        + "\(liveCounts.live + liveCounts.deleted)")
                }
            }
        }
        var verification = ArchiveVerification(summary: summary)
        verification.annotationsChecked = annotationsChecked
        verification.positionsChecked = positionsChecked
        return MergeResult(report: report, verification: verification, sawOwnDevice: sawOwnDevice)
    }

    /// How many changes are merged together: one query finds which are already here, one loads the annotations
    /// they touch, and each annotation is written back once. Memory grows with it (about 12 KB a change, most of it
    /// SQLite's in-memory statement journals); from 1,000 to 2,000 an import of 100,000 annotations gains under 3 %
    /// in time and spends 13 MiB more (`marginalia-bench`).
    static let mergeBatchSize = 1000

    /// Adds each change whose id is not in the log yet, in order, and applies it to the current tables; holds
    /// back those `future` quarantines, and takes out of quarantine those it merges.
    ///
    /// - Throws: `ArchiveError.conflict` when the log, the quarantine (or the batch) holds a different change under
    ///   the same id.
    func merge(_ batch: [(change: Change, line: Int)], file: String, into report: inout ImportReport,
               future: FutureChanges, sawOwnDevice: inout Bool) throws {
        let ids = try ProjectionCache.jsonList(batch.map(\.change.changeID))
        var known: [String: [String]] = [:]
        try db.forEachRow(
            sql: """
                SELECT \(Change.columns) FROM changes
                WHERE change_id IN (SELECT value FROM json_each(?))
                """,
            arguments: [ids]
        ) { row in
            known[try Change.storedID(in: row)] = try Change.storedText(in: row)
        }
        var held: [String: [String]] = [:]
        try db.forEachRow(
            sql: """
                SELECT \(Change.columns) FROM quarantine
                WHERE change_id IN (SELECT value FROM json_each(?))
                """,
            arguments: [ids]
        ) { row in
            held[try Change.storedID(in: row)] = try Change.storedText(in: row)
        }
        var cache = ProjectionCache()
        try cache.prepare(batch.compactMap { item in
            item.change.entity == .annotation && known[item.change.changeID] == nil ? item.change.entityID : nil
        }, in: self)
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
                    throw ArchiveError(
                        file: file, line: line, kind: .conflict,
                        reason: "change \(change.changeID) differs from the change with the same id held in "
                            + "quarantine")
                }
            }
            if let existing = known[change.changeID] {
                guard same(existing) else {
                    throw ArchiveError(
                        file: file, line: line, kind: .conflict,
                        reason: "change \(change.changeID) differs from the change with the same id already "
                            + "in the store")
                }
                if held.removeValue(forKey: change.changeID) != nil { try unquarantine(change.changeID) }
                report.duplicates += 1
                continue
            }
            if case .quarantine(let latestAllowed, let source) = future, change.hlc.milliseconds > latestAllowed {
                if held[change.changeID] == nil {
                    try quarantine(change, fieldsText: fieldsText, source: source)
                    held[change.changeID] = incoming
                }
                report.quarantined += 1
                continue
            }
            if held.removeValue(forKey: change.changeID) != nil { try unquarantine(change.changeID) }
            known[change.changeID] = incoming
            fresh.append((change, incoming[5]))
        }
        try insert(fresh)
        for (index, item) in fresh.enumerated() {
            let change = item.change
            let effect = change.entity == .annotation
                ? try cache.apply(change, in: self, later: {
                    Set(fresh[(index + 1)...].filter { $0.change.entityID == change.entityID }.map(\.change.changeID))
                })
                : try projectPosition(change)
            report.newChanges += 1
            if effect.created { report.annotationsCreated += 1 } else if effect.updated { report.updates += 1 }
            if effect.deleted { report.deletions += 1 }
            if effect.pending { report.pending += 1 }
            report.conflictsResolved += effect.conflicts
            if change.device == deviceID { sawOwnDevice = true }
        }
        try cache.flush(to: self)
    }

    /// Checks a run of annotation state records against this store's rows (and `live`'s), one query for all.
    private func checkAnnotationStates(_ states: [(id: String, record: JSONObject, line: Int)],
                                       comparingWith live: StoreConnection?, file: String) throws {
        let ids = try ProjectionCache.jsonList(states.map(\.id))
        func rows(of store: StoreConnection) throws -> [String: Annotation] {
            var found: [String: Annotation] = [:]
            try store.db.forEachRow(
                sql: "SELECT \(Self.annotationColumns()) FROM annotations WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [ids]
            ) { row in
                let annotation = try Annotation(row: row)
                found[annotation.id] = annotation
            }
            return found
        }
        let rebuilt = try rows(of: self)
        let liveRows = try live.map(rows(of:))
        for (id, record, line) in states {
            func mismatch(_ reason: String) -> ArchiveError {
                ArchiveError(file: file, line: line, kind: .mismatch, reason: reason)
            }
            guard let annotation = rebuilt[id] else {
                throw mismatch("annotation \(id) has a state record but its changes do not create it")
            }
            let expected = JSONValue.object(record)
            guard ArchiveFormat.record(annotation) == expected else {
                throw mismatch("the state record of annotation \(id) differs from the replay of its changes")
            }
            if let liveRows, liveRows[id].map(ArchiveFormat.record) != expected {
                throw mismatch("the state record of annotation \(id) differs from the live store")
            }
        }
    }
}
