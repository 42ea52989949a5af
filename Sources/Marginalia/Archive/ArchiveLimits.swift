/// How one archive is read: caps on what reading it may cost, so that a hostile file is refused in bounded time and
/// memory, and the key that opens it when it is encrypted.
///
///     var limits = ArchiveLimits()
///     limits.key = .identities([try AgeIdentity(parsing: secretKey)])   // "AGE-SECRET-KEY-1…"
///     try store.importArchive(path: "backup.jsonl.gz.age", limits: limits)
public struct ArchiveLimits: Equatable, Sendable {
    /// The most decompressed bytes.
    public var maxDecompressedBytes: UInt64
    /// The longest line, in bytes.
    public var maxLineBytes: Int
    /// The most records (lines).
    public var maxRecords: Int
    /// How far past the local clock a change's timestamp may be before it is refused.
    public var maxClockDrift: Int64
    /// The identities or passphrase an archive encrypted with age is opened with; nil for none, and an encrypted
    /// archive is then refused. A plain archive is read either way.
    public var key: AgeKey?

    /// Limits with the given caps; by default 8 GiB decompressed, 16 MiB a line, 50 million records, a day of drift.
    public init(maxDecompressedBytes: UInt64 = 8 << 30, maxLineBytes: Int = 16 << 20, maxRecords: Int = 50_000_000,
                maxClockDrift: Int64 = HybridLogicalClock.defaultMaxDrift) {
        self.maxDecompressedBytes = maxDecompressedBytes
        self.maxLineBytes = maxLineBytes
        self.maxRecords = maxRecords
        self.maxClockDrift = maxClockDrift
    }
}
