import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An archive import applied in steps, each a write transaction of its own, so that other writes take the writer
/// between them: where it has come to, kept in the store's `meta` table (under `pending_import:<file name>`) in
/// the same transaction as each step, so that it is always what the log holds.
///
/// The archive is staged whole and checked first (`StagingFile`); its staged copy is then kept beside the store
/// (`<store>-import-<uuid>`), locked by the importing process. If that process stops before the last step — a
/// crash, a kill, a full disk, the store closed — the next process to open the store for writing finishes the
/// import from the kept copy (`finishInterruptedImports`) before anything else: an import is, once the store has
/// been opened again, either not there at all or there whole.
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
    /// What the steps so far counted.
    var changesRead = 0, newChanges = 0, duplicates = 0, quarantined = 0

    static let keyPrefix = "pending_import:"

    /// The kept copy's name for a store at `store`.
    static func newStagingPath(beside store: String) -> String {
        "\(store)-import-\(Identifiers.make())"
    }

    var key: String { Self.keyPrefix + stagingName }

    /// Whether this process may write the store at `store` and its directory, to finish an import there.
    static func mayFinish(store: String) -> Bool {
        access(store, R_OK | W_OK) == 0 && access(FileSync.parentDirectory(of: store), W_OK | X_OK) == 0
    }

    /// The record as `meta` keeps it.
    var text: String {
        get throws {
            let members: [(String, JSONValue)] = [
                ("archive", .string(archive)), ("receipt", receipt.map { JSONValue.int($0) } ?? .null),
                ("line", .int(Int64(line))), ("accept_future", .bool(acceptFuture)),
                ("max_clock_drift", .int(maxClockDrift)), ("size", .int(size)),
                ("sha256", .string(sha256)), ("changes_read", .int(Int64(changesRead))),
                ("new_changes", .int(Int64(newChanges))), ("duplicates", .int(Int64(duplicates))),
                ("quarantined", .int(Int64(quarantined))),
            ]
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
    }

    /// A new import of `staged`, whose copy is kept at `stagingPath`.
    init(staged: StagedArchive, stagingPath: String, acceptFuture: Bool, limits: ArchiveLimits) {
        maxClockDrift = limits.maxClockDrift
        stagingName = String(stagingPath.split(separator: "/").last ?? "")
        archive = staged.path
        self.acceptFuture = acceptFuture
        size = Int64(staged.summary.compressedBytes)
        sha256 = staged.summary.sha256
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

extension StoreConnection {
    /// How many changes a step merges together before it looks at the time: a fifth of `mergeBatchSize`, so that
    /// a step ends close to its budget (a batch of 200 takes about 10 ms here, `marginalia-bench`).
    static let stepBatchSize = 200

    /// Applies the next step of `pending`, whose staged copy is attached as `staging`: one write transaction that
    /// merges the staged changes after `pending.line`, a `stepBatchSize` at a time, until `budget` nanoseconds
    /// have passed or none is left, and records how far it came. The last step finishes the receipt and removes
    /// the record. What the step's merge did is added to `report`.
    /// - Returns: whether the import is finished.
    /// - Throws: `ChangeConflict` for a staged change under an id the store holds with other content.
    func applyImportStep(_ pending: inout PendingImport, budget: UInt64, into report: inout MergeReport) throws
        -> Bool
    {
        var next = pending
        var stepReport = MergeReport()
        var renewed: String?
        let finished = try batch {
            let started = DispatchTime.now().uptimeNanoseconds
            let latest = clock.wallMilliseconds + next.maxClockDrift
            if next.receipt == nil {
                // The first step: the held changes whose time has come go first, as in a whole import.
                stepReport.releasedFromQuarantine = try releaseQuarantine(latestAllowed: latest)
            }
            let receipt = next.receipt.map { ReceiptSlot(existing: $0) }
                ?? ReceiptSlot(ReceiptSource(kind: .import, file: next.archive))
            let future: FutureChanges = next.acceptFuture
                ? .accept : .quarantine(latestAllowed: latest, source: next.archive)
            var sawOwnDevice = false
            var done = false
            repeat {
                let batch = try db.fetchAll(
                    sql: """
                        SELECT change_id, hlc, device, entity, entity_id, op, body, wall, line
                        FROM staging.staged_records
                        WHERE line > ? AND kind = 'change' ORDER BY line LIMIT ?
                        """,
                    arguments: [next.line, Self.stepBatchSize]
                ) { row in (change: try Change(row: row), line: Int(try row.int(8))) }
                guard let last = batch.last else {
                    done = true
                    break
                }
                try merge(batch, receipt: receipt, into: &stepReport, future: future, sawOwnDevice: &sawOwnDevice)
                next.line = last.line
            } while DispatchTime.now().uptimeNanoseconds - started < budget
            next.receipt = receipt.id ?? next.receipt
            next.add(stepReport)
            if sawOwnDevice { renewed = try renewDeviceID() }
            if done {
                try receipts.finish(receipt, next.counts, size: next.size, sha256: next.sha256)
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [next.key])
            } else {
                if receipt.id != nil { try receipts.finish(receipt, next.counts) }
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                               arguments: [next.key, try next.text])
            }
            return done
        }
        // Committed: only now does the caller's state move on.
        pending = next
        report.absorb(stepReport)
        if let renewed {
            deviceID = renewed
            report.renewedDeviceID = renewed
        }
        return finished
    }

    /// Whether the store holds the record of an import stopped in the middle.
    func hasInterruptedImports() throws -> Bool {
        try db.int(sql: "SELECT EXISTS (SELECT 1 FROM meta WHERE \(Self.pendingImportKeys))") == 1
    }

    /// `finishInterruptedImports`, for opening a store: an import that cannot be finished now (a full disk) is
    /// left for the next open, and one that conflicts with the store's log is dropped where it stopped.
    func finishInterruptedImportsIfAble() -> [String] {
        (try? finishInterruptedImports()) ?? []
    }

    /// The `meta` keys of pending imports, as a condition.
    private static let pendingImportKeys = "key LIKE 'pending\\_import:%' ESCAPE '\\'"

    /// Finishes every import that a process stopped in the middle of (`PendingImport`) whose staged copy no live
    /// process holds: from where it came to, to its end. A record whose copy is gone is dropped (the import can
    /// only be run again: what it merged stays), and a copy without a record is removed.
    /// - Returns: the imports finished, by archive.
    @discardableResult
    func finishInterruptedImports() throws -> [String] {
        guard path != ":memory:" else { return [] }
        let records = try db.fetchAll(sql: "SELECT key, value FROM meta WHERE \(Self.pendingImportKeys)") {
            (key: try $0.string(0), text: try $0.string(1))
        }
        let directory = FileSync.parentDirectory(of: path)
        var finished: [String] = []
        for record in records {
            var pending = try PendingImport(key: record.key, text: record.text)
            let copy = directory + "/" + pending.stagingName
            let (descriptor, missing) = LockedCopy.lock(copy)
            guard let descriptor else {
                if missing { try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [record.key]) }
                continue
            }
            defer { LockedCopy.release(descriptor) }
            var report = MergeReport()
            do {
                try StagingFile.attach(copy, to: self) {
                    while try !applyImportStep(&pending, budget: .max, into: &report) {}
                }
            } catch is ChangeConflict {
                // A change that came another way meanwhile under the same id, with other content: the import ends
                // where it stopped, as one that met it would have.
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [record.key])
            }
            unlink(copy)
            finished.append(pending.archive)
        }
        try removeOrphanedImportCopies(in: directory)
        return finished
    }

    /// Removes the kept copies beside the store that no record names and no live process holds: those of imports
    /// stopped before their first step committed.
    private func removeOrphanedImportCopies(in directory: String) throws {
        let prefix = (path.split(separator: "/").last.map(String.init) ?? path) + "-import-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let copy = directory + "/" + name
            guard let descriptor = LockedCopy.lock(copy).descriptor else { continue }
            defer { LockedCopy.release(descriptor) }
            // Read under the lock: a live importer commits its first step before it lets the lock go.
            let named = try db.int(sql: "SELECT count(*) FROM meta WHERE key = ?",
                                   arguments: [PendingImport.keyPrefix + name]) ?? 0
            if named == 0 { unlink(copy) }
        }
    }
}

/// The lock on a kept copy: the importing process holds it while it lives.
private enum LockedCopy {
    /// Opens the copy at `path` and takes its lock without waiting: the descriptor holding it, or nil (with
    /// `missing` true when there is no such file, false when a live process holds the lock).
    static func lock(_ path: String) -> (descriptor: Int32?, missing: Bool) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW)
        guard descriptor >= 0 else { return (nil, errno == ENOENT) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return (nil, false)
        }
        return (descriptor, false)
    }

    static func release(_ descriptor: Int32) {
        close(descriptor)
    }
}
