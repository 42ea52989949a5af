extension AnnotationStore {
    /// How a store's connections behave, chosen when it is opened.
    ///
    ///     var configuration = AnnotationStore.Configuration()
    ///     configuration.busyTimeout = .seconds(5)       // give up sooner on a lock another process holds
    ///     configuration.eventPollInterval = .milliseconds(50)
    ///     let store = try AnnotationStore.open(path: "user.db", access: .create, configuration: configuration)
    public struct Configuration: Equatable, Sendable {
        /// How long a connection waits for a lock another connection or process holds before the call fails with
        /// `.busy`. "The handler will sleep multiple times until at least "ms" milliseconds of sleeping have
        /// accumulated." https://www.sqlite.org/c3ref/busy_timeout.html
        public var busyTimeout: Duration = .seconds(30)
        /// How many idle reader connections are kept open between reads; more are opened while many reads run
        /// at once.
        public var readers = 4
        /// How often, while an `events()` stream is alive, the store asks whether another process committed.
        /// Nothing is polled while no stream is alive.
        public var eventPollInterval: Duration = .milliseconds(200)
        /// When a commit is on disk.
        public var durability: Durability = .full
        /// Whether a merge (a sync round's segment, an import) may delete more than half of the live annotations
        /// (and more than 50). By default it may not: such a merge writes nothing and fails with `.refused`,
        /// naming how many it would delete and by which devices.
        public var allowsMassDeletion = false

        /// When a commit reaches the disk.
        public enum Durability: Equatable, Sendable {
            /// Every commit is on disk when the call returns (`PRAGMA synchronous = FULL`): the default, and what
            /// a person's notes deserve.
            case full
            /// Commits are synced at checkpoints (`PRAGMA synchronous = NORMAL`): faster, and the store stays
            /// consistent, but "a transaction committed in WAL mode with synchronous=NORMAL might roll back
            /// following a power loss or system crash" https://www.sqlite.org/pragma.html#pragma_synchronous
            case normal
        }

        /// The defaults: 30 s busy timeout, 4 readers, events polled every 200 ms, full durability.
        public init() {}

        /// `busyTimeout` in whole milliseconds, as SQLite takes it.
        var busyTimeoutMilliseconds: Int32 {
            let (seconds, attoseconds) = busyTimeout.components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            return Int32(clamping: max(0, milliseconds))
        }

        /// `eventPollInterval` in microseconds, at least one millisecond.
        var eventPollMicroseconds: UInt32 {
            let (seconds, attoseconds) = eventPollInterval.components
            return UInt32(clamping: max(1000, seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }

        /// The `PRAGMA synchronous` value of `durability`.
        var synchronous: String { durability == .full ? "FULL" : "NORMAL" }
    }
}
