// MARK: - Swift concurrency: archives

/// Archives as `async` calls that run off the caller's actor (`offActor`).
extension AnnotationStore {
    /// Merges another machine's archive, as `importArchive(path:dryRun:acceptFuture:limits:)` does, off the
    /// caller's actor, with this call's progress.
    @discardableResult
    public func importArchive(path: String, dryRun: Bool = false, acceptFuture: Bool = false,
                              limits: ArchiveLimits = ArchiveLimits(),
                              progress: ProgressHandler? = nil) async throws -> ImportReport {
        try await Self.offActor(progress: progress) { handler in
            try self.importArchive(path: path, dryRun: dryRun, acceptFuture: acceptFuture, limits: limits,
                                   with: handler)
        }
    }

    /// Writes the archive to `path`, as `exportArchive(toFile:filter:force:encryptTo:)` does, off the caller's actor.
    @discardableResult
    public func exportArchive(toFile path: String, filter: ExportFilter = ExportFilter(), force: Bool = false,
                              encryptTo encryption: AgeKey? = nil,
                              progress: ProgressHandler? = nil) async throws -> ArchiveCounts {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.reading(progress: handler) {
                try ArchiveExporter(store: $0).exportArchive(toFile: path, filter: filter, force: force,
                                                             encryption: encryption)
            }
        }
    }

    /// Writes a verified backup to `path`, as `backup(to:limits:encryptTo:)` does, off the caller's actor.
    @discardableResult
    public func backup(to path: String, limits: ArchiveLimits = ArchiveLimits(), encryptTo encryption: AgeKey? = nil,
                       progress: ProgressHandler? = nil) async throws -> BackupReport {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.reading(progress: handler) {
                try ArchiveExporter(store: $0).backup(to: path, limits: limits, encryption: encryption)
            }
        }
    }

    /// Replaces the store at `storePath` with an archive's, as `restore(archive:to:dryRun:limits:)` does, off the
    /// caller's actor.
    @discardableResult
    public static func restore(archive: String, to storePath: String, dryRun: Bool = false,
                               limits: ArchiveLimits = ArchiveLimits()) async throws -> RestoreReport {
        try await offActor(progress: nil) { _ in
            try restore(archive: archive, to: storePath, dryRun: dryRun, limits: limits)
        }
    }
}
