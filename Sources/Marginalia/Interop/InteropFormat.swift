/// A format another reading tool writes its annotations in, which the store can read (and some of which it writes).
public enum InteropFormat: String, Sendable, CaseIterable {
    /// Kindle's `My Clippings.txt`.
    case kindle
    /// The JSON of KOReader's exporter plugin.
    case koreader
    /// Readwise's CSV export.
    case readwise
    /// W3C Web Annotation JSON-LD: one Annotation, an array of them, or an AnnotationCollection.
    case w3c
    /// Marginalia's own CSV (`export --format csv`): every annotation with its own anchor, deleted ones too.
    case csv
    /// Calibre's annotation collection (its E-book viewer's export).
    case calibre
}
