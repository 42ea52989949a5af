/// The user database's schema: its identity and the migrations that build it.
///
/// Migrations are append-only: once one has shipped it is never edited; a change to the schema is a new
/// migration. `schemas/user.sql` is the readable end state, and a test checks that the migrations produce
/// exactly it.
enum UserSchema {
    /// The oldest SQLite the schema works with (its tables are STRICT), as `sqlite3_libversion_number` counts.
    static let minimumSQLiteVersion: Int32 = 3_037_000

    /// `PRAGMA application_id` of a user database: 0x4D524755, "MRGU".
    static let applicationID = ApplicationID.store

    /// The schema version this build writes; a store with a greater `user_version` is refused.
    static var currentVersion: Int32 { migrations[migrations.count - 1].version }

    /// One step from `version - 1` to `version`: statements and code, run in order in the transaction that bumps
    /// `user_version`.
    struct Migration: Sendable {
        /// One part of a migration.
        enum Step: Sendable {
            /// A script of SQL statements.
            case sql(String)
            /// Code that reads and writes the store (a digest SQL cannot compute).
            case code(@Sendable (SQLiteDatabase) throws -> Void)
        }

        let version: Int32
        let steps: [Step]

        init(version: Int32, sql: String) {
            self.init(version: version, steps: [.sql(sql)])
        }

        init(version: Int32, steps: [Step]) {
            self.version = version
            self.steps = steps
        }
    }

    static let migrations: [Migration] = [
        Migration(version: 1, sql: version1),
        Migration(version: 2, sql: version2),
        Migration(version: 3, sql: version3),
        Migration(version: 4, steps: version4),
        Migration(version: 5, steps: version5),
        Migration(version: 6, sql: version6),
        Migration(version: 7, sql: version7),
        Migration(version: 8, sql: version8),
        Migration(version: 9, sql: version9),
        Migration(version: 10, sql: version10),
    ]

    /// Version 1: the change log, the current annotations and reading positions, the notes index.
    private static let version1 = """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE changes (
            seq INTEGER PRIMARY KEY,
            change_id TEXT NOT NULL UNIQUE,
            hlc TEXT NOT NULL CHECK (length(hlc) = 21),
            device TEXT NOT NULL,
            entity TEXT NOT NULL CHECK (entity IN ('annotation', 'position')),
            entity_id TEXT NOT NULL,
            op TEXT NOT NULL CHECK (
                op IN ('create', 'edit', 'delete', 'undelete', 'reanchor', 'confirm', 'reattach', 'set')
            ),
            fields TEXT NOT NULL CHECK (json_valid(fields))
        ) STRICT;

        CREATE INDEX changes_by_entity ON changes (entity, entity_id);

        CREATE INDEX changes_by_clock ON changes (hlc, device, change_id);

        CREATE TRIGGER changes_refuse_update BEFORE UPDATE ON changes
        BEGIN
            SELECT RAISE(ABORT, 'changes is append-only: a change cannot be updated');
        END;

        CREATE TRIGGER changes_refuse_delete BEFORE DELETE ON changes
        BEGIN
            SELECT RAISE(ABORT, 'changes is append-only: a change cannot be deleted');
        END;

        CREATE TABLE annotations (
            id TEXT PRIMARY KEY NOT NULL,
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
            created_hlc TEXT NOT NULL,
            updated_hlc TEXT NOT NULL,
            clocks TEXT NOT NULL CHECK (json_valid(clocks))
        ) STRICT;

        CREATE INDEX annotations_by_document ON annotations (document);

        CREATE INDEX annotations_by_passage ON annotations (start_passage);

        CREATE TABLE positions (
            document TEXT PRIMARY KEY NOT NULL,
            passage TEXT NOT NULL,
            offset INTEGER NOT NULL CHECK (offset >= 0),
            updated_hlc TEXT NOT NULL,
            clock TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE VIRTUAL TABLE notes_fts USING fts5(
            quote, note, content = '', tokenize = 'unicode61 remove_diacritics 2'
        );

        CREATE TRIGGER annotations_index_insert AFTER INSERT ON annotations
        BEGIN
            INSERT INTO notes_fts (rowid, quote, note)
            VALUES (new.rowid, replace(new.quote, char(173), ''), replace(new.note, char(173), ''));
        END;

        CREATE TRIGGER annotations_index_update AFTER UPDATE OF quote, note ON annotations
        BEGIN
            INSERT INTO notes_fts (notes_fts, rowid, quote, note)
            VALUES ('delete', old.rowid, replace(old.quote, char(173), ''), replace(old.note, char(173), ''));
            INSERT INTO notes_fts (rowid, quote, note)
            VALUES (new.rowid, replace(new.quote, char(173), ''), replace(new.note, char(173), ''));
        END;

        CREATE TRIGGER annotations_index_delete AFTER DELETE ON annotations
        BEGIN
            INSERT INTO notes_fts (notes_fts, rowid, quote, note)
            VALUES ('delete', old.rowid, replace(old.quote, char(173), ''), replace(old.note, char(173), ''));
        END;
        """

    /// Version 2: changes held back because they are dated ahead of this machine's clock, and the notes of local
    /// writes made while the wall clock was far from the store's newest change.
    private static let version2 = """
        CREATE TABLE quarantine (
            change_id TEXT PRIMARY KEY NOT NULL,
            hlc TEXT NOT NULL CHECK (length(hlc) = 21),
            device TEXT NOT NULL,
            entity TEXT NOT NULL CHECK (entity IN ('annotation', 'position')),
            entity_id TEXT NOT NULL,
            op TEXT NOT NULL CHECK (
                op IN ('create', 'edit', 'delete', 'undelete', 'reanchor', 'confirm', 'reattach', 'set')
            ),
            fields TEXT NOT NULL CHECK (json_valid(fields)),
            source TEXT NOT NULL,
            seen_at TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE INDEX quarantine_by_clock ON quarantine (hlc);

        CREATE TABLE clock_notes (
            seq INTEGER PRIMARY KEY,
            change_id TEXT NOT NULL,
            wall_clock TEXT NOT NULL,
            newest_change TEXT NOT NULL CHECK (length(newest_change) = 21),
            direction TEXT NOT NULL CHECK (direction IN ('ahead', 'behind'))
        ) STRICT;
        """

    /// Version 3: the files of a sync folder this store wrote or applied, so that a sync round reads only new ones.
    private static let version3 = """
        CREATE TABLE sync_files (
            device TEXT NOT NULL,
            name TEXT NOT NULL,
            size INTEGER NOT NULL CHECK (size >= 0),
            sha256 TEXT NOT NULL CHECK (length(sha256) = 64),
            origin TEXT NOT NULL CHECK (origin IN ('written', 'applied')),
            log TEXT NOT NULL,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            changes INTEGER NOT NULL CHECK (changes >= 0),
            recorded_at TEXT NOT NULL,
            PRIMARY KEY (device, name)
        ) STRICT, WITHOUT ROWID;
        """
}
