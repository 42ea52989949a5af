/// The value of one field of an annotation, as history and diffs show it.
public enum FieldValue: Hashable, Sendable {
    /// No value: a note or color not set, a field of an annotation not yet made.
    case none
    /// A note or a color.
    case text(String)
    /// Whether a tag is present, or whether the annotation is deleted.
    case flag(Bool)
    /// What the annotation is.
    case kind(AnnotationKind)
    /// Where it is anchored.
    case anchor(Anchor)
    /// Every tag present, sorted.
    case tags([String])
}
