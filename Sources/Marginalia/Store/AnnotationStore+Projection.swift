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

    func saveRegisters(_ registers: AnnotationRegisters, isNew: Bool) throws {
        guard let annotation = registers.annotation else { return }
        let anchor = annotation.anchor
        let arguments: StatementArguments = [
            annotation.kind.rawValue, anchor.document, anchor.start.passage, anchor.start.offset,
            anchor.end.passage, anchor.end.offset, anchor.quote, anchor.prefix, anchor.suffix,
            annotation.createdEdition, anchor.edition, annotation.note, annotation.color,
            try JSONWriter.encodeString(.array(annotation.tags.map { .string($0) })), annotation.deleted,
            annotation.createdAt.description, annotation.updatedAt.description, try registers.clocksText(),
            annotation.id,
        ]
        if isNew {
            try db.execute(
                sql: """
                    INSERT INTO annotations (kind, document, start_passage, start_offset, end_passage, end_offset,
                        quote, prefix, suffix, created_edition, anchor_edition, note, color, tags, deleted,
                        created_hlc, updated_hlc, clocks, id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: arguments)
        } else {
            try db.execute(
                sql: """
                    UPDATE annotations SET kind = ?, document = ?, start_passage = ?, start_offset = ?,
                        end_passage = ?, end_offset = ?, quote = ?, prefix = ?, suffix = ?, created_edition = ?,
                        anchor_edition = ?, note = ?, color = ?, tags = ?, deleted = ?, created_hlc = ?,
                        updated_hlc = ?, clocks = ?
                    WHERE id = ?
                    """,
                arguments: arguments)
        }
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
