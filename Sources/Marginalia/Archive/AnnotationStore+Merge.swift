/// What merging one archive into a store did, and what it checked.
struct MergeResult {
    var report: ImportReport
    var verification: ArchiveVerification
    /// The archive held new changes made under this store's own device id.
    var sawOwnDevice: Bool
}

extension AnnotationStore {
    /// Reads an archive and merges its changes into this store; call it inside a write transaction, which the
    /// caller commits only if this returns.
    ///
    /// With `checkState` (for a store that was empty, so that its state is the archive's own), each state record
    /// of a full archive must equal the state rebuilt from the archive's changes, and `live`'s too when given.
    /// With `refuseFutureChanges`, a change new to this store dated more than `limits.maxClockDrift` ahead of its
    /// clock refuses the file: another machine's clock is wrong. A store's own backup is judged by its own
    /// history instead, so verifying, backing up and restoring pass `false`.
    /// - Throws: `ArchiveError` naming the file, the line and the reason.
    func mergeArchive(path: String, limits: ArchiveLimits, checkState: Bool, comparingWith live: AnnotationStore?,
                      refuseFutureChanges: Bool = false) throws -> MergeResult
    {
        var report = ImportReport()
        var sawOwnDevice = false
        var checkRecords = checkState
        var annotationsChecked = 0
        var positionsChecked = 0
        func mismatch(_ line: Int?, _ reason: String) -> ArchiveError {
            ArchiveError(file: path, line: line, kind: .mismatch, reason: reason)
        }
        let reader = ArchiveReader(path: path, limits: limits)
        let summary = try reader.read { record, line in
            switch record {
            case .header(let header):
                // A partial archive's state cannot be rebuilt from its changes alone.
                checkRecords = checkState && !header.partial
            case .change(let change):
                let latest = refuseFutureChanges ? clock.wallMilliseconds + limits.maxClockDrift : Int64.max
                let isNew = try merge(change, line: line, file: path, into: &report, latestAllowed: latest)
                if isNew && change.device == deviceID { sawOwnDevice = true }
                reportProgress("importing changes", done: report.changesRead)
            case .annotation(let object):
                guard checkRecords, case .string(let id)? = object["id"] else { return }
                guard let rebuilt = try loadRegisters(id: id)?.annotation else {
                    throw mismatch(line, "annotation \(id) has a state record but its changes do not create it")
                }
                guard ArchiveFormat.record(rebuilt) == .object(object) else {
                    throw mismatch(line, "the state record of annotation \(id) differs from the replay of its changes")
                }
                if let live, try live.loadRegisters(id: id)?.annotation.map(ArchiveFormat.record) != .object(object) {
                    throw mismatch(line, "the state record of annotation \(id) differs from the live store")
                }
                annotationsChecked += 1
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
}
