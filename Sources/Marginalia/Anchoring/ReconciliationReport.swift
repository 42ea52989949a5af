/// What reconciling every annotation with the attached edition found (and, with re-anchoring, did).
public struct ReconciliationReport: Equatable, Sendable {
    /// The attached edition; nil when no content is attached.
    public var edition: String?
    /// Annotations whose text is where their anchor says.
    public var intact = 0
    /// Annotations whose text was found elsewhere in the attached edition.
    public var moved = 0
    /// Annotations whose text is no longer in the attached edition.
    public var orphaned = 0
    /// Annotations that could not be checked (no content is attached).
    public var unchecked = 0
    /// Every annotation that is not intact, in reading order.
    public var checks: [AnchorCheck] = []
    /// Re-anchor changes written to the log (moves).
    public var reanchored = 0
    /// Confirm changes written to the log (intact annotations now anchored on this edition).
    public var confirmed = 0

    /// An empty report for `edition` (nil when no content is attached).
    package init(edition: String?) {
        self.edition = edition
    }

    /// Every annotation is one of the four.
    public var total: Int { intact + moved + orphaned + unchecked }

    mutating func count(_ status: AnchorStatus) {
        switch status {
        case .intact: intact += 1
        case .moved: moved += 1
        case .orphaned: orphaned += 1
        case .unchecked: unchecked += 1
        }
    }
}
