import Foundation

/// Another machine's archive merged into a store, through the core's own operations (the merger, the log, the
/// quarantine, the receipts).
///
/// Every way an archive comes in is one pipeline of the same stages: `ArchiveReader` reads and checks the records
/// in file order; `RecordMerge` (`mergeRecords`) takes them, as the `ArchiveMergePlan` says, and checks the state
/// they rebuild; the receipt is finished with the file's size and SHA-256. An import puts one stage between the
/// two: the records are staged outside the write lock (`ArchiveImporter+Staging`, `StagedArchive`) and handed
/// from there (`replayStaged`), merged in one transaction (here) or in steps that an interrupted process leaves for
/// the next open of the store to finish (`ArchiveImporter+Steps`); into an empty store, the staged changes can go
/// into the log at once (`ArchiveImporter+Log`). A restore and a verify stream the file into an empty store
/// (`mergeArchive`): nothing else writes there meanwhile.
struct ArchiveImporter {
    /// The connection the archive is merged into.
    let store: StoreWriter

    var db: WriteBehindDatabase { store.db }

    /// Merges another machine's archive into this store, in one transaction, after validating the whole file.
    ///
    /// The file is read, inflated, checked and staged in a temporary table first, without the write lock, so that
    /// other writers go on meanwhile; the write transaction only merges the staged changes. Changes are
    /// deduplicated by change id; the current tables are resolved field by field, last writer wins (by clock,
    /// then device id). Into an empty store, a full archive's state records must also equal the state its changes
    /// rebuild. A file that is invalid anywhere changes nothing.
    ///
    /// A change dated more than `limits.maxClockDrift` ahead of this machine's clock is held in quarantine (see
    /// `quarantinedChanges()`) rather than merged, unless `acceptFuture`; the rest of the file is merged. Held
    /// changes are merged once they are plausible: at the next import, or when the store is next opened for
    /// writing.
    /// - Parameter dryRun: report what would happen, and write nothing.
    /// - Throws: `ArchiveError` naming the file, line and reason.
    func importArchive(path: String, dryRun: Bool = false, acceptFuture: Bool = false,
                       limits: ArchiveLimits = ArchiveLimits()) throws -> ImportReport
    {
        let staged = try stageArchive(path: path, limits: limits)
        defer { try? dropStaged(staged) }
        return try importStaged(staged, dryRun: dryRun, acceptFuture: acceptFuture, limits: limits)
    }

    /// Merges an archive staged already (in this connection's `staging` or `temp` tables) in one write
    /// transaction: the second half of `importArchive`, which the store runs on its writer once a connection of
    /// its own has staged the file (`StagingFile`).
    func importStaged(_ staged: StagedArchive, dryRun: Bool, acceptFuture: Bool, limits: ArchiveLimits) throws
        -> ImportReport
    {
        let path = staged.path
        var report = ImportReport()
        do {
            try store.write { transaction in
                let latest = transaction.wallMilliseconds + limits.maxClockDrift
                let released = try Merger(transaction).releaseQuarantine(latestAllowed: latest)
                let wasEmpty = try store.changeCount() == 0
                    && (try db.int(sql: "SELECT count(*) FROM quarantine") ?? 0) == 0
                let future: FutureChanges = acceptFuture ? .accept : .quarantine(latestAllowed: latest, source: path)
                let receipt = ReceiptSlot(ReceiptSource(kind: .import, file: path))
                // Into an empty store, the staged changes go into the log in one statement when that is exactly
                // what merging them would do; the merge then sees only the state records it checks.
                // Into a store that has them, the changes it holds already are counted, not merged again.
                let filled = try canFillLog(from: staged, latestAllowed: acceptFuture ? nil : latest)
                    ? try fillLog(from: staged, receipt: try receipt.open(in: transaction)) : nil
                let known = filled == nil && !wasEmpty ? try markKnownChanges(staged) + staged.known : 0
                let plan: ArchiveMergePlan = if let filled {
                    .bulkLoad(filled, rebuiltRecords: staged.rebuiltTable)
                } else if try Merger(transaction).projectionIsEmpty() {
                    .projectOnce(rebuiltRecords: staged.rebuiltTable)
                } else {
                    .incremental(known: known)
                }
                let result = try mergeRecords(file: path, receipt: receipt,
                                              checkState: wasEmpty && staged.forEmptyStore, comparingWith: nil,
                                              future: future, plan: plan) { handle in
                    try replayStaged(staged, changes: filled == nil, handle)
                }
                try store.receipts.finish(receipt, result.report.merge, size: Int64(staged.summary.compressedBytes),
                                        sha256: staged.summary.sha256)
                report = result.report
                report.releasedFromQuarantine = released
                if result.sawOwnDevice { report.renewedDeviceID = try transaction.renewDeviceID() }
                if dryRun { throw DryRun() }
            }
        } catch is DryRun {
            return report
        }
        return report
    }
}

/// Thrown to roll back a dry run once it has been reported.
private struct DryRun: Error {}
