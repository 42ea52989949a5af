/// Which annotations to list.
public struct AnnotationFilter: Equatable, Sendable {
    /// Annotations in this document.
    public var document: String?
    /// Annotations that start or end in this passage.
    public var passage: String?
    /// Annotations of this kind.
    public var kind: AnnotationKind?
    /// Annotations with this tag, ignoring case and diacritics as search does (`tara` finds `ţară`); tags are
    /// stored as written.
    public var tag: String?
    /// Include deleted annotations (tombstones).
    public var includeDeleted = false

    /// A filter with the given conditions; nil for no condition, deleted annotations left out by default.
    public init(document: String? = nil, passage: String? = nil, kind: AnnotationKind? = nil, tag: String? = nil,
                includeDeleted: Bool = false) {
        self.document = document
        self.passage = passage
        self.kind = kind
        self.tag = tag
        self.includeDeleted = includeDeleted
    }
}
