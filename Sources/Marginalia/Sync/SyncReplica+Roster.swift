/// The roster's part of a round, and the operations that change a roster (found, invite, join, revoke, recovery),
/// each in one transaction on this store's connection.
extension SyncReplica where Store == StoreWriter {
    /// How long an invitation admits (milliseconds): a week.
    static let invitationLifetime: Int64 = 7 * 24 * 60 * 60 * 1000

    var rosterLedger: RosterLedger { RosterLedger(db: db) }

    private var now: String { Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds) }

    // MARK: - Changing the roster

    /// Founds a roster of this device alone, when the store belongs to none; the roster it belongs to.
    func foundRoster() throws -> Roster {
        try db.transaction(.immediate) {
            let ledger = rosterLedger
            if let roster = try ledger.roster() { return roster }
            let keys = try ledger.ensureKeys(of: store.deviceID, at: now)
            let id = RosterEntry.rosterID(founder: keys.device, signingKey: keys.publicKeys.signingKey)
            var entry = RosterEntry(roster: id, kind: .found, device: keys.device, keys: keys.publicKeys,
                                    by: keys.device, at: now)
            try entry.sign(with: keys)
            try ledger.append([entry], at: now)
            try ledger.setRosterID(id)
            guard let roster = try ledger.roster() else { throw Self.rosterDamaged }
            return roster
        }
    }

    /// An invitation to this store's roster (founded first when it has none), remembered until it expires.
    func invite() throws -> DeviceInvitation {
        let roster = try foundRoster()
        return try db.transaction(.immediate) {
            let ledger = rosterLedger
            let keys = try speakingKeys(in: roster, to: "invite")
            let token = try PlatformCrypto.randomBytes(32)
            let expires = Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds + Self.invitationLifetime)
            try ledger.addInvitation(token: SHA256Digest.hex(ofDigest: token), roster: roster.id, at: now,
                                     expires: expires)
            return DeviceInvitation(roster: roster.id, from: store.deviceID, fingerprint: keys.publicKeys.fingerprint,
                                    expires: expires, token: token, entries: roster.entries)
        }
    }

    /// Joins the roster of `invitation`: takes its entries, makes this device's keys (a copy of a store takes a new
    /// device id first) and remembers its request to be admitted, which the next round writes into the folder for
    /// the inviting device to admit.
    /// - Throws: `MarginaliaError` for an invitation whose entries do not found a roster its inviter may speak in,
    ///   one expired, or a store that belongs to another roster with other devices already.
    func join(_ invitation: DeviceInvitation, name: String?) throws -> Roster {
        guard let roster = Roster(id: invitation.roster, entries: invitation.entries),
              roster.activeKeys(of: invitation.from) != nil else {
            throw MarginaliaError(category: .invalidData, reason: .other(
                "the invitation's roster entries do not verify: its inviting device \(invitation.from) is not "
                    + "admitted by them; nothing was changed"))
        }
        if let name {
            do {
                try ChangeFields(name: name).checkValues()
            } catch {
                throw MarginaliaError(category: .invalidArgument, reason: .field(error))
            }
        }
        guard invitation.expires > now else {
            throw MarginaliaError(category: .invalidArgument, reason: .other(
                "the invitation expired at \(invitation.expires); ask for a new one; nothing was changed"))
        }
        return try store.write { transaction in
            let ledger = rosterLedger
            if let current = try ledger.roster(), current.id != roster.id, current.members.count > 1 {
                throw MarginaliaError(category: .invalidArgument, reason: .other(
                    "this store belongs to another roster (\(current.id)) with \(current.members.count) devices; "
                        + "it cannot join a second one; nothing was changed"))
            }
            // A copy of a store takes its new id now, as its first round would: a request made under the old id
            // would lie in the new id's directory, which is not the device it names, and never be admitted.
            _ = try renewIfCopiedInTransaction(transaction)
            let keys = try ledger.ensureKeys(of: store.deviceID, at: now)
            try ledger.append(roster.entries, at: now)
            try ledger.setRosterID(roster.id)
            let request = try JoinRequest(roster: roster.id, keys: keys, name: name, token: invitation.token)
            try ledger.setSetting("join", String(decoding: try request.file(signedWith: keys), as: UTF8.self))
            guard let joined = try ledger.roster() else { throw Self.rosterDamaged }
            return joined
        }
    }

    /// Revokes `device`: it speaks no more from the next round on, and the devices it admitted that are active now
    /// stay admitted. Returns the roster after.
    func revoke(_ device: String) throws -> Roster {
        try db.transaction(.immediate) {
            let ledger = rosterLedger
            guard let roster = try ledger.roster() else {
                throw MarginaliaError(category: .invalidArgument, reason: .other(
                    "this store belongs to no roster yet: there is no device to revoke"))
            }
            guard roster.members[device] != nil else {
                throw MarginaliaError(category: .notFound, reason: .other("no device \(device) in the roster"))
            }
            let keys = try speakingKeys(in: roster, to: "revoke")
            let keep = roster.members.values.filter { $0.isActive && $0.admittedBy == device && $0.device != device }
                .map(\.device)
            var entry = RosterEntry(roster: roster.id, kind: .revoke, device: device, keep: keep,
                                    by: store.deviceID, at: now)
            try entry.sign(with: keys)
            try ledger.append([entry], at: now)
            guard let after = try ledger.roster() else { throw Self.rosterDamaged }
            return after
        }
    }

    /// Adds a paper recovery key to the roster: a new age identity, whose recipient is recorded (signed by this
    /// device) and whose secret is returned, to be written down and kept; the store does not keep it.
    func addRecoveryKey() throws -> AgeIdentity {
        let roster = try foundRoster()
        return try db.transaction(.immediate) {
            let ledger = rosterLedger
            let keys = try speakingKeys(in: roster, to: "add a key")
            let paper = try AgeIdentity(secretKey: PlatformCrypto.randomBytes(32))
            var entry = RosterEntry(roster: roster.id, kind: .recovery, device: store.deviceID,
                                    recoveryRecipient: paper.recipient, by: store.deviceID, at: now)
            try entry.sign(with: keys)
            try ledger.append([entry], at: now)
            return paper
        }
    }

    /// After a renewal from `old`: the new id's keys, and its admission signed with the old id's key (its
    /// successor), when the old id may speak in the roster. Call it in the renewal's transaction.
    func admitSuccessor(of old: String) throws {
        let ledger = rosterLedger
        guard let roster = try ledger.roster(), roster.activeKeys(of: old) != nil,
              let oldKeys = try ledger.keys(of: old) else { return }
        let keys = try ledger.ensureKeys(of: store.deviceID, at: now)
        var entry = RosterEntry(roster: roster.id, kind: .admit, device: store.deviceID, keys: keys.publicKeys,
                                succeeds: true, by: old, at: now)
        try entry.sign(with: oldKeys)
        try ledger.append([entry], at: now)
    }

    /// This device's keys, when it may speak in `roster`; `action` words what it was asked to do, for the refusal.
    private func speakingKeys(in roster: Roster, to action: String) throws -> DeviceKeys {
        guard let keys = try rosterLedger.keys(of: store.deviceID), roster.activeKeys(of: store.deviceID) != nil else {
            let why = roster.refusal(of: store.deviceID) ?? "may not speak"
            throw MarginaliaError(category: .invalidArgument, reason: .other(
                "this device (\(store.deviceID)) \(why): it cannot \(action)"))
        }
        return keys
    }

    static let rosterDamaged = MarginaliaError(category: .corruptStore, reason: .other(
        "the store's roster entries do not found the roster it belongs to"))

    // MARK: - In a round

    /// Reads the roster files and join requests of every directory, takes the entries that verify, admits the
    /// devices whose request an open invitation of this device proves, and sets the round's roster. A store in no
    /// roster founds one when no roster file in the folder founds one (the first device to sync founds it); when
    /// one does, the store sets `joinNeeded` and goes no further: it takes part once it joins with an invitation.
    func settleRoster(_ round: inout SyncRound) throws {
        let ledger = rosterLedger
        var found: [RosterEntry] = []
        var requests: [JoinRequest] = []
        for (device, isLink) in try round.folder.deviceDirectories() where !isLink {
            let directory = round.folder.directory(of: device)
            if let bytes = try? SyncFolder.readFile("\(directory)/\(SyncRosterFiles.rosterName)",
                                                    limit: SyncFormat.maxSmallFileBytes * 4) {
                found += SyncRosterFiles.entries(inRosterFile: bytes)
            }
            if device != store.deviceID,
               let bytes = try? SyncFolder.readFile("\(directory)/\(SyncRosterFiles.joinName)",
                                                    limit: SyncFormat.maxSmallFileBytes),
               let request = try? JoinRequest(file: bytes, directory: device) {
                requests.append(request)
            }
        }
        // Read after the folder: a round of this store running meanwhile founds its roster before it writes its
        // roster file, so this store's own roster file is never taken for another roster's.
        let id: String
        if let current = try ledger.rosterID() {
            id = current
        } else if let theirs = Self.roster(foundedIn: found) {
            round.report.joinNeeded = SyncJoinNeeded(
                roster: theirs.id, founder: theirs.founder,
                founderFingerprint: theirs.members[theirs.founder].map(\.keys.fingerprint) ?? "")
            return
        } else {
            id = try foundRoster().id
        }
        requests.removeAll { $0.roster != id }
        round.roster = try db.transaction(.immediate) {
            let held = try ledger.entries()
            let known = Set(held.map(\.id))
            // The state is worked out again only when the folder holds entries this store does not (an idle round
            // checks no signature twice).
            let unknown = found.filter { $0.roster == id && !known.contains($0.id) }
            if !unknown.isEmpty, let state = Roster(id: id, entries: held + unknown) {
                try ledger.append(state.entries.filter { !known.contains($0.id) }, at: now)
            }
            guard var roster = try ledger.roster() else { throw Self.rosterDamaged }
            if roster.activeKeys(of: store.deviceID) != nil, let keys = try ledger.keys(of: store.deviceID) {
                if try admit(requests, to: roster, with: keys, in: &round) {
                    guard let admitted = try ledger.roster() else { throw Self.rosterDamaged }
                    roster = admitted
                }
                if try ledger.setting("join") != nil { try ledger.setSetting("join", nil) }
            }
            return roster
        }
        round.report.roster = round.roster?.id
        round.ownKeys = try db.transaction(.immediate) { try ledger.ensureKeys(of: store.deviceID, at: now) }
    }

    /// The roster the entries of a folder's roster files found, if any does: of several (two devices that founded
    /// one each before either saw the other's), the one with the most active devices, then the smallest id.
    static func roster(foundedIn entries: [RosterEntry]) -> Roster? {
        let rosters = Set(entries.filter { $0.kind == .found }.map(\.roster)).compactMap {
            Roster(id: $0, entries: entries)
        }
        return rosters.min { first, second in
            let (a, b) = (first.activeDevices.count, second.activeDevices.count)
            return a != b ? a > b : first.id < second.id
        }
    }

    /// Admits each device whose join request an open invitation of this device proves.
    /// Returns whether it admitted any.
    @discardableResult
    private func admit(_ requests: [JoinRequest], to roster: Roster, with keys: DeviceKeys,
                       in round: inout SyncRound) throws -> Bool {
        var admittedAny = false
        let ledger = rosterLedger
        for var request in requests where roster.members[request.device] == nil {
            // The name is the joiner's own words: one a device could not be named is dropped, never printed.
            if let name = request.name, (try? ChangeFields(name: name).checkValues()) == nil { request.name = nil }
            for token in try ledger.openInvitations(roster: roster.id, at: now) {
                guard let secret = JoinRequest.bytes(ofHex: token), request.isMade(with: secret) else { continue }
                var entry = RosterEntry(roster: roster.id, kind: .admit, device: request.device, keys: request.keys,
                                        name: request.name, by: store.deviceID, at: now)
                try entry.sign(with: keys)
                try ledger.append([entry], at: now)
                try ledger.useInvitation(token: token, by: request.device)
                round.report.admitted.append(SyncAdmission(device: request.device, name: request.name,
                                                           fingerprint: request.keys.fingerprint))
                admittedAny = true
                break
            }
        }
        return admittedAny
    }
}
