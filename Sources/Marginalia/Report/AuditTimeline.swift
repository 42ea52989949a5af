/// Changes over time, by device: one bucket a day, or a week when the report spans more than `dailySpan` days.
public struct AuditTimeline: Hashable, Sendable {
    /// One day or week.
    public struct Bucket: Hashable, Sendable {
        /// When it starts (milliseconds since 1970, midnight UTC; a week starts on a Monday).
        public var start: Int64
        /// Changes made in it, by device id.
        public var counts: [String: Int]
        /// Changes made in it.
        public var total: Int { counts.values.reduce(0, +) }
    }

    /// The length of a bucket in days: 1 or 7.
    public var days: Int
    /// The buckets with changes, oldest first.
    public var buckets: [Bucket]

    /// Days up to which buckets are days.
    static let dailySpan: Int64 = 120
    static let day: Int64 = 86_400_000

    /// Buckets from changes counted by device and day (days since 1970).
    init(days counted: [(device: String, day: Int64, count: Int)]) {
        let span = (counted.map(\.day).max() ?? 0) - (counted.map(\.day).min() ?? 0)
        days = span > Self.dailySpan ? 7 : 1
        var byStart: [Int64: [String: Int]] = [:]
        for item in counted {
            // 1970-01-01 was a Thursday: day 4 is the first Monday.
            let start = days == 1 ? item.day : item.day - (((item.day - 4) % 7) + 7) % 7
            byStart[start * Self.day, default: [:]][item.device, default: 0] += item.count
        }
        buckets = byStart.keys.sorted().map { Bucket(start: $0, counts: byStart[$0] ?? [:]) }
    }
}
