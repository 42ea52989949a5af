// MARK: - Archives: import, export, backup and restore

extension AnnotationStore {
    /// Merges another machine's archive into this store, after validating the whole file.
    ///
    /// The file is read, inflated, checked (against the store's log too) and staged by a connection of its own, in
    /// a private file beside the store, while other writes go on; a file invalid anywhere changes nothing. The
    /// merge that follows holds the store's writer in short steps (each a transaction of its own, about 20 ms),
    /// so that the app's writes go on between them; it keeps the staged file beside the store until the last
    /// step, and if it is stopped midway (a crash, a kill, a full disk, `close()`), the next open of the store
    /// finishes it first: once the store is open again, the import is there whole or not at all. Once the merge
    /// has begun, a progress handler can no longer stop it. Into an empty store, the merge is one transaction. A
    /// dry run never takes the writer: it imports into a private copy of the store, beside it, and rolls back.
    /// - Parameter dryRun: report what would happen, and write nothing.
    /// - Throws: `MarginaliaError` (`.invalidData` naming the file, line and reason).
    /// - Parameter acceptFuture: merge changes dated more than a day ahead of this machine's clock at once, instead
    ///   of holding them in quarantine until they are plausible.
    @discardableResult
    public func importArchive(path: String, dryRun: Bool = false, acceptFuture: Bool = false,
                              limits: ArchiveLimits = ArchiveLimits()) throws -> ImportReport
    {
        try importArchive(path: path, dryRun: dryRun, acceptFuture: acceptFuture, limits: limits, with: nil)
    }

    /// `importArchive`, with `progress` in place of the store-wide progress handler when given.
    func importArchive(path: String, dryRun: Bool, acceptFuture: Bool, limits: ArchiveLimits,
                       with progress: ProgressHandler?) throws -> ImportReport
    {
        // A store in memory has no file to stage beside; a thread inside a batch holds the writer already.
        guard self.path != ":memory:", !engine.currentThreadWrites else {
            return try engine.writing(progress: progress) {
                try ArchiveImporter(store: $0).importArchive(path: path, dryRun: dryRun, acceptFuture: acceptFuture,
                                                             limits: limits)
            }
        }
        if dryRun {
            return try dryRunImport(path: path, acceptFuture: acceptFuture, limits: limits, progress: progress)
        }
        let staging: StagingFile
        do {
            let forEmptyStore = try engine.reading { try $0.changeCount() == 0 }
            let handler = progress ?? engine.progressHandler
            staging = try StagingFile(archive: path, limits: limits, forEmptyStore: forEmptyStore,
                                      beside: self.path) { staged in
                try StoreTransaction.reportProgress(to: handler, "reading archive", done: staged)
            }
        } catch {
            throw MarginaliaError(error)
        }
        defer { staging.remove() }
        if !staging.staged.forEmptyStore {
            return try importInSteps(staging, acceptFuture: acceptFuture, limits: limits,
                                     progress: progress ?? progressHandler)
        }
        return try engine.writing(progress: progress) { writer in
            try staging.attached(to: writer) {
                try ArchiveImporter(store: writer).importStaged(staging.staged, dryRun: false,
                                                                acceptFuture: acceptFuture, limits: limits)
            }
        }
    }

    /// Writes the store as an archive to `sink`, from one snapshot; streams.
    @discardableResult
    package func exportArchive(to sink: any ByteSink, filter: ExportFilter = ExportFilter(),
                              createdAt: String = Timestamp.iso8601(milliseconds: Timestamp.nowMilliseconds()),
                              level: Int = GzipWriter.defaultLevel) throws -> ArchiveCounts {
        try engine.reading {
            try ArchiveExporter(store: $0).exportArchive(to: sink, filter: filter, createdAt: createdAt, level: level)
        }
    }

    /// Writes the archive to the file at `path`, through a temporary file beside it that is flushed to disk and
    /// renamed over `path` only when complete. An existing plain file is replaced only with `force`; a store, a
    /// content database, a directory or a device never. With `encryption` (recipients, or a passphrase), the file
    /// is an age file whose payload is the archive: `age -d -i key.txt FILE | zcat` reads it.
    @discardableResult
    public func exportArchive(toFile path: String, filter: ExportFilter = ExportFilter(), force: Bool = false,
                              encryptTo encryption: AgeKey? = nil) throws -> ArchiveCounts
    {
        try engine.reading {
            try ArchiveExporter(store: $0).exportArchive(toFile: path, filter: filter, force: force,
                                                         encryption: encryption)
        }
    }

    /// Writes a verified backup of the store to `path`: written beside it, flushed, read back and checked
    /// completely, then renamed over `path`. With `encryption`, it is written and checked among this machine's
    /// temporary files, then encrypted (an age file) beside `path`.
    @discardableResult
    public func backup(to path: String, limits: ArchiveLimits = ArchiveLimits(), encryptTo encryption: AgeKey? = nil)
        throws -> BackupReport
    {
        try engine.reading { try ArchiveExporter(store: $0).backup(to: path, limits: limits, encryption: encryption) }
    }

    /// Replaces the store at `storePath` with the one an archive holds, verified completely first; the previous
    /// store is kept beside it. A partial archive cannot be restored (import it instead).
    @discardableResult
    public static func restore(archive: String, to storePath: String, dryRun: Bool = false,
                               limits: ArchiveLimits = ArchiveLimits()) throws -> RestoreReport {
        do {
            return try ArchiveRestore.restore(archive: archive, to: storePath, dryRun: dryRun, limits: limits)
        } catch {
            throw MarginaliaError(error)
        }
    }
}
