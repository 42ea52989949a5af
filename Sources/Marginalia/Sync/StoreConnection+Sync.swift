#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sync round through a shared folder (see `SyncFormat` for the layout).
extension StoreConnection {
    /// A file this store wrote or applied, as `sync_files` records it.
    private struct KnownFile {
        var size: Int64
        var written: Bool
        var log: String
        var lastSequence: Int64
    }

    /// Reads what is new in the folder, merges it, then writes one segment of what the folder does not hold of
    /// this store's log yet (none when nothing is new), and compacts its own segments when asked or when more
    /// than `SyncFormat.compactionThreshold` of them are there: `readFolder`, `applySegment` for each file it
    /// found, and `publish`, on this one connection. `AnnotationStore.sync` runs the same three steps, the first
    /// on a reader and each of the others under the writer on its own.
    func sync(folder path: String, compact: Bool, acceptFuture: Bool = false) throws -> SyncReport {
        var round = try readFolder(path)
        round.acceptFuture = acceptFuture
        guard round.report.manifestPending == nil else { return round.report }
        if acceptFuture { round.report.releasedFromQuarantine = try releaseAllQuarantined() }
        for segment in round.segments {
            if let contents = try round.read(segment) { try applySegment(segment, contents, in: &round) }
        }
        return try publish(&round, compact: compact)
    }

    /// The first step of a round: checks the folder and its manifest, then lists the segment files of every
    /// device's directory (this store's own too) that this store has not applied or written yet, for the round to
    /// read one by one (`SyncRound.read`). It reads the store and writes nothing to it; the manifest is created when
    /// the folder has none.
    func readFolder(_ path: String) throws -> SyncRound {
        let folder = try SyncFolder(path: path)
        try folder.refuseStore(at: self.path)
        // The manifest first: a folder of a newer format is left untouched.
        // Read from the store, not from this connection: a reader's copy may be older than a renewal.
        let deviceID = try db.text(sql: "SELECT value FROM meta WHERE key = 'device_id'") ?? deviceID
        var round = SyncRound(folder: folder, report: SyncReport(folder: folder.root, deviceID: deviceID),
                              log: try db.text(sql: "SELECT value FROM meta WHERE key = 'created_at'") ?? "")
        do {
            round.report.createdManifest = try folder.checkManifest()
        } catch is SyncFolder.ManifestPending {
            round.report.manifestPending = SyncFileIssue(
                path: SyncFormat.manifestName,
                reason: "does not read whole (a sync tool may still be copying it): nothing was read or written")
            return round
        }
        let known = try knownFiles()
        // Temporary files this store's own interrupted rounds left (their lock is free); never anyone else's.
        TemporaryFile.removeStale(inDirectory: folder.directory(of: deviceID))
        for device in try folder.deviceDirectories() {
            var deviceReport = SyncDeviceReport(device: device)
            let directory = folder.directory(of: device)
            for name in try SyncFolder.list(directory) {
                let relative = "\(SyncFormat.devicesDirectory)/\(device)/\(name)"
                guard SyncFormat.isSegmentName(name) else {
                    if name != ".DS_Store" {
                        deviceReport.pending.append(SyncFileIssue(
                            path: relative, reason: SyncFormat.pendingReason(forName: name)))
                    }
                    continue
                }
                guard let size = SyncFolder.size(of: "\(directory)/\(name)") else {
                    deviceReport.pending.append(SyncFileIssue(path: relative, reason: "not a regular file"))
                    continue
                }
                if let file = known["\(device)/\(name)"], file.size == size { continue }
                round.segments.append(SyncRound.Segment(deviceIndex: round.report.devices.count, device: device,
                                                        name: name, relative: relative, path: "\(directory)/\(name)"))
            }
            round.report.devices.append(deviceReport)
        }
        return round
    }

    /// Applies one file `readFolder` found, read whole as `contents`, in one transaction: another device's changes are merged, and a file
    /// in this store's own directory is recorded when it wrote it itself in a round that stopped before recording
    /// it, or else taken for evidence that a copy of this store writes under its id. A file that another round
    /// applied meanwhile is left.
    func applySegment(_ segment: SyncRound.Segment, _ contents: SegmentContents, in round: inout SyncRound) throws {
        let recorded = try db.int(sql: "SELECT size FROM sync_files WHERE device = ? AND name = ?",
                                  arguments: [segment.device, segment.name])
        if recorded == contents.size { return }
        if segment.device == deviceID, try isOwnInterruptedWrite(contents, log: round.log) {
            try record(device: segment.device, name: segment.name, contents: contents, written: true)
            return
        }
        if segment.device == deviceID && round.cloneEvidence == nil {
            round.cloneEvidence = "\(segment.relative) is in this store's own directory but was not written by it"
        }
        var deviceReport = round.report.devices[segment.deviceIndex]
        try apply(contents, device: segment.device, name: segment.name, relative: segment.relative,
                  acceptFuture: round.acceptFuture, into: &deviceReport, syncReport: &round.report)
        round.report.devices[segment.deviceIndex] = deviceReport
    }

    /// The last step of a round: takes a new device id if a copy of this store writes under its own, writes one
    /// segment of what the folder does not hold of this store's log yet, and compacts its own segments when
    /// asked or when there are more than `SyncFormat.compactionThreshold` of them.
    func publish(_ round: inout SyncRound, compact: Bool) throws -> SyncReport {
        let folder = round.folder
        let log = round.log
        var report = round.report
        var cloneEvidence = round.cloneEvidence
        var known = try knownFiles()
        // A copy of this store (same device id) writes into the same directory: take a new id before writing.
        if report.renewedFromDeviceID == nil {
            let newest = try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? 0
            let published = known.values.filter { $0.written && $0.log == log }.map(\.lastSequence).max() ?? 0
            if cloneEvidence == nil, published > newest {
                cloneEvidence = "its own directory holds up to change \(published) of its log, but the store holds "
                    + "only \(newest): it is an older copy of the store that wrote them"
            }
            if let cloneEvidence {
                let old = deviceID
                deviceID = try renewDeviceID()
                report.renewedFromDeviceID = old
                report.renewalReason = cloneEvidence
            }
        }
        report.deviceID = deviceID
        known = try knownFiles()
        report.written = try writeSegment(in: folder, log: log, known: known)
        known = try knownFiles()
        let own = try ownSegments(in: folder, log: log, known: known)
        if own.count > 1 && (compact || own.count > SyncFormat.compactionThreshold) {
            report.compactedInto = try writeSegment(in: folder, log: log, known: known, from: 0)
            for name in own {
                let path = "\(folder.directory(of: deviceID))/\(name)"
                if unlink(path) == 0 || errno == ENOENT {
                    report.removed.append("\(SyncFormat.devicesDirectory)/\(deviceID)/\(name)")
                }
            }
            try FileSync.syncDirectory(containing: "\(folder.directory(of: deviceID))/x")
        }
        report.held = try quarantine.count()
        return report
    }

    /// Merges a segment's valid changes in one transaction, and records it as applied when it is wholly valid.
    private func apply(_ contents: SegmentContents, device: String, name: String, relative: String,
                       acceptFuture: Bool, into deviceReport: inout SyncDeviceReport,
                       syncReport: inout SyncReport) throws {
        var problem = contents.problem
        if problem == nil, let header = contents.header, header.device != device {
            problem = (1, "the header names device \(header.device), but the file lies in devices/\(device)")
        }
        if contents.header == nil || (problem != nil && problem?.line == 1) {
            deviceReport.invalid.append(SyncFileIssue(path: relative, line: problem?.line ?? 1,
                                                      reason: problem?.reason ?? "no header"))
            return
        }
        let merged: MergeReport
        do {
            merged = try batch {
                let merged = try merge(contents.changes, source: ReceiptSource(
                    kind: .sync, file: relative, size: Int64(contents.size), sha256: contents.sha256),
                    acceptFuture: acceptFuture)
                if problem == nil { try record(device: device, name: name, contents: contents, written: false) }
                return merged
            }
        } catch let error as StoreError {
            // "change N: …" names the Nth change of the file, on line N + 1.
            var line: Int?
            if case .invalidChange(let reason) = error, reason.hasPrefix("change ") {
                line = Int(reason.dropFirst(7).prefix { $0.isNumber }).map { $0 + 1 }
            }
            deviceReport.invalid.append(SyncFileIssue(path: relative, line: line, reason: "\(error)"))
            return
        }
        if let problem {
            deviceReport.invalid.append(SyncFileIssue(path: relative, line: problem.line, reason: problem.reason))
        } else {
            deviceReport.segmentsApplied += 1
        }
        deviceReport.changesApplied += merged.newChanges
        deviceReport.duplicates += merged.duplicates
        deviceReport.conflictsResolved += merged.conflictsResolved
        deviceReport.conflicts += merged.conflicts.prefix(
            max(0, MergeConflict.listedLimit - deviceReport.conflicts.count))
        deviceReport.quarantined += merged.quarantined
        if let renewed = merged.renewedDeviceID, syncReport.renewedFromDeviceID == nil {
            syncReport.renewedFromDeviceID = syncReport.deviceID
            syncReport.renewalReason = "\(relative) holds changes made under this store's device id that it never "
                + "made: another copy of this store writes under the same id"
            syncReport.deviceID = renewed
        }
    }

    /// Whether a segment in this store's own directory is one it wrote itself (the same changes at the same
    /// places of its log), in a round that ended before recording it.
    private func isOwnInterruptedWrite(_ contents: SegmentContents, log: String) throws -> Bool {
        guard contents.problem == nil, let header = contents.header, header.log == log else { return false }
        let ids = try db.fetchAll(
            sql: "SELECT change_id FROM changes WHERE seq BETWEEN ? AND ? ORDER BY seq",
            arguments: [header.firstSequence, header.lastSequence]
        ) { try $0.string(0) }
        return ids == contents.changes.map(\.changeID)
    }

    /// Writes the changes of this store's log after what its directory holds (after `from` when given) as a new
    /// segment, and records it; nil when there is nothing to write.
    private func writeSegment(in folder: SyncFolder, log: String, known: [String: KnownFile],
                              from: Int64? = nil) throws -> SyncSegment? {
        let published = from ?? known.filter { $0.key.hasPrefix("\(deviceID)/") && $0.value.written
            && $0.value.log == log }.map(\.value.lastSequence).max() ?? 0
        var changes: [Change] = []
        var last = published
        try db.forEachRow(
            sql: "SELECT \(Change.columns), seq FROM changes WHERE seq > ? "
                + "ORDER BY seq",
            arguments: [published]
        ) { row in
            changes.append(try Change(row: row))
            last = try row.int64(Change.columnCount)
        }
        guard !changes.isEmpty else { return nil }
        let first = try db.int(sql: "SELECT min(seq) FROM changes WHERE seq > ?", arguments: [published]) ?? 1
        let header = SegmentHeader(device: deviceID, log: log, firstSequence: first, lastSequence: last,
                                   createdAt: Timestamp.iso8601(milliseconds: clock.wallMilliseconds))
        let bytes = try SegmentFile.encode(header: header, changes: changes)
        // The random end of a new id: its start is the time, which two copies of a store can share.
        let nonce = String(Identifiers.make().filter { $0 != "-" }.lowercased().suffix(8))
        let name = SyncFormat.segmentName(first: first, last: last, nonce: nonce)
        let directory = try folder.makeDirectory(for: deviceID)
        try folder.writeNew("\(directory)/\(name)", bytes: bytes)
        let contents = SegmentContents(header: header, changes: [], size: Int64(bytes.count),
                                       sha256: try SHA256Digest.hex(of: bytes))
        try record(device: deviceID, name: name, contents: contents, written: true, count: changes.count)
        return SyncSegment(path: "\(SyncFormat.devicesDirectory)/\(deviceID)/\(name)", changes: changes.count,
                           bytes: bytes.count, firstSequence: first, lastSequence: last)
    }

    /// This store's own segments of its current log that are in its directory now.
    private func ownSegments(in folder: SyncFolder, log: String, known: [String: KnownFile]) throws -> [String] {
        try SyncFolder.list(folder.directory(of: deviceID)).filter { name in
            guard let file = known["\(deviceID)/\(name)"] else { return false }
            return file.written && file.log == log
        }
    }

    private func knownFiles() throws -> [String: KnownFile] {
        var files: [String: KnownFile] = [:]
        try db.forEachRow(sql: "SELECT device, name, size, origin, log, last_seq FROM sync_files") { row in
            files["\(try row.string(0))/\(try row.string(1))"] = KnownFile(
                size: try row.int64(2), written: try row.string(3) == "written", log: try row.string(4),
                lastSequence: try row.int64(5))
        }
        return files
    }

    private func record(device: String, name: String, contents: SegmentContents, written: Bool,
                        count: Int? = nil) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO sync_files
                    (device, name, size, sha256, origin, log, first_seq, last_seq, changes, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [device, name, contents.size, contents.sha256, written ? "written" : "applied",
                        contents.header?.log ?? "", contents.header?.firstSequence ?? 0,
                        contents.header?.lastSequence ?? 0, Int64(count ?? contents.changes.count),
                        Timestamp.iso8601(milliseconds: clock.wallMilliseconds)])
    }
}
