/// A sync round under way: the folder, this store's hold on its directory there, what reading the folder found,
/// and what the round has reported so far.
struct SyncRound {
    /// A segment file `readFolder` found that this store has not applied or written yet, to check and apply.
    struct Segment {
        /// Its device's place in `report.devices`.
        var deviceIndex: Int
        var device: String
        var name: String
        /// Its path inside the folder.
        var relative: String
        /// Its path on disk.
        var path: String
        /// Its size and modification time when listed.
        var info: SyncFolder.FileInfo
    }

    /// A file to remember as looked at and left (`SyncLedger.note`).
    struct Seen {
        var device: String
        var name: String
        var file: SyncLedger.SeenFile
    }

    let folder: SyncFolder
    var report: SyncReport
    /// The store's log, as its segments name it (its creation time).
    let log: String
    /// This store's lock on its own directory, held for the whole round.
    var lock: FolderLock?
    /// The device whose directory `lock` holds.
    var lockedDevice = ""
    /// The devices with a directory of their own in the folder: their changes come only from there.
    var participants: Set<String> = []
    /// The former device ids each directory's manifest names: their changes are taken from there too.
    var formerDevices: [String: Set<String>] = [:]
    var segments: [Segment] = []
    /// Every file listed in the device directories, by `device/name`.
    var listed: Set<String> = []
    /// Segments whose changes this store has applied already from the files they replace (a compaction's): recorded
    /// without being read.
    var covered: [Segment] = []
    /// Files to remember as damaged or left over.
    var seen: [Seen] = []
    /// The files the store remembered as damaged or left over when the round listed the folder, by `device/name`.
    var remembered: Set<String> = []
    /// This store's own segments (names) that other devices report damaged, by name, with the size they saw.
    var damagedOwn: [String: Int64] = [:]
    /// Why this store takes its own directory to be written by a copy of it too, when it does.
    var cloneEvidence: String?
    /// Merge the changes made far ahead of this machine's clock at once, instead of holding them.
    var acceptFuture = false
    /// What the segments written are encrypted to, and what opens and authenticates those read.
    var keys = SegmentKeys.none
    /// The roster this store speaks in: whose signed files it takes. Nil for a store in no roster.
    var roster: Roster?
    /// This device's keys, which sign what it writes (with a roster).
    var ownKeys: DeviceKeys?
    /// This device's epoch keys file to write before its segments (name and bytes), when it has none for the
    /// roster's epoch and devices yet.
    var epochKeysFile: (name: String, bytes: [UInt8])?

    /// What a segment's signature must be, with a roster.
    var trust: SegmentTrust? { roster.map(SegmentTrust.init) }
    /// How this store signs the segments it writes, with a roster.
    var signer: SegmentSigner? {
        guard let roster, let ownKeys else { return nil }
        return SegmentSigner(roster: roster.id, keys: ownKeys)
    }

    init(folder: SyncFolder, report: SyncReport, log: String) {
        self.folder = folder
        self.report = report
        self.log = log
    }

    /// Whether a change made under `device` may be taken from `directory`'s files: its own, a former id its
    /// manifest names, or a device with no directory of its own (changes brought in from outside the folder).
    func accepts(_ device: String, from directory: String) -> Bool {
        device == directory || !participants.contains(device) || formerDevices[directory]?.contains(device) == true
    }
}

extension SyncRound {
    /// Checks `segment` whole (file I/O only: no connection, no lock) and notes what is wrong with it; the open
    /// file and what it holds when it read whole. One file at a time, read as a stream, so that a round holds
    /// one chunk of changes in memory, whatever the folder holds.
    mutating func check(_ segment: Segment, now: Int64) throws -> (SegmentFile, SegmentSummary)? {
        let file: SegmentFile
        do {
            guard let opened = try SegmentFile(path: segment.path, keys: keys, trust: trust) else {
                report.devices[segment.deviceIndex].gone.append(segment.relative)
                return nil
            }
            file = opened
        } catch let error as IOError {
            noteDamaged(segment, line: nil, reason: "cannot be read (\(error))")
            return nil
        }
        switch try file.check(collectingIDs: segment.device == report.deviceID) {
        case .gone:
            report.devices[segment.deviceIndex].gone.append(segment.relative)
        case .cutShort(let reason):
            if now - segment.info.modified / 1_000_000_000 < SyncFormat.leftoverAge {
                report.devices[segment.deviceIndex].pending.append(SyncFileIssue(
                    path: segment.relative, reason: "\(reason): a copy in progress; read once it is whole"))
            } else {
                noteDamaged(segment, line: nil, reason: "cut short and unchanged for a long time (\(reason))")
            }
        case .damaged(let line, let reason):
            noteDamaged(segment, line: line, reason: reason)
        case .refused(let reason):
            // Not remembered: another round, given the identity that opens it, reads it. Nor put in the status
            // file: its writer writing it again would not help.
            report.devices[segment.deviceIndex].refused.append(SyncFileIssue(path: segment.relative, reason: reason))
        case .whole(let summary):
            guard summary.header.device == segment.device else {
                noteDamaged(segment, line: 1, reason: "the header names device \(summary.header.device), but the "
                    + "file lies in devices/\(segment.device)")
                return nil
            }
            return (file, summary)
        }
        return nil
    }

    /// Reports `segment` damaged and remembers it so, unchanged.
    mutating func noteDamaged(_ segment: Segment, line: Int?, reason: String) {
        report.devices[segment.deviceIndex].damaged.append(SyncFileIssue(path: segment.relative, line: line,
                                                                         reason: reason))
        seen.append(Seen(device: segment.device, name: segment.name, file: SyncLedger.SeenFile(
            state: .damaged, size: segment.info.size, modified: segment.info.modified, line: line, reason: reason)))
    }
}

@available(*, unavailable)
extension SyncRound: Sendable {}
