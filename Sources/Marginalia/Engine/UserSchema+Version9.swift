// MARK: - Version 9: device keys and the roster of admitted devices

extension UserSchema {
    /// Version 9: this device's own keys, the roster of the devices admitted to speak in a sync folder, and what a
    /// sync keeps of its own (in place of keys in `meta`).
    ///
    /// `device_keys` holds the private halves of this store's keys, one row per device id it has written under
    /// (a renewed id gets new keys). They live in the store, not in a file beside it: the store file is created
    /// readable by its owner only, a key and the id it signs for then change in one transaction, and an archive
    /// (which carries the log, never this table) cannot take them off the machine.
    ///
    /// `epoch_keys` holds the age identities this device encrypts its sync segments to, one per epoch of its roster
    /// (a revocation starts a new one); the folder holds them wrapped to each admitted device (`keys-….age`).
    ///
    /// `sync_settings` takes over what sync kept in `meta` (`sync_published`, `sync_recipients`, now `published` and
    /// `recipients`): `meta` holds the store's own identity only.
    ///
    /// `roster_entries` is append-only and hash-chained like the change log: each row is one signed entry as its
    /// signer wrote it (`body`, a JSON object), `digest` the SHA-256 (hex) of the previous row's digest (64 zeros
    /// before the first) followed by the body's bytes.
    static let version9 = """
        CREATE TABLE device_keys (
            device TEXT PRIMARY KEY NOT NULL,
            signing_seed BLOB NOT NULL CHECK (length(signing_seed) = 32),
            age_secret BLOB NOT NULL CHECK (length(age_secret) = 32),
            created_at TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        CREATE TABLE epoch_keys (
            device TEXT NOT NULL,
            epoch INTEGER NOT NULL CHECK (epoch >= 0),
            age_secret BLOB NOT NULL CHECK (length(age_secret) = 32),
            created_at TEXT NOT NULL,
            PRIMARY KEY (device, epoch)
        ) STRICT, WITHOUT ROWID;

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

        CREATE TABLE sync_settings (
            name TEXT PRIMARY KEY NOT NULL,
            value TEXT NOT NULL
        ) STRICT, WITHOUT ROWID;

        INSERT INTO sync_settings (name, value)
        SELECT substr(key, 6), value FROM meta WHERE key IN ('sync_published', 'sync_recipients');

        DELETE FROM meta WHERE key IN ('sync_published', 'sync_recipients');

        CREATE TABLE sync_invitations (
            token TEXT PRIMARY KEY NOT NULL CHECK (length(token) = 64),
            roster TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            used_by TEXT
        ) STRICT, WITHOUT ROWID;
        """
}
