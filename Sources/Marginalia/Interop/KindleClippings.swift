/// Reads Kindle's `My Clippings.txt`: every clipping, in file order.
///
/// A clipping is a title line (`Title (Author)`), a line describing it, a blank line, its text, and a line of ten
/// `=`. Every layout Kindles have written is read:
///
///     - Your Highlight on page 5 | Location 70-71 | Added on Monday, 30 November 2026 21:14:05
///     - Your Highlight Location 181-182 | Added on Tuesday, November 19, 2013 1:23:50 PM
///     - Highlight Loc. 563-64  | Added on Saturday, 29 April 17 21:23:29 GMT-02:23
///     - Highlight on Page 20 | Added on Monday, November 14, 2011, 10:24 AM
///     - Your Note on Page 41 | Location 391 | Added on …
///     - Your Bookmark on page 5 | Location 62 | Added on …
///
/// with byte-order marks at the start and before any clipping, and CRLF, LF or CR line endings. A short end
/// location is read as Kindles mean it (`563-64` is 563 to 564). Dates are read in English, month first or day
/// first, as UTC unless they give an offset.
package enum KindleClippings {
    /// The line that ends each clipping.
    static let separator = "=========="

    /// The clippings in `bytes`, in file order.
    /// - Parameter file: the file's name, for messages.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the line of a clipping that cannot be read.
    package static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        var items: [ImportItem] = []
        try read(ByteArraySource(bytes), file: file) { items.append($0) }
        return items
    }

    /// Reads the clippings of `source` in pieces, giving each to `body` in file order: a file of any size is read
    /// in the memory of one piece and one clipping.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the line of a clipping that cannot be read, or the first
    ///   byte that is not UTF-8 (wherever it is: that is checked first); what `body` throws.
    package static func read(_ source: any ByteSource, file: String,
                             pieceSize: Int = SourcePieces.defaultPieceSize,
                             _ body: (ImportItem) throws -> Void) throws {
        var lines = SourceLines(SourcePieces(source, file: file, pieceSize: pieceSize))
        var block: [(number: Int, text: String)] = []
        var number = 0
        func flush() throws {
            defer { block.removeAll(keepingCapacity: true) }
            // Blank lines between clippings (or a stray BOM line) are not a clipping.
            guard block.contains(where: { !$0.text.trimmingSpaces.isEmpty }) else { return }
            let item: ImportItem
            do {
                item = try clipping(block, file: file)
            } catch {
                try lines.checkRest()
                throw error
            }
            try body(item)
        }
        do {
            while let line = try lines.next() {
                number += 1
                if line.trimmingSpaces == separator {
                    try flush()
                } else {
                    block.append((number, line))
                }
            }
            try flush()
        } catch let error as InteropError {
            throw MarginaliaError(error)
        }
    }

    /// Whether `text` looks like a clippings file: a separator line, and a description line after a title.
    static func looksLike(_ lines: [String]) -> Bool {
        guard lines.contains(where: { $0.trimmingSpaces == separator }) else { return false }
        let first = lines.first { !$0.trimmingSpaces.isEmpty }
        guard let titleIndex = lines.firstIndex(where: { $0 == first }), titleIndex + 1 < lines.count else {
            return false
        }
        return lines[titleIndex + 1].hasPrefix("- ")
    }

    private static func clipping(_ block: [(number: Int, text: String)], file: String) throws -> ImportItem {
        var lines = block[...]
        while let first = lines.first, first.text.trimmingSpaces.isEmpty { lines = lines.dropFirst() }
        guard let titleLine = lines.first else {
            throw InteropError(file: file, line: block[0].number, reason: "an empty clipping")
        }
        func invalid(_ line: Int, _ reason: String) -> InteropError {
            InteropError(file: file, line: line, reason: reason)
        }
        guard let describing = lines.dropFirst().first else {
            throw invalid(titleLine.number,
                          "a clipping has a title but no line describing it (\"- Your Highlight …\")")
        }
        let (title, author) = splitTitle(SourceText.clean(titleLine.text))
        guard !title.isEmpty else { throw invalid(titleLine.number, "a clipping has no title") }
        let meta = try description(describing.text, line: describing.number, file: file)
        let body = lines.dropFirst(2).map(\.text).joined(separator: "\n")
        let text = SourceText.clean(body)
        var item = ImportItem(format: .kindle, kind: meta.kind, title: title, author: author, text: text,
                              location: meta.location, date: meta.date, line: titleLine.number)
        switch meta.kind {
        case .note:
            item.note = text
            item.text = ""
        case .bookmark:
            item.text = ""
            if !text.isEmpty { item.note = text }
        case .highlight:
            guard !text.isEmpty else { throw invalid(describing.number, "a highlight without text") }
        }
        return item
    }

    /// `Title (Author)` → ("Title", "Author"); a title without a trailing parenthesis has no author.
    static func splitTitle(_ line: String) -> (String, String?) {
        guard line.hasSuffix(")"), let open = line.lastIndex(of: "("), open > line.startIndex else {
            return (line, nil)
        }
        let author = SourceText.clean(line[line.index(after: open)..<line.index(before: line.endIndex)])
        let title = SourceText.clean(line[..<open])
        return title.isEmpty ? (line, nil) : (title, author.isEmpty ? nil : author)
    }

    private static func description(_ line: String, line number: Int, file: String) throws
        -> (kind: AnnotationKind, location: ItemLocation, date: Int64?)
    {
        func invalid(_ reason: String) -> InteropError {
            InteropError(file: file, line: number, reason: reason)
        }
        let trimmed = line.trimmingSpaces
        guard trimmed.hasPrefix("- ") else {
            throw invalid("expected a line describing the clipping (\"- Your Highlight …\"), not \"\(trimmed)\"")
        }
        let parts = trimmed.dropFirst(2).split(separator: "|").map { String(String($0).trimmingSpaces) }
        let head = parts.first?.lowercased() ?? ""
        let kind: AnnotationKind
        if head.contains("highlight") || head.hasPrefix("clip") {
            kind = .highlight
        } else if head.contains("note") {
            kind = .note
        } else if head.contains("bookmark") {
            kind = .bookmark
        } else {
            throw invalid("\"\(trimmed)\" is not a highlight, note or bookmark (clippings are read in English)")
        }
        var location = ItemLocation()
        var date: Int64?
        for part in parts {
            let words = part.split(separator: " ").map(String.init)
            for (index, word) in words.enumerated() where index + 1 < words.count {
                switch word.lowercased() {
                case "page":
                    location.page = words[index + 1]
                case "location", "loc.", "loc":
                    let range = words[index + 1].split(separator: "-", omittingEmptySubsequences: false)
                    guard let start = Int(range[0]) else { continue }
                    location.start = start
                    if range.count == 2, let written = Int(range[1]) {
                        location.end = fullEnd(start, range[1], written)
                    }
                default:
                    break
                }
            }
            if part.lowercased().hasPrefix("added on ") {
                date = ClippingDate.milliseconds(String(part.dropFirst("added on ".count)))
            }
        }
        return (kind, location, date)
    }

    /// Kindles shorten an end location to its last digits (`563-64`): the end takes the start's leading digits.
    private static func fullEnd(_ start: Int, _ text: Substring, _ written: Int) -> Int {
        guard written < start else { return written }
        let startText = String(start)
        guard text.count < startText.count, let full = Int(startText.dropLast(text.count) + text), full >= start else {
            return written
        }
        return full
    }
}
