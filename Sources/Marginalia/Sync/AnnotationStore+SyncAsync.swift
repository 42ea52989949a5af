// MARK: - Swift concurrency: sync rounds

/// Sync rounds as `async` calls that run off the caller's actor (`offActor`).
extension AnnotationStore {
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
}
