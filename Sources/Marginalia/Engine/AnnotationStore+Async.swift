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

// MARK: - Single writes

/// The writes an app makes from its UI, as `async` calls that wait for the writer off the caller's actor: a
/// `@MainActor` caller is never blocked while an import's step or another task's batch holds the writer.
///
/// Each takes the synchronous call's arguments and does what it does, in one transaction, throwing the same
/// `MarginaliaError`s. `progress` stands in for the store-wide `progressHandler` during the call, as in every
/// async form (a single write reports none), and tells the two forms apart: an async form with the blocking
/// call's very signature would be the one chosen, and awaited, in every async context. A task cancelled before
/// the write begins writes nothing and throws `.cancelled`; a write once begun runs to its end.
///
///     let highlight = try await store.createAnnotation(.highlight, at: request, note: text, progress: nil)
extension AnnotationStore {
    /// Makes a highlight, note or bookmark, as `createAnnotation(_:at:note:color:tags:)` does, off the caller's
    /// actor.
    @discardableResult
    public func createAnnotation(_ kind: AnnotationKind, at request: AnchorRequest, note: String? = nil,
                                 color: String? = nil, tags: [String] = [], progress: ProgressHandler?) async throws
        -> Annotation
    {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) {
                try $0.createAnnotation(kind, at: request, note: note, color: color, tags: tags)
            }
        }
    }

    /// Sets the note or color, adds and removes tags, as `editAnnotation(id:note:color:addTags:removeTags:)` does,
    /// off the caller's actor.
    @discardableResult
    public func editAnnotation(id: String, note: String? = nil, color: String? = nil, addTags: [String] = [],
                               removeTags: [String] = [], progress: ProgressHandler?) async throws -> Annotation {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) {
                try $0.editAnnotation(id: id, note: note, color: color, addTags: addTags, removeTags: removeTags)
            }
        }
    }

    /// Deletes an annotation, as `deleteAnnotation(id:)` does, off the caller's actor.
    @discardableResult
    public func deleteAnnotation(id: String, progress: ProgressHandler?) async throws -> Annotation {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) { try $0.deleteAnnotation(id: id) }
        }
    }

    /// Brings a deleted annotation back, as `undeleteAnnotation(id:)` does, off the caller's actor.
    @discardableResult
    public func undeleteAnnotation(id: String, progress: ProgressHandler?) async throws -> Annotation {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) { try $0.undeleteAnnotation(id: id) }
        }
    }

    /// Anchors an annotation again by hand, as `reattachAnnotation(id:at:)` does, off the caller's actor.
    @discardableResult
    public func reattachAnnotation(id: String, at request: AnchorRequest, progress: ProgressHandler?) async throws
        -> Annotation
    {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) { try $0.anchoring.reattachAnnotation(id: id, at: request) }
        }
    }

    /// Sets the reading position in `document`, as `setPosition(document:at:)` does, off the caller's actor.
    @discardableResult
    public func setPosition(document: String, at position: TextPosition, progress: ProgressHandler?) async throws
        -> ReadingPosition
    {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) { try $0.setPosition(document: document, at: position) }
        }
    }

    /// Sets an annotation back to its state right after `change`, as `revertAnnotation(id:to:)` does, off the
    /// caller's actor.
    @discardableResult
    public func revertAnnotation(id: String, to change: String, progress: ProgressHandler?) async throws
        -> RevertResult
    {
        try await Self.offActor(progress: progress) { handler in
            try self.engine.write(progress: handler) { try $0.revertAnnotation(id: id, to: change) }
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
