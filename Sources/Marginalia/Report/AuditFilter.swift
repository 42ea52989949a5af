/// Which part of a store's history an audit report covers; nil for no condition.
///
///     var filter = AuditFilter()
///     filter.since = Timestamp.parseISO8601("2026-11-01")
///     filter.device = "laptop"
public struct AuditFilter: Hashable, Sendable {
    /// Changes made at or after this time (milliseconds since 1970, by `Change.madeAt`), as `log --since`.
    public var since: Int64?
    /// Changes made before this time, as `log --until`.
    public var until: Int64?
    /// Only the annotations of this document.
    public var document: String?
    /// Changes made by this device: its name, its id or a unique prefix of the id (at least 4 characters).
    public var device: String?
    /// The store as it was at this time: only changes whose clock is at or before it count, and each
    /// annotation shows the text they leave.
    public var asOf: Int64?

    /// A filter with the given conditions.
    public init(since: Int64? = nil, until: Int64? = nil, document: String? = nil, device: String? = nil,
                asOf: Int64? = nil) {
        self.since = since
        self.until = until
        self.document = document
        self.device = device
        self.asOf = asOf
    }

    /// Whether a change is shown under this filter, once `device` is resolved to `deviceID`.
    func shows(_ change: Change, deviceID: String?) -> Bool {
        if let since, change.madeAt < since { return false }
        if let until, change.madeAt >= until { return false }
        if let asOf, change.hlc.milliseconds > asOf { return false }
        if let deviceID, change.device != deviceID { return false }
        return true
    }

    /// Whether any condition on changes (time or device) is set: then annotations without a shown change are
    /// left out.
    var narrowsChanges: Bool { since != nil || until != nil || device != nil || asOf != nil }
}
