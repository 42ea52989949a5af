/// Reads another tool's file into items, whichever of the formats it is.
public enum InteropReader {
    /// The format of a file, told from its first bytes: Kindle clippings, KOReader's or W3C JSON, Readwise's
    /// CSV; nil when it is none of them (a Marginalia archive, which is gzip, is nil too).
    public static func detect(_ bytes: [UInt8]) -> InteropFormat? {
        guard !(bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B),
              let text = String(validating: bytes.prefix(64 * 1024), as: UTF8.self)
                ?? String(validating: bytes.prefix(64 * 1024 - 3), as: UTF8.self) else { return nil }
        let start = text.unicodeScalars.drop { $0 == SourceText.byteOrderMark || $0.properties.isWhitespace }
        if let first = start.first, first == "{" || first == "[" {
            let head = String(String.UnicodeScalarView(start.prefix(4096)))
            if head.contains("\"\(CalibreAnnotations.type)\"") { return .calibre }
            if head.contains("\"@context\"") || head.contains("\"Annotation") { return .w3c }
            if head.contains("\"entries\"") || head.contains("\"documents\"") { return .koreader }
            return nil
        }
        let lines = SourceText.lines(String(String.UnicodeScalarView(start)))
        if let header = lines.first, MarginaliaCSV.looksLike(header: header) { return .csv }
        if let header = lines.first, ReadwiseCSV.looksLike(header: header) { return .readwise }
        if KindleClippings.looksLike(lines) { return .kindle }
        return nil
    }

    /// The items of a file in `format`.
    /// - Parameter file: the file's name, for messages.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the line or entry that cannot be read.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the line of an item whose text or note is longer than an
    ///   annotation holds: nothing is cut short.
    public static func read(_ bytes: [UInt8], format: InteropFormat, file: String) throws -> [ImportItem] {
        let items = try items(bytes, format: format, file: file)
        let limit = FieldLimits.maxTextBytes
        for item in items where item.text.utf8.count > limit || (item.note?.utf8.count ?? 0) > limit {
            let size = max(item.text.utf8.count, item.note?.utf8.count ?? 0)
            throw MarginaliaError(InteropError(file: file, line: item.line, reason: "the \(item.kind.rawValue) holds "
                + "\(size) bytes of text; an annotation holds at most \(limit): nothing was imported (nothing is cut "
                + "short)"))
        }
        return items
    }

    private static func items(_ bytes: [UInt8], format: InteropFormat, file: String) throws -> [ImportItem] {
        switch format {
        case .kindle: return try KindleClippings.read(bytes, file: file)
        case .koreader: return try KOReaderExport.read(bytes, file: file)
        case .readwise: return try ReadwiseCSV.read(bytes, file: file)
        case .w3c: return try WebAnnotationReader.read(bytes, file: file)
        case .csv, .calibre:
            do {
                return format == .csv ? try MarginaliaCSV.read(bytes, file: file)
                    : try CalibreAnnotations.read(bytes, file: file)
            } catch {
                throw MarginaliaError(error)
            }
        }
    }
}
