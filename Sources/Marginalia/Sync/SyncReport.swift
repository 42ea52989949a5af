/// What one sync round did.
public struct SyncReport: Equatable, Sendable {
    /// The folder, as an absolute path without symbolic links.
    public var folder: String
    /// This store's device id after the round (the directory it writes in).
    public var deviceID: String
    /// Whether this round created the folder's manifest (the folder's first sync).
    public var createdManifest = false
    /// The segment this round wrote (`devices/<id>/<name>`), if anything was new.
    public var written: SyncSegment?
    /// The combined segment a compaction wrote, and the store's own segments it then removed.
    public var compactedInto: SyncSegment?
    /// The store's own segments the compaction removed, as paths inside the folder.
    public var removed: [String] = []
    /// Set when the store took a new device id before writing: the old id, and why (a copy of this store writes
    /// under the same id elsewhere).
    public var renewedFromDeviceID: String?
    /// Why the device id was renewed, in words; nil when it was not.
    public var renewalReason: String?
    /// What was read from each device's directory, by device id.
    public var devices: [SyncDeviceReport] = []
    /// Changes held in quarantine before the round that it merged at once (`acceptFuture`).
    public var releasedFromQuarantine = 0
    /// Changes held in quarantine after the round (made far ahead of this machine's clock, here or in earlier
    /// rounds): merged once their time comes, or at once by a round with `acceptFuture`.
    public var held = 0
    /// Set when the manifest itself did not read whole (a sync tool still copying it): the round then read and
    /// wrote nothing, and the next one tries again.
    public var manifestPending: SyncFileIssue?

    /// Files not read whole this round (being copied, placeholders, conflict copies): retried next round.
    public var pending: [SyncFileIssue] { (manifestPending.map { [$0] } ?? []) + devices.flatMap(\.pending) }
    /// Whole files with a bad record: reported each round until replaced.
    public var invalid: [SyncFileIssue] { devices.flatMap(\.invalid) }
    /// Changes this store did not have, merged this round.
    public var changesApplied: Int { devices.reduce(0) { $0 + $1.changesApplied } }

    /// A report of a round on `folder` by device `deviceID`, nothing done yet.
    package init(folder: String, deviceID: String) {
        self.folder = folder
        self.deviceID = deviceID
    }
}

/// A segment file a round wrote.
public struct SyncSegment: Equatable, Sendable {
    /// Its path inside the folder: `devices/<id>/<name>`.
    public var path: String
    /// How many changes it holds.
    public var changes: Int
    /// Its size, in bytes.
    public var bytes: Int
    /// The range of the writer's log it holds.
    public var firstSequence: Int64
    /// The last sequence of the writer's log it holds.
    public var lastSequence: Int64
}

/// What a round read from one device's directory.
public struct SyncDeviceReport: Equatable, Sendable {
    /// The device whose directory it is.
    public var device: String
    /// Segment files merged whole this round.
    public var segmentsApplied = 0
    /// Changes in them this store did not have, now in its log.
    public var changesApplied = 0
    /// Changes in them it already had (by change id).
    public var duplicates = 0
    /// Fields where a newer value already here was kept over the segment's (last writer wins); the value that
    /// lost stays in the history.
    public var conflictsResolved = 0
    /// The conflicts themselves (at most 100 per device and round): annotation, field, the value that lost.
    public var conflicts: [MergeConflict] = []
    /// Changes held in quarantine, dated too far ahead of this machine's clock.
    public var quarantined = 0
    /// Files of this device not read whole this round (being copied, placeholders): retried next round.
    public var pending: [SyncFileIssue] = []
    /// Whole files of this device with a bad record: reported each round until replaced.
    public var invalid: [SyncFileIssue] = []

    /// A report of `device`'s directory, nothing read yet.
    package init(device: String) {
        self.device = device
    }
}

/// A file a round did not apply (pending) or applied only in part (invalid), and why.
public struct SyncFileIssue: Equatable, Sendable, CustomStringConvertible {
    /// Its path inside the folder: `devices/<id>/<name>`.
    public var path: String
    /// The 1-based line of the decompressed text, for a bad record.
    public var line: Int?
    /// What is wrong with the file, in words.
    public var reason: String

    /// The issue in words: the path, the line when there is one, and the reason.
    public var description: String {
        if let line { return "\(path): line \(line): \(reason)" }
        return "\(path): \(reason)"
    }
}
