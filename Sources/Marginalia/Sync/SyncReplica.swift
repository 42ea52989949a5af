/// A store as one replica in a sync folder: the steps of a round (`SyncRound.run`) on one connection of the store,
/// through the core's own operations (the merger, the log, the device id). Reading the folder and readying this
/// store's directory are in `SyncReplica+Read`, writing its segments in `SyncReplica+Publish`; merging is here.
///
/// A step that only reads runs on a `StoreReader` (`readFolder`, beside the app's writes); the steps that write run
/// on a `StoreWriter`.
struct SyncReplica<Store: StoreAccess> {
    /// The store the step runs on.
    let store: Store

    var db: WriteBehindDatabase { store.db }
}

extension SyncReplica where Store == StoreWriter {
    /// Runs a whole round on this one writer (see `SyncRound.run`); `AnnotationStore.sync` runs the same steps
    /// on the store's engine.
    static func sync(_ store: StoreWriter, folder path: String, compact: Bool, acceptFuture: Bool = false,
                     keys: SyncKeyRequest = SyncKeyRequest()) throws -> SyncReport {
        try SyncRound.run(folder: path, compact: compact, acceptFuture: acceptFuture, keys: keys,
                          on: WriterSyncRunner(writer: store))
    }

    /// Merges one chunk of another device's segment in one transaction: the changes made under the directory's
    /// device (or a former id its manifest names, or a device with no directory of its own); the others are not
    /// taken from here, and reported when this store lacks them. Returns false when the merger refused the chunk
    /// (noted as damage, with the line).
    func applyChunk(_ changes: [Change], firstLine: Int, of segment: SyncRound.Segment, _ summary: SegmentSummary,
                    in round: inout SyncRound) throws -> Bool {
        var accepted: [Change] = []
        var refused: [String: [String]] = [:]
        for change in changes {
            if round.accepts(change.device, from: segment.device) {
                accepted.append(change)
            } else {
                refused[change.device, default: []].append(change.changeID)
            }
        }
        var report = round.report.devices[segment.deviceIndex]
        defer { round.report.devices[segment.deviceIndex] = report }
        for (device, ids) in refused.sorted(by: { $0.key < $1.key }) {
            let lacking = try ids.filter { id in
                try db.int(sql: "SELECT 1 FROM changes WHERE change_id = ?", arguments: [id]) == nil
            }.count
            guard lacking > 0 else { continue }
            report.refused.append(SyncFileIssue(path: segment.relative, reason: "\(lacking) changes made under "
                + "device \(device), which has a directory of its own, were not taken from here: a device's changes "
                + "come from its own directory"))
        }
        let merged: MergeReport
        do {
            let source = ReceiptSource(kind: .sync, file: segment.relative, size: summary.size, sha256: summary.sha256)
            merged = try store.merging { try $0.merge(accepted, source: source, acceptFuture: round.acceptFuture) }
        } catch let error as StoreError {
            if case .massDeletion = error {
                report.heldForDeletion.append(SyncFileIssue(path: segment.relative, reason: "\(error)"))
                return false
            }
            // The Nth change given is on line N + firstLine - 1 when none was set aside.
            var line: Int?
            if case .changeRefused(let position, _, _, _) = error, refused.isEmpty { line = position + firstLine - 1 }
            round.report.devices[segment.deviceIndex] = report
            round.noteDamaged(segment, line: line, reason: "\(error)")
            report = round.report.devices[segment.deviceIndex]
            return false
        }
        report.changesApplied += merged.newChanges
        report.duplicates += merged.duplicates
        report.conflictsResolved += merged.conflictsResolved
        report.conflicts += merged.conflicts.prefix(max(0, MergeConflict.listedLimit - report.conflicts.count))
        report.quarantined += merged.quarantined
        if let renewed = merged.renewedDeviceID, round.report.renewedFromDeviceID == nil {
            round.report.renewedFromDeviceID = round.report.deviceID
            round.report.renewalReason = "\(segment.relative) holds changes made under this store's device id that "
                + "it never made: another copy of this store writes under the same id"
            round.report.deviceID = renewed
        }
        return true
    }

    /// Records a segment whose every chunk was merged.
    func recordApplied(_ segment: SyncRound.Segment, _ summary: SegmentSummary, in round: inout SyncRound) throws {
        try SyncLedger(db: db).record(
            device: segment.device, name: segment.name, size: summary.size, sha256: summary.sha256, written: false,
            header: summary.header, changes: summary.changeCount, at: Timestamp.iso8601(
                milliseconds: store.clock.wallMilliseconds))
        round.report.devices[segment.deviceIndex].segmentsApplied += 1
    }

    /// A segment in this store's own directory that it has not recorded: its own, written by a round that ended
    /// before recording it (its changes are those of its log in the range it covers), recorded so (true); or else
    /// evidence that a copy of this store writes under its id (false: the file is then merged).
    func takeOwnSegment(_ segment: SyncRound.Segment, _ summary: SegmentSummary, in round: inout SyncRound) throws
        -> Bool
    {
        let header = summary.header
        var own = header.log == round.log
        for id in summary.changeIDs ?? [] where own {
            own = try db.int(sql: "SELECT 1 FROM changes WHERE change_id = ? AND seq BETWEEN ? AND ?",
                             arguments: [id, header.firstSequence, header.lastSequence]) != nil
        }
        if own {
            try SyncLedger(db: db).record(
                device: segment.device, name: segment.name, size: summary.size, sha256: summary.sha256, written: true,
                header: header, changes: summary.changeCount,
                at: Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds))
            return true
        }
        // A segment of a log this store continues (the store a restore replaced wrote it) is its own past: merged
        // like another device's, never taken for a copy's work.
        if try store.log.formerIdentities().contains(header.log) { return false }
        if round.cloneEvidence == nil {
            round.cloneEvidence = "\(segment.relative) is in this store's own directory but was not written by it"
        }
        return false
    }
}
