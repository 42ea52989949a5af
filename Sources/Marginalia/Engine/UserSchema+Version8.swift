// MARK: - Version 8: devices with names

extension UserSchema {
    /// Version 8: a device can be named, by a change in the log (entity `device`, operation `set`, field `name`),
    /// so that the name travels by archive and sync; `devices` keeps each device's current name and the clock of
    /// the change that set it (the register rule, as for an annotation's fields).
    ///
    /// A CHECK constraint cannot be altered in place, so `changes` and `quarantine` are rebuilt as SQLite's
    /// "generalized ALTER TABLE procedure" rebuilds a table (https://www.sqlite.org/lang_altertable.html#otheralter),
    /// row for row: the sequence numbers, digests and receipts are copied unchanged.
    static let version8 = """
        CREATE TABLE named_changes (
            seq INTEGER PRIMARY KEY,
            change_id TEXT NOT NULL UNIQUE,
            hlc INTEGER NOT NULL CHECK (hlc >= 0),
            device INTEGER NOT NULL REFERENCES devices (number),
            entity TEXT NOT NULL CHECK (entity IN ('annotation', 'position', 'device')),
            entity_id TEXT NOT NULL,
            op TEXT NOT NULL CHECK (
                op IN ('create', 'edit', 'delete', 'undelete', 'reanchor', 'confirm', 'reattach', 'set')
            ),
            fields TEXT NOT NULL CHECK (json_valid(fields)),
            digest TEXT NOT NULL CHECK (length(digest) = 64),
            receipt INTEGER REFERENCES receipts (id),
            wall INTEGER CHECK (wall >= 0)
        ) STRICT;

        INSERT INTO named_changes (seq, change_id, hlc, device, entity, entity_id, op, fields, digest, receipt, wall)
        SELECT seq, change_id, hlc, device, entity, entity_id, op, fields, digest, receipt, wall
        FROM changes ORDER BY seq;

        DROP TABLE changes;
        ALTER TABLE named_changes RENAME TO changes;

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

        CREATE TABLE named_quarantine (
            change_id TEXT PRIMARY KEY NOT NULL,
            hlc TEXT NOT NULL CHECK (length(hlc) = 21),
            device TEXT NOT NULL,
            entity TEXT NOT NULL CHECK (entity IN ('annotation', 'position', 'device')),
            entity_id TEXT NOT NULL,
            op TEXT NOT NULL CHECK (
                op IN ('create', 'edit', 'delete', 'undelete', 'reanchor', 'confirm', 'reattach', 'set')
            ),
            fields TEXT NOT NULL CHECK (json_valid(fields)),
            source TEXT NOT NULL,
            seen_at TEXT NOT NULL,
            receipt INTEGER REFERENCES receipts (id),
            wall INTEGER CHECK (wall >= 0)
        ) STRICT, WITHOUT ROWID;

        INSERT INTO named_quarantine
            (change_id, hlc, device, entity, entity_id, op, fields, source, seen_at, receipt, wall)
        SELECT change_id, hlc, device, entity, entity_id, op, fields, source, seen_at, receipt, wall FROM quarantine;

        DROP TABLE quarantine;
        ALTER TABLE named_quarantine RENAME TO quarantine;

        CREATE INDEX quarantine_by_clock ON quarantine (hlc);

        ALTER TABLE devices ADD COLUMN name TEXT;
        ALTER TABLE devices ADD COLUMN name_clock TEXT;
        """
}
