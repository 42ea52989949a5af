/// Reads the JSON of KOReader's exporter plugin.
public enum KOReaderExport {
    /// The highlights and notes of the file, in file order.
    public static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        throw MarginaliaError(ArchiveError(file: file, line: nil, kind: .invalidRecord,
                                           reason: "KOReader JSON is not read yet"))
    }
}
