import Foundation

/// What importing (or merging) an archive did, or would do with `--dry-run`.
public struct ImportReport: Equatable, Sendable {
    /// Change records in the file.
    public var changesRead = 0
    /// Changes this store did not have, now in its log.
    public var newChanges = 0
    /// Changes it already had (by change id).
    public var duplicates = 0
    /// New changes that made an annotation appear.
    public var annotationsCreated = 0
    /// New changes that altered an annotation or position already here.
    public var updates = 0
    /// New changes that turned an annotation into a tombstone.
    public var deletions = 0
    /// Fields where a newer value already here was kept over the file's (last writer wins).
    public var conflictsResolved = 0
    /// The conflicts themselves, at most `MergeConflict.listedLimit` of them: annotation, field, the value kept
    /// and the value that lost.
    public var conflicts: [MergeConflict] = []
    /// New changes to annotations whose create this store has not seen; applied when it arrives.
    public var pending = 0
    /// New changes held in quarantine because they are dated too far ahead of this machine's clock.
    public var quarantined = 0
    /// Changes held in quarantine from earlier imports that had become plausible and were merged first.
    public var releasedFromQuarantine = 0
    /// Set when the file held new changes made under this store's own device id (the store was copied to
    /// another machine): the store then takes this new device id for its future changes.
    public var renewedDeviceID: String?
    /// The archive's header, once read.
    public var header: ArchiveHeader?

    /// A report of nothing done yet.
    package init() {}

    /// Counts what one new change did (its conflicts counted, not listed).
    mutating func count(_ effect: ProjectionEffect) {
        if effect.created { annotationsCreated += 1 } else if effect.updated { updates += 1 }
        if effect.deleted { deletions += 1 }
        if effect.pending { pending += 1 }
        conflictsResolved += effect.conflicts.count
    }

    /// Adds what `other` counted with `count(_:)`.
    mutating func add(_ other: ImportReport) {
        annotationsCreated += other.annotationsCreated
        updates += other.updates
        deletions += other.deletions
        pending += other.pending
        conflictsResolved += other.conflictsResolved
    }
}

extension StoreConnection {
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
        var report = ImportReport()
        do {
            try batch {
                let latest = clock.wallMilliseconds + limits.maxClockDrift
                let released = try releaseQuarantine(latestAllowed: latest)
                let wasEmpty = try changeCount() == 0
                    && (try db.int(sql: "SELECT count(*) FROM quarantine") ?? 0) == 0
                let future: FutureChanges = acceptFuture ? .accept : .quarantine(latestAllowed: latest, source: path)
                let receipt = ReceiptSlot(ReceiptSource(kind: .import, file: path))
                // Into an empty store, the staged changes go into the log in one statement when that is exactly
                // what merging them would do; the merge then sees only the state records it checks.
                // Into a store that has them, the changes it holds already are counted, not merged again.
                let filled = try canFillLog(from: staged, latestAllowed: acceptFuture ? nil : latest)
                    ? try fillLog(from: staged, receipt: try receipt.open(in: self)) : nil
                let known = filled == nil && !wasEmpty ? try markKnownChanges(staged) : 0
                let result = try mergeRecords(file: path, receipt: receipt,
                                              checkState: wasEmpty && staged.forEmptyStore, comparingWith: nil,
                                              future: future, filled: filled, known: known,
                                              rebuiltRecords: staged.rebuiltTable) { handle in
                    try replayStaged(staged, changes: filled == nil, handle)
                }
                try finishReceipt(receipt, result.report, summary: staged.summary)
                report = result.report
                report.releasedFromQuarantine = released
                if result.sawOwnDevice {
                    let renewed = Identifiers.make()
                    try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'device_id'", arguments: [renewed])
                    report.renewedDeviceID = renewed
                }
                if dryRun { throw DryRun() }
            }
        } catch is DryRun {
            return report
        }
        if let renewed = report.renewedDeviceID { deviceID = renewed }
        return report
    }
}

/// Thrown to roll back a dry run once it has been reported.
private struct DryRun: Error {}
