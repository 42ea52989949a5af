/// What one sync round did.
public struct SyncReport: Equatable, Sendable {
    /// The folder, as an absolute path without symbolic links.
    public var folder: String
    /// This store's device id after the round (the directory it writes in).
    public var deviceID: String
    /// Whether this round created this device's directory and its manifest (`devices/<id>/device.json`): the
    /// store's first round in the folder, or its first under a new device id.
    public var createdManifest = false
    /// The segment this round wrote (`devices/<id>/<name>`), if anything was new.
    public var written: SyncSegment?
    /// The combined segment a compaction wrote, and the store's own segments it then removed.
    public var compactedInto: SyncSegment?
    /// The store's own segments the compaction removed (and those it wrote again for a device that found them
    /// damaged), as paths inside the folder.
    public var removed: [String] = []
    /// This store's segments another device found damaged, whose changes this round wrote again in a new segment.
    public var republished: [String] = []
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
    /// The recipients (`age1…`) the segments this store writes in the folder are encrypted to, those given or
    /// remembered from an earlier round; empty when it writes them plain.
    public var encryptedTo: [String] = []
    /// Set when the folder's manifest of format 1 did not read whole (a sync tool still copying it): the round
    /// then read and wrote nothing, and the next one tries again.
    public var manifestPending: SyncFileIssue?

    /// Files still being written or copied (a sync tool's temporary file, a placeholder, a segment cut short that
    /// is still changing): read by a later round once they are whole.
    public var pending: [SyncFileIssue] { (manifestPending.map { [$0] } ?? []) + devices.flatMap(\.pending) }
    /// Whole files that fail their checks (a flipped bit, a bad record, a symbolic link): reported on every round
    /// while they are there; nothing of them is merged, and their writer is asked to write their changes again.
    public var damaged: [SyncFileIssue] { devices.flatMap(\.damaged) }
    /// Files left by a sync tool or another program, unchanged for a long time: reported once.
    public var leftovers: [SyncFileIssue] { devices.flatMap(\.leftovers) }
    /// Files, or changes in them, not taken: encrypted segments no identity given opens or that are not
    /// authenticated by a holder of one (looked at again on every round), and changes made under another device's
    /// id (`SyncDeviceReport.refused`).
    public var refused: [SyncFileIssue] { devices.flatMap(\.refused) }
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
    /// Files of this device still being written or copied: read by a later round once whole.
    public var pending: [SyncFileIssue] = []
    /// Whole files of this device that fail their checks: reported on every round while they are there.
    public var damaged: [SyncFileIssue] = []
    /// Files in this device's directory left by a sync tool or another program: reported once.
    public var leftovers: [SyncFileIssue] = []
    /// Files of this device that were gone when read (compacted by their writer meanwhile).
    public var gone: [String] = []
    /// Files, or changes in them, not taken from here: changes made under the id of another device that has a
    /// directory of its own (a device's changes come from its own directory), by file; and encrypted segments
    /// encrypted to a key this store does not hold, or not authenticated by a holder of the identity (nothing of
    /// them is merged; they are looked at again on every round, since a later one may hold the key).
    public var refused: [SyncFileIssue] = []

    /// A report of `device`'s directory, nothing read yet.
    package init(device: String) {
        self.device = device
    }
}

/// A file a round did not apply (pending, damaged, left over), or changes it refused, and why.
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
