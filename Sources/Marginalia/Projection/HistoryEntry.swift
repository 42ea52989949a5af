/// One change to an annotation, with what it did to each field it set.
public struct HistoryEntry: Hashable, Sendable {
    /// The change, as the log holds it.
    public var change: Change
    /// Each field the change set, in the order kind, anchor, note, color, tags (by name), deleted.
    public var fields: [FieldTransition]
}
