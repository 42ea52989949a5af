// MARK: - Annotation rows

extension AnnotationStore {
    /// The columns an annotation is read with, in the order `Annotation(row:)` expects, qualified by a table
    /// alias when one is given (`a.id, a.kind, …`).
    static func annotationColumns(of alias: String? = nil) -> String {
        let names = ["id", "kind", "document", "start_passage", "start_offset", "end_passage", "end_offset", "quote",
                     "prefix", "suffix", "created_edition", "anchor_edition", "note", "color", "tags", "deleted",
                     "created_hlc", "updated_hlc"]
        let qualifier = alias.map { "\($0)." } ?? ""
        return names.map { qualifier + $0 }.joined(separator: ", ")
    }

    /// The annotation columns followed by its clocks, as `AnnotationRegisters(row:)` expects.
    static let registerColumns = annotationColumns() + ", clocks"

    func loadRegisters(id: String) throws -> AnnotationRegisters? {
        try db.fetchOne(
            sql: "SELECT \(Self.registerColumns) FROM annotations WHERE id = ?", arguments: [id],
            AnnotationRegisters.init(row:))
    }

    /// Writes annotations' registers: a new row for each whose `previous` is nil, else an update of the row that
    /// held `previous`. The notes index is touched only for rows whose quote or note changed.
    ///
    /// The rows go first into a temporary staging table (one bound insert each), and from there into
    /// `annotations` in one statement per kind of write: FTS5 writes its pending index data out at every statement
    /// that changes it, so one statement per row would leave one tiny index segment per annotation to be merged
    /// again and again.
    func saveRegisters(_ rows: [(current: AnnotationRegisters, previous: AnnotationRegisters?)]) throws {
        guard !rows.isEmpty else { return }
        try db.executeScript(sql: """
            CREATE TEMP TABLE IF NOT EXISTS annotation_rows (
                id TEXT, kind TEXT, document TEXT, start_passage TEXT, start_offset INTEGER, end_passage TEXT,
                end_offset INTEGER, quote TEXT, prefix TEXT, suffix TEXT, created_edition TEXT, anchor_edition TEXT,
                note TEXT, color TEXT, tags TEXT, deleted INTEGER, created_hlc TEXT, updated_hlc TEXT, clocks TEXT,
                write INTEGER
            );
            DELETE FROM temp.annotation_rows;
            """)
        for (current, previous) in rows {
            guard let annotation = current.annotation else { continue }
            let anchor = annotation.anchor
            // 0: a new row; 1: an update of quote or note (the index follows); 2: any other update.
            let write = previous.map { Self.textChanged(annotation, from: $0) ? 1 : 2 } ?? 0
            try db.execute(
                sql: """
                    INSERT INTO temp.annotation_rows
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [annotation.id, annotation.kind.rawValue, anchor.document, anchor.start.passage,
                            anchor.start.offset, anchor.end.passage, anchor.end.offset, anchor.quote, anchor.prefix,
                            anchor.suffix, annotation.createdEdition, anchor.edition, annotation.note,
                            annotation.color, try JSONWriter.encodeString(.array(annotation.tags.map { .string($0) })),
                            annotation.deleted, annotation.createdAt.description, annotation.updatedAt.description,
                            try current.clocksText(), write])
        }
        try db.execute(sql: """
            INSERT INTO main.annotations (id, kind, document, start_passage, start_offset, end_passage, end_offset,
                quote, prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted, created_hlc,
                updated_hlc, clocks)
            SELECT id, kind, document, start_passage, start_offset, end_passage, end_offset, quote, prefix, suffix,
                created_edition, anchor_edition, note, color, tags, deleted, created_hlc, updated_hlc, clocks
            FROM temp.annotation_rows WHERE write = 0
            """)
        // Setting quote and note fires the trigger that keeps notes_fts in step.
        try db.execute(sql: """
            UPDATE main.annotations SET kind = r.kind, document = r.document, start_passage = r.start_passage,
                start_offset = r.start_offset, end_passage = r.end_passage, end_offset = r.end_offset,
                quote = r.quote, prefix = r.prefix, suffix = r.suffix, created_edition = r.created_edition,
                anchor_edition = r.anchor_edition, note = r.note, color = r.color, tags = r.tags,
                deleted = r.deleted, created_hlc = r.created_hlc, updated_hlc = r.updated_hlc, clocks = r.clocks
            FROM temp.annotation_rows AS r WHERE r.write = 1 AND annotations.id = r.id
            """)
        // Without quote and note in SET, "AFTER UPDATE OF quote, note" does not fire: the index is untouched.
        // https://www.sqlite.org/lang_createtrigger.html
        try db.execute(sql: """
            UPDATE main.annotations SET kind = r.kind, document = r.document, start_passage = r.start_passage,
                start_offset = r.start_offset, end_passage = r.end_passage, end_offset = r.end_offset,
                prefix = r.prefix, suffix = r.suffix, created_edition = r.created_edition,
                anchor_edition = r.anchor_edition, color = r.color, tags = r.tags, deleted = r.deleted,
                created_hlc = r.created_hlc, updated_hlc = r.updated_hlc, clocks = r.clocks
            FROM temp.annotation_rows AS r WHERE r.write = 2 AND annotations.id = r.id
            """)
    }

    /// Whether the quote or the note differ, byte for byte (the index must see exactly the text stored).
    private static func textChanged(_ annotation: Annotation, from previous: AnnotationRegisters) -> Bool {
        !annotation.anchor.quote.utf8.elementsEqual((previous.anchor?.quote ?? "").utf8)
            || (annotation.note == nil) != (previous.note == nil)
            || !(annotation.note ?? "").utf8.elementsEqual((previous.note ?? "").utf8)
    }

    // MARK: - Position rows

    func loadPosition(document: String) throws -> PositionRegister? {
        try db.fetchOne(
            sql: "SELECT document, passage, offset, clock FROM positions WHERE document = ?", arguments: [document],
            PositionRegister.init(row:))
    }

    func savePosition(_ register: PositionRegister) throws {
        try db.execute(
            sql: """
                INSERT INTO positions (document, passage, offset, updated_hlc, clock) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (document) DO UPDATE SET
                    passage = excluded.passage, offset = excluded.offset, updated_hlc = excluded.updated_hlc,
                    clock = excluded.clock
                """,
            arguments: [register.document, register.position.passage, register.position.offset,
                        register.clock.hlc.description, register.clock.text])
    }
}

extension Annotation {
    /// Decodes a row selected with `AnnotationStore.annotationColumns(of:)`.
    init(row: Row) throws {
        let id = try row.string(0)
        func corrupt(_ what: String) -> StoreError {
            StoreError.invalidChange(reason: "annotation \(id) has an unreadable \(what)")
        }
        guard let kind = AnnotationKind(rawValue: try row.string(1)) else { throw corrupt("kind") }
        guard case .array(let tagValues)? = try? JSONParser.parse(try row.string(14)) else { throw corrupt("tags") }
        let tags = try tagValues.map { value -> String in
            guard case .string(let tag) = value else { throw corrupt("tags") }
            return tag
        }
        guard let created = HLC(try row.string(16)), let updated = HLC(try row.string(17)) else {
            throw corrupt("timestamp")
        }
        self.init(
            id: id, kind: kind,
            anchor: Anchor(
                document: try row.string(2),
                start: TextPosition(passage: try row.string(3), offset: try row.int(4)),
                end: TextPosition(passage: try row.string(5), offset: try row.int(6)),
                quote: try row.string(7), prefix: try row.string(8), suffix: try row.string(9),
                edition: try row.string(11)),
            createdEdition: try row.string(10), note: row.optionalString(12), color: row.optionalString(13),
            tags: tags, deleted: try row.bool(15), createdAt: created, updatedAt: updated)
    }
}

extension AnnotationRegisters {
    /// Decodes a row selected with `AnnotationStore.registerColumns`: the annotation, then its clocks.
    init(row: Row) throws {
        let annotation = try Annotation(row: row)
        self.init(id: annotation.id)
        kind = annotation.kind
        createdEdition = annotation.createdEdition
        anchor = annotation.anchor
        note = annotation.note
        color = annotation.color
        deleted = annotation.deleted
        updatedHLC = annotation.updatedAt
        guard case .object(let clockObject)? = try? JSONParser.parse(try row.string(18)) else {
            throw StoreError.invalidChange(reason: "annotation \(annotation.id) has unreadable clocks")
        }
        for (name, value) in clockObject {
            guard case .string(let text) = value, let stamp = ClockStamp(text: text) else {
                throw StoreError.invalidChange(reason: "annotation \(annotation.id) has an unreadable clock \(name)")
            }
            clocks[name] = stamp
            if name.hasPrefix("tag:") { tags[String(name.dropFirst(4))] = false }
        }
        for tag in annotation.tags { tags[tag] = true }
    }

    /// The clocks as a JSON object with sorted keys.
    func clocksText() throws -> String {
        try JSONWriter.encodeString(
            .object(JSONObject(clocks.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.text)) })))
    }
}

extension PositionRegister {
    init(row: Row) throws {
        let document = try row.string(0)
        guard let clock = ClockStamp(text: try row.string(3)) else {
            throw StoreError.invalidChange(reason: "reading position of \(document) has an unreadable clock")
        }
        self.init(document: document, position: TextPosition(passage: try row.string(1), offset: try row.int(2)),
                  clock: clock)
    }
}
