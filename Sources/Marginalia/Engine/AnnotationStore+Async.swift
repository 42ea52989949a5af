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
            try self.engine.write(progress: handler) { try $0.merging { try $0.merge(changes) } }
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
