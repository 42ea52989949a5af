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
