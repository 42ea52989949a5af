/// The content database's schema, as `marginalia content build` writes it (`schemas/content.sql`).
enum ContentSchema {
    /// `PRAGMA application_id` of a content database: 0x4D524743, "MRGC".
    static let applicationID = ApplicationID.content

    /// The content schema version this build writes, and the newest it reads; a newer one is refused at attach.
    /// Version 2 adds `vocabulary`; content of version 1 is still read (its search matches no other forms).
    static let version: Int32 = 2
    /// The oldest content schema read.
    static let oldestReadable: Int32 = 1

    /// The schema name content is attached under.
    static let schemaName = "content"

    static let sql = """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE documents (
            id TEXT PRIMARY KEY NOT NULL,
            title TEXT NOT NULL,
            ord INTEGER NOT NULL UNIQUE
        ) STRICT;

        CREATE TABLE passages (
            id TEXT PRIMARY KEY NOT NULL,
            document_id TEXT NOT NULL REFERENCES documents (id),
            ord INTEGER NOT NULL,
            text TEXT NOT NULL,
            UNIQUE (document_id, ord)
        ) STRICT;

        CREATE VIRTUAL TABLE passages_fts USING fts5(
            text, tokenize = 'unicode61 remove_diacritics 2'
        );

        CREATE TABLE vocabulary (
            form TEXT NOT NULL,
            stem TEXT NOT NULL,
            folded_stem TEXT NOT NULL,
            PRIMARY KEY (form, stem)
        ) STRICT, WITHOUT ROWID;

        CREATE INDEX vocabulary_by_stem ON vocabulary (stem, form);

        CREATE INDEX vocabulary_by_folded_stem ON vocabulary (folded_stem, form);
        """
}
