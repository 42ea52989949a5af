/// A one-page audit report that would pass the size it was allowed: nothing was written.
package struct AuditReportTooLarge: CategorizedError, Equatable {
    /// The page that was asked for.
    package var path: String
    /// Its size so far when it was stopped (the documents alone, or the whole page), in bytes.
    package var bytes: Int
    /// The size allowed, in bytes.
    package var limit: Int

    /// The refusal in words: facts only; the CLI words the advice (`--split`).
    package var description: String {
        "the report would be at least \(bytes) bytes, over the \(limit) allowed for one page; \(path) was not written"
    }

    /// Not the input's fault: the same store written as pages goes through.
    package var category: MarginaliaError.Category { .refused }
}
