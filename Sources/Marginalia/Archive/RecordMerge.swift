/// One archive's records merged into a store, in file order (`ArchiveImporter.mergeRecords`): the changes a
/// batch at a time (or into the log only, to be projected once, as the plan says), then the state records, each
/// compared with the state the changes rebuilt when the state is checked.
final class RecordMerge {
    private let importer: ArchiveImporter
    private var store: StoreWriter { importer.store }
    private let path: String
    private let receipt: ReceiptSlot
    private let live: StoreReader?
    private let future: FutureChanges
    private let plan: ArchiveMergePlan

    private var report = ImportReport()
    private var sawOwnDevice = false
    /// Whether the state records are compared with the rebuilt state (no longer, once a change was held back).
    private var checkRecords: Bool
    private var annotationsChecked = 0
    private var positionsChecked = 0
    /// The whole log is still to be projected.
    private var projectAtEnd: Bool
    private var batch: [(change: Change, line: Int)] = []
    /// Keep the receipts the file carries (a restore): its changes point to copies of them.
    private let keepsReceipts: Bool
    /// The copies made of the file's receipts, by their id in the file.
    private var carried: [Int64: ReceiptSlot] = [:]
    /// The file's receipt the changes of `batch` arrived by (nil: the merge's own).
    private var batchReceipt: Int64?
    /// How many new changes point to a carried receipt, not to the merge's own.
    private var carriedChanges = 0
    private var states: [(id: String, record: StateRecord, line: Int)] = []
    /// The annotations before the merge, for the brake on mass deletion (nil: let through).
    private let before: DeletionBrake.Snapshot?

    init(importer: ArchiveImporter, file path: String, receipt: ReceiptSlot, checkState: Bool,
         live: StoreReader?, future: FutureChanges, plan: ArchiveMergePlan, keepsReceipts: Bool = false) {
        self.keepsReceipts = keepsReceipts
        self.importer = importer
        self.path = path
        self.receipt = receipt
        self.live = live
        self.future = future
        self.plan = plan
        checkRecords = checkState
        projectAtEnd = plan.projectsOnce
        (report.changesRead, report.newChanges) = plan.alreadyMerged
        report.duplicates = report.changesRead - report.newChanges
        if case .bulkLoad(let filled, _) = plan { sawOwnDevice = filled.sawOwnDevice }
        before = importer.store.allowsMassDeletion ? nil : try? DeletionBrake.Snapshot(importer.store.db)
    }

    /// Takes the next record of the file, read on `line`.
    func take(_ record: ArchiveRecord, line: Int) throws {
        if case .change(let change, let receipt) = record {
            let arrivedBy = keepsReceipts ? receipt : nil
            if arrivedBy != batchReceipt {
                try mergeBatch()
                batchReceipt = arrivedBy
            }
            batch.append((change, line))
            if batch.count >= Merger.batchSize { try mergeBatch() }
            return
        }
        if case .receipt(let archived) = record {
            if keepsReceipts { carried[archived.id] = ReceiptSlot(existing: try store.receipts.insert(archived)) }
            return
        }
        // The state records follow every change: the state they describe is complete once these are in.
        if case .header = record { try mergeBatch() } else { try endChanges() }
        if report.quarantined > 0 { checkRecords = false }
        if let state = StateRecord(record) {
            if checkRecords, let id = state.id {
                states.append((id, state, line))
                if states.count >= Merger.batchSize { try checkStates() }
            } else if case .staged(_, let text) = state {
                // Not compared with a rebuilt record, it is checked as reading the file would have.
                _ = try ArchiveReader.checkedAnnotation(text, line: line, file: path)
            }
            return
        }
        try checkStates()
        switch record {
        case .header(let header):
            // A partial archive's state cannot be rebuilt from its changes alone.
            checkRecords = checkRecords && !header.partial
            if case .bulkLoad = plan { try endChanges() }
        case .change, .receipt, .annotation, .annotationText:
            break
        case .position(let object):
            guard checkRecords else { return }
            try importer.checkPositionState(object, comparingWith: live, file: path, line: line)
            positionsChecked += 1
        }
    }

    /// Ends the merge once the file's last record is in (`summary` is what reading it found): what is left is
    /// merged and checked, and the state the changes rebuilt compared with the file's, when it is checked.
    func finish(_ summary: ArchiveSummary) throws -> MergeResult {
        try endChanges()
        if report.quarantined > 0 { checkRecords = false }
        try checkStates()
        try before?.check(store.db, byDevice: report.merge.deletionsByDevice)
        report.header = summary.header
        if checkRecords { try importer.checkRebuiltState(against: summary, comparingWith: live, file: path) }
        var verification = ArchiveVerification(summary: summary)
        verification.annotationsChecked = annotationsChecked
        verification.positionsChecked = positionsChecked
        return MergeResult(report: report, verification: verification, sawOwnDevice: sawOwnDevice,
                           carriedChanges: carriedChanges)
    }

    private func mergeBatch() throws {
        guard !batch.isEmpty else { return }
        let slot = batchReceipt.flatMap { carried[$0] } ?? receipt
        let before = report.merge.newChanges
        defer { if slot !== receipt { carriedChanges += report.merge.newChanges - before } }
        do {
            try store.merging { merger in
                try merger.merge(batch, receipt: slot, into: &report.merge, future: future,
                                 sawOwnDevice: &sawOwnDevice, project: !projectAtEnd)
            }
        } catch let conflict as ChangeConflict {
            throw ArchiveError(file: path, line: conflict.position, kind: .conflict, reason: conflict.reason)
        }
        batch.removeAll(keepingCapacity: true)
        try store.reportProgress("importing changes", done: report.changesRead, every: 1)
    }

    /// Ends the changes: the whole log is projected now, if it was put off.
    private func endChanges() throws {
        try mergeBatch()
        guard projectAtEnd else { return }
        let kept = checkRecords && live == nil ? plan.rebuiltRecords : nil
        // Every annotation row is new: the document and passage indexes are built once they are all in.
        try store.db.buildingIndexesAfter(on: "annotations") {
            try store.merging { merger in
                try merger.projectWholeLog(into: &report.merge,
                                           keepingRecordsIn: kept.map { ($0, ArchiveFormat.annotationRecordLeading) })
            }
        }
        projectAtEnd = false
    }

    private func checkStates() throws {
        guard !states.isEmpty else { return }
        try importer.checkAnnotationStates(states, comparingWith: live, file: path)
        annotationsChecked += states.count
        states.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable)
extension RecordMerge: Sendable {}
