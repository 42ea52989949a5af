/// Who a restored store is: the device the store it replaces was, carried into the store built from the archive.
///
/// A restore replaces what the store holds, not which device it is. The store built from the archive takes the
/// replaced store's device id, its name (the change that set it, when the archive lacks it), its keys, its place in
/// a roster and its sync settings, so that its next sync speaks as the same device. Its log is a new one (built
/// from the archive), so the log it replaces is recorded as a former one: segments that log wrote in the folder
/// are read back as this device's own past, never taken for the work of a copy, and changes under its id clocked
/// up to now were made by the store it replaces.
enum RestoreIdentity {
    /// The tables of a store's device identity and sync membership, copied whole; none of them is in an archive.
    static let carriedTables = ["device_keys", "epoch_keys", "roster_entries", "sync_settings", "sync_invitations"]

    /// Carries the identity of the healthy store at `previous` into `store` (built from an archive, not yet
    /// written by anyone else), in one transaction. Returns the device id and name it kept.
    /// - Throws: an SQLite error when `previous` cannot be read; `store` is then as it was.
    static func carry(from previous: String, into store: StoreWriter) throws -> (id: String, name: String?) {
        let old = try StoreReader.open(path: previous)
        let deviceID = old.deviceID
        let nameChanges = try old.log.changes(of: .device, id: deviceID)
        let formerLogs = [try old.log.identity()] + (try old.log.formerIdentities())
        let newest = try old.db.int(sql: "SELECT coalesce(max(hlc), 0) FROM changes") ?? 0
        let (owner, key) = AdapterState.storeFile
        let storeFile = try AdapterState(db: old.db, owner: owner).value(of: key)
        let db = store.db
        // "It is not possible to ATTACH … a database while a transaction is active"
        // https://www.sqlite.org/lang_attach.html
        try db.attachReadOnly(path: previous, as: "previous")
        defer { try? db.detach("previous") }
        try store.write { transaction in
            // Merged while the store still has its own fresh id: these are changes of another device to it.
            if !nameChanges.isEmpty {
                _ = try Merger(transaction).merge(nameChanges, source: ReceiptSource(kind: .restore, file: previous))
            }
            for table in carriedTables {
                try db.execute(sql: "INSERT OR REPLACE INTO main.\(table) SELECT * FROM previous.\(table)")
            }
            if let storeFile { try AdapterState(db: db, owner: owner).set(key, to: storeFile) }
            try transaction.log.continueIdentity(formerLogs: formerLogs,
                                                 ownChangesThrough: max(newest, try transaction.tick().packed))
            try transaction.keepDeviceID(deviceID)
        }
        let name = try db.text(sql: "SELECT name FROM devices WHERE id = ?", arguments: [deviceID])
        return (deviceID, name)
    }
}
