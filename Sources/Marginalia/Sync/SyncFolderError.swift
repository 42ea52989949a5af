/// Why a sync folder was refused: a manifest this version cannot follow, a device directory that is a symbolic
/// link, a folder this store cannot write in, or encryption without an identity to authenticate with. Nothing was
/// merged or written.
package struct SyncFolderError: CategorizedError, Equatable {
    /// What is wrong with the folder's manifest.
    package enum Kind: Equatable, Sendable {
        /// The manifest is not a Marginalia sync manifest.
        case notAManifest
        /// The folder was written by a newer version of marginalia.
        case newerVersion
        /// `devices/` or this store's own directory in it is a symbolic link: written through, it would put the
        /// store's files elsewhere than the folder.
        case symbolicLink
        /// This store cannot create or write its own directory in the folder (a read-only folder or mount).
        case notWritable
        /// The store encrypts the segments it writes in the folder, and no identity of their recipients was given
        /// to authenticate them with.
        case identityNeeded
    }

    /// The file or directory refused.
    package var file: String
    /// What is wrong.
    package var kind: Kind
    /// What is wrong, in words.
    package var reason: String

    /// A refusal of the manifest at `file`.
    package init(file: String, kind: Kind, reason: String) {
        self.file = file
        self.kind = kind
        self.reason = reason
    }

    /// What kind of failure this is for the store's error.
    package var category: MarginaliaError.Category {
        switch kind {
        case .newerVersion: return .newerVersion
        case .notAManifest: return .invalidData
        case .symbolicLink, .identityNeeded: return .invalidArgument
        case .notWritable: return .io
        }
    }

    /// The refusal in words: the file and the reason.
    /// The file refused.
    package var facts: ErrorFacts { ErrorFacts(file: file) }

    package var description: String { "\(file): \(reason)" }
}
