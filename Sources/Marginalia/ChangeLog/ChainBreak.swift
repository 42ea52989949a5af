/// The first row of the log whose digest does not follow from the rows before it.
public struct ChainBreak: Equatable, Sendable {
    /// The row's `seq`.
    public let sequence: Int64
    /// The change id it holds.
    public let changeID: String
}
