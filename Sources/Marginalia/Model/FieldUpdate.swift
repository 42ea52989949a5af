/// A new value for a text field of an annotation: set it, or clear it.
public enum FieldUpdate: Hashable, Sendable {
    case set(String)
    case clear
}
