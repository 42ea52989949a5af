extension StoreConnection {
    /// Merges changes from another store, by any transport, in one transaction: all of them or none.
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
    /// - Throws: `StoreError.invalidChange` naming the change (its 1-based place in `changes`): a change that is
    ///   malformed, or differs from the change already stored (or held in quarantine) under its id.
    @discardableResult
    func merge(_ changes: some Sequence<Change>, source: ReceiptSource = ReceiptSource(kind: .merge),
               acceptFuture: Bool = false) throws -> MergeReport
    {
        var report = MergeReport()
        var sawOwnDevice = false
        let latest = clock.wallMilliseconds + HybridLogicalClock.defaultMaxDrift
        try batch {
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
                    throw StoreError.invalidChange(reason: "change \(conflict.position): \(conflict.reason)")
                }
                batch.removeAll(keepingCapacity: true)
            }
            for (index, change) in changes.enumerated() {
                do {
                    try change.check()
                } catch {
                    throw StoreError.invalidChange(reason: "change \(index + 1) (\(change.changeID)): \(error)")
                }
                batch.append((change, index + 1))
                if batch.count >= Self.mergeBatchSize { try mergeBatch() }
            }
            try mergeBatch()
            try receipts.finish(receipt, report)
            if sawOwnDevice { report.renewedDeviceID = try renewDeviceID() }
        }
        if let renewed = report.renewedDeviceID { deviceID = renewed }
        return report
    }
}
