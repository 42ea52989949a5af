/// What one change did to the current tables.
struct ProjectionEffect: Equatable, Sendable {
    /// The change made a new annotation appear.
    var created = false
    /// The change altered an existing annotation or position.
    var updated = false
    /// The change turned an annotation into a tombstone.
    var deleted = false
    /// Fields that kept a newer value instead of the change's (conflicts resolved by last writer wins).
    var conflicts: [MergeConflict] = []
    /// The change refers to an annotation whose create change this store has not seen yet; it waits in the
    /// log and is applied when the create arrives.
    var pending = false

    /// An effect of nothing: no row created, altered or deleted.
    init() {}
}
