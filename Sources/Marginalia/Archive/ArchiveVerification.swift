import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a complete check of an archive found.
public struct ArchiveVerification: Equatable, Sendable {
    /// What reading the archive found: header, counts and sizes.
    public var summary: ArchiveSummary
    /// State records found equal to the state rebuilt from the archive's changes.
    public var annotationsChecked = 0
    /// Position state records found equal to the state rebuilt from the archive's changes.
    public var positionsChecked = 0

    /// A verification of an archive read as `summary`, nothing checked yet.
    package init(summary: ArchiveSummary) {
        self.summary = summary
    }
}
