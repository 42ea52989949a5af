/// A format the store writes for other tools and for people.
public enum InteropExportFormat: String, Sendable, CaseIterable {
    /// Markdown for people: per document, in reading order; orphans in their own section.
    case markdown
    /// A W3C Web Annotation `AnnotationCollection` of the live annotations.
    case w3c
    /// Marginalia's own CSV: every annotation, deleted ones too, with what a round trip needs (`MarginaliaCSV`).
    case csv
    /// Readwise's CSV import layout: the live highlights and notes (Readwise has no bookmarks).
    case readwise
    /// Calibre's annotation collection, each annotation's own anchor kept in a `marginalia` member; deleted ones
    /// as removed highlights.
    case calibre

    /// Whether the format carries deleted annotations (a round trip keeps them deleted).
    var carriesDeleted: Bool { self == .csv || self == .calibre }
}
