#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The last step of a sync round: what this store writes in its own directory.
extension SyncReplica where Store == StoreWriter {
    /// Records what the round found (files left, damaged, covered by those applied), takes a new device id if a
    /// copy of this store writes under its own, writes one segment of the changes made here (and those brought in
    /// from outside the folder) since the last, writes again the segments other devices found damaged, compacts
    /// its own segments older than the grace period when asked or when there are more than
    /// `SyncFormat.compactionThreshold`, and keeps its status file (what it could not read) up to date.
    func publish(_ round: inout SyncRound, compact: Bool) throws -> SyncReport {
        let ledger = SyncLedger(db: db)
        let now = Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds)
        try recordFindings(of: round, in: ledger, at: now)
        try renewIfWrittenByACopy(&round, ledger: ledger)
        let folder = round.folder
        let directory = folder.directory(of: store.deviceID)
        try publishRosterFiles(&round)
        if let roster = round.roster, let refusal = roster.refusal(of: store.deviceID) {
            round.report.notSpeaking = try rosterLedger.setting("join") != nil && roster.members[store.deviceID] == nil
                ? "waiting to be admitted: its request is in the folder, and the inviting device admits it at its "
                    + "next sync"
                : refusal
            // A revoked device writes nothing more: nobody would read it.
            if roster.members[store.deviceID]?.revokedBy != nil {
                round.report.held = try store.quarantine.count()
                return round.report
            }
        }
        // Under a roster the log is published anew, signed, from its start: what the store wrote unsigned before
        // it joined is read by nobody who checks signatures.
        let publishedLog = round.roster.map { "\(round.log)@\($0.id)" } ?? round.log
        let published = try ledger.published(device: store.deviceID, log: publishedLog)
        let newest = try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? 0
        if newest > published {
            round.report.written = try writeSegment(covering: (published + 1)...newest, in: &round, ledger: ledger)
        }
        if newest > published { try ledger.setPublished(device: store.deviceID, log: publishedLog, through: newest) }
        var known = try ledger.known()
        for (name, size) in round.damagedOwn.sorted(by: { $0.key < $1.key }) {
            let key = "\(store.deviceID)/\(name)"
            guard let file = known[key], file.written, file.size == size,
                  SyncFolder.info("\(directory)/\(name)") != nil else { continue }
            // Checked here first: a copy still as written is never removed on another device's word. Its changes
            // are written again once, under a new name, for the device whose copy is damaged.
            let bytes = try? SyncFolder.readFile("\(directory)/\(name)", limit: SyncFormat.maxSegmentBytes)
            let intact = try bytes.map { try SHA256Digest.hex(of: $0) } == file.sha256
            if intact {
                let again = known.contains { other in
                    other.key != key && other.key.hasPrefix("\(store.deviceID)/") && other.value.written
                        && other.value.range == file.range
                }
                guard !again else { continue }
                _ = try writeSegment(covering: file.range, in: &round, ledger: ledger, evenEmpty: true)
                known = try ledger.known()
                round.report.republished.append("\(SyncFormat.devicesDirectory)/\(key)")
                continue
            }
            _ = try writeSegment(covering: file.range, in: &round, ledger: ledger)
            if unlink("\(directory)/\(name)") == 0 {
                round.report.republished.append("\(SyncFormat.devicesDirectory)/\(key)")
                round.report.removed.append("\(SyncFormat.devicesDirectory)/\(key)")
            }
        }
        known = try ledger.known()
        try compactIfDue(&round, known: known, force: compact, ledger: ledger)
        try writeStatus(of: round)
        TemporaryFile.removeStale(inDirectory: directory)
        round.report.held = try store.quarantine.count()
        return round.report
    }

    /// Remembers the files found damaged or left over, forgets those no longer there, and records as applied the
    /// segments whose every change came in the files they replace (a compaction's).
    private func recordFindings(of round: SyncRound, in ledger: SyncLedger, at time: String) throws {
        for seen in round.seen { try ledger.note(device: seen.device, name: seen.name, seen.file, at: time) }
        for key in round.remembered where !round.listed.contains(key) {
            let parts = key.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 2 { try ledger.forget(device: parts[0], name: parts[1]) }
        }
        let known = round.covered.isEmpty ? [:] : try ledger.known()
        for segment in round.covered {
            guard let range = SyncFormat.segmentRange(of: segment.name),
                  let log = known.first(where: { $0.key.hasPrefix("\(segment.device)/") })?.value.log else { continue }
            try ledger.record(
                device: segment.device, name: segment.name, size: segment.info.size,
                sha256: String(repeating: "0", count: 64), written: false,
                header: SegmentHeader(device: segment.device, log: log, firstSequence: range.lowerBound,
                                      lastSequence: range.upperBound, createdAt: time),
                changes: 0, at: time)
        }
    }

    /// Takes a new device id when the round found evidence that a copy of this store writes under its own (a file
    /// in its directory it did not write, or segments of its log beyond what it holds), and readies the new
    /// directory.
    private func renewIfWrittenByACopy(_ round: inout SyncRound, ledger: SyncLedger) throws {
        if round.report.renewedFromDeviceID == nil {
            var evidence = round.cloneEvidence
            if evidence == nil {
                let newest = try db.int(sql: "SELECT coalesce(max(seq), 0) FROM changes") ?? 0
                let written = try ledger.known().filter { $0.key.hasPrefix("\(store.deviceID)/") && $0.value.written
                    && $0.value.log == round.log }.map(\.value.range.upperBound).max() ?? 0
                if written > newest {
                    evidence = "its own directory holds up to change \(written) of its log, but the store holds only "
                        + "\(newest): it is an older copy of the store that wrote them"
                }
            }
            if let evidence {
                round.report.renewedFromDeviceID = store.deviceID
                round.report.renewalReason = evidence
                _ = try store.write { try $0.renewDeviceID() }
            }
        }
        // Renewed here, or by the merger meeting changes of its id it never made: write from the new directory.
        round.report.deviceID = store.deviceID
        guard round.lockedDevice != store.deviceID else { return }
        if let old = round.report.renewedFromDeviceID, round.roster != nil {
            try admitSuccessor(of: old)
            round.roster = try rosterLedger.roster()
            round.ownKeys = try rosterLedger.keys(of: store.deviceID)
        }
        round.participants.insert(store.deviceID)
        let keys = round.roster == nil ? nil : round.ownKeys
        _ = try round.folder.prepareDirectory(of: store.deviceID) {
            DeviceManifest(device: store.deviceID, formerDevices: try formerDeviceIDs(), roster: round.roster?.id)
        } encode: { try $0.encoded(signedWith: keys) }
        round.lock = try round.folder.lock(directoryOf: store.deviceID)
        round.lockedDevice = store.deviceID
    }

    /// Writes as a new segment the changes of `range` of this store's log that belong in its directory (made
    /// here, or brought in from outside the folder by an import, a restore or a merge, when their device has no
    /// directory of its own; never those that came through a sync folder), and records it; nil when none does,
    /// unless `evenEmpty`.
    private func writeSegment(covering range: ClosedRange<Int64>, in round: inout SyncRound, ledger: SyncLedger,
                              evenEmpty: Bool = false) throws -> SyncSegment? {
        var changes: [Change] = []
        let participants = JSONValue.array(round.participants.sorted().map(JSONValue.string))
        try db.forEachRow(
            sql: """
                SELECT \(Change.columns) FROM changes WHERE seq BETWEEN ? AND ?
                    AND (receipt IS NULL OR (
                        receipt NOT IN (SELECT id FROM receipts WHERE kind = 'sync')
                        AND device NOT IN (SELECT number FROM devices WHERE id IN (SELECT value FROM json_each(?)))))
                ORDER BY seq
                """,
            arguments: [range.lowerBound, range.upperBound, try JSONWriter.encodeString(participants)]
        ) { row in changes.append(try Change(row: row)) }
        guard !changes.isEmpty || evenEmpty else { return nil }
        let header = SegmentHeader(device: store.deviceID, log: round.log, firstSequence: range.lowerBound,
                                   lastSequence: range.upperBound,
                                   createdAt: Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds))
        let bytes = try SegmentFile.encode(header: header, changes: changes, keys: round.keys, signer: round.signer)
        // The random end of a new id: its start is the time, which two copies of a store can share.
        let nonce = String(Identifiers.make().filter { $0 != "-" }.lowercased().suffix(8))
        let name = SyncFormat.segmentName(first: range.lowerBound, last: range.upperBound, nonce: nonce)
        try round.folder.writeNew("\(round.folder.directory(of: store.deviceID))/\(name)", bytes: bytes)
        try ledger.record(device: store.deviceID, name: name, size: Int64(bytes.count), sha256: try SHA256Digest.hex(of: bytes),
                          written: true, header: header, changes: changes.count,
                          at: Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds))
        return SyncSegment(path: "\(SyncFormat.devicesDirectory)/\(store.deviceID)/\(name)", changes: changes.count,
                           bytes: bytes.count, firstSequence: range.lowerBound, lastSequence: range.upperBound)
    }

    /// Folds this store's own segments older than the grace period into one, when asked or when it has more than
    /// `SyncFormat.compactionThreshold`, and removes them. The newest segments stay: the sync tools may still be
    /// carrying them, and a device that applied them all records the combined file without reading it.
    private func compactIfDue(_ round: inout SyncRound, known: [String: SyncLedger.KnownFile], force: Bool,
                              ledger: SyncLedger) throws {
        let directory = round.folder.directory(of: store.deviceID)
        let present = Set(try SyncFolder.list(directory))
        let own = known.filter { key, file in
            file.written && file.log == round.log && key.hasPrefix("\(store.deviceID)/")
                && present.contains(String(key.dropFirst(store.deviceID.count + 1)))
        }
        guard force || own.count > SyncFormat.compactionThreshold else { return }
        let cutoff = Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds - SyncFormat.compactionGrace)
        let justWritten = Set([round.report.written?.path].compactMap { $0 })
        // The oldest run of segments in the log's order, up to the first one still young: the combined file then
        // covers exactly the ranges of the files it replaces (a young one in between would be stored twice).
        var due: [String: SyncLedger.KnownFile] = [:]
        for (key, file) in own.sorted(by: { $0.value.range.lowerBound < $1.value.range.lowerBound }) {
            guard file.recordedAt < cutoff, !justWritten.contains("\(SyncFormat.devicesDirectory)/\(key)") else { break }
            due[key] = file
        }
        guard due.count > 1, let first = due.values.map(\.range.lowerBound).min(),
              let last = due.values.map(\.range.upperBound).max() else { return }
        round.report.compactedInto = try writeSegment(covering: first...last, in: &round, ledger: ledger,
                                                      evenEmpty: true)
        for key in due.keys.sorted() {
            let name = String(key.dropFirst(store.deviceID.count + 1))
            if unlink("\(directory)/\(name)") == 0 || errno == ENOENT {
                round.report.removed.append("\(SyncFormat.devicesDirectory)/\(key)")
            }
        }
        try FileSync.syncDirectory(containing: "\(directory)/x")
    }

    /// Replaces this store's status file when the list of other devices' damaged files it found has changed.
    private func writeStatus(of round: SyncRound) throws {
        let own = round.report.deviceID
        var entries: [SyncStatusFile.Entry] = []
        for device in round.report.devices where device.device != own {
            for issue in device.damaged {
                let name = issue.path.split(separator: "/").last.map(String.init) ?? ""
                let size = SyncFolder.info("\(round.folder.directory(of: device.device))/\(name)")?.size ?? 0
                entries.append(SyncStatusFile.Entry(path: issue.path, size: size, reason: issue.reason))
            }
        }
        let path = "\(round.folder.directory(of: own))/\(SyncFormat.statusName)"
        let current = (try? SyncFolder.readFile(path, limit: SyncFormat.maxSmallFileBytes)).flatMap(SyncStatusFile.init)
        let status = SyncStatusFile(device: own, files: entries)
        guard current.map({ $0 != status }) ?? !entries.isEmpty else { return }
        try round.folder.replace(path, bytes: try status.encoded(signedWith: round.roster == nil ? nil : round.ownKeys))
    }
}
