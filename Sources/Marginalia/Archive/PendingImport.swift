import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive import applied in steps, each a write transaction of its own, so that other writes take the writer
/// between them: where it has come to, kept among what the archive keeps in the store (`AdapterState`, owner
/// `archive`, under `pending_import:<file name>`) in the same transaction as each step, so that it is always what
/// the log holds.
///
/// The archive is staged whole and checked first (`StagingFile`); its staged copy is then kept beside the store
/// (`<store>-import-<uuid>`), locked by the importing process. If that process stops before the last step — a
/// crash, a kill, a full disk, the store closed — the next process to open the store for writing finishes the
/// import from the kept copy (`ArchiveImporter.finishInterruptedImports`) before anything else: an import is, once
/// the store has been opened again, either not there at all or there whole. The copy's size and SHA-256 are
/// recorded with the first step, and a copy that no longer has them (changed, removed, replaced by something that
/// is not a regular file) is never merged: the import is then abandoned (`AbandonedImport`), its record removed,
/// and what its committed steps merged stays, as when it is stopped by a conflict.
struct PendingImport: Equatable {
    /// The name of the staged copy, in the store's directory.
    var stagingName: String
    /// The archive imported, as it was named: for the receipt and for messages.
    var archive: String
    /// The receipt the import's changes point to, once its first step made it.
    var receipt: Int64?
    /// The last staged line merged.
    var line: Int = 0
    /// Merge changes dated ahead of this machine's clock at once.
    var acceptFuture = false
    /// How far ahead of this machine's clock (milliseconds) a change may be dated and still be merged.
    var maxClockDrift: Int64 = ArchiveLimits().maxClockDrift
    /// The archive's size and SHA-256, for the receipt.
    var size: Int64
    var sha256: String
    /// The kept copy's size and SHA-256, taken once it was kept, that it must still have for the import to be
    /// finished from it (`KeptCopy`); nil in a record an earlier version kept, whose import is then abandoned.
    var keptCopy: KeptCopy.Fingerprint?
    /// What the steps so far counted.
    var changesRead = 0, newChanges = 0, duplicates = 0, quarantined = 0
    /// How many changes the archive holds (nil in a record an earlier version kept).
    var total: Int?

    static let keyPrefix = "pending_import:"

    /// Where the records of imports under way are kept in the store at `db`: with what the archive keeps.
    static func records(in db: any Database) -> AdapterState {
        AdapterState(db: db, owner: "archive")
    }

    /// The kept copy's name for a store at `store`.
    static func newStagingPath(beside store: String) -> String {
        "\(store)-import-\(Identifiers.make())"
    }

    var key: String { Self.keyPrefix + stagingName }

    /// Whether this process may write the store at `store` and its directory, to finish an import there.
    static func mayFinish(store: String) -> Bool {
        access(store, R_OK | W_OK) == 0 && access(FileSync.parentDirectory(of: store), W_OK | X_OK) == 0
    }

    /// The record as the store keeps it.
    var text: String {
        get throws {
            let members: [(String, JSONValue)] = [
                ("archive", .string(archive)), ("receipt", receipt.map { JSONValue.int($0) } ?? .null),
                ("line", .int(Int64(line))), ("accept_future", .bool(acceptFuture)),
                ("max_clock_drift", .int(maxClockDrift)), ("size", .int(size)),
                ("sha256", .string(sha256)), ("changes_read", .int(Int64(changesRead))),
                ("new_changes", .int(Int64(newChanges))), ("duplicates", .int(Int64(duplicates))),
                ("quarantined", .int(Int64(quarantined))),
            ] + (total.map { [("changes_total", JSONValue.int(Int64($0)))] } ?? [])
                + (keptCopy.map { [("copy_size", JSONValue.int($0.size)), ("copy_sha256", .string($0.sha256))] } ?? [])
            return try JSONWriter.encodeString(.object(JSONObject(members)))
        }
    }

    /// Reads the record kept under `key`.
    init(key: String, text: String) throws {
        guard key.hasPrefix(Self.keyPrefix), case .object(let object) = try JSONParser.parse(text),
              let archive = object["archive"]?.stringValue, let line = object["line"]?.intValue,
              let size = object["size"]?.intValue, let sha256 = object["sha256"]?.stringValue
        else {
            throw StoreError.corruptRow(reason: "the record of an interrupted import (\(key)) cannot be read")
        }
        stagingName = String(key.dropFirst(Self.keyPrefix.count))
        self.archive = archive
        receipt = object["receipt"]?.intValue
        self.line = Int(line)
        acceptFuture = object["accept_future"]?.boolValue ?? false
        maxClockDrift = object["max_clock_drift"]?.intValue ?? ArchiveLimits().maxClockDrift
        self.size = size
        self.sha256 = sha256
        changesRead = Int(object["changes_read"]?.intValue ?? 0)
        newChanges = Int(object["new_changes"]?.intValue ?? 0)
        duplicates = Int(object["duplicates"]?.intValue ?? 0)
        quarantined = Int(object["quarantined"]?.intValue ?? 0)
        total = object["changes_total"]?.intValue.map { Int($0) }
        if let size = object["copy_size"]?.intValue, let sha256 = object["copy_sha256"]?.stringValue {
            keptCopy = KeptCopy.Fingerprint(size: size, sha256: sha256)
        }
    }

    /// A new import of `staged`, whose copy is kept at `stagingPath` with `keptCopy`'s size and SHA-256.
    init(staged: StagedArchive, stagingPath: String, keptCopy: KeptCopy.Fingerprint, acceptFuture: Bool,
         limits: ArchiveLimits) {
        self.keptCopy = keptCopy
        maxClockDrift = limits.maxClockDrift
        stagingName = String(stagingPath.split(separator: "/").last ?? "")
        archive = staged.path
        self.acceptFuture = acceptFuture
        size = Int64(staged.summary.compressedBytes)
        sha256 = staged.summary.sha256
        total = staged.summary.counts.changes
        // The changes the log held when the file was staged are counted now: no step reads them.
        (changesRead, duplicates) = (staged.known, staged.known)
    }

    /// Adds what one step's merge counted.
    mutating func add(_ report: MergeReport) {
        changesRead += report.changesRead
        newChanges += report.newChanges
        duplicates += report.duplicates
        quarantined += report.quarantined
    }

    /// The counts as a merge report, for the receipt.
    var counts: MergeReport {
        var report = MergeReport()
        (report.changesRead, report.newChanges, report.duplicates, report.quarantined)
            = (changesRead, newChanges, duplicates, quarantined)
        return report
    }
}
