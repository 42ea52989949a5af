/// Where an item sits in its source, as the source counts: Kindle locations, a page, a KOReader position.
package struct ItemLocation: Hashable, Sendable {
    /// The first location (Kindle "Location 181-182" → 181); nil when the source gives only a page.
    package var start: Int?
    /// The last location, when the source gives a range.
    package var end: Int?
    /// The page, as the source writes it ("20", "xii").
    package var page: String?

    /// A location with the given parts.
    package init(start: Int? = nil, end: Int? = nil, page: String? = nil) {
        self.start = start
        self.end = end
        self.page = page
    }

    /// The location in words, e.g. `location 181-182`, `page 20`, `page 41, location 391`.
    package var label: String {
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
package struct ImportItem: Hashable, Sendable {
    /// The format it was read from; part of the id derived for it.
    package var format: InteropFormat
    /// What it is.
    package var kind: AnnotationKind
    /// The book's title as the source names it (without the author).
    package var title: String
    /// The book's author, when the source names one.
    package var author: String?
    /// The highlighted text; empty for a bookmark or a note that carries none.
    package var text: String
    /// The reader's note, if any.
    package var note: String?
    /// Where it is in the source's own terms.
    package var location: ItemLocation
    /// When it was made, in milliseconds since 1970 (UTC), when the source says.
    package var date: Int64?
    /// The highlight color's name, if any.
    package var color: String?
    /// Tags, if any.
    package var tags: [String]
    /// The line of the file it starts on, for messages.
    package var line: Int
    /// The text just before the highlighted text, when the source says (a W3C `TextQuoteSelector`'s
    /// `prefix` and `suffix`): they tell apart the places of a text the content holds more than once.
    package var prefix: String?
    /// The text just after the highlighted text, when the source says.
    package var suffix: String?
    /// The item's own id in its source (a W3C annotation's IRI), when it has one: part of the id derived for it, so
    /// that two annotations of the same text are two.
    package var sourceID: String?
    /// For an item that carries its own anchor (a W3C annotation made by Marginalia): the annotation id, the
    /// anchor, and its clocks; foreign items have none and are anchored by their text.
    package var native: NativeAnnotation? {
        get { nativeBox?.value }
        set { nativeBox = newValue.map(NativeBox.init) }
    }
    /// `native`, held by reference: most items have none, and an import holds many items at once, so an item
    /// keeps one pointer for it instead of the annotation's anchor inline.
    private var nativeBox: NativeBox?

    /// An item with the given values.
    package init(format: InteropFormat, kind: AnnotationKind, title: String, author: String? = nil, text: String,
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
package struct NativeAnnotation: Hashable, Sendable {
    /// The annotation id (the UUID of its `urn:uuid:` id).
    package var id: String
    /// Where it is anchored, with its quote, prefix, suffix and edition.
    package var anchor: Anchor
    /// When it was created and last changed, in milliseconds since 1970.
    package var created: Int64
    /// When it was last changed.
    package var modified: Int64
    /// Whether it is deleted (a tombstone the export carried).
    package var deleted: Bool

    /// A native annotation with the given values.
    package init(id: String, anchor: Anchor, created: Int64, modified: Int64, deleted: Bool = false) {
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

extension ImportItem {
    /// The first text field holding a character an annotation cannot store (NUL), and the field's name; nil when
    /// there is none. Checked as the file is read, so the refusal names the file and line, not the store.
    func disallowedField() -> String? {
        let fields: [(String, String?)] = [("title", title), ("author", author), ("text", text), ("note", note),
                                           ("color", color), ("prefix", prefix), ("suffix", suffix)]
            + tags.map { ("tags", $0) }
        return fields.first { $0.1?.utf8.contains(0) == true }?.0
    }
}
