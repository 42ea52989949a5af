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

extension StoreConnection {
    /// Writes a verified backup of the store to `path`.
    ///
    /// The archive is written to a temporary file beside `path`, flushed to disk, read back and verified
    /// completely (inflated, every record checked, the state rebuilt from its changes compared with the
    /// archive's state records and with the live store), and only then renamed over `path`. An existing
    /// file at `path` is replaced only by a verified backup.
    func backup(to path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> BackupReport {
        let target = try OutputTarget.resolve(path, policy: outputPolicy(replaceArchive: true))
        var written: String?
        do {
            return try target.write(purpose: "backup") { temporary in
                written = temporary.path
                return try db.transaction(.deferred) {
                    let sink = FileSink(fileDescriptor: try temporary.openForWriting(), name: temporary.path,
                                            closesOnDeinit: true)
                    defer { try? sink.close() }
                    let counts = try exportArchive(to: sink)
                    try sink.sync()
                    let scratch = try ScratchStore(beside: target.path)
                    let verification = try scratch.store.db.transaction(.immediate) {
                        try scratch.store.mergeArchive(
                            path: temporary.path, limits: limits, checkState: true, comparingWith: self,
                            receipt: .restore
                        ).verification
                    }
                    return BackupReport(path: path, counts: counts,
                                        compressedBytes: verification.summary.compressedBytes)
                }
            }
        } catch let archiveError as ArchiveError where archiveError.file == written {
            // Name the backup, not its temporary file: the backup failed its own verification.
            throw ArchiveError(
                file: path, line: archiveError.line, kind: archiveError.kind,
                reason: "the backup failed verification, nothing was replaced: \(archiveError.reason)")
        }
    }
}
