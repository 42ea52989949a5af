/// What an export in another tool's format wrote.
public struct InteropExportReport: Equatable, Sendable {
    /// Annotations written (rows, entries or items of the format).
    public var written: Int
    /// Annotations in the export's scope the format cannot carry (Readwise's layout: bookmarks, and notes with
    /// no text), left out.
    public var leftOut: Int
}
