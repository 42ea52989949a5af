import Foundation

/// A restore that failed after it began to replace the store; says where the store and the copy of the
/// previous one are.
package struct RestoreError: CategorizedError, Equatable {
    /// The store that was being replaced.
    package let storePath: String
    /// What went wrong.
    package let reason: String
    /// The copy of the store as it was before the restore, if one was made.
    package let previousStore: String?
    /// Whether the store under its own name is known to hold its previous content, untouched.
    package let storeUnchanged: Bool
    /// The kind of failure (disk full, I/O, busy…) of the error that stopped the restore.
    package let category: MarginaliaError.Category

    init(storePath: String, reason: String, previousStore: String?, storeUnchanged: Bool,
         cause: (any Error)? = nil) {
        self.storePath = storePath
        self.reason = reason
        self.previousStore = previousStore
        self.storeUnchanged = storeUnchanged
        category = cause.map { MarginaliaError($0).category } ?? (storeUnchanged ? .io : .corruptStore)
    }

    /// The store being replaced.
    package var facts: ErrorFacts { ErrorFacts(file: storePath) }

    /// The failure in words, naming the store and the `.bak`.
    package var description: String {
        var text = "restore failed: \(reason); "
        text += storeUnchanged
            ? "\(storePath) was left as it was"
            : "\(storePath) did not verify after the restore"
        if let previousStore { text += "; the store as it was before is kept at \(previousStore)" }
        return text
    }
}
