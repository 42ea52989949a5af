/// One annotation in an audit report: its text as the report's changes leave it, and every version.
public struct AuditAnnotation: Hashable, Sendable {
    /// The annotation as the changes up to the report's `asOf` (or all of them) leave it; nil when they never
    /// made it (its create change has not arrived).
    public var current: Annotation?
    /// The annotation id.
    public var id: String
    /// Every change to it within the filter, in the order the store took them in, with its field diffs.
    public var versions: [HistoryEntry]
    /// The change that deleted it, when it is deleted.
    public var deletedBy: Change?
    /// Why its anchor is orphaned, when it was checked against attached content and is.
    public var orphanReason: String?
}

extension HistoryEntry {
    /// What the change did: `create`, `edit`, `delete`, `undelete`, `reanchor`, `confirm`, `reattach`.
    public var operation: String { change.operation.rawValue }
}
