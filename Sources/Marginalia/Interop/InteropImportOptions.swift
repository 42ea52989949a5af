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
