-- Marginalia content database: the readable form of what `marginalia content build` writes
-- (content schema version 1).
--
--   PRAGMA application_id = 1297237827;  -- 0x4D524743, "MRGC"
--   PRAGMA user_version = 1;
--
-- Read-only once built, replaced wholesale by each edition, attached to the user database with a mode=ro
-- URI. Passages are keyed by stable ids that annotations refer to; rowids are internal and change between
-- editions.

-- edition, language, title of the source.
CREATE TABLE meta (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- Documents in reading order.
CREATE TABLE documents (
    id TEXT PRIMARY KEY NOT NULL,
    title TEXT NOT NULL,
    ord INTEGER NOT NULL UNIQUE
) STRICT;

-- Passages in reading order within their document; text is NFC-normalized.
CREATE TABLE passages (
    id TEXT PRIMARY KEY NOT NULL,
    document_id TEXT NOT NULL REFERENCES documents (id),
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (document_id, ord)
) STRICT;

-- Full-text index of the passages (rowid = passages.rowid). Diacritics are folded, so that `stiinta` finds
-- both `ştiinţă` (cedilla) and `știință` (comma below); soft hyphens are dropped before indexing so that
-- they do not split words.
CREATE VIRTUAL TABLE passages_fts USING fts5(
    text, tokenize = 'unicode61 remove_diacritics 2'
);
