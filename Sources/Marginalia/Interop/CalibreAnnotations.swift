/// Calibre's annotations, as its E-book viewer exports them (Highlights → Export, "calibre annotation
/// collection"), read and written:
///
///     {"version": 1, "type": "calibre_annotation_collection", "annotations": [
///       {"type": "highlight", "uuid": "…", "highlighted_text": "…", "notes": "…", "timestamp": "2024-…Z",
///        "style": {"kind": "color", "type": "builtin", "which": "yellow"}, "toc_family_titles": ["Chapter"],
///        "spine_index": 3, "start_cfi": "…", "end_cfi": "…", "removed": false},
///       {"type": "bookmark", "title": "…", "pos": "epubcfi(…)", "pos_type": "epubcfi", "timestamp": "…"}]}
///
/// A highlight is anchored by its text, its `uuid` the stable source id (so a re-import adds nothing), its style's
/// colour kept as the annotation's colour; its `toc_family_titles` name the chapter, which is looked for among the
/// content's documents like a book's title (else the text finds its document). A removed highlight is left out.
/// An annotation Marginalia wrote carries its own anchor in a `marginalia` member (id, kind, anchor, times,
/// deleted) that Calibre keeps and ignores: it comes back exactly.
enum CalibreAnnotations {
    static let type = "calibre_annotation_collection"

    // MARK: - Reading

    static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        guard case .object(let root) = try SourceText.json(bytes, file: file),
              case .string(Self.type)? = root["type"], case .array(let values)? = root["annotations"] else {
            throw InteropError(file: file, reason: "not a calibre annotation collection (an object with \"type\": "
                + "\"\(Self.type)\" and an \"annotations\" array)")
        }
        var items: [ImportItem] = []
        for (index, value) in values.enumerated() {
            guard case .object(let object) = value else {
                throw InteropError(file: file, reason: "annotation \(index + 1): not an object")
            }
            do {
                if let item = try item(object, index: index + 1) { items.append(item) }
            } catch let error as FieldError {
                throw InteropError(file: file, reason: "annotation \(index + 1): \(error)")
            }
        }
        return items
    }

    private static func item(_ object: JSONObject, index: Int) throws -> ImportItem? {
        let date = object["timestamp"]?.stringValue.flatMap(Timestamp.parseISO8601)
        if case .object(let own)? = object["marginalia"] { return try native(own, index: index, date: date) }
        if object["removed"] == .bool(true) { return nil }
        switch object["type"]?.stringValue {
        case "highlight":
            guard case .string(let text)? = object["highlighted_text"], !text.isEmpty else {
                throw FieldError(field: "highlighted_text", reason: "a highlight needs its text")
            }
            let chapter = object["toc_family_titles"].flatMap { value -> String? in
                guard case .array(let titles) = value else { return nil }
                return titles.compactMap(\.stringValue).last
            }
            var color: String?
            if case .object(let style)? = object["style"] { color = style["which"]?.stringValue }
            let note = object["notes"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            return ImportItem(format: .calibre, kind: .highlight, title: chapter ?? "", text: text, note: note,
                              location: ItemLocation(start: object["spine_index"]?.intValue.map { Int($0) }),
                              date: date, color: color, line: index, sourceID: object["uuid"]?.stringValue)
        case "bookmark":
            return ImportItem(format: .calibre, kind: .bookmark, title: "", text: "",
                              note: object["title"]?.stringValue, location: ItemLocation(page: object["pos"]?.stringValue),
                              date: date, line: index, sourceID: object["pos"]?.stringValue)
        default:
            return nil
        }
    }

    /// An annotation Marginalia wrote, from its `marginalia` member.
    private static func native(_ own: JSONObject, index: Int, date: Int64?) throws -> ImportItem {
        guard case .string(let id)? = own["id"], !id.isEmpty else {
            throw FieldError(field: "marginalia.id", reason: "must be the annotation's id")
        }
        guard let kind = own["kind"]?.stringValue.flatMap(AnnotationKind.init(rawValue:)) else {
            throw FieldError(field: "marginalia.kind", reason: "must be highlight, note or bookmark")
        }
        guard case .object(let anchorObject)? = own["anchor"] else {
            throw FieldError(field: "marginalia.anchor", reason: "must be an anchor object")
        }
        guard let anchor = try ChangeFields(json: .object(anchorObject)).anchor else {
            throw FieldError(field: "marginalia.anchor", reason: "must be an anchor object")
        }
        let created = own["created"]?.stringValue.flatMap(Timestamp.parseISO8601) ?? date ?? 0
        let modified = own["modified"]?.stringValue.flatMap(Timestamp.parseISO8601) ?? created
        var tags: [String] = []
        if case .array(let values)? = own["tags"] { tags = values.compactMap(\.stringValue) }
        return ImportItem(format: .calibre, kind: kind, title: anchor.document, text: anchor.quote,
                          note: own["note"]?.stringValue, date: created, color: own["color"]?.stringValue, tags: tags,
                          line: index, native: NativeAnnotation(id: id, anchor: anchor, created: created,
                                                                modified: modified,
                                                                deleted: own["deleted"] == .bool(true)))
    }

    // MARK: - Writing

    /// The collection of `annotations` (deleted ones as removed highlights), in reading order.
    static func render(_ annotations: some Sequence<Annotation>, context: InteropExportContext) throws -> String {
        var entries: [JSONValue] = []
        for annotation in context.readingOrder(annotations) {
            let anchor = annotation.anchor
            let updated = Timestamp.iso8601(milliseconds: context.updated(annotation))
            var own: [(String, JSONValue)] = [
                ("id", .string(annotation.id)), ("kind", .string(annotation.kind.rawValue)),
                ("anchor", ChangeFields(anchor: anchor).json),
                ("created", .string(Timestamp.iso8601(milliseconds: context.created(annotation)))),
                ("modified", .string(updated)), ("tags", .array(annotation.tags.sorted().map(JSONValue.string))),
                ("deleted", .bool(annotation.deleted)),
            ]
            if let note = annotation.note { own.append(("note", .string(note))) }
            if let color = annotation.color { own.append(("color", .string(color))) }
            var members: [(String, JSONValue)]
            if annotation.kind == .bookmark {
                members = [("type", .string("bookmark")), ("title", .string(annotation.note ?? "")),
                           ("pos", .string(anchor.start.passage)), ("pos_type", .string("marginalia-passage")),
                           ("timestamp", .string(updated))]
            } else {
                members = [
                    ("type", .string("highlight")), ("uuid", .string(annotation.id)),
                    ("highlighted_text", .string(anchor.quote)), ("timestamp", .string(updated)),
                    ("style", .object(JSONObject([("kind", .string("color")), ("type", .string("builtin")),
                                                  ("which", .string(annotation.color ?? "yellow"))]))),
                    ("toc_family_titles", .array([.string(context.title(of: anchor.document))])),
                    ("spine_index", .int(Int64(context.documentOrder[anchor.document] ?? 0))),
                ]
                if let note = annotation.note { members.append(("notes", .string(note))) }
                if annotation.deleted { members.append(("removed", .bool(true))) }
            }
            members.append(("marginalia", .object(JSONObject(own))))
            entries.append(.object(JSONObject(members)))
        }
        let root = JSONValue.object(JSONObject([
            ("version", .int(1)), ("type", .string(Self.type)), ("annotations", .array(entries)),
        ]))
        return try JSONWriter.encodeString(root) + "\n"
    }
}
