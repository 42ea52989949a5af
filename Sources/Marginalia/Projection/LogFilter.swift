/// Which changes of the log to read.
package struct LogFilter: Equatable, Sendable {
    /// Changes at or after this time (milliseconds since 1970).
    package var since: Int64?
    /// Changes before this time.
    package var until: Int64?
    /// Changes made by this device: its id or a unique prefix of it (see `AnnotationStore.resolveID`).
    package var device: String?
    /// At most this many changes, the most recent ones.
    package var limit: Int?

    /// A filter with the given conditions (times in milliseconds since 1970); nil for no condition.
    package init(since: Int64? = nil, until: Int64? = nil, device: String? = nil, limit: Int? = nil) {
        self.since = since
        self.until = until
        self.device = device
        self.limit = limit
    }
}
