import Foundation

/// What importing an archive did (or would do, as a dry run): the merge's counts, and the archive's header.
///
/// The merge's counts read as the report's own (`report.newChanges`, `report.duplicates`, …).
@dynamicMemberLookup
public struct ImportReport: Equatable, Sendable {
    /// What merging the archive's changes did.
    public var merge = MergeReport()
    /// The archive's header, once read.
    public var header: ArchiveHeader?

    /// A report of nothing done yet.
    package init() {}

    /// The merge's count at `keyPath`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<MergeReport, Value>) -> Value {
        get { merge[keyPath: keyPath] }
        set { merge[keyPath: keyPath] = newValue }
    }
}
