extension AnnotationStore {
    /// What importing the archive at `path` would do, found on a private copy of the store, so that the store's
    /// writer is never taken: the copy is a file beside the store (mode 0600, removed after, and by the next command
    /// if a crash left it), made from one snapshot by SQLite's online backup, and the import runs on it whole and
    /// is rolled back.
    func dryRunImport(path archive: String, acceptFuture: Bool, limits: ArchiveLimits,
                      progress: ProgressHandler?) throws -> ImportReport {
        do {
            let copy = try TemporaryFile(beside: path, purpose: "dryrun")
            defer { copy.remove() }
            let db = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: copy.path, readOnly: false),
                                        mode: .readWrite)
            // A file thrown away after one use needs neither a journal nor syncs.
            try db.executeScript(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            let source = try SQLiteDatabase(path: SQLiteDatabase.fileURI(path: path, readOnly: true),
                                            mode: .readOnly)
            // All the pages in one step, under one read lock of the source: one snapshot, however the store is
            // written meanwhile. "If N is negative, all remaining source pages are copied."
            // https://www.sqlite.org/c3ref/backup_finish.html
            try db.replaceContents(with: source, pagesPerStep: -1)
            let copied = try StoreWriter(copy: db, path: copy.path, wallClock: engine.wallClockSource,
                                         progressHandler: progress ?? progressHandler)
            return try ArchiveImporter(store: copied).importArchive(path: archive, dryRun: true,
                                                                        acceptFuture: acceptFuture, limits: limits)
        } catch {
            throw MarginaliaError(error)
        }
    }
}
