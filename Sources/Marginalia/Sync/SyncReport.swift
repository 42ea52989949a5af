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
    /// This store's segments another device found damaged, whose changes this round wrote again in a new segment:
    /// each is checked here first, and removed (listed in `removed` too) only when it is damaged here as well; one
    /// that reads as written is kept, and written again once only.
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
    /// The roster the store speaks in (its id): the one it belongs to, or the one its first round founded in a
    /// folder that held none. Nil when the round stopped before (`joinNeeded`, `manifestPending`).
    public var roster: String?
    /// Devices this round admitted to the roster, by the invitations they answered.
    public var admitted: [SyncAdmission] = []
    /// Set when this device may not speak in its roster (not admitted yet, or revoked): why. The round read the
    /// admitted devices' files. A device waiting to be admitted writes its segments, signed, which the others take
    /// once they admit it; a revoked one writes none.
    public var notSpeaking: String?
    /// Set when this store belongs to no roster and the folder holds one: the round then read and wrote nothing
    /// (not even this device's directory). The store takes part once a device of that roster invites it and it
    /// joins with the invitation (`AnnotationStore.invite()`, then `join(_:)` here).
    public var joinNeeded: SyncJoinNeeded?
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
    /// Segments held by the brake on mass deletion, of every device.
    public var heldForDeletion: [SyncFileIssue] { devices.flatMap(\.heldForDeletion) }
    /// Changes this store did not have, merged this round.
    public var changesApplied: Int { devices.reduce(0) { $0 + $1.changesApplied } }

    /// A report of a round on `folder` by device `deviceID`, nothing done yet.
    package init(folder: String, deviceID: String) {
        self.folder = folder
        self.deviceID = deviceID
    }
}

/// The roster a folder belongs to, when the store that synced through it is in none.
public struct SyncJoinNeeded: Equatable, Sendable {
    /// The roster's id.
    public var roster: String
    /// The device that founded it.
    public var founder: String
    /// The founder's keys' fingerprint (`DevicePublicKeys.fingerprint`), for a person to recognise the roster by.
    public var founderFingerprint: String
}

/// A device a round admitted to the roster, by the invitation it answered.
public struct SyncAdmission: Equatable, Sendable {
    /// The admitted device's id.
    public var device: String
    /// The name it asked to be admitted under, if any.
    public var name: String?
    /// The admitted keys' fingerprint, for a person to compare with the one the device showed.
    public var fingerprint: String
}
