/// What reading a whole archive found.
public struct ArchiveSummary: Equatable, Sendable {
    /// The archive's header line.
    public var header: ArchiveHeader
    /// How many records of each type it holds (equal to its trailer's counts).
    public var counts: ArchiveCounts
    /// The size of the file, in bytes.
    public var compressedBytes: UInt64
    /// The size of its decompressed text, in bytes.
    public var decompressedBytes: UInt64
    /// The SHA-256 of the file as it was read, 64 hex digits.
    public var sha256: String
}
