/// Where an annotation stands against the attached content edition.
public enum AnchorStatus: String, Sendable, CaseIterable {
    /// Its quote is at its offsets.
    case intact
    /// Its quote, or a close match of it, is elsewhere in its passage or a neighbouring one (or at the same
    /// place, respelled): it can be re-anchored there.
    case moved
    /// Its passage is gone, or no acceptable match is left. It keeps its quote and note, and can be reattached.
    case orphaned
    /// No content is attached.
    case unchecked
}

/// One annotation checked against the attached content.
public struct AnchorCheck: Equatable, Sendable {
    /// The annotation, as it stands in the store.
    public var annotation: Annotation
    /// Whether its text is where its anchor says, has moved, or is gone.
    public var status: AnchorStatus
    /// For a moved annotation: where its text is now, in the attached edition.
    public var newAnchor: Anchor?
    /// For a moved annotation: how its text was found ("exact", "folded", "close, 2 edits").
    public var match: String?
    /// For an orphaned annotation: why.
    public var reason: String?

    /// A check of `annotation` with the given outcome.
    package init(annotation: Annotation, status: AnchorStatus, newAnchor: Anchor? = nil, match: String? = nil,
                reason: String? = nil) {
        self.annotation = annotation
        self.status = status
        self.newAnchor = newAnchor
        self.match = match
        self.reason = reason
    }
}

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
