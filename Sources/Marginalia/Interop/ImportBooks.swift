/// The items of an import, sorted as they are read: the items that carry their own anchor in file order, and the
/// others by book, the books in the order each first appears. A reader's items go straight in here, so that an
/// import holds each item once, and the planning can let go of a book's items once it has planned the book.
///
///     var books = ImportBooks()
///     try InteropReader.read(source, format: .kindle, file: name) { books.add($0) }
struct ImportBooks {
    /// One book of the file: its title and author as the file names them, and its items in file order.
    struct Book {
        var title: String
        var author: String?
        var items: [ImportItem]
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
            var item = item
            // The book's own title and author, when they are the same bytes: one copy for all its items. (Titles
            // equal only as Unicode, differently composed, keep their own bytes, which the derived ids hash.)
            if item.title.utf8.elementsEqual(books[place].title.utf8) { item.title = books[place].title }
            if let author = books[place].author, item.author?.utf8.elementsEqual(author.utf8) == true {
                item.author = author
            }
            books[place].items.append(item)
        } else {
            places[key] = books.count
            books.append(Book(title: item.title, author: item.author, items: [item]))
        }
    }

    /// The items of the book at `index`, which it then no longer holds.
    mutating func takeItems(ofBook index: Int) -> [ImportItem] {
        let items = books[index].items
        books[index].items = []
        return items
    }
}

/// A book's title and author, which tell the books of a file apart.
private struct BookKey: Hashable {
    var title: String
    var author: String?
}
