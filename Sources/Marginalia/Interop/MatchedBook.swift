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
