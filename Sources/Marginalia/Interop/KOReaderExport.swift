/// Reads the JSON of KOReader's exporter plugin: one book, or several under `documents`.
///
///     {"title": "Poezii", "author": "Mihai Eminescu", "created_on": 1764619200, "version": "…",
///      "entries": [{"page": 12, "time": 1764619200, "text": "…", "note": "…", "chapter": "Luceafărul",
///                   "drawer": "lighten", "color": "yellow", "sort": "highlight"}]}
///     {"created_on": 1764619200, "version": "…", "documents": [{"title": …, "author": …, "entries": […]}]}
///
/// Members it does not use (`exported`, `created_on`, `version`, `file`, `number_of_pages`, `chapter`, the
/// XPointers newer versions add) are left alone. An entry is a highlight of its `text`, with its `note` when it has
/// one; `sort` (`highlight`, `note`, `bookmark`) says otherwise for entries KOReader took from a Kindle's clippings.
/// An entry with no text is a note when it has one, else a bookmark of its page. `page` is a number or, for a
/// book with its publisher's page labels, a string; `time` is seconds since 1970 (UTC); `drawer`, the highlight's
/// style (`lighten`, `underscore`, `strikeout`, `invert`), is not kept: the store has no place for it.
package enum KOReaderExport {
    /// The highlights, notes and bookmarks of the file, in file order (book by book).
    /// - Parameter file: the file's name, for messages.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the document, the entry and the field that cannot be read.
    package static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        do {
            let root = try SourceText.json(bytes, file: file)
            guard case .object(let object) = root else {
                throw InteropError(file: file,
                                   reason: "expected KOReader's export, an object with \"entries\" or \"documents\"")
            }
            let books: [(label: String, object: JSONObject)]
            if let documents = object["documents"] {
                guard case .array(let values) = documents else {
                    throw InteropError(file: file, reason: "\"documents\" is not a list")
                }
                books = try values.enumerated().map { index, value in
                    guard case .object(let document) = value else {
                        throw InteropError(file: file,
                                           reason: "document \(index + 1) is not an object")
                    }
                    return ("document \(index + 1)", document)
                }
            } else if object["entries"] != nil {
                books = [("the book", object)]
            } else {
                throw InteropError(file: file,
                                   reason: "expected KOReader's export, an object with \"entries\" or \"documents\"")
            }
            var items: [ImportItem] = []
            for book in books {
                try read(book: book.object, label: book.label, file: file, into: &items)
            }
            return items
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Appends the entries of one book; an error names the book (`document 2 ("Poezii")`) and the entry.
    private static func read(book: JSONObject, label: String, file: String, into items: inout [ImportItem]) throws {
        func invalid(_ place: String, _ error: FieldError) -> InteropError {
            InteropError(file: file, reason: "\(place): \(error)")
        }
        let title: String
        let author: String?
        do {
            title = SourceText.clean(try string(book["title"], field: "title") ?? "")
            guard !title.isEmpty else { throw FieldError(field: "title", reason: "a book has a title") }
            author = try string(book["author"], field: "author").map(SourceText.clean).flatMap { $0.isEmpty ? nil : $0 }
            guard case .array? = book["entries"] else {
                throw FieldError(field: "entries", reason: "a book has its entries as a list")
            }
        } catch let error as FieldError {
            throw invalid(label, error)
        }
        let place = label == "the book" ? "" : "\(label) (\"\(title)\"), "
        for (index, value) in (book["entries"]?.arrayValue ?? []).enumerated() {
            do {
                guard case .object(let entry) = value else {
                    throw FieldError(field: "", reason: "an entry is an object")
                }
                var item = try self.item(entry, title: title, author: author)
                item.line = items.count + 1
                items.append(item)
            } catch let error as FieldError {
                throw invalid("\(place)entry \(index + 1)", error)
            }
        }
    }

    private static func item(_ entry: JSONObject, title: String, author: String?) throws -> ImportItem {
        let text = SourceText.clean(try string(entry["text"], field: "text") ?? "")
        let note = try string(entry["note"], field: "note").map(SourceText.clean).flatMap { $0.isEmpty ? nil : $0 }
        let sort = try string(entry["sort"], field: "sort")
        _ = try string(entry["drawer"], field: "drawer")
        let color = try string(entry["color"], field: "color").flatMap { $0.isEmpty ? nil : $0 }
        var location = ItemLocation()
        switch entry["page"] {
        case .int(let page)?: location.page = String(page)
        case .double(let page)? where page.rounded() == page && abs(page) < 1e15: location.page = String(Int64(page))
        case .string(let page)?: location.page = SourceText.clean(page).isEmpty ? nil : SourceText.clean(page)
        case .null?, nil: break
        case _?: throw FieldError(field: "page", reason: "a page is a number or a string")
        }
        let date: Int64?
        switch entry["time"] {
        case .int(let seconds)?:
            guard seconds >= 0, seconds < 253_402_300_800 else {
                throw FieldError(field: "time", reason: "\(seconds) is not a time in seconds since 1970")
            }
            date = seconds * 1000
        case .double(let seconds)?:
            guard seconds >= 0, seconds < 253_402_300_800 else {
                throw FieldError(field: "time", reason: "\(seconds) is not a time in seconds since 1970")
            }
            date = Int64(seconds * 1000)
        case .string(let text)?:
            guard let milliseconds = ClippingDate.milliseconds(text) else {
                throw FieldError(field: "time", reason: "\"\(text)\" is not a time")
            }
            date = milliseconds
        case .null?, nil: date = nil
        case _?: throw FieldError(field: "time", reason: "a time is seconds since 1970")
        }
        let kind: AnnotationKind
        switch sort {
        case "bookmark"?: kind = .bookmark
        case "note"?: kind = .note
        case "highlight"?, nil: kind = text.isEmpty ? (note == nil ? .bookmark : .note) : .highlight
        case let other?:
            throw FieldError(field: "sort", reason: "\"\(other)\" is not highlight, note or bookmark")
        }
        var item = ImportItem(format: .koreader, kind: kind, title: title, author: author, text: text, note: note,
                              location: location, date: date, color: color)
        switch kind {
        case .highlight:
            break
        case .note:
            // A note KOReader took from a Kindle carries its words as the entry's text.
            item.note = note ?? (text.isEmpty ? nil : text)
            item.text = ""
            guard item.note != nil else { throw FieldError(field: "text", reason: "a note without text") }
        case .bookmark:
            item.note = note ?? (text.isEmpty ? nil : text)
            item.text = ""
        }
        return item
    }

    /// The string of a member, nil when it is absent or null.
    private static func string(_ value: JSONValue?, field: String) throws -> String? {
        switch value {
        case .string(let text)?: return text
        case .null?, nil: return nil
        case _?: throw FieldError(field: field, reason: "expected a string")
        }
    }
}
