/// What merging changes into a store did: what was new, what was known, what each new change did.
public struct MergeReport: Equatable, Sendable {
    /// Changes handed to the merge.
    public var changesRead = 0
    /// Changes this store did not have, now in its log.
    public var newChanges = 0
    /// Changes it already had (by change id).
    public var duplicates = 0
    /// New changes that made an annotation appear.
    public var annotationsCreated = 0
    /// New changes that altered an annotation or position already here.
    public var updates = 0
    /// New changes that turned an annotation into a tombstone.
    public var deletions = 0
    /// `deletions` by the device that made each.
    public var deletionsByDevice: [String: Int] = [:]
    /// Fields where a newer value already here was kept over the incoming one (last writer wins).
    public var conflictsResolved = 0
    /// The conflicts themselves, at most `MergeConflict.listedLimit` of them: annotation, field, the value kept
    /// and the value that lost.
    public var conflicts: [MergeConflict] = []
    /// New changes to annotations whose create this store has not seen; applied when it arrives.
    public var pending = 0
    /// New changes held in quarantine because they are dated too far ahead of this machine's clock.
    public var quarantined = 0
    /// Changes held in quarantine from earlier imports that had become plausible and were merged first.
    public var releasedFromQuarantine = 0
    /// Set when the file held new changes made under this store's own device id (the store was copied to
    /// another machine): the store then takes this new device id for its future changes.
    public var renewedDeviceID: String?

    /// A report of nothing done yet.
    package init() {}

    /// Counts what one new change did (its conflicts counted, not listed).
    mutating func count(_ effect: ProjectionEffect) {
        if effect.created { annotationsCreated += 1 } else if effect.updated { updates += 1 }
        if effect.deleted { deletions += 1 }
        if effect.pending { pending += 1 }
        conflictsResolved += effect.conflicts.count
    }

    /// Adds everything `other` counted (a later part of the same merge): the changes read, new, duplicate, held and
    /// released, what they did, and the conflicts, up to `MergeConflict.listedLimit` listed.
    mutating func absorb(_ other: MergeReport) {
        add(other)
        changesRead += other.changesRead
        newChanges += other.newChanges
        duplicates += other.duplicates
        quarantined += other.quarantined
        releasedFromQuarantine += other.releasedFromQuarantine
        conflicts += other.conflicts.prefix(max(0, MergeConflict.listedLimit - conflicts.count))
    }

    /// Adds what `other` counted with `count(_:)`.
    mutating func add(_ other: MergeReport) {
        annotationsCreated += other.annotationsCreated
        updates += other.updates
        deletions += other.deletions
        deletionsByDevice.merge(other.deletionsByDevice, uniquingKeysWith: +)
        pending += other.pending
        conflictsResolved += other.conflictsResolved
    }
}

