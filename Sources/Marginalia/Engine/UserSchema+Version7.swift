// MARK: - Version 7: what a sync round found in the folder and did not apply

extension UserSchema {
    /// Version 7: the files of a sync folder a round looked at and did not apply, by their name, size and
    /// modification time, so that the next round neither reads them again nor reports them as pending forever: a
    /// damaged segment (reported on every round until it is replaced), a leftover a sync tool or a person left
    /// (reported once), a segment whose changes were refused. A file that changes (its size or time) is looked at
    /// afresh.
    static let version7 = """
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
        """
}
