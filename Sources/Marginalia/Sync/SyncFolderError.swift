/// Why a sync folder was refused: its manifest is not one this version can follow. Nothing was read or written.
public struct SyncFolderError: CategorizedError, Equatable {
    /// What is wrong with the folder's manifest.
    public enum Kind: Equatable, Sendable {
        /// The manifest is not a Marginalia sync manifest.
        case notAManifest
        /// The folder was written by a newer version of marginalia.
        case newerVersion
    }

    /// The manifest's path.
    public var file: String
    /// What is wrong.
    public var kind: Kind
    /// What is wrong, in words.
    public var reason: String

    /// A refusal of the manifest at `file`.
    public init(file: String, kind: Kind, reason: String) {
        self.file = file
        self.kind = kind
        self.reason = reason
    }

    /// What kind of failure this is for the store's error: a newer folder, or one that is not a sync folder.
    public var category: MarginaliaError.Category { kind == .newerVersion ? .newerVersion : .invalidData }

    /// The refusal in words: the file and the reason.
    public var description: String { "\(file): \(reason)" }
}
