/// A highlight, note or bookmark, as it stands now (the projection of its changes).
public struct Annotation: Hashable, Sendable, Identifiable, Codable {
    /// The annotation's id (a UUID), the same on every replica.
    public var id: String
    /// Highlight, note or bookmark.
    public var kind: AnnotationKind
    /// Where in the content it is.
    public var anchor: Anchor
    /// The content edition the annotation was made on.
    public var createdEdition: String
    /// The note text (for a bookmark, its title); nil when there is none.
    public var note: String?
    /// The highlight color's name; nil when there is none.
    public var color: String?
    /// Sorted.
    public var tags: [String]
    /// A deleted annotation is a tombstone: it stays in the store and can be undeleted.
    public var deleted: Bool
    /// The clock of the change that created it.
    public var createdAt: HLC
    /// The clock of the newest change applied to it.
    public var updatedAt: HLC

    /// An annotation with the given values (as the store builds it from its changes).
    public init(id: String, kind: AnnotationKind, anchor: Anchor, createdEdition: String, note: String?,
                color: String?, tags: [String], deleted: Bool, createdAt: HLC, updatedAt: HLC) {
        self.id = id
        self.kind = kind
        self.anchor = anchor
        self.createdEdition = createdEdition
        self.note = note
        self.color = color
        self.tags = tags
        self.deleted = deleted
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
