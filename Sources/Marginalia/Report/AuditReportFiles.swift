/// What `writeAuditReport` wrote.
public struct AuditReportFiles: Hashable, Sendable {
    /// The files written: one HTML file, or a directory's `index.html` and one page per document.
    public var paths: [String]
    /// Their bytes in all.
    public var bytes: Int
    /// The documents and changes the report shows.
    public var documents: Int, changes: Int
}
