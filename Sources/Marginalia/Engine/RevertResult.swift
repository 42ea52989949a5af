/// What a revert wrote: the change, and the annotation as it now stands.
public struct RevertResult: Hashable, Sendable {
    /// The new change: an `edit` whose `revertTo` names the change whose state it restores.
    public var change: Change
    /// The annotation after the change was merged.
    public var annotation: Annotation
}
