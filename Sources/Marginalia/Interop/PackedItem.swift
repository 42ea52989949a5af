/// One item of a book packed into bytes as it is read, to wait in an import's scratch database until its book is
/// planned: an item so held takes about the room of its text. Unpacking gives back exactly the item packed (the same
/// bytes of every string). Items carrying their own anchor (`ImportItem.native`) are not packed.
///
///     let bytes = PackedItem.pack(item, title: "Walden", author: nil)
///     let same = try PackedItem.unpack(bytes, title: "Walden", author: nil)   // item
enum PackedItem {
    /// The bytes of `item`, of the book with `title` and `author`: an item whose title and author are these bytes
    /// stores neither.
    static func pack(_ item: ImportItem, title: String, author: String?) -> [UInt8] {
        precondition(item.native == nil, "an item carrying its own anchor is not packed")
        var writer = PackedWriter()
        writer.put(byte: UInt8(InteropFormat.allCases.firstIndex(of: item.format) ?? 0))
        writer.put(byte: UInt8(AnnotationKind.allCases.firstIndex(of: item.kind) ?? 0))
        let ownTitle = !item.title.utf8.elementsEqual(title.utf8)
        let ownAuthor = item.author.map { mine in author.map { !mine.utf8.elementsEqual($0.utf8) } ?? true }
            ?? (author != nil)
        writer.put(byte: (ownTitle ? 1 : 0) | (ownAuthor ? 2 : 0))
        if ownTitle { writer.put(item.title) }
        if ownAuthor { writer.put(optional: item.author) }
        writer.put(item.text)
        writer.put(optional: item.note)
        writer.put(optional: item.location.start)
        writer.put(optional: item.location.end)
        writer.put(optional: item.location.page)
        writer.put(optional: item.date)
        writer.put(optional: item.color)
        writer.put(item.tags.count)
        for tag in item.tags { writer.put(tag) }
        writer.put(item.line)
        writer.put(optional: item.prefix)
        writer.put(optional: item.suffix)
        writer.put(optional: item.sourceID)
        return writer.bytes
    }

    /// The item `pack` made these bytes of, for the same book.
    /// - Throws: `StoreError.corruptRow` for bytes `pack` did not make.
    static func unpack(_ bytes: UnsafeRawBufferPointer, title bookTitle: String, author bookAuthor: String?) throws
        -> ImportItem
    {
        var reader = PackedReader(bytes)
        let formats = InteropFormat.allCases
        let kinds = AnnotationKind.allCases
        let formatIndex = Int(try reader.byte())
        let kindIndex = Int(try reader.byte())
        guard formatIndex < formats.count, kindIndex < kinds.count else {
            throw StoreError.corruptRow(reason: "an import's scratch database holds an item of an unknown kind")
        }
        let own = try reader.byte()
        let title = own & 1 != 0 ? try reader.string() : bookTitle
        let author = own & 2 != 0 ? try reader.optionalString() : bookAuthor
        let text = try reader.string()
        let note = try reader.optionalString()
        let start = try reader.optionalInt()
        let end = try reader.optionalInt()
        let location = ItemLocation(start: start, end: end, page: try reader.optionalString())
        let date = try reader.optionalInt64()
        let color = try reader.optionalString()
        let tags = try (0..<max(0, try reader.int())).map { _ in try reader.string() }
        let line = try reader.int()
        return ImportItem(format: formats[formatIndex], kind: kinds[kindIndex], title: title, author: author,
                          text: text, note: note, location: location, date: date, color: color, tags: tags,
                          line: line, prefix: try reader.optionalString(), suffix: try reader.optionalString(),
                          sourceID: try reader.optionalString())
    }

    /// `unpack` of an array's bytes.
    static func unpack(_ bytes: [UInt8], title: String, author: String?) throws -> ImportItem {
        try bytes.withUnsafeBytes { try unpack($0, title: title, author: author) }
    }
}
