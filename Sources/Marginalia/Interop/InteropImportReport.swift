/// How an import of another tool's file is to be done.
public struct InteropImportOptions: Equatable, Sendable {
    /// Import the items of books the content does not hold, as orphans, instead of only counting them.
    public var keepUnmatched: Bool
    /// Report what would happen, and write nothing.
    public var dryRun: Bool
    /// The document of the content that a book whose title matches none is (a Kindle title that differs from the
    /// content's); nil: such a book is looked for by its texts.
    public var document: String?

    /// Options with the given values; by default unmatched books are only counted, and the import is written.
    public init(keepUnmatched: Bool = false, dryRun: Bool = false, document: String? = nil) {
        self.keepUnmatched = keepUnmatched
        self.dryRun = dryRun
        self.document = document
    }
}

/// A book of the file whose title the content does not hold, taken for one of its documents: by its texts (most of
/// them are in that document), or as `InteropImportOptions.document` said.
public struct MatchedBook: Equatable, Sendable {
    /// Its title, as the file names it.
    public var title: String
    /// Its author, when the file names one.
    public var author: String?
    /// The document it was taken for.
    public var document: String
    /// Of its highlights looked for, how many were found in that document; nil when the option named it.
    public var textsFound: Int?
    /// How many of its highlights were looked for.
    public var textsTried: Int?
}

/// An annotation an import made an orphan, and why: where it is in the source, the start of its text, the reason
/// ("found at 2 places", "not found in the book").
public struct ImportOrphan: Equatable, Sendable {
    /// Where it is in the source, in the source's terms (`location 34-35`, `page 3`).
    public var location: String
    /// The start of its text (60 characters at most).
    public var text: String
    /// Why it was not placed.
    public var reason: String
}

/// A book of the file that the attached content does not hold.
public struct UnmatchedBook: Equatable, Sendable {
    /// Its title, as the file names it.
    public var title: String
    /// Its author, when the file names one.
    public var author: String?
    /// How many of the file's items are of this book.
    public var items: Int
    /// The document holding the most of its texts, when some were found but not most.
    public var closestDocument: String?
}

/// What importing another tool's file did (or, with a dry run, would do), counted in annotations.
public struct InteropImportReport: Equatable, Sendable {
    /// The format read.
    public var format: InteropFormat
    /// Highlights, notes and bookmarks in the file.
    public var itemsRead = 0
    /// Annotations new to the store.
    public var created = 0
    /// Of those, the ones anchored to the content by their text (or by their own anchor).
    public var anchored = 0
    /// Of those, the ones kept as orphans: their text was not found once, or they carry none (bookmarks, notes
    /// of their own). They keep their text, note, title and location, and can be re-attached.
    public var orphaned = 0
    /// Annotations already here that the file changed (a note added, a highlight resized).
    public var updated = 0
    /// Annotations already here with everything the file says of them.
    public var duplicates = 0
    /// Annotations new to the store held in quarantine (dated more than a day ahead of this machine's clock): in
    /// the store once their time comes, not counted as created.
    public var held = 0
    /// Notes that became the note of the highlight they were made on.
    public var notesOnHighlights = 0
    /// Later clippings of a highlight that was resized, recorded as edits of one annotation.
    public var resized = 0
    /// Items of books the content does not hold: imported as orphans with `keepUnmatched`, else left out.
    public var unmatchedItems = 0
    /// Those books, in file order.
    public var unmatchedBooks: [UnmatchedBook] = []
    /// Books whose title matches no document, taken for one by their texts or by the option.
    public var matchedBooks: [MatchedBook] = []
    /// The orphans made, with their reasons (the first 100).
    public var orphans: [ImportOrphan] = []
    /// Whether the unmatched books' items were imported (as orphans).
    public var keptUnmatched = false
    /// What the merge of the changes did (change counts, quarantine).
    public var merge = MergeReport()

    /// An empty report for `format`.
    package init(format: InteropFormat) {
        self.format = format
    }
}
