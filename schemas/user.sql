-- Marginalia user database: the readable end state of every migration (schema version 10).
--
--   PRAGMA application_id = 1297237845;  -- 0x4D524755, "MRGU"
--   PRAGMA user_version = 10;
--
-- The change log `changes` is the source of truth; `annotations`, `positions` and `notes_fts` are its
-- projection, rebuilt by replaying the log. Nothing here names the content database.

-- The store's own identity, read and written by the core alone: device_id (this store's id in every change it
-- makes), created_at (ISO 8601, the log's name), former_logs and own_changes_through (what a restore carried over),
-- newest_own_wall and clock_note_evidence (the clock notes), reconciled_edition and reconciled_content_path (the
-- content the anchors were last reconciled with). What the adapters keep is in adapter_state (schema 10).
CREATE TABLE meta (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- The devices that made the changes of the log (schema 5): the log and the clocks of `annotations` name a device by
-- its number here. A device gets its number in the transaction that brings its first change.
-- name and name_clock (schema 8) are the device's name as people call it and the clock of the change that set it
-- (a change of entity 'device'), NULL while it has none.
CREATE TABLE devices (
    number INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE
, name TEXT, name_clock TEXT) STRICT;

-- One row per change, in the order this store received them; never updated, never deleted.
-- hlc is the hybrid logical clock as one integer, milliseconds × 100,000 + counter, so integer order is clock order
-- (its text form MMMMMMMMMMMMMMM-CCCCC is printf('%015d-%05d', hlc / 100000, hlc % 100000)); device is the number
-- of the device in `devices`. fields is a JSON object of the fields the change set.
-- digest chains the rows in seq order: the SHA-256 (hex) of the previous row's digest (32 zero bytes before the
-- first row) followed by change_id, hlc, device, entity, entity_id, op and fields in their text forms (the clock
-- as above, the device by its id), each as its UTF-8 byte length (4 bytes, big-endian) and its bytes. receipt is
-- the receipt the change arrived by; NULL for a change made on this device. Schema 5 rebuilt the table (hence
-- its quoted name): the clock index holds the clock alone, the entity index the entity id alone. wall (schema 6)
-- is when the change was made by the wall clock of the device that made it (milliseconds since 1970), what the log
-- shows as its time; NULL for a change recorded before. When present, the digest covers it too, after fields, as
-- decimal text. Schema 8 rebuilt the table again to allow the entity 'device' (a device's name).
CREATE TABLE "changes" (
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

-- The current state of every annotation (deleted ones too: a delete is a tombstone). number is the row's rowid,
-- which the notes index refers to (explicit, so that VACUUM keeps it). created_hlc and updated_hlc are clocks as the
-- log keeps them. clocks holds, for each field group, the clock of the change that set it last (its hlc, device
-- number and change id), as the blob `FieldClocks` describes; merges compare against it, field by field.
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

CREATE INDEX annotations_by_document ON annotations (document);

CREATE INDEX annotations_by_passage ON annotations (start_passage);

-- The reading position in each document: last writer wins.
CREATE TABLE positions (
    document TEXT PRIMARY KEY NOT NULL,
    passage TEXT NOT NULL,
    offset INTEGER NOT NULL CHECK (offset >= 0),
    updated_hlc TEXT NOT NULL,
    clock TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- Full-text index of quotes and notes, folded like the content index so that words typed without
-- diacritics find them. Contentless (its rowid is annotations.number): the text lives in `annotations`; soft
-- hyphens are dropped so that they do not split words.
CREATE VIRTUAL TABLE notes_fts USING fts5(
    quote, note, content = '', tokenize = 'unicode61 remove_diacritics 2'
);

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

-- Changes held back from the log because they were dated more than a day ahead of this machine's clock when
-- imported (another device's clock was wrong): the change as it came (the columns of `changes`), the file it
-- came from (`source`) and when this store first saw it (`seen_at`, ISO 8601). Each moves to the log once it is
-- plausible, or at once with `import --accept-future`. Archives carry only the log; a restore keeps these.
-- receipt (schema 4) is the receipt of the import that brought the change; the change points to it once merged.
CREATE TABLE "quarantine" (
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

CREATE INDEX quarantine_by_clock ON quarantine (hlc);

-- Local writes made while this machine's wall clock was more than a day ahead of (or behind) the store's
-- newest change: the change made, the wall clock then (ISO 8601), the newest change's hlc, and which way.
CREATE TABLE clock_notes (
    seq INTEGER PRIMARY KEY,
    change_id TEXT NOT NULL,
    wall_clock TEXT NOT NULL,
    newest_change TEXT NOT NULL CHECK (length(newest_change) = 21),
    direction TEXT NOT NULL CHECK (direction IN ('ahead', 'behind'))
) STRICT;

-- The files of sync folders (`marginalia sync`) this store wrote (`written`) or merged whole (`applied`): the
-- device directory and file name under devices/, its size and SHA-256 (hex), the writer's log (its creation time)
-- and the range of that log's sequence numbers the file holds, how many changes, and when (ISO 8601). A sync round
-- reads only files not listed here.
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

-- What a sync round found in a folder and did not apply (schema 7), by device directory and name, its size and
-- modification time (nanoseconds since 1970): a `damaged` segment (whole but failing its checks; the line, when
-- one, and the reason) is reported on every round and not read again while it is unchanged; a `leftover` (a sync
-- tool's temporary or partial file, or a file of another program, unchanged for longer than the grace period) is
-- reported once. A file whose size or time changes is looked at afresh.
CREATE TABLE sync_seen (
    device TEXT NOT NULL,
    name TEXT NOT NULL,
    size INTEGER NOT NULL CHECK (size >= 0),
    modified INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('damaged', 'leftover')),
    line INTEGER CHECK (line >= 1),
    reason TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (device, name)
) STRICT, WITHOUT ROWID;

-- How received changes arrived (schema 4): one row per import (`import`), restore (`restore`), applied sync
-- segment (`sync`) or merge through the library (`merge`); `unrecorded` for the changes a store held from other
-- devices when it was upgraded to schema 4 (dated when the newest of them was made). When (ISO 8601), the file as named to the command, its size and
-- SHA-256 (hex) as read, and what merging it did: change records read, new changes (which point here),
-- duplicates, changes held in quarantine.
CREATE TABLE receipts (
    id INTEGER PRIMARY KEY,
    received_at TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('import', 'restore', 'sync', 'merge', 'unrecorded')),
    file TEXT,
    size INTEGER CHECK (size >= 0),
    sha256 TEXT CHECK (length(sha256) = 64),
    changes_read INTEGER NOT NULL CHECK (changes_read >= 0),
    new_changes INTEGER NOT NULL CHECK (new_changes >= 0),
    duplicates INTEGER NOT NULL CHECK (duplicates >= 0),
    quarantined INTEGER NOT NULL CHECK (quarantined >= 0)
) STRICT;

-- This device's own keys (schema 9), one row per device id the store has written under: the Ed25519 private key
-- (seed) that signs what it writes into a sync folder and the age X25519 secret that opens what is encrypted to it.
-- Kept in the store (created readable by its owner only), never in the log or an archive.
CREATE TABLE device_keys (
    device TEXT PRIMARY KEY NOT NULL,
    signing_seed BLOB NOT NULL CHECK (length(signing_seed) = 32),
    age_secret BLOB NOT NULL CHECK (length(age_secret) = 32),
    created_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- The age identities this device encrypts its sync segments to, one per epoch of its roster (schema 9); the folder
-- holds them wrapped to each admitted device and recovery key.
CREATE TABLE epoch_keys (
    device TEXT NOT NULL,
    epoch INTEGER NOT NULL CHECK (epoch >= 0),
    age_secret BLOB NOT NULL CHECK (length(age_secret) = 32),
    created_at TEXT NOT NULL,
    PRIMARY KEY (device, epoch)
) STRICT, WITHOUT ROWID;

-- The roster's signed entries this store verified (schema 9): founding, admissions, revocations, recovery keys, each
-- as its signer wrote it (body, JSON), by id (the SHA-256 of what was signed). Append-only and hash-chained: digest
-- is the SHA-256 (hex) of the previous row's digest (64 zeros before the first) followed by the body.
CREATE TABLE roster_entries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE CHECK (length(id) = 64),
    roster TEXT NOT NULL,
    body TEXT NOT NULL CHECK (json_valid(body)),
    digest TEXT NOT NULL CHECK (length(digest) = 64),
    recorded_at TEXT NOT NULL
) STRICT;

CREATE TRIGGER roster_entries_refuse_update BEFORE UPDATE ON roster_entries
BEGIN
    SELECT RAISE(ABORT, 'roster_entries is append-only: an entry cannot be updated');
END;

CREATE TRIGGER roster_entries_refuse_delete BEFORE DELETE ON roster_entries
BEGIN
    SELECT RAISE(ABORT, 'roster_entries is append-only: an entry cannot be deleted');
END;

-- What a sync keeps of its own (schema 9): the roster the store belongs to (roster), whether it encrypts what it
-- writes (encrypt), how far it published its log (published, before in meta), the recipients it encrypts to
-- besides its roster (recipients, before in meta), its pending join request (join).
CREATE TABLE sync_settings (
    name TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- Invitations this device made (schema 9): the one-time token (hex), until when it admits, and the device that
-- used it.
CREATE TABLE sync_invitations (
    token TEXT PRIMARY KEY NOT NULL CHECK (length(token) = 64),
    roster TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_by TEXT
) STRICT, WITHOUT ROWID;

-- What the adapters keep besides the log (schema 10), read and written only through the core's operations on it:
-- small named text values, each under the adapter that owns it. Owner archive: the record of each stepped import
-- not finished yet (pending_import:<kept copy>, a JSON object; before in meta). Owner sync: the identity of the
-- store file its device id belongs to (store_file, before in meta).
CREATE TABLE adapter_state (
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (owner, name)
) STRICT, WITHOUT ROWID;
