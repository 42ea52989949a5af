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

/// Where an item sits in its source, as the source counts: Kindle locations, a page, a KOReader position.
public struct ItemLocation: Hashable, Sendable {
    /// The first location (Kindle "Location 181-182" → 181); nil when the source gives only a page.
    public var start: Int?
    /// The last location, when the source gives a range.
    public var end: Int?
    /// The page, as the source writes it ("20", "xii").
    public var page: String?

    /// A location with the given parts.
    public init(start: Int? = nil, end: Int? = nil, page: String? = nil) {
        self.start = start
        self.end = end
        self.page = page
    }

    /// The location in words, e.g. `location 181-182`, `page 20`, `page 41, location 391`.
    public var label: String {
        var parts: [String] = []
        if let page { parts.append("page \(page)") }
        if let start {
            parts.append(end.map { $0 != start ? "location \(start)-\($0)" : "location \(start)" }
                ?? "location \(start)")
        }
        return parts.isEmpty ? "no location" : parts.joined(separator: ", ")
    }
}

/// One highlight, note or bookmark as another tool wrote it: text and a place in its own terms, not yet anchored
/// to the content. Readers (`KindleClippings`, `KOReaderExport`, `ReadwiseCSV`, `WebAnnotationReader`) yield these;
/// `AnnotationStore.importItems(_:options:)` anchors them and merges them.
public struct ImportItem: Hashable, Sendable {
    /// The format it was read from; part of the id derived for it.
    public var format: InteropFormat
    /// What it is.
    public var kind: AnnotationKind
    /// The book's title as the source names it (without the author).
    public var title: String
    /// The book's author, when the source names one.
    public var author: String?
    /// The highlighted text; empty for a bookmark or a note that carries none.
    public var text: String
    /// The reader's note, if any.
    public var note: String?
    /// Where it is in the source's own terms.
    public var location: ItemLocation
    /// When it was made, in milliseconds since 1970 (UTC), when the source says.
    public var date: Int64?
    /// The highlight color's name, if any.
    public var color: String?
    /// Tags, if any.
    public var tags: [String]
    /// The line of the file it starts on, for messages.
    public var line: Int
    /// The text just before the highlighted text, when the source says (a W3C `TextQuoteSelector`'s
    /// `prefix` and `suffix`): they tell apart the places of a text the content holds more than once.
    public var prefix: String?
    /// The text just after the highlighted text, when the source says.
    public var suffix: String?
    /// The item's own id in its source (a W3C annotation's IRI), when it has one: part of the id derived for it, so
    /// that two annotations of the same text are two.
    public var sourceID: String?
    /// For an item that carries its own anchor (a W3C annotation made by Marginalia): the annotation id, the
    /// anchor, and its clocks; foreign items have none and are anchored by their text.
    public var native: NativeAnnotation? {
        get { nativeBox?.value }
        set { nativeBox = newValue.map(NativeBox.init) }
    }
    /// `native`, held by reference: most items have none, and an import holds many items at once, so an item
    /// keeps one pointer for it instead of the annotation's anchor inline.
    private var nativeBox: NativeBox?

    /// An item with the given values.
    public init(format: InteropFormat, kind: AnnotationKind, title: String, author: String? = nil, text: String,
                note: String? = nil, location: ItemLocation = ItemLocation(), date: Int64? = nil,
                color: String? = nil, tags: [String] = [], line: Int = 0, native: NativeAnnotation? = nil,
                prefix: String? = nil, suffix: String? = nil, sourceID: String? = nil) {
        self.format = format
        self.kind = kind
        self.title = title
        self.author = author
        self.text = text
        self.note = note
        self.location = location
        self.date = date
        self.color = color
        self.tags = tags
        self.line = line
        self.nativeBox = native.map(NativeBox.init)
        self.prefix = prefix
        self.suffix = suffix
        self.sourceID = sourceID
    }
}

/// What a W3C annotation written by Marginalia carries beyond a foreign one: enough to rebuild the annotation
/// exactly.
public struct NativeAnnotation: Hashable, Sendable {
    /// The annotation id (the UUID of its `urn:uuid:` id).
    public var id: String
    /// Where it is anchored, with its quote, prefix, suffix and edition.
    public var anchor: Anchor
    /// When it was created and last changed, in milliseconds since 1970.
    public var created: Int64
    /// When it was last changed.
    public var modified: Int64
    /// Whether it is deleted (a tombstone the export carried).
    public var deleted: Bool

    /// A native annotation with the given values.
    public init(id: String, anchor: Anchor, created: Int64, modified: Int64, deleted: Bool = false) {
        self.id = id
        self.anchor = anchor
        self.created = created
        self.modified = modified
        self.deleted = deleted
    }
}

/// A native annotation held by reference, compared and hashed by its value.
private final class NativeBox: Hashable, Sendable {
    let value: NativeAnnotation

    init(_ value: NativeAnnotation) {
        self.value = value
    }

    static func == (lhs: NativeBox, rhs: NativeBox) -> Bool { lhs.value == rhs.value }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
