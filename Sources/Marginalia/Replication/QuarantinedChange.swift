/// A change held back from the log because it is dated ahead of this machine's clock by more than the allowed
/// drift: kept whole, with the file it came from and when it was seen, until it becomes plausible.
public struct QuarantinedChange: Equatable, Sendable {
    /// The change as the archive carried it.
    public let change: Change
    /// The archive it came from, as given to `import`.
    public let source: String
    /// When this store first saw it (ISO 8601).
    public let seenAt: String
}
