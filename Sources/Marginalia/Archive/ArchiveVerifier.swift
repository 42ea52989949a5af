import Foundation

/// What a complete check of an archive found.
public struct ArchiveVerification: Equatable, Sendable {
    public var summary: ArchiveSummary
    /// State records found equal to the state rebuilt from the archive's changes.
    public var annotationsChecked = 0
    public var positionsChecked = 0

    public init(summary: ArchiveSummary) {
        self.summary = summary
    }
}

/// Checks archives completely: every byte inflated and its CRC and length checked, every record validated, the
/// trailer's counts matched, and (for a full archive) the state records equal to the state rebuilt by
/// replaying the archive's changes into a scratch store.
public enum ArchiveVerifier {
    /// Verifies the archive at `path` without touching any store.
    public static func verify(path: String, limits: ArchiveLimits = ArchiveLimits()) throws -> ArchiveVerification {
        // The scratch store lives (and its directory with it) until the check is done.
        let scratch = try ScratchStore()
        return try withExtendedLifetime(scratch) {
            try scratch.store.db.transaction(.immediate) {
                try scratch.store.mergeArchive(path: path, limits: limits, checkState: true, comparingWith: nil)
                    .verification
            }
        }
    }
}

/// An empty store in a temporary file, removed when released.
final class ScratchStore {
    let directory: URL
    let store: AnnotationStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-\(Identifiers.make())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try AnnotationStore.open(path: directory.appendingPathComponent("scratch.db").path, access: .create)
        // A scratch store is thrown away: durability would only slow the check down.
        try store.db.executeScript(sql: "PRAGMA synchronous = OFF")
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}
