// MARK: - Version 10: what the adapters keep, in a table of its own

extension UserSchema {
    /// Version 10: what the adapters keep in the store besides the log, in a table of its own (in place of keys in
    /// `meta`), which they read and write only through the core's operations on it (`AdapterState`).
    ///
    /// `adapter_state` holds small named text values, each under the adapter that owns it (`owner`). It takes over
    /// the records of the archive's stepped imports (`pending_import:<kept copy>`, now under owner `archive` by the
    /// same name) and the identity of the store file its device id belongs to (`store_file`, now under owner
    /// `sync`): `meta` holds the store's own identity only.
    static let version10 = """
        CREATE TABLE adapter_state (
            owner TEXT NOT NULL,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (owner, name)
        ) STRICT, WITHOUT ROWID;

        INSERT INTO adapter_state (owner, name, value)
        SELECT 'archive', key, value FROM meta WHERE key LIKE 'pending\\_import:%' ESCAPE '\\';

        INSERT INTO adapter_state (owner, name, value)
        SELECT 'sync', key, value FROM meta WHERE key = 'store_file';

        DELETE FROM meta WHERE key LIKE 'pending\\_import:%' ESCAPE '\\' OR key = 'store_file';
        """
}
