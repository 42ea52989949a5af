import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a restore did (or, with a dry run, would do).
public struct RestoreReport: Equatable, Sendable {
    public var verification: ArchiveVerification
    /// Where the store that was replaced now is; nil when there was none, or for a dry run.
    public var previousStore: String?
    /// The device id the restored store takes for its future changes.
    public var deviceID: String
}

extension AnnotationStore {
    /// Replaces the store at `storePath` with the one an archive holds.
    ///
    /// The archive is verified completely while the new store is built in a temporary file beside the store;
    /// the previous store is kept beside it under a dated name (`user.db.20261129T121441Z.bak`, with `-2`
    /// and so on should two restores fall in the same second), and the new one
    /// is renamed into place in one atomic step. The restored store takes a fresh device id for its future
    /// changes. A partial archive cannot be restored (import it instead).
    public static func restore(archive: String, to storePath: String, dryRun: Bool = false,
                               limits: ArchiveLimits = ArchiveLimits()) throws -> RestoreReport {
        let temporary = FileSync.temporaryPath(beside: storePath, purpose: "restore")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + suffix) }
        }
        var report: RestoreReport
        do {
            let store = try AnnotationStore.open(path: temporary, access: .create)
            try store.db.executeScript(sql: "PRAGMA synchronous = OFF")
            let verification = try store.db.transaction(.immediate) {
                try store.mergeArchive(path: archive, limits: limits, checkState: true, comparingWith: nil).verification
            }
            guard !verification.summary.header.partial else {
                throw ArchiveError(
                    file: archive, kind: .invalidRecord,
                    reason: "a partial archive (a filtered export) cannot be restored; import it instead")
            }
            report = RestoreReport(verification: verification, previousStore: nil, deviceID: store.deviceID)
        }
        // The new store's connection is closed: its log is checkpointed into the file. Make that durable.
        try FileSync.syncFile(at: temporary)
        guard !dryRun else { return report }
        if FileManager.default.fileExists(atPath: storePath) {
            report.previousStore = try keepPreviousStore(storePath)
        }
        try FileSync.moveIntoPlace(temporary, at: storePath)
        return report
    }

    /// Checkpoints the store being replaced and links it under a dated name; refuses when another process
    /// still has it open (its write-ahead log would otherwise be applied to the new file).
    ///
    /// The old store may be damaged (that may be why it is being restored): a failed checkpoint is then not
    /// an obstacle, and its write-ahead log, if any, moves along with it.
    private static func keepPreviousStore(_ storePath: String) throws -> String {
        // "TRUNCATE … blocks until all readers are reading from the database file only, then … truncates
        // the log file to zero bytes"; its first result column is 1 when it could not complete because
        // other connections were in the way. https://www.sqlite.org/pragma.html#pragma_wal_checkpoint
        let busy = try? SQLiteDatabase(path: SQLiteDatabase.fileURI(path: storePath, readOnly: false), mode: .readWrite)
            .int(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        if busy == 1 {
            throw StoreError.notAStore(path: storePath, reason: "it is in use by another process; close it and retry")
        }
        // 2026-11-29T12:14:41.123Z → 20261129T121441Z
        let stamp = Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()).prefix(19)
            .replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "") + "Z"
        var previous = "\(storePath).\(stamp).bak"
        var attempt = 1
        while FileManager.default.fileExists(atPath: previous) {
            attempt += 1
            previous = "\(storePath).\(stamp)-\(attempt).bak"
        }
        // A hard link keeps the old file under the new name while the live name is swapped in one rename. Where
        // links are not supported, the old file is renamed instead (the name is then empty until the swap); a
        // database is never copied byte by byte, which could catch it half-written.
        if link(storePath, previous) != 0 {
            guard rename(storePath, previous) == 0 else { throw GzipError.posix("rename", path: storePath) }
        }
        let wal = storePath + "-wal"
        if let size = try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber, size.intValue > 0 {
            try FileManager.default.moveItem(atPath: wal, toPath: previous + "-wal")
        }
        for leftover in [wal, storePath + "-shm"] { try? FileManager.default.removeItem(atPath: leftover) }
        try FileSync.syncDirectory(containing: previous)
        return previous
    }
}
