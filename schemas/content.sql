-- Marginalia content database: the readable form of what `marginalia content build` writes
-- (content schema version 2).
--
--   PRAGMA application_id = 1297237827;  -- 0x4D524743, "MRGC"
--   PRAGMA user_version = 2;
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

-- The word forms of the passages and their stems (schema 2): each word as the full-text index holds it (folded:
-- lowercase, no diacritics) beside the Snowball Romanian stem of the word as written, in today's orthography
-- (ş ţ as ș ț, î inside a word as â), and that stem folded. A search finds every form sharing a stem with the word
-- typed, without a stemmer of its own (a form the content lacks is stemmed where the stemmer is built in, and
-- matched by the folded stem). Content of schema 1 has none; its search looks for the words as typed and their
-- prefixes.
CREATE TABLE vocabulary (
    form TEXT NOT NULL,
    stem TEXT NOT NULL,
    folded_stem TEXT NOT NULL,
    PRIMARY KEY (form, stem)
) STRICT, WITHOUT ROWID;

CREATE INDEX vocabulary_by_stem ON vocabulary (stem, form);

CREATE INDEX vocabulary_by_folded_stem ON vocabulary (folded_stem, form);
