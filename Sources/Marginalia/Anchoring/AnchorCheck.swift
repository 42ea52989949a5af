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
