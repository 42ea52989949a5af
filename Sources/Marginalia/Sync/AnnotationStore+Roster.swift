// MARK: - The roster: which devices may speak in a sync folder

/// A store that belongs to a roster signs every file it writes into a sync folder with its own device key, and takes
/// from the folder only what a device of its roster signed: an unsigned file, a forged one, one of a device never
/// admitted or revoked is reported and left alone. Every folder has a roster: a store founds one at its first round
/// in a folder that holds none, or when it first invites a device (`invite()`). A store in no roster that meets a
/// folder of another roster reads and writes nothing there (`SyncReport.joinNeeded`): a device of that roster
/// invites it, it joins with the invitation (`join(_:)`), asks to be admitted at its next round, and the inviting
/// device admits it at its own next round. A lost device is revoked (`revokeDevice(_:)`).
///
///     try laptop.sync(folder: folder)                             // the first round founds the folder's roster
///     let invitation = try laptop.invite()                       // on a device of the roster
///     try phone.join(invitation)                                  // on the new one (the file carried over)
///     try phone.sync(folder: folder); try laptop.sync(folder: folder)   // the phone is admitted
///     try laptop.revokeDevice(oldPhoneID)                         // a lost device speaks no more
extension AnnotationStore {
    /// The roster this store belongs to; nil before it founded or joined one.
    public func roster() throws -> Roster? {
        do {
            return try engine.reading { try RosterLedger(db: $0.db).roster() }
        } catch {
            throw MarginaliaError(error)
        }
    }

    /// Founds a roster of this device alone, when the store belongs to none: from then on it signs what it writes
    /// into a sync folder and takes only what its roster's devices signed. Returns the roster it belongs to.
    @discardableResult
    public func foundRoster() throws -> Roster {
        try rosterWrite { try $0.foundRoster() }
    }

    /// An invitation for a new device to join this store's roster (founded first when it has none); it admits one
    /// device within a week. Write it with `DeviceInvitation.encoded()` to a file only its owner reads.
    public func invite() throws -> DeviceInvitation {
        try rosterWrite { try $0.invite() }
    }

    /// Joins the roster of `invitation`: this store takes its entries, makes its device keys and asks, at its next
    /// sync round, to be admitted; the inviting device admits it at its own next round.
    /// - Parameter name: the name it asks to be admitted under; nil for the name this device has (`nameDevice(_:)`),
    ///   if any.
    /// - Throws: `MarginaliaError`: `.invalidData` for an invitation whose entries do not verify, `.invalidArgument`
    ///   for one expired or a store already in another roster with other devices.
    @discardableResult
    public func join(_ invitation: DeviceInvitation, name: String? = nil) throws -> Roster {
        let own = deviceID
        let name = try name ?? engine.reading { try DeviceNames(db: $0.db).all()[own] }
        return try rosterWrite { try $0.join(invitation, name: name) }
    }

    /// Revokes `device` (its id): from the next round on, nothing it writes is taken, and the devices it admitted
    /// that are active stay admitted.
    /// - Throws: `MarginaliaError` `.notFound` for a device not in the roster.
    @discardableResult
    public func revokeDevice(_ device: String) throws -> Roster {
        try rosterWrite { try $0.revoke(device) }
    }

    /// Adds a paper recovery key to the roster and returns its identity, to be written down and kept offline: the
    /// store does not keep it.
    public func addRecoveryKey() throws -> AgeIdentity {
        try rosterWrite { try $0.addRecoveryKey() }
    }

    /// This device's public keys (made now if the store has none yet), with the fingerprint a person compares.
    public func deviceKeys() throws -> DevicePublicKeys {
        try rosterWrite { replica in
            try replica.db.transaction(.immediate) {
                try RosterLedger(db: replica.db).ensureKeys(
                    of: replica.store.deviceID,
                    at: Timestamp.iso8601(milliseconds: replica.store.clock.wallMilliseconds)).publicKeys
            }
        }
    }

    private func rosterWrite<T>(_ body: (SyncReplica<StoreWriter>) throws -> T) throws -> T {
        do {
            return try engine.writing { try body(SyncReplica(store: $0)) }
        } catch {
            throw MarginaliaError(error)
        }
    }

    // MARK: - async

    /// `invite()`, off the caller's actor.
    public func invite() async throws -> DeviceInvitation {
        try await Self.offActor(progress: nil) { _ in try self.invite() }
    }

    /// `join(_:name:)`, off the caller's actor.
    @discardableResult
    public func join(_ invitation: DeviceInvitation, name: String? = nil) async throws -> Roster {
        try await Self.offActor(progress: nil) { _ in try self.join(invitation, name: name) }
    }

    /// `revokeDevice(_:)`, off the caller's actor.
    @discardableResult
    public func revokeDevice(_ device: String) async throws -> Roster {
        try await Self.offActor(progress: nil) { _ in try self.revokeDevice(device) }
    }

    /// `addRecoveryKey()`, off the caller's actor.
    public func addRecoveryKey() async throws -> AgeIdentity {
        try await Self.offActor(progress: nil) { _ in try self.addRecoveryKey() }
    }
}
