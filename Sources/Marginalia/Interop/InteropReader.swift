/// Reads another tool's file into items, whichever of the formats it is.
package enum InteropReader {
    /// The format of a file, told from its first bytes: Kindle clippings, KOReader's or W3C JSON, Readwise's
    /// CSV; nil when it is none of them (a Marginalia archive, which is gzip, is nil too).
    package static func detect(_ bytes: [UInt8]) -> InteropFormat? {
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
    package static func read(_ bytes: [UInt8], format: InteropFormat, file: String) throws -> [ImportItem] {
        var items: [ImportItem] = []
        try read(ByteArraySource(bytes), format: format, file: file) { items.append($0) }
        return items
    }

    /// Whether a file in `format` is read in pieces (Kindle clippings and Readwise's CSV, the formats whose files
    /// grow to hundreds of megabytes); the others are read whole.
    package static func streams(_ format: InteropFormat) -> Bool {
        format == .kindle || format == .readwise
    }

    /// Reads the items of `source` in `format`, giving each to `body` in file order; a format that `streams` is
    /// read in pieces, the others whole. The errors are those of `read(_:format:file:)`, and the same for the same
    /// file: an item too long for an annotation is reported once the whole file has been read (an item that
    /// cannot be read, anywhere, is what is wrong with the file then), and no item is given after it.
    package static func read(_ source: any ByteSource, format: InteropFormat, file: String,
                             pieceSize: Int = SourcePieces.defaultPieceSize,
                             _ body: (ImportItem) throws -> Void) throws {
        var tooLong: MarginaliaError?
        func take(_ item: ImportItem) throws {
            guard tooLong == nil else { return }
            let limit = FieldLimits.maxTextBytes
            let size = max(item.text.utf8.count, item.note?.utf8.count ?? 0)
            guard size <= limit else {
                tooLong = MarginaliaError(InteropError(file: file, line: item.line, reason: "the "
                    + "\(item.kind.rawValue) holds \(size) bytes of text; an annotation holds at most \(limit): "
                    + "nothing was imported (nothing is cut short)"))
                return
            }
            try body(item)
        }
        switch format {
        case .kindle: try KindleClippings.read(source, file: file, pieceSize: pieceSize, take)
        case .readwise: try ReadwiseCSV.read(source, file: file, pieceSize: pieceSize, take)
        default:
            for item in try items(try wholeFile(source), format: format, file: file) { try take(item) }
        }
        if let tooLong { throw tooLong }
    }

    /// Every byte of `source`.
    private static func wholeFile(_ source: any ByteSource) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: SourcePieces.defaultPieceSize)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
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
