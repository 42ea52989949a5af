/// What `verify` found: nothing, when the store is healthy.
public struct VerificationReport: Equatable, Sendable {
    /// Each problem, in words, naming the table and the row.
    public var problems: [String] = []
    /// How many changes the log holds.
    public var changeCount = 0
    /// How many annotation rows the store holds.
    public var annotationCount = 0
    /// How many reading position rows the store holds.
    public var positionCount = 0
    /// The head of the log's hash chain as recomputed: its last row and that row's digest.
    public var head = LogHead(sequence: 0, digest: ChangeDigest.genesis)
    /// The first row of the log whose stored digest does not follow from the rows before it; nil when the whole
    /// chain holds.
    public var chainBreak: ChainBreak?
    /// The head the log's history was checked against (`verify(against:)`), if any.
    public var against: LogHead?

    /// Whether no problem was found.
    public var isHealthy: Bool { problems.isEmpty }

    /// A report of nothing checked yet.
    package init() {}
}
