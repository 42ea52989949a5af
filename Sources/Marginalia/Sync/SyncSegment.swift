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
