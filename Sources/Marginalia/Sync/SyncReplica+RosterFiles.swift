#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Publishing

extension SyncReplica where Store == StoreWriter {
    /// With a roster: replaces this device's manifest when it is not one it signed for this roster (a store that
    /// wrote before it joined), its roster file when it knows entries the file lacks, and writes its join request
    /// while it waits to be admitted (removed once it is).
    func publishRosterFiles(_ round: inout SyncRound) throws {
        guard let roster = round.roster, let keys = round.ownKeys, keys.device == store.deviceID else { return }
        let directory = round.folder.directory(of: store.deviceID)
        let manifestPath = "\(directory)/\(SyncFormat.deviceManifestName)"
        let ownKey: (String) -> DevicePublicKeys? = { $0 == keys.device ? keys.publicKeys : nil }
        let current = try? SyncFolder.readFile(manifestPath, limit: SyncFormat.maxSmallFileBytes)
        let signed = current.flatMap { try? SignedFile.decode($0, kind: SyncFormat.name, keys: ownKey) }
        if signed?.object["roster"] != .string(roster.id) {
            let manifest = DeviceManifest(device: store.deviceID, formerDevices: try formerDeviceIDs(),
                                          roster: roster.id)
            try round.folder.replace(manifestPath, bytes: try manifest.encoded(signedWith: keys))
        }
        let rosterPath = "\(directory)/\(SyncRosterFiles.rosterName)"
        let written = (try? SyncFolder.readFile(rosterPath, limit: SyncFormat.maxSmallFileBytes * 4))
            .map(SyncRosterFiles.entries(inRosterFile:)) ?? []
        if Set(written.map(\.id)) != Set(roster.entries.map(\.id)) {
            try round.folder.replace(rosterPath, bytes: try SyncRosterFiles.rosterFile(
                roster: roster.id, entries: roster.entries, keys: keys))
        }
        if let (name, bytes) = round.epochKeysFile {
            // Before any segment sealed to the epoch: a reader that has the segment can open it.
            try round.folder.writeNew("\(directory)/\(name)", bytes: bytes)
            for old in try SyncFolder.list(directory) where EpochKeysFile.isKeysFile(old) && old != name {
                _ = unlink("\(directory)/\(old)")
            }
            round.epochKeysFile = nil
        }
        let joinPath = "\(directory)/\(SyncRosterFiles.joinName)"
        if roster.activeKeys(of: store.deviceID) == nil, let request = try rosterLedger.setting("join") {
            let bytes = Array(request.utf8)
            if (try? SyncFolder.readFile(joinPath, limit: SyncFormat.maxSmallFileBytes)) != bytes {
                try round.folder.replace(joinPath, bytes: bytes)
            }
        } else if SyncFolder.info(joinPath) != nil {
            _ = unlink(joinPath)
        }
    }
}

// MARK: - Encryption by epochs

extension SyncReplica where Store == StoreWriter {
    /// With a roster: learns the epoch identities of every device that may speak from its newest keys file this
    /// device opens, and, when the store encrypts, makes this device's identity of the roster's epoch, writes its
    /// keys file for the devices that may speak now (and the recovery keys), removes its older ones, and seals the
    /// segments it writes to that epoch.
    func settleEpochKeys(_ round: inout SyncRound) throws {
        guard let roster = round.roster, let own = round.ownKeys, own.device == store.deviceID else { return }
        let ledger = rosterLedger
        let extra = try SyncLedger(db: db).recipients(forFolder: round.folder.root)
        let encrypt = try ledger.setting("encrypt") == "1" || !extra.isEmpty
        var readers = try ledger.epochKeys(of: own.device).map(\.identity)
        let opening = [own.identity] + round.keys.identities
        for device in roster.activeDevices where device != own.device {
            guard let keys = roster.activeKeys(of: device) else { continue }
            let directory = round.folder.directory(of: device)
            for name in (try? SyncFolder.list(directory))?.filter(EpochKeysFile.isKeysFile).reversed() ?? [] {
                guard let bytes = try? SyncFolder.readFile("\(directory)/\(name)", limit: SyncFormat.maxSmallFileBytes),
                      let identities = EpochKeysFile.decode(bytes, with: opening, signer: keys) else { continue }
                readers += identities
                break
            }
        }
        var sealTo: AgeRecipient?
        if encrypt && roster.activeKeys(of: own.device) != nil {
            let now = Timestamp.iso8601(milliseconds: store.clock.wallMilliseconds)
            let current = try db.transaction(.immediate) {
                try ledger.ensureEpochKey(of: own.device, epoch: roster.epoch, at: now)
            }
            let epochs = try ledger.epochKeys(of: own.device)
            readers += epochs.map(\.identity)
            var recipients = roster.activeDevices.compactMap { roster.activeKeys(of: $0)?.recipient }
            recipients += roster.recoveryRecipients + extra.filter { !recipients.contains($0) }
            let name = EpochKeysFile.name(epoch: roster.epoch, recipients: recipients)
            if SyncFolder.info("\(round.folder.directory(of: own.device))/\(name)") == nil {
                round.epochKeysFile = (name, try EpochKeysFile.encode(epochs, roster: roster.id, keys: own,
                                                                      recipients: recipients))
            }
            sealTo = current.recipient
            round.report.encryptedTo = [current.recipient.encoded]
        }
        round.keys = try round.keys.sealing(toEpoch: sealTo, readingAlso: readers)
    }
}
