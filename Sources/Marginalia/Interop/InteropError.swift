/// Why another tool's file (Kindle clippings, a KOReader or Readwise export, W3C annotations, a source text) was
/// refused: it names the file, and the line when there is one.
package struct InteropError: CategorizedError, Equatable {
    /// The file's name, as given.
    package var file: String
    /// The 1-based line of the file, when the problem is in one line.
    package var line: Int?
    /// What is wrong, in words.
    package var reason: String

    /// A refusal of `file` (at `line`, when the problem is in one line).
    package init(file: String, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// A file the store was handed is malformed: the caller's data.
    package var category: MarginaliaError.Category { .invalidData }

    /// The file and line refused.
    package var facts: ErrorFacts { ErrorFacts(file: file, line: line) }

    /// The refusal in words: the file, the line when there is one, and the reason.
    package var description: String {
        if let line { return "\(file): line \(line): \(reason)" }
        return "\(file): \(reason)"
    }
}
