/// The items of an import, sorted as they are read: the items that carry their own anchor in file order, and the
/// others by book (packed, `PackedItems`), the books in the order each first appears. A reader's items go straight
/// in here, so that an import holds each item once and small, and unpacks one book at a time to plan it.
///
///     var books = ImportBooks()
///     try InteropReader.read(source, format: .kindle, file: name) { books.add($0) }
struct ImportBooks {
    /// One book of the file: its title and author as the file names them, and its items in file order, packed.
    struct Book {
        fileprivate(set) var packed: PackedItems
        var title: String { packed.title }
        var author: String? { packed.author }
        /// How many items it holds.
        var count: Int { packed.count }
        /// Its items, unpacked.
        var items: [ImportItem] { packed.unpacked() }
    }

    /// Items that carry their own anchor (`ImportItem.native`), in file order.
    var natives: [ImportItem] = []
    /// The other items, by book.
    var books: [Book] = []
    /// How many items were added.
    private(set) var itemCount = 0
    /// Where each book is in `books`, by title and author.
    private var places: [BookKey: Int] = [:]

    /// No items yet.
    init() {}

    /// The items of `items`, sorted.
    init(_ items: [ImportItem]) {
        for item in items { add(item) }
    }

    /// Adds an item after those added before it.
    mutating func add(_ item: ImportItem) {
        itemCount += 1
        if item.native != nil {
            natives.append(item)
            return
        }
        let key = BookKey(title: item.title, author: item.author)
        if let place = places[key] {
            books[place].packed.append(item)
        } else {
            places[key] = books.count
            var packed = PackedItems(title: item.title, author: item.author)
            packed.append(item)
            books.append(Book(packed: packed))
        }
    }

    /// The items of the book at `index`, which it then no longer holds.
    mutating func takeItems(ofBook index: Int) -> [ImportItem] {
        let book = books[index].packed
        books[index].packed = PackedItems(title: book.title, author: book.author)
        return book.unpacked()
    }
}

/// A book's title and author, which tell the books of a file apart.
private struct BookKey: Hashable {
    var title: String
    var author: String?
}
