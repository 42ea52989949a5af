import Foundation

/// The items of an import, sorted as they are read: the items that carry their own anchor in file order, and the
/// others by book, packed (`PackedItem`) into the import's scratch database, the books in the order each first
/// appears. A reader's items go straight in here, so that an import holds no more of the file in memory than one
/// item, and reads one book's items back at a time to plan it.
///
///     var books = try ImportBooks()
///     try InteropReader.read(source, format: .kindle, file: name) { try books.add($0) }
struct ImportBooks {
    /// One book of the file: its title and author as the file names them.
    struct Book {
        let id: Int64
        let title: String
        let author: String?
    }

    /// Where the items wait, and where the plan is made.
    let scratch: ImportScratch
    /// Items that carry their own anchor (`ImportItem.native`), in file order: only the formats read whole have
    /// them.
    var natives: [ImportItem] = []
    /// How many items were added.
    private(set) var itemCount = 0
    /// The book of the item added last: a file's items mostly come a book at a time.
    private var last: Book?

    /// No items yet.
    init() throws {
        scratch = try ImportScratch()
    }

    /// The items of `items`, sorted.
    init(_ items: [ImportItem]) throws {
        try self.init()
        for item in items { try add(item) }
    }

    /// Adds an item after those added before it.
    mutating func add(_ item: ImportItem) throws {
        itemCount += 1
        if item.native != nil {
            natives.append(item)
            return
        }
        let book = try book(title: item.title, author: item.author)
        try scratch.db.execute(sql: "INSERT INTO item (seq, book, packed) VALUES (?, ?, ?)",
                               arguments: [itemCount, book.id, PackedItem.pack(item, title: book.title,
                                                                               author: book.author)])
    }

    /// The book of that title and author, added when it is new: compared as Swift compares strings (canonically
    /// equivalent spellings are one book), which is as their NFC forms compare, byte for byte.
    private mutating func book(title: String, author: String?) throws -> Book {
        if let last, last.title == title, last.author == author { return last }
        let titleKey = title.precomposedStringWithCanonicalMapping
        let authorKey = author?.precomposedStringWithCanonicalMapping
        // SQLite compares text by its bytes (BINARY collation) and `IS` matches NULL to NULL.
        // https://www.sqlite.org/datatype3.html#collation and https://www.sqlite.org/lang_expr.html#isisnot
        let book: Book
        if let found = try scratch.db.fetchOne(
            sql: "SELECT id, title, author FROM book WHERE title_key = ? AND author_key IS ?",
            arguments: [titleKey, authorKey], { Book(id: try $0.int64(0), title: try $0.string(1),
                                                     author: $0.optionalString(2)) })
        {
            book = found
        } else {
            try scratch.db.execute(sql: "INSERT INTO book (title, author, title_key, author_key) VALUES (?, ?, ?, ?)",
                                   arguments: [title, author, titleKey, authorKey])
            book = Book(id: scratch.db.lastInsertRowID, title: title, author: author)
        }
        last = book
        return book
    }

    /// The first book added after the book with id `id` (0: the first book); nil after the last.
    func book(after id: Int64) throws -> Book? {
        try scratch.db.fetchOne(sql: "SELECT id, title, author FROM book WHERE id > ? ORDER BY id LIMIT 1",
                                arguments: [id]) { row in
            Book(id: try row.int64(0), title: try row.string(1), author: row.optionalString(2))
        }
    }

    /// Every book, in the order each first appeared (for tests and small files: a planner walks them with
    /// `book(after:)`).
    func books() throws -> [Book] {
        var books: [Book] = []
        while let next = try book(after: books.last?.id ?? 0) { books.append(next) }
        return books
    }

    /// How many items `book` holds.
    func count(of book: Book) throws -> Int {
        Int(try scratch.db.int(sql: "SELECT count(*) FROM item WHERE book = ?", arguments: [book.id]) ?? 0)
    }

    /// Gives `body` each item of `book`, in file order, with its place among all the file's items.
    func forEachItem(of book: Book, _ body: (_ seq: Int64, _ item: ImportItem) throws -> Void) throws {
        try scratch.db.forEachRow(sql: "SELECT seq, packed FROM item WHERE book = ? ORDER BY seq",
                                  arguments: [book.id]) { row in
            try body(try row.int64(0), try PackedItem.unpack(row.bytes(at: 1), title: book.title,
                                                             author: book.author))
        }
    }

    /// The items of `book`, in file order.
    func items(of book: Book) throws -> [ImportItem] {
        var items: [ImportItem] = []
        try forEachItem(of: book) { items.append($1) }
        return items
    }
}
