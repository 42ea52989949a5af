/// One document's annotations in an audit report, as `AnnotationStore.forEachAuditDocument` hands them over.
public struct AuditDocument: Hashable, Sendable {
    /// The document id.
    public var id: String
    /// Its annotations with changes in the report, in the order they were made.
    public var annotations: [AuditAnnotation]
    /// The changes shown under its annotations.
    public var changeCount: Int { annotations.reduce(0) { $0 + $1.versions.count } }
}
