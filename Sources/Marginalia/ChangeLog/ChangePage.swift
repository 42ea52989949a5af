/// A run of changes read from a log, and the cursor just after them.
public struct ChangePage: Sendable {
    /// The changes, in the store's own order (the order it recorded or received them).
    public var changes: [Change]
    /// The cursor after the last change of the page (the cursor asked for when the page is empty).
    public var cursor: ChangeCursor
}
