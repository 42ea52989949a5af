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
