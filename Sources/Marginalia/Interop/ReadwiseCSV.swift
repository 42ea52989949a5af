/// Reads Readwise's CSV export (`Highlight, Book Title, Book Author, Amazon Book ID, Note, Color, Tags, Location
/// Type, Location, Highlighted at, Document tags`).
public enum ReadwiseCSV {
    /// Whether a first line is Readwise's header.
    static func looksLike(header: String) -> Bool {
        header.hasPrefix("Highlight,") && header.contains("Book Title")
    }

    /// The highlights of the file, in file order.
    public static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        throw MarginaliaError(ArchiveError(file: file, line: nil, kind: .invalidRecord,
                                           reason: "Readwise CSV is not read yet"))
    }
}
