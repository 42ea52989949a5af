import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ArchiveImporter {
    /// How many changes a step merges together before it looks at the time: a fifth of
    /// `Merger.batchSize`, so that a step ends close to its budget (a batch of 200 takes about 10 ms
    /// here, `marginalia-bench`).
    static let stepBatchSize = 200

    /// Applies the next step of `pending`, whose staged copy is attached as `staging`: one write transaction that
    /// merges the staged changes after `pending.line`, a `stepBatchSize` at a time, until `budget` nanoseconds
    /// have passed or none is left, and records how far it came. The last step finishes the receipt and removes
    /// the record. What the step's merge did is added to `report`.
    /// - Returns: whether the import is finished.
    /// - Throws: `ChangeConflict` for a staged change under an id the store holds with other content.
    func applyImportStep(_ pending: inout PendingImport, budget: UInt64, into report: inout MergeReport) throws
        -> Bool
    {
        var next = pending
        var stepReport = MergeReport()
        var renewed: String?
        let finished = try store.write { transaction in
            let started = DispatchTime.now().uptimeNanoseconds
            let latest = transaction.wallMilliseconds + next.maxClockDrift
            if next.receipt == nil {
                // The first step: the held changes whose time has come go first, as in a whole import.
                stepReport.releasedFromQuarantine = try Merger(transaction).releaseQuarantine(latestAllowed: latest)
            }
            let receipt = next.receipt.map { ReceiptSlot(existing: $0) }
                ?? ReceiptSlot(ReceiptSource(kind: .import, file: next.archive))
            let future: FutureChanges = next.acceptFuture
                ? .accept : .quarantine(latestAllowed: latest, source: next.archive)
            var sawOwnDevice = false
            var done = false
            repeat {
                let batch = try db.fetchAll(
                    sql: """
                        SELECT change_id, hlc, device, entity, entity_id, op, body, wall, line
                        FROM staging.staged_records
                        WHERE line > ? AND kind = 'change' ORDER BY line LIMIT ?
                        """,
                    arguments: [next.line, Self.stepBatchSize]
                ) { row in (change: try Change(row: row), line: Int(try row.int(8))) }
                guard let last = batch.last else {
                    done = true
                    break
                }
                try Merger(transaction).merge(batch, receipt: receipt, into: &stepReport, future: future,
                                              sawOwnDevice: &sawOwnDevice)
                next.line = last.line
            } while DispatchTime.now().uptimeNanoseconds - started < budget
            next.receipt = receipt.id ?? next.receipt
            next.add(stepReport)
            if sawOwnDevice { renewed = try transaction.renewDeviceID() }
            if done {
                try store.receipts.finish(receipt, next.counts, size: next.size, sha256: next.sha256)
                try PendingImport.records(in: db).remove(next.key)
            } else {
                if receipt.id != nil { try store.receipts.finish(receipt, next.counts) }
                try PendingImport.records(in: db).set(next.key, to: try next.text)
            }
            return done
        }
        // Committed: only now does the caller's state move on.
        pending = next
        report.absorb(stepReport)
        if let renewed { report.renewedDeviceID = renewed }
        return finished
    }

    /// `finishInterruptedImports`, for opening a store: an import that cannot be finished now (a full disk) is
    /// left for the next open, and one that conflicts with the store's log is dropped where it stopped.
    /// What was finished or abandoned before an error stopped it is reported all the same.
    func finishInterruptedImportsIfAble() -> InterruptedImports {
        var outcome = InterruptedImports()
        try? finishInterruptedImports(into: &outcome)
        return outcome
    }

    /// Finishes every import that a process stopped in the middle of (`PendingImport`) whose staged copy no live
    /// process holds: from where it came to, to its end, once the copy is shown to be the file the import kept
    /// (`KeptCopy`). An import whose copy is not (missing, changed, not a regular file, or never fingerprinted) is
    /// abandoned: its record alone is removed, and what it merged stays; it can only be run again. A copy without a
    /// record is removed.
    /// - Parameter outcome: told each import finished, by archive, and each abandoned, as it is.
    func finishInterruptedImports(into outcome: inout InterruptedImports) throws {
        guard store.path != ":memory:" else { return }
        let records = try PendingImport.records(in: db).values(prefix: PendingImport.keyPrefix).map {
            (key: $0.name, text: $0.value)
        }
        let directory = FileSync.parentDirectory(of: store.path)
        for record in records {
            var pending = try PendingImport(key: record.key, text: record.text)
            let path = directory + "/" + pending.stagingName
            func abandoned(_ problem: AbandonedImport.Problem) throws {
                guard try abandon(record) else { return }
                outcome.abandoned.append(AbandonedImport(archive: pending.archive, copy: path, problem: problem,
                                                         changesRead: pending.changesRead, total: pending.total))
            }
            let copy: KeptCopy
            switch KeptCopy.lock(path) {
            case .held:
                continue
            case .refused(let problem):
                // Not a file this process can hold: left where it is.
                try abandoned(problem)
                continue
            case .locked(let locked):
                copy = locked
            }
            defer { copy.close() }
            if let problem = copy.problem(against: pending.keptCopy) {
                try abandoned(problem)
                copy.remove()
                continue
            }
            var report = MergeReport()
            do {
                try StagingFile.attach(copy.path, to: store) {
                    // Attached by its name: still the file checked, not one renamed over it since.
                    guard copy.isStillInPlace else { throw KeptCopyReplaced() }
                    while try !applyImportStep(&pending, budget: .max, into: &report) {}
                }
            } catch is KeptCopyReplaced {
                try abandoned(.changed)
                continue
            } catch is ChangeConflict {
                // A change that came another way meanwhile under the same id, with other content: the import ends
                // where it stopped, as one that met it would have.
                try PendingImport.records(in: db).remove(record.key)
            }
            copy.remove()
            outcome.finished.append(pending.archive)
        }
        try removeOrphanedImportCopies(in: directory)
    }

    /// Removes the record of an import that cannot be finished, in a transaction that changes nothing else: only
    /// the record as it was read (a live importer may have moved it on, or finished, since).
    /// - Returns: whether the record was removed.
    private func abandon(_ record: (key: String, text: String)) throws -> Bool {
        try PendingImport.records(in: db).remove(record.key, ifStill: record.text)
    }

    /// Removes the kept copies beside the store that no record names and no live process holds: those of imports
    /// stopped before their first step committed. Only regular files are opened (`KeptCopy`).
    private func removeOrphanedImportCopies(in directory: String) throws {
        let prefix = (store.path.split(separator: "/").last.map(String.init) ?? store.path) + "-import-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            guard case .locked(let copy) = KeptCopy.lock(directory + "/" + name) else { continue }
            defer { copy.close() }
            // Read under the lock: a live importer commits its first step before it lets the lock go.
            if try PendingImport.records(in: db).value(of: PendingImport.keyPrefix + name) == nil { copy.remove() }
        }
    }
}

/// Thrown when the kept copy attached is no longer the file checked: another was renamed over it.
private struct KeptCopyReplaced: Error {}

extension ArchiveImporter {
    /// The imports stopped midway, which the next open of the store for writing finishes (`UnfinishedWork`,
    /// registered in the library's composition).
    static let interruptedImports = UnfinishedWork(
        isLeft: { store in
            try PendingImport.records(in: store.db).hasValues(prefix: PendingImport.keyPrefix)
                && PendingImport.mayFinish(store: store.path)
        },
        finish: { store in
            let imports = ArchiveImporter(store: store).finishInterruptedImportsIfAble()
            return UnfinishedWork.Outcome(finished: imports.finished, abandoned: imports.abandoned)
        })
}
