/// Writes annotations in Readwise's CSV import layout: `Highlight, Title, Author, URL, Note, Location, Date`, one row
/// per highlight and note (bookmarks have no text to import), UTF-8, quoted as RFC 4180 says.
///
/// "Fields containing line breaks (CRLF), double quotes, and commas should be enclosed in double-quotes … a double-quote
/// appearing inside a field must be escaped by preceding it with another double quote"; lines end with CRLF.
/// https://www.rfc-editor.org/rfc/rfc4180#section-2
package enum ReadwiseCSVWriter {
    /// The columns, as Readwise names them.
    package static let columns = ["Highlight", "Title", "Author", "URL", "Note", "Location", "Date"]

    /// The CSV text of `annotations`, and how many rows it holds.
    package static func render(_ annotations: some Sequence<Annotation>, context: InteropExportContext)
        -> (text: String, rows: Int)
    {
        var out = row(columns)
        var rows = 0
        for annotation in context.readingOrder(annotations) where annotation.kind != .bookmark {
            let quote = annotation.anchor.quote
            let note = annotation.note ?? ""
            // Readwise requires a highlight; a note with no text of the book is its own highlight.
            let highlight = quote.isEmpty ? note : quote
            guard !highlight.isEmpty else { continue }
            rows += 1
            let location = context.passageOrder[annotation.anchor.start.passage].map { String($0 + 1) } ?? ""
            out += row([highlight, context.title(of: annotation.anchor.document), "", "", quote.isEmpty ? "" : note,
                        location, Timestamp.iso8601(milliseconds: context.created(annotation))
                            .replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")])
        }
        return (out, rows)
    }

    private static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
