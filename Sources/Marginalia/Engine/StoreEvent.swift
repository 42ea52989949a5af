import Foundation

/// A commit the store saw: its own write, a merge, an import, a restore, or another process's write to the file.
public struct StoreEvent: Hashable, Sendable {
    /// The cursor after the commit: `changes(after:)` from the previous event's cursor gives exactly its changes.
    public var cursor: ChangeCursor
    /// The annotations the commit touched.
    public var annotationIDs: Set<String>
    /// The documents whose reading position it set.
    public var positionDocuments: Set<String>
    /// The devices it named (`nameDevice`).
    public var namedDevices: Set<String> = []
    /// The log was replaced (a restore): everything may have changed, and older cursors read from the start.
    public var logReplaced: Bool
}
