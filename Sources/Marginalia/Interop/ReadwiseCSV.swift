/// Reads Readwise's CSV export, and the CSV Readwise imports (which `ReadwiseCSVWriter` writes), so that an
/// export of the store's own comes back in:
///
///     Highlight,Book Title,Book Author,Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,
///         Document tags   (one line)
///     Highlight,Title,Author,URL,Note,Location,Date
///
/// Columns are found by their names in the header, in any order; only `Highlight` and the title are required.
/// `Location` is a place in the book's locations (`Location Type` `location`, or `order` and none: the writer's
/// passage number) or a page (`page`); a location that is not a number is kept as a page label. `Highlighted at`
/// (or `Date`) is read as Readwise writes it,
/// `2021-03-14 18:22:05+00:00`, or as ISO 8601; `Tags` are separated by commas. A row with a note and no highlight
/// is a note. The text is UTF-8, with or without a byte-order mark, in CRLF or LF lines, quoted as RFC 4180 says
/// (see `CSVRecords`).
package enum ReadwiseCSV {
    /// The columns this reads, each by the names the two layouts give it.
    private enum Column: CaseIterable {
        case highlight, title, author, note, color, tags, locationType, location, date

        var names: [String] {
            switch self {
            case .highlight: return ["highlight"]
            case .title: return ["book title", "title"]
            case .author: return ["book author", "author"]
            case .note: return ["note"]
            case .color: return ["color"]
            case .tags: return ["tags"]
            case .locationType: return ["location type"]
            case .location: return ["location"]
            case .date: return ["highlighted at", "date"]
            }
        }
    }

    /// Whether a first line is a header of Readwise's (its export's or its import's): a `Highlight` column and a
    /// title column.
    static func looksLike(header: String) -> Bool {
        guard let record = try? CSVRecords.records(header).first else { return false }
        let names = Set(record.fields.map(normalized))
        return names.contains("highlight") && (names.contains("book title") || names.contains("title"))
    }

    /// The highlights and notes of the file, in file order.
    /// - Parameter file: the file's name, for messages.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the line of a row that cannot be read.
    package static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        var items: [ImportItem] = []
        try read(ByteArraySource(bytes), file: file) { items.append($0) }
        return items
    }

    /// Reads the rows of `source` in pieces, giving each item to `body` in file order. A row that cannot be read is
    /// reported once the whole file has been read as CSV, as when the file was read whole (a syntax error further
    /// on, or a byte that is not UTF-8, is what is wrong with it then); no item is given after it.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the line of a row that cannot be read; what `body`
    ///   throws.
    package static func read(_ source: any ByteSource, file: String,
                             pieceSize: Int = SourcePieces.defaultPieceSize,
                             _ body: (ImportItem) throws -> Void) throws {
        do {
            var header: CSVRecords.Record?
            var columns: [Column: Int] = [:]
            var refusal: InteropError?
            try CSVRecords.read(source, file: file, pieceSize: pieceSize) { record in
                guard refusal == nil else { return }
                do {
                    guard let header else {
                        columns = try self.columns(record, file: file)
                        header = record
                        return
                    }
                    func invalid(_ reason: String) -> InteropError {
                        InteropError(file: file, line: record.line, reason: reason)
                    }
                    guard record.fields.count == header.fields.count else {
                        throw invalid("\(record.fields.count) fields where the header has \(header.fields.count)")
                    }
                    // A row of empty fields (a spreadsheet's blank line) is nothing to read.
                    if record.fields.allSatisfy({ $0.trimmingSpaces.isEmpty }) { return }
                    if let item = try item(record, columns: columns, invalid: invalid) { try body(item) }
                } catch let error as InteropError {
                    refusal = error
                }
            }
            if let refusal { throw refusal }
            guard header != nil else {
                throw InteropError(file: file, reason: "an empty file has no Readwise header")
            }
        } catch let error as InteropError {
            throw MarginaliaError(error)
        }
    }

    /// Where each column is in a row; an error when the header lacks the highlight or the title.
    private static func columns(_ header: CSVRecords.Record, file: String) throws -> [Column: Int] {
        let names = header.fields.map(normalized)
        var columns: [Column: Int] = [:]
        for column in Column.allCases {
            // The first name wins: `Book Title` over a `Title` column, when a file has both.
            for name in column.names {
                if let index = names.firstIndex(of: name) {
                    columns[column] = index
                    break
                }
            }
        }
        for required in [Column.highlight, .title] where columns[required] == nil {
            let name = required == .highlight ? "Highlight" : "Book Title"
            throw InteropError(file: file, line: header.line,
                               reason: "the header has no \"\(name)\" column (it has "
                                   + header.fields.map { "\"\($0)\"" }.joined(separator: ", ") + ")")
        }
        return columns
    }

    private static func item(_ record: CSVRecords.Record, columns: [Column: Int],
                             invalid: (String) -> InteropError) throws -> ImportItem? {
        func value(_ column: Column) -> String {
            columns[column].map { SourceText.clean(record.fields[$0]) } ?? ""
        }
        let text = value(.highlight)
        let note = value(.note)
        let title = value(.title)
        guard !title.isEmpty else { throw invalid("a row without a book title") }
        guard !text.isEmpty || !note.isEmpty else { throw invalid("a row with neither a highlight nor a note") }
        var location = ItemLocation()
        let place = value(.location)
        if !place.isEmpty {
            switch value(.locationType).lowercased() {
            case "page": location.page = place
            default:
                // `location`, `order` (the highlight's rank in the book), or none: a number in reading order;
                // anything else is kept as the source's label for the place.
                if let start = Int(place), start >= 0 { location.start = start } else { location.page = place }
            }
        }
        let written = value(.date)
        var date: Int64?
        if !written.isEmpty {
            guard let milliseconds = ClippingDate.milliseconds(written) else {
                throw invalid("\"\(written)\" is not a date (Readwise writes 2021-03-14 18:22:05+00:00)")
            }
            date = milliseconds
        }
        let tags = value(.tags).split(separator: ",").map { SourceText.clean($0) }.filter { !$0.isEmpty }
        let author = value(.author)
        let color = value(.color)
        return ImportItem(format: .readwise, kind: text.isEmpty ? .note : .highlight, title: title,
                          author: author.isEmpty ? nil : author, text: text, note: note.isEmpty ? nil : note,
                          location: location, date: date, color: color.isEmpty ? nil : color, tags: tags,
                          line: record.line)
    }

    /// A header's name as it is compared: without surrounding spaces, in lower case.
    private static func normalized(_ name: String) -> String {
        String(name.trimmingSpaces).lowercased()
    }
}
