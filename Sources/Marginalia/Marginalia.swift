/// The library's name and version.
public enum Marginalia {
    /// This version of Marginalia (semantic versioning).
    public static let version = "0.1.0"
}
