// MARK: - Version 5: the compact log and current tables

extension UserSchema {
    /// Version 5: devices are numbered in `devices`; the log keeps each change's clock as one integer
    /// (`HLC.packed`) and its device by number, and the current annotations keep their clocks as a small blob
    /// (`FieldClocks`) instead of a JSON object of text stamps. The log's clock index holds the clock alone, its
    /// entity index the entity id alone: that is all the queries look up (`QueryPlanTests`).
    ///
    /// Both tables are rebuilt: the log row for row in `seq` order (its digests cover the text forms, which do not
    /// change), the annotations with their row numbers kept, so that the notes index, which refers to them by
    /// rowid, stays as it is. Their rowid is now an explicit column (`number`): "If the VACUUM command … the ROWIDs
    /// of entries in any tables that do not have an explicit INTEGER PRIMARY KEY" may change
    /// (https://www.sqlite.org/lang_vacuum.html).
    static let version5: [Migration.Step] = [
        .sql("""
            CREATE TABLE devices (
                number INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE
            ) STRICT;

            INSERT INTO devices (id) SELECT value FROM meta WHERE key = 'device_id';
            INSERT OR IGNORE INTO devices (id) SELECT device FROM changes GROUP BY device ORDER BY min(seq);

            CREATE TABLE compact_changes (
                seq INTEGER PRIMARY KEY,
                change_id TEXT NOT NULL UNIQUE,
                hlc INTEGER NOT NULL CHECK (hlc >= 0),
                device INTEGER NOT NULL REFERENCES devices (number),
                entity TEXT NOT NULL CHECK (entity IN ('annotation', 'position')),
                entity_id TEXT NOT NULL,
                op TEXT NOT NULL CHECK (
                    op IN ('create', 'edit', 'delete', 'undelete', 'reanchor', 'confirm', 'reattach', 'set')
                ),
                fields TEXT NOT NULL CHECK (json_valid(fields)),
                digest TEXT NOT NULL CHECK (length(digest) = 64),
                receipt INTEGER REFERENCES receipts (id)
            ) STRICT;

            INSERT INTO compact_changes (seq, change_id, hlc, device, entity, entity_id, op, fields, digest, receipt)
            SELECT c.seq, c.change_id,
                CAST(substr(c.hlc, 1, 15) AS INTEGER) * 100000 + CAST(substr(c.hlc, 17, 5) AS INTEGER),
                d.number, c.entity, c.entity_id, c.op, c.fields, c.digest, c.receipt
            FROM changes AS c JOIN devices AS d ON d.id = c.device ORDER BY c.seq;

            DROP TABLE changes;
            ALTER TABLE compact_changes RENAME TO changes;

            CREATE INDEX changes_by_entity ON changes (entity_id);

            CREATE INDEX changes_by_clock ON changes (hlc);

            CREATE TRIGGER changes_refuse_update BEFORE UPDATE ON changes
            BEGIN
                SELECT RAISE(ABORT, 'changes is append-only: a change cannot be updated');
            END;

            CREATE TRIGGER changes_refuse_delete BEFORE DELETE ON changes
            BEGIN
                SELECT RAISE(ABORT, 'changes is append-only: a change cannot be deleted');
            END;

            DROP TRIGGER annotations_index_insert;
            DROP TRIGGER annotations_index_update;
            DROP TRIGGER annotations_index_delete;
            ALTER TABLE annotations RENAME TO text_annotations;

            CREATE TABLE annotations (
                number INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL CHECK (kind IN ('highlight', 'note', 'bookmark')),
                document TEXT NOT NULL,
                start_passage TEXT NOT NULL,
                start_offset INTEGER NOT NULL CHECK (start_offset >= 0),
                end_passage TEXT NOT NULL,
                end_offset INTEGER NOT NULL CHECK (end_offset >= 0),
                quote TEXT NOT NULL,
                prefix TEXT NOT NULL,
                suffix TEXT NOT NULL,
                created_edition TEXT NOT NULL,
                anchor_edition TEXT NOT NULL,
                note TEXT,
                color TEXT,
                tags TEXT NOT NULL CHECK (json_valid(tags)),
                deleted INTEGER NOT NULL CHECK (deleted IN (0, 1)),
                created_hlc INTEGER NOT NULL,
                updated_hlc INTEGER NOT NULL,
                clocks BLOB NOT NULL
            ) STRICT;
            """),
        .code(compactAnnotations),
        .sql("""
            DROP TABLE text_annotations;

            CREATE INDEX annotations_by_document ON annotations (document);

            CREATE INDEX annotations_by_passage ON annotations (start_passage);

            CREATE TRIGGER annotations_index_insert AFTER INSERT ON annotations
            BEGIN
                INSERT INTO notes_fts (rowid, quote, note)
                VALUES (new.number, replace(new.quote, char(173), ''), replace(new.note, char(173), ''));
            END;

            CREATE TRIGGER annotations_index_update AFTER UPDATE OF quote, note ON annotations
            BEGIN
                INSERT INTO notes_fts (notes_fts, rowid, quote, note)
                VALUES ('delete', old.number, replace(old.quote, char(173), ''), replace(old.note, char(173), ''));
                INSERT INTO notes_fts (rowid, quote, note)
                VALUES (new.number, replace(new.quote, char(173), ''), replace(new.note, char(173), ''));
            END;

            CREATE TRIGGER annotations_index_delete AFTER DELETE ON annotations
            BEGIN
                INSERT INTO notes_fts (notes_fts, rowid, quote, note)
                VALUES ('delete', old.number, replace(old.quote, char(173), ''), replace(old.note, char(173), ''));
            END;
            """),
    ]

    /// Copies every annotation of version 4 (`text_annotations`) into the compact table under its own row number:
    /// clocks from text to integers, clocks from a JSON object of `"<hlc> <device> <change id>"` to a blob.
    @Sendable private static func compactAnnotations(_ db: SQLiteDatabase) throws {
        let devices = try DeviceTable(db)
        let copied = """
            id, kind, document, start_passage, start_offset, end_passage, end_offset, quote, prefix, suffix,
            created_edition, anchor_edition, note, color, tags, deleted
            """
        try db.forEachRow(sql: "SELECT rowid, created_hlc, updated_hlc, clocks, \(copied) FROM text_annotations") { row in
            let number = try row.int64(0)
            func corrupt(_ what: String) -> StoreError {
                StoreError.corruptRow(reason: "annotation row \(number) has an unreadable \(what)")
            }
            // A clock the log cannot hold is in no log this migration copies (its integer form would not fit the
            // STRICT column above): only a damaged row holds one.
            guard let created = HLC(try row.string(1)), let updated = HLC(try row.string(2)),
                  created.isStorable, updated.isStorable else {
                throw corrupt("timestamp")
            }
            guard case .object(let object)? = try? JSONParser.parse(try row.string(3)) else { throw corrupt("clocks") }
            var clocks: [String: ClockStamp] = [:]
            for (name, value) in object {
                guard case .string(let text) = value, let stamp = ClockStamp(text: text) else {
                    throw corrupt("clock \(name)")
                }
                clocks[name] = stamp
            }
            let values = (4..<row.count).map { row.value(at: $0) }
            try db.execute(
                sql: """
                    INSERT INTO annotations (number, \(copied), created_hlc, updated_hlc, clocks)
                    VALUES (?, \(Array(repeating: "?", count: values.count).joined(separator: ", ")), ?, ?, ?)
                    """,
                arguments: StatementArguments([.integer(number)] + values
                    + [.integer(created.packed), .integer(updated.packed),
                       .blob(try FieldClocks.encode(clocks, devices: devices))]))
        }
    }
}
