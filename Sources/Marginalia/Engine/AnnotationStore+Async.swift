import Foundation

// MARK: - Swift concurrency

/// The long operations and the reads an app awaits, as `async` calls that run off the caller's actor.
///
/// Each runs the synchronous call on a thread of its own (never the caller's, never one of the cooperative pool's
/// threads blocked on a lock), hands `progress`, when given, this call's progress (instead of the store-wide
/// `progressHandler`), and stops when the awaiting task is cancelled: the work sees `.stop` at its next progress
/// point and rolls back whole, and the call throws a `MarginaliaError` of category `.cancelled`.
///
///     let report = try await store.importArchive(path: url.path) { progress in
///         Task { @MainActor in model.progress = progress }
///         return .proceed
///     }
extension AnnotationStore {
    /// Runs `work` on a thread of its own with `progress` wrapped so that the task's cancellation stops it.
    static func offActor<T: Sendable>(
        progress: ProgressHandler?, _ work: @escaping @Sendable (_ progress: @escaping ProgressHandler) throws -> T
    ) async throws -> T {
        let cancelled = CancellationFlag()
        let handler: ProgressHandler = { report in
            if cancelled.isSet { return .stop }
            return progress?(report) ?? .proceed
        }
        return try await withTaskCancellationHandler {
            if Task.isCancelled { throw MarginaliaError.cancelled }
            return try await withCheckedThrowingContinuation { continuation in
                let thread = Thread {
                    continuation.resume(with: Result { try work(handler) })
                }
                thread.name = "marginalia work"
                thread.start()
            }
        } onCancel: {
            cancelled.set()
        }
    }

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

    /// Brings in another tool's file (Kindle, KOReader, Readwise, W3C), as `importFile(_:name:format:options:)`
    /// does, off the caller's actor.
    public func importFile(_ bytes: [UInt8], name: String, format: InteropFormat? = nil,
                           options: InteropImportOptions = InteropImportOptions(),
                           progress: ProgressHandler? = nil) async throws -> InteropImportReport {
        try await Self.offActor(progress: progress) { _ in
            try self.importFile(bytes, name: name, format: format, options: options)
        }
    }

    /// Writes the archive to `path`, as `exportArchive(toFile:filter:force:encryptTo:)` does, off the caller's actor.
    @discardableResult
    public func exportArchive(toFile path: String, filter: ExportFilter = ExportFilter(), force: Bool = false,
                              encryptTo encryption: AgeKey? = nil,
                              progress: ProgressHandler? = nil) async throws -> ArchiveCounts {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.read(progress: handler) {
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
            try self.engine.read(progress: handler) {
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

    /// Runs one sync round through `folder`, as `sync(folder:compact:acceptFuture:recipients:identities:)` does,
    /// off the caller's actor.
    public func sync(folder: String, compact: Bool = false, acceptFuture: Bool = false,
                     recipients: [AgeRecipient]? = nil, identities: [AgeIdentity] = [],
                     progress: ProgressHandler? = nil) async throws -> SyncReport {
        let keys = SyncKeyRequest(recipients: recipients, identities: identities)
        return try await Self.offActor(progress: progress) { handler in
            try self.sync(folder: folder, compact: compact, acceptFuture: acceptFuture, keys: keys, progress: handler)
        }
    }

    /// Checks (and with `reanchor`, re-anchors) every annotation against the attached content, as
    /// `reconcileAnchors(reanchor:allowOlder:recordingPath:)` does, off the caller's actor.
    public func reconcileAnchors(reanchor: Bool = false, allowOlder: Bool = false, recordingPath: Bool = true,
                                 progress: ProgressHandler?) async throws -> ReconciliationReport {
        try await Self.offActor(progress: progress) { handler in
            try self.reconcileAnchors(reanchor: reanchor, allowOlder: allowOlder, recordingPath: recordingPath,
                                      with: handler)
        }
    }

    /// Checks the store as `verify()` does, off the caller's actor.
    public func verify(progress: ProgressHandler?) async throws -> VerificationReport {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.read(progress: handler) { try $0.verifier.verify() }
        }
    }

    /// The annotations that match `filter`, read off the caller's actor.
    public func annotations(matching filter: AnnotationFilter, progress: ProgressHandler?) async throws
        -> [Annotation]
    {
        try await Self.offActor(progress: progress) { _ in try self.annotations(matching: filter) }
    }

    /// Content search, as `searchContent(_:limit:markers:)` does, off the caller's actor.
    public func searchContent(_ text: String, limit: Int = 20, markers: SnippetMarkers = .brackets,
                              progress: ProgressHandler?) async throws -> [SearchHit] {
        try await Self.offActor(progress: progress) { _ in
            try self.searchContent(text, limit: limit, markers: markers)
        }
    }

    /// Merges changes from another store, as `merge(_:)` does, off the caller's actor.
    @discardableResult
    public func merge(_ changes: [Change], progress: ProgressHandler?) async throws -> MergeReport {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) { try $0.merger.merge(changes) }
        }
    }
}

/// A flag one thread sets and others read: the awaiting task was cancelled.
private final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}
