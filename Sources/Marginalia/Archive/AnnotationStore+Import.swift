import Foundation

/// What importing (or merging) an archive did, or would do with `--dry-run`.
public struct ImportReport: Equatable, Sendable {
    /// Change records in the file.
    public var changesRead = 0
    /// Changes this store did not have, now in its log.
    public var newChanges = 0
    /// Changes it already had (by change id).
    public var duplicates = 0
    public var annotationsCreated = 0
    /// New changes that altered an annotation or position already here.
    public var updates = 0
    /// New changes that turned an annotation into a tombstone.
    public var deletions = 0
    /// Fields where a newer value already here was kept over the file's (last writer wins).
    public var conflictsResolved = 0
    /// New changes to annotations whose create this store has not seen; applied when it arrives.
    public var pending = 0
    /// Set when the file held new changes made under this store's own device id (the store was copied to
    /// another machine): the store then takes this new device id for its future changes.
    public var renewedDeviceID: String?
    public var header: ArchiveHeader?

    public init() {}
}

extension AnnotationStore {
    /// Merges another machine's archive into this store, in one transaction, after validating the whole file.
    ///
    /// Changes are deduplicated by change id; the current tables are resolved field by field, last writer
    /// wins (by clock, then device id). Into an empty store, a full archive's state records must also equal the
    /// state its changes rebuild. A file that is invalid anywhere changes nothing.
    /// - Parameter dryRun: report what would happen, and write nothing.
    /// - Throws: `ArchiveError` naming the file, line and reason.
    public func importArchive(path: String, dryRun: Bool = false, limits: ArchiveLimits = ArchiveLimits()) throws
        -> ImportReport
    {
        var report = ImportReport()
        do {
            try db.transaction(.immediate) {
                let wasEmpty = try changeCount() == 0
                let result = try mergeArchive(path: path, limits: limits, checkState: wasEmpty, comparingWith: nil,
                                              refuseFutureChanges: true)
                report = result.report
                if result.sawOwnDevice {
                    let renewed = Identifiers.make()
                    try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'device_id'", arguments: [renewed])
                    report.renewedDeviceID = renewed
                }
                if dryRun { throw DryRun() }
            }
        } catch is DryRun {
            return report
        }
        if let renewed = report.renewedDeviceID { deviceID = renewed }
        return report
    }
}

extension AnnotationStore {
    /// A duration in the largest whole unit that fits: "24 hours", "90 minutes", "30 seconds".
    static func duration(_ milliseconds: Int64) -> String {
        for (size, unit) in [(Int64(3_600_000), "hour"), (60_000, "minute"), (1000, "second")]
        where milliseconds >= size && milliseconds % size == 0 {
            let count = milliseconds / size
            return "\(count) \(unit)\(count == 1 ? "" : "s")"
        }
        return "\(milliseconds) ms"
    }
}

/// Thrown to roll back a dry run once it has been reported.
private struct DryRun: Error {}
