/// A change that differs from the change already held (in the log, in quarantine or earlier in the same batch)
/// under the same change id: a merge refuses it, and so the whole batch.
///
/// Each adapter says where the change came from: the archive names its file and line, `merge(_:)` the change's
/// place in the sequence it was handed.
package struct ChangeConflict: CategorizedError, Equatable {
    /// The change id both changes carry.
    package var changeID: String
    /// The change's place in what was handed to the merge (1-based; a file's line, an index), 0 when unknown.
    package var position: Int
    /// Where the other change is, in words.
    package var reason: String

    package var category: MarginaliaError.Category { .invalidData }

    package var description: String { reason }
}
