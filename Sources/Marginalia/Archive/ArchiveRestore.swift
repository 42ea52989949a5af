import Foundation

/// A store replaced with the one an archive holds: built from the archive and verified in a new file beside the
/// store, then copied into the live store (or renamed into its place), and verified again under its own name.
enum ArchiveRestore {
    /// Test hook: runs after each step of the page copy into the live store (given its real path and the steps
    /// so far), and may throw to fail the copy there.
    nonisolated(unsafe) static var copyStepHook: ((String, Int) throws -> Void)?

    /// Replaces the store at `storePath` with the one an archive holds.
    ///
    /// The archive is merged and verified completely into a new store built in a temporary file beside the
    /// store; nothing is touched when that fails. A healthy live store then receives the new state through
    /// SQLite's online backup API, in one write transaction that other connections wait for: they go on
    /// reading the old state until it commits and see the new one afterwards, and no file is renamed or
    /// removed under them. While that transaction holds the write lock, and before any new page goes in, the
    /// store as it is (every write acknowledged so far) is copied to a dated `.bak` beside it
    /// (`user.db.20261129T121441Z.bak`, `-2` and so on within one second). A missing store is created by
    /// renaming the new file into place; a damaged one is kept as the `.bak` by rename, only while no other
    /// process has it open. The store is then opened afresh under its own name and verified before the
    /// restore counts as done. A symbolic link is followed (it stays a link) and the store's mode is kept.
    /// The restored store keeps the device id, name, keys and roster place of a healthy store it replaces
    /// (`RestoreIdentity`); in place of no store or a damaged one it is a new device, with a fresh id. A partial
    /// archive cannot be restored (import it instead).
    /// - Throws: the archive's or the store's error before anything was replaced; `RestoreError` naming the
    ///   `.bak` after.
    static func restore(archive: String, to storePath: String, dryRun: Bool = false,
                        limits: ArchiveLimits = ArchiveLimits()) throws -> RestoreReport {
        try restore(archive: archive, to: storePath, dryRun: dryRun, limits: limits, vfs: nil)
    }

    /// `restore` with the copy into the live store written through the registered SQLite VFS `vfs` (nil: the
    /// default): how the power-loss tests put a simulated disk under the store being replaced.
    static func restore(archive: String, to storePath: String, dryRun: Bool, limits: ArchiveLimits,
                        vfs: String?) throws -> RestoreReport {
        let live = try RestoreFiles.resolveLiveStore(storePath)
        // Temporary databases that dead restores left are removed; this one is locked until it is removed, so a
        // command running meanwhile never takes it for a dead one's.
        TemporaryFile.removeStale(beside: live.path)
        let temporaryFile = try TemporaryFile(beside: live.path, purpose: "restore")
        defer { temporaryFile.remove() }
        let temporary = temporaryFile.path
        var report: RestoreReport
        do {
            report = try buildVerifiedStore(archive: archive, at: temporary, limits: limits,
                                            replacing: live.exists && !dryRun ? live.path : nil,
                                            comparingWith: nil)
            if dryRun && live.exists { report.setAside = setAside(byRestoring: temporary, over: live.path) }
        } catch let error as SQLiteError {
            // Disk full, I/O errors: the store was not touched.
            throw RestoreError(storePath: storePath, reason: "building the new store: \(error)", previousStore: nil,
                               storeUnchanged: true, cause: error)
        }
        guard !dryRun else { return report }
        if live.exists {
            if let reason = try RestoreFiles.damage(of: live.path) {
                report.previousStore = try replaceDamagedStore(live, with: temporary, damage: reason)
            } else {
                report.previousStore = try copyIntoLiveStore(live, from: temporary, vfs: vfs)
            }

        } else {
            try RestoreFiles.refuseOrphanedLog(of: live.path)
            do {
                try FileSync.moveIntoPlace(temporary, at: live.path)
            } catch {
                throw RestoreError(storePath: storePath, reason: "\(error)", previousStore: nil, storeUnchanged: true,
                                   cause: error)
            }
        }
        try verifyUnderLiveName(storePath, deviceID: report.deviceID, previousStore: report.previousStore)
        return report
    }

    /// Merges the archive into a new store at `temporary` (an empty `TemporaryFile`, mode 0600), with the
    /// quarantine of the store it replaces (`previous`), closes it and verifies it as reopened.
    private static func buildVerifiedStore(archive: String, at temporary: String, limits: ArchiveLimits,
                                           replacing previous: String?, comparingWith current: String?) throws
        -> RestoreReport
    {
        var report: RestoreReport
        do {
            let store = try StoreWriter.open(path: temporary, create: true)
            // A scratch file deleted on any failure needs neither a log file beside it nor syncs while it is
            // built; it is synced once, whole, below. "MEMORY … stores the rollback journal in volatile RAM"
            // https://www.sqlite.org/pragma.html#pragma_journal_mode
            try store.db.executeScript(sql: "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF")
            let verification = try store.db.transaction(.immediate) {
                try ArchiveImporter(store: store).mergeArchive(path: archive, limits: limits, checkState: true,
                                                               comparingWith: nil, receipt: .restore).verification
            }
            guard !verification.summary.header.partial else {
                throw ArchiveError(
                    file: archive, kind: .invalidRecord,
                    reason: "a partial archive (a filtered export) cannot be restored; import it instead")
            }
            // Archives carry only the log: the changes the replaced store holds in quarantine come along.
            if let previous { store.quarantine.carry(fromStoreAt: previous) }
            report = RestoreReport(verification: verification, previousStore: nil, deviceID: store.deviceID)
            // The store keeps being the device it was; a damaged one's identity cannot be trusted.
            if let previous, (try? RestoreFiles.damage(of: previous)) == .some(nil),
               let kept = try? RestoreIdentity.carry(from: previous, into: store) {
                report.deviceID = kept.id
                report.deviceName = kept.name
                report.keptDevice = true
            }
        }
        // The connection is closed and the file holds every page; make them durable, then check the file as a
        // fresh connection sees it.
        try FileSync.syncFile(at: temporary)
        let check = try StoreReader.open(path: temporary).verifier.verify()
        guard check.isHealthy else {
            throw StoreError.notAStore(path: temporary, reason: "the store built from the archive does not verify: "
                + check.problems.prefix(3).joined(separator: "; "))
        }
        return report
    }

    /// How many changes the store at `current` holds that the store built at `restored` lacks; nil when it cannot
    /// be read. The store is read as an immutable file ("immutable=1 … SQLite assumes that the database file cannot
    /// be changed", https://www.sqlite.org/uri.html): a dry run leaves no `-wal` or `-shm` beside it. A change
    /// another process has not yet checkpointed into the file is not counted.
    private static func setAside(byRestoring restored: String, over current: String) -> Int? {
        guard let db = try? SQLiteDatabase(path: SQLiteDatabase.fileURI(path: restored, readOnly: true),
                                           mode: .readOnly),
              (try? db.execute(sql: "ATTACH DATABASE ? AS current",
                               arguments: [SQLiteDatabase.fileURI(path: current, readOnly: true) + "&immutable=1"]))
                != nil else { return nil }
        return (try? db.int(
            sql: "SELECT count(*) FROM current.changes WHERE change_id NOT IN (SELECT change_id FROM main.changes)"))
            .flatMap { $0 }.map { Int($0) }
    }

    /// Copies the verified new store into the healthy live one through the online backup API, after copying
    /// the live one to a `.bak` while holding its write lock.
    private static func copyIntoLiveStore(_ live: RestoreFiles.LiveStore, from temporary: String,
                                          vfs: String?) throws -> String {
        let source = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: temporary, readOnly: true), mode: .readOnly)
        // Writers of this store wait for up to 30 s; the restore waits as long for a writer to finish.
        let destination = try SQLiteDatabase(
            path: SQLiteDatabase.fileURI(path: live.path, readOnly: false, vfs: vfs), mode: .readWrite,
            busyTimeoutMilliseconds: 30_000)
        // The copy commits as every write to a store does, whatever SQLite's compiled-in default: "With
        // synchronous=FULL in WAL mode, an additional sync operation of the WAL file happens after each transaction
        // commit" https://www.sqlite.org/pragma.html#pragma_synchronous
        try destination.executeScript(sql: "PRAGMA synchronous = FULL")
        let pageSizes = (try source.int(sql: "PRAGMA page_size"), try destination.int(sql: "PRAGMA page_size"))
        // "sqlite3_backup_step() might return SQLITE_READONLY if … the destination database is using
        // write-ahead-log journaling and the destination and source page sizes differ"
        // https://www.sqlite.org/c3ref/backup_finish.html
        guard pageSizes.0 == pageSizes.1 else {
            throw StoreError.notAStore(path: live.path, reason: "its page size (\(pageSizes.1 ?? 0) bytes) differs "
                + "from a new store's (\(pageSizes.0 ?? 0)); restore into a new path and move it into place")
        }
        var previous: String?
        do {
            // Small steps: the write lock is held throughout anyway, and a failure can be injected between them.
            try destination.replaceContents(
                with: source, pagesPerStep: 64,
                onceLocked: {
                    // No connection can commit to the store now, and none of the new pages is in it yet: a reader
                    // on another connection sees every write acknowledged before the swap.
                    previous = try RestoreFiles.copyToBak(live)
                },
                afterStep: { step in try copyStepHook?(live.path, step) })
        } catch {
            // The copy's transaction was rolled back: the store holds what it held.
            let reason = (error as? SQLiteError)?.isBusy == true
                ? "another process kept the store's write lock for 30 s; close it or retry (\(error))" : "\(error)"
            throw RestoreError(storePath: live.path, reason: reason, previousStore: previous, storeUnchanged: true,
                               cause: error)
        }
        return previous ?? live.path
    }

    /// Keeps a damaged store that no other process has open as the `.bak` (by link or rename) and renames the
    /// new store into its place.
    private static func replaceDamagedStore(_ live: RestoreFiles.LiveStore, with temporary: String,
                                            damage: String) throws -> String {
        let lock = try RestoreFiles.ExclusiveUse(store: live.path, damage: damage)
        defer { lock.release() }
        try RestoreFiles.setMode(of: temporary, to: live.mode & 0o600)
        let previous = try RestoreFiles.keepDamagedStore(live.path)
        do {
            try FileSync.moveIntoPlace(temporary, at: live.path)
        } catch {
            throw RestoreError(storePath: live.path, reason: "\(error)", previousStore: previous, storeUnchanged: false,
                               cause: error)
        }
        return previous
    }

    /// Opens the store under the name it is used by, on a fresh connection, and verifies it.
    private static func verifyUnderLiveName(_ storePath: String, deviceID: String, previousStore: String?) throws {
        let problems: [String]
        do {
            let store = try StoreReader.open(path: storePath)
            var found = try store.verifier.verify().problems
            if store.deviceID != deviceID {
                found.append("meta: device id \(store.deviceID), expected the new \(deviceID)")
            }
            problems = found
        } catch {
            problems = ["\(error)"]
        }
        guard problems.isEmpty else {
            throw RestoreError(storePath: storePath, reason: problems.prefix(3).joined(separator: "; "),
                               previousStore: previousStore, storeUnchanged: false)
        }
    }
}
