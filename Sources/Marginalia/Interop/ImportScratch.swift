/// The scratch database of one import: a private temporary file that SQLite deletes when the connection closes,
/// holding what an import would otherwise hold in memory for the whole file (its items by book, one book's groups
/// and placements, and the plan's changes), so that an import of any size runs in the memory of one item and one
/// annotation at a time, besides the content's passages. Nothing in it is the user's: the store is written only
/// by the merge, in one transaction, from the plan kept here.
final class ImportScratch {
    let db: SQLiteDatabase

    /// The page cache the scratch database may fill before it writes pages to its file.
    static let cacheKiB = 8 * 1024

    /// An empty scratch database.
    /// - Throws: `SQLiteError` when the temporary file cannot be made.
    init() throws {
        // "If the filename is an empty string, then a private, temporary on-disk database will be created. This
        // private database will be automatically deleted as soon as the database connection is closed."
        // https://www.sqlite.org/c3ref/open.html
        db = try SQLiteDatabase(path: "")
        // Nothing here outlives the connection, so nothing needs a journal or a sync; the cache is bounded so that
        // the database goes to its file instead of growing in memory.
        try db.executeScript(sql: """
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA temp_store = FILE;
            PRAGMA cache_size = -\(Self.cacheKiB);
            """)
        try db.executeScript(sql: Self.schema)
        // One transaction for the scratch database's life, never committed (the file goes with the connection):
        // each statement on its own would be a transaction whose commit walks the page cache.
        try db.executeScript(sql: "BEGIN")
    }

    /// The tables: items by book as read (`book`, `item`); one book's groups (`grp`, `member`, `seen`) and where
    /// its highlights are (`placement`, `highlight`, `known`), emptied for each book; the plan (`planned`,
    /// `planned_change`, a change in the columns of `quarantine`).
    private static let schema = """
        CREATE TABLE book (
            id INTEGER PRIMARY KEY, title TEXT NOT NULL, author TEXT, title_key TEXT NOT NULL, author_key TEXT);
        CREATE INDEX book_by_key ON book (title_key, author_key);
        CREATE TABLE item (seq INTEGER PRIMARY KEY, book INTEGER NOT NULL, packed BLOB NOT NULL);
        CREATE INDEX item_by_book ON item (book, seq);

        CREATE TABLE grp (
            id INTEGER PRIMARY KEY, first INTEGER NOT NULL, highlight INTEGER NOT NULL, sample INTEGER NOT NULL,
            start_key TEXT, end_location INTEGER, page TEXT, latest INTEGER NOT NULL, folded TEXT NOT NULL);
        CREATE INDEX grp_by_start ON grp (start_key) WHERE start_key IS NOT NULL;
        CREATE INDEX grp_by_end ON grp (end_location) WHERE end_location IS NOT NULL;
        CREATE INDEX grp_by_page ON grp (page) WHERE page IS NOT NULL;
        CREATE TABLE member (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, item INTEGER NOT NULL, note TEXT);
        CREATE INDEX member_by_grp ON member (grp, note);
        CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID;

        CREATE TABLE placement (
            id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, state INTEGER NOT NULL, value BLOB NOT NULL,
            offset INTEGER);
        CREATE TABLE highlight (
            id INTEGER PRIMARY KEY, placement INTEGER NOT NULL, location INTEGER, prefix TEXT, suffix TEXT);
        CREATE TABLE known (id INTEGER PRIMARY KEY, location REAL NOT NULL, offset REAL NOT NULL);
        CREATE INDEX known_by_location ON known (location, id);

        CREATE TABLE planned (
            id INTEGER PRIMARY KEY, annotation TEXT NOT NULL, orphaned INTEGER NOT NULL,
            orphan_location TEXT, orphan_text TEXT, orphan_reason TEXT);
        CREATE TABLE planned_change (
            id INTEGER PRIMARY KEY, planned INTEGER NOT NULL, known INTEGER NOT NULL DEFAULT 0,
            change_id TEXT NOT NULL, hlc TEXT NOT NULL, device TEXT NOT NULL, entity TEXT NOT NULL,
            entity_id TEXT NOT NULL, op TEXT NOT NULL, fields TEXT NOT NULL, wall INTEGER);
        CREATE INDEX planned_change_by_planned ON planned_change (planned);
        """

    /// Empties one book's tables, for the next book.
    func clearBook() throws {
        try db.executeScript(sql: """
            DELETE FROM grp; DELETE FROM member; DELETE FROM seen;
            DELETE FROM placement; DELETE FROM highlight; DELETE FROM known;
            """)
    }

    /// Empties the placements of the book being planned (a book found by no text is none).
    func clearPlacements() throws {
        try db.executeScript(sql: "DELETE FROM placement; DELETE FROM highlight; DELETE FROM known;")
    }
}

@available(*, unavailable)
extension ImportScratch: Sendable {}
