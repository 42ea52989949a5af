import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a backup wrote and checked.
public struct BackupReport: Equatable, Sendable {
    /// The backup's path.
    public var path: String
    /// How many records of each type it holds.
    public var counts: ArchiveCounts
    /// Its size, in bytes.
    public var compressedBytes: UInt64
}
