/// The merger: changes from another store, by any transport, checked as changes (`Change.check()`) and applied
/// in one transaction, each field taking the value of its latest change (by clock, then device id). The archive,
/// the sync folder and the interop formats turn their bytes into `Change`s and hand them here; a change dated too
/// far ahead of this machine's clock is held in quarantine (`+Quarantine`) and merged once it is plausible; an
/// empty store takes a whole log and projects it once (`+WholeLog`), the fast path an archive import's plan
/// chooses (`ArchiveMergePlan`).
struct Merger {
    /// The write transaction the changes are merged in.
    let transaction: StoreTransaction

    init(_ transaction: StoreTransaction) {
        self.transaction = transaction
    }

    var db: WriteBehindDatabase { transaction.db }
    /// The changes held back until their time is plausible, in this transaction.
    var quarantine: Quarantine { Quarantine(db: db) }
    /// What each change arrived by, in this transaction.
    var receipts: Receipts { Receipts(db: db) }
}

extension Merger {
    /// Merges changes from another store, by any transport, in the merger's transaction: all of them or none.
    ///
    /// Each change is checked as a change (`Change.check()`: ids, clock, fields for its operation). Changes
    /// already here (by change id) are counted as duplicates, so merging the same changes again adds nothing; each
    /// field takes the value of its latest change (by clock, then device id).
    ///
    ///     let report = try phone.merge(try laptop.changes(after: sentSoFar))
    /// A change dated more than the clock's allowed drift ahead of this machine's clock is held in quarantine
    /// (source "merge"), and merged once it is plausible.
    ///
    /// The new changes point to a receipt of `source` (kind `merge` by default); a merge that brings nothing new
    /// and holds nothing in quarantine writes no receipt.
    /// - Throws: `StoreError.changeRefused` naming the change (its 1-based place in `changes`): a change that is
    ///   malformed, or differs from the change already stored (or held in quarantine) under its id.
    @discardableResult
    func merge(_ changes: some Sequence<Change>, source: ReceiptSource = ReceiptSource(kind: .merge),
               acceptFuture: Bool = false) throws -> MergeReport
    {
        var report = MergeReport()
        var sawOwnDevice = false
        let latest = transaction.wallMilliseconds + HybridLogicalClock.defaultMaxDrift
        do {
            let before = transaction.allowsMassDeletion ? nil : try DeletionBrake.Snapshot(transaction.db)
            report.releasedFromQuarantine = try releaseQuarantine(latestAllowed: latest)
            let receipt = ReceiptSlot(source)
            var batch: [(change: Change, line: Int)] = []
            func mergeBatch() throws {
                guard !batch.isEmpty else { return }
                do {
                    try merge(batch, receipt: receipt, into: &report,
                              future: acceptFuture
                                ? .accept : .quarantine(latestAllowed: latest, source: source.file ?? "merge"),
                              sawOwnDevice: &sawOwnDevice)
                } catch let conflict as ChangeConflict {
                    throw StoreError.changeRefused(position: conflict.position, changeID: nil, field: nil,
                                                   reason: conflict.reason)
                }
                batch.removeAll(keepingCapacity: true)
            }
            for (index, change) in changes.enumerated() {
                do throws(FieldError) {
                    try change.check()
                } catch {
                    throw StoreError.changeRefused(position: index + 1, changeID: change.changeID,
                                                   field: error.field.isEmpty ? nil : error.field, reason: error.reason)
                }
                batch.append((change, index + 1))
                if batch.count >= Self.batchSize { try mergeBatch() }
            }
            try mergeBatch()
            try before?.check(transaction.db, byDevice: report.deletionsByDevice)
            try receipts.finish(receipt, report)
            if sawOwnDevice { report.renewedDeviceID = try transaction.renewDeviceID() }
        }
        return report
    }
}
