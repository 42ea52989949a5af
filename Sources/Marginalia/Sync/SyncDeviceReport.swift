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
    /// Segments of this device held because merging one would delete more than half of the live annotations
    /// (`AnnotationStore.Configuration.allowsMassDeletion`): nothing of them is merged; they are looked at again on
    /// every round, and merged once let through.
    public var heldForDeletion: [SyncFileIssue] = []

    /// A report of `device`'s directory, nothing read yet.
    package init(device: String) {
        self.device = device
    }
}
