/// One device in an audit report: who it is and what it did within the report's filter.
public struct AuditDevice: Hashable, Sendable {
    /// The device id.
    public var id: String
    /// What people call it (`DeviceInfo.name`); nil when it has no name.
    public var name: String?
    /// Whether it is the reported store's own device.
    public var isThisDevice: Bool
    /// When its first change in the report was made (milliseconds since 1970).
    public var firstChange: Int64
    /// When its latest change in the report was made.
    public var lastChange: Int64
    /// Its changes in the report by operation (`create`, `edit`, `delete`, …), in the order `operations` lists.
    public var counts: [String: Int]
    /// Its changes in the report.
    public var total: Int { counts.values.reduce(0, +) }
    /// The operations a change can have, in the order a report lists them.
    public static let operations = ChangeOperation.allCases.map(\.rawValue)
}
