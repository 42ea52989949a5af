/// A field of an annotation, as a diff compares it.
public enum AnnotationField: String, Hashable, Sendable, CaseIterable {
    case kind
    case anchor
    case note
    case color
    case tags
    case deleted
}
