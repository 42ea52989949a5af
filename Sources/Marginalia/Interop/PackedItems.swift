/// The items of one book packed into bytes as they are read, and unpacked when the book is planned: an item so
/// held takes about the room of its text, not the several hundred bytes of an `ImportItem` and its strings.
/// Unpacking gives back exactly the items packed (the same bytes of every string). Items carrying their own anchor
/// (`ImportItem.native`) are not packed.
///
///     var packed = PackedItems(title: "Walden", author: nil)
///     packed.append(item)
///     let items = packed.unpacked()   // [item]
struct PackedItems {
    /// The book's title and author: an item whose title and author are these bytes stores neither.
    let title: String
    let author: String?
    /// How many items are packed.
    private(set) var count = 0
    private var bytes: [UInt8] = []

    /// No items yet, of the book with `title` and `author`.
    init(title: String, author: String?) {
        self.title = title
        self.author = author
    }

    /// Packs `item` after those packed before it.
    mutating func append(_ item: ImportItem) {
        precondition(item.native == nil, "an item carrying its own anchor is not packed")
        count += 1
        bytes.append(UInt8(InteropFormat.allCases.firstIndex(of: item.format) ?? 0))
        bytes.append(UInt8(AnnotationKind.allCases.firstIndex(of: item.kind) ?? 0))
        let ownTitle = !item.title.utf8.elementsEqual(title.utf8)
        let ownAuthor = item.author.map { mine in author.map { !mine.utf8.elementsEqual($0.utf8) } ?? true }
            ?? (author != nil)
        bytes.append((ownTitle ? 1 : 0) | (ownAuthor ? 2 : 0))
        if ownTitle { put(item.title) }
        if ownAuthor { put(optional: item.author) }
        put(item.text)
        put(optional: item.note)
        put(optional: item.location.start.map(Int64.init))
        put(optional: item.location.end.map(Int64.init))
        put(optional: item.location.page)
        put(optional: item.date)
        put(optional: item.color)
        put(Int64(item.tags.count))
        for tag in item.tags { put(tag) }
        put(Int64(item.line))
        put(optional: item.prefix)
        put(optional: item.suffix)
        put(optional: item.sourceID)
    }

    /// The items packed, in the order they were.
    func unpacked() -> [ImportItem] {
        var reader = Reader(bytes: bytes)
        var items: [ImportItem] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(reader.item(title: title, author: author)) }
        return items
    }

    // MARK: - Bytes

    private mutating func put(_ value: Int64) {
        // Zigzag, then seven bits a byte, low first (as protocol buffers' varints): small numbers take one byte.
        var rest = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private mutating func put(_ text: String) {
        put(Int64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    private mutating func put(optional value: Int64?) {
        bytes.append(value == nil ? 0 : 1)
        if let value { put(value) }
    }

    private mutating func put(optional text: String?) {
        bytes.append(text == nil ? 0 : 1)
        if let text { put(text) }
    }

    /// Reads back what `append` wrote.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func item(title bookTitle: String, author bookAuthor: String?) -> ImportItem {
            let format = InteropFormat.allCases[Int(byte())]
            let kind = AnnotationKind.allCases[Int(byte())]
            let own = byte()
            let title = own & 1 != 0 ? string() : bookTitle
            let author = own & 2 != 0 ? optionalString() : bookAuthor
            let text = string()
            let note = optionalString()
            let start = optionalInt().map(Int.init)
            let end = optionalInt().map(Int.init)
            let location = ItemLocation(start: start, end: end, page: optionalString())
            let date = optionalInt()
            let color = optionalString()
            let tags = (0..<Int(int())).map { _ in string() }
            let line = Int(int())
            return ImportItem(format: format, kind: kind, title: title, author: author, text: text, note: note,
                              location: location, date: date, color: color, tags: tags, line: line,
                              prefix: optionalString(), suffix: optionalString(), sourceID: optionalString())
        }

        mutating func byte() -> UInt8 {
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func int() -> Int64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = byte()
                value |= UInt64(next & 0x7F) << shift
                if next < 0x80 { break }
                shift += 7
            }
            return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }

        mutating func string() -> String {
            let length = Int(int())
            defer { offset += length }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }

        mutating func optionalInt() -> Int64? { byte() == 0 ? nil : int() }

        mutating func optionalString() -> String? { byte() == 0 ? nil : string() }
    }
}
