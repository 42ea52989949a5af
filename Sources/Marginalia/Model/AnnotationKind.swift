/// What an annotation is.
public enum AnnotationKind: String, Sendable, CaseIterable, Codable {
    case highlight
    case note
    case bookmark
}
