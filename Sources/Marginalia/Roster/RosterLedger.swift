/// What a store keeps of its keys and its roster: this device's private keys (`device_keys`), the roster entries it
/// has verified (`roster_entries`, append-only, hash-chained), which roster it belongs to, and its sync settings
/// (`sync_settings`). The one place that reads and writes those tables.
package struct RosterLedger {
    let db: any Database

    package init(db: any Database) {
        self.db = db
    }

    // MARK: - Keys

    /// The keys of `device`, if the store made them.
    package func keys(of device: String) throws -> DeviceKeys? {
        try db.fetchOne(sql: "SELECT signing_seed, age_secret FROM device_keys WHERE device = ?",
                        arguments: [device]) { row in
            try DeviceKeys(device: device, signingSeed: Array(row.bytes(at: 0)), ageSecret: Array(row.bytes(at: 1)))
        }
    }

    /// The keys of `device`, made and kept now when the store has none yet (in the caller's transaction).
    package func ensureKeys(of device: String, at time: String) throws -> DeviceKeys {
        if let keys = try keys(of: device) { return keys }
        let keys = try DeviceKeys.generate(device: device)
        try db.execute(
            sql: "INSERT INTO device_keys (device, signing_seed, age_secret, created_at) VALUES (?, ?, ?, ?)",
            arguments: [device, DatabaseValue.blob(keys.signingSeed), DatabaseValue.blob(keys.identity.secretKey),
                        time])
        return keys
    }

    // MARK: - Entries

    /// The roster this store belongs to; nil before it founded or joined one.
    package func rosterID() throws -> String? { try setting("roster") }

    /// Makes `id` the roster this store belongs to.
    package func setRosterID(_ id: String) throws { try setSetting("roster", id) }

    /// Every entry the store holds, of every roster, in the order it took them.
    package func entries() throws -> [RosterEntry] {
        try db.fetchAll(sql: "SELECT body FROM roster_entries ORDER BY seq") { try RosterEntry(text: try $0.string(0)) }
    }

    /// The state of the roster this store belongs to; nil before it founded or joined one.
    package func roster() throws -> Roster? {
        guard let id = try rosterID() else { return nil }
        return Roster(id: id, entries: try entries())
    }

    /// Appends the entries it does not hold yet, each chained to the one before; returns how many were new.
    @discardableResult
    package func append(_ entries: [RosterEntry], at time: String) throws -> Int {
        var added = 0
        var previous = try db.text(sql: "SELECT digest FROM roster_entries ORDER BY seq DESC LIMIT 1")
            ?? String(repeating: "0", count: 64)
        for entry in entries {
            let id = entry.id
            guard try db.int(sql: "SELECT 1 FROM roster_entries WHERE id = ?", arguments: [id]) == nil else { continue }
            let body = entry.encoded
            let digest = try SHA256Digest.hex(of: Array(previous.utf8) + Array(body.utf8))
            try db.execute(
                sql: "INSERT INTO roster_entries (id, roster, body, digest, recorded_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, entry.roster, body, digest, time])
            previous = digest
            added += 1
        }
        return added
    }

    /// The first entry whose digest does not follow from the one before; nil when the chain is whole.
    package func chainBreak() throws -> Int64? {
        var previous = String(repeating: "0", count: 64)
        var broken: Int64?
        try db.forEachRow(sql: "SELECT seq, body, digest FROM roster_entries ORDER BY seq") { row in
            guard broken == nil else { return }
            let expected = try SHA256Digest.hex(of: Array(previous.utf8) + Array(try row.string(1).utf8))
            if expected != (try row.string(2)) { broken = try row.int64(0) }
            previous = try row.string(2)
        }
        return broken
    }

    // MARK: - Settings

    package func setting(_ name: String) throws -> String? {
        try db.text(sql: "SELECT value FROM sync_settings WHERE name = ?", arguments: [name])
    }

    package func setSetting(_ name: String, _ value: String?) throws {
        if let value {
            try db.execute(sql: "INSERT OR REPLACE INTO sync_settings (name, value) VALUES (?, ?)",
                           arguments: [name, value])
        } else {
            try db.execute(sql: "DELETE FROM sync_settings WHERE name = ?", arguments: [name])
        }
    }

    // MARK: - Invitations

    /// Remembers an invitation's token (64 hex digits), until `expires`: a join request made with it is admitted.
    /// The token is secret while unused, as the store is.
    package func addInvitation(token: String, roster: String, at time: String, expires: String) throws {
        try db.execute(
            sql: "INSERT INTO sync_invitations (token, roster, created_at, expires_at) VALUES (?, ?, ?, ?)",
            arguments: [token, roster, time, expires])
    }

    /// The tokens of the unused, unexpired invitations of `roster` at `time`.
    package func openInvitations(roster: String, at time: String) throws -> [String] {
        try db.fetchAll(
            sql: """
                SELECT token FROM sync_invitations
                WHERE roster = ? AND used_by IS NULL AND expires_at > ? ORDER BY created_at
                """,
            arguments: [roster, time]) { try $0.string(0) }
    }

    /// Marks an invitation used by `device`: it admits no one else.
    package func useInvitation(token: String, by device: String) throws {
        try db.execute(sql: "UPDATE sync_invitations SET used_by = ? WHERE token = ?", arguments: [device, token])
    }
}

// MARK: - Epoch keys

extension RosterLedger {
    /// This device's epoch identities, newest epoch first.
    package func epochKeys(of device: String) throws -> [(epoch: Int, identity: AgeIdentity)] {
        try db.fetchAll(sql: "SELECT epoch, age_secret FROM epoch_keys WHERE device = ? ORDER BY epoch DESC",
                        arguments: [device]) { row in
            (try row.int(0), try AgeIdentity(secretKey: Array(row.bytes(at: 1))))
        }
    }

    /// The identity of `device`'s epoch `epoch`, made and kept now when it has none yet.
    package func ensureEpochKey(of device: String, epoch: Int, at time: String) throws -> AgeIdentity {
        if let known = try epochKeys(of: device).first(where: { $0.epoch == epoch }) { return known.identity }
        let identity = try AgeIdentity(secretKey: PlatformCrypto.randomBytes(32))
        try db.execute(sql: "INSERT INTO epoch_keys (device, epoch, age_secret, created_at) VALUES (?, ?, ?, ?)",
                       arguments: [device, Int64(epoch), DatabaseValue.blob(identity.secretKey), time])
        return identity
    }
}
