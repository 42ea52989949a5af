/// Which part of a store to export; an empty filter exports everything.
public struct ExportFilter: Equatable, Sendable {
    /// Only this document's annotations and reading position.
    public var document: String?
    /// Only changes at or after this time (milliseconds since 1970), and the state they touched.
    public var since: Int64?

    /// A filter on `document` and on changes since `since` (milliseconds since 1970); nil for no limit.
    public init(document: String? = nil, since: Int64? = nil) {
        self.document = document
        self.since = since
    }

    /// Whether the filter keeps everything (a full export).
    package var isEmpty: Bool { document == nil && since == nil }
}
