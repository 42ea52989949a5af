/// Reads W3C Web Annotation JSON-LD.
public enum WebAnnotationReader {
    /// The annotations of the file, in file order.
    public static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        throw MarginaliaError(ArchiveError(file: file, line: nil, kind: .invalidRecord,
                                           reason: "W3C Web Annotation is not read yet"))
    }
}
