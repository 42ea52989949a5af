#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The first two steps of a sync round (see `SyncFormat` for the layout): `prepareRound` readies this store's own
/// directory under the writer, `readFolder` lists what the folder holds that this store has not applied.
extension SyncReplica where Store == StoreWriter {
    /// Checks the folder and its manifests (a newer format is refused untouched), settles the roster (founded here
    /// when the folder has none; a store outside the folder's roster stops there, `joinNeeded`), takes a new device
    /// id when the store file is a copy of the one that synced under it, creates this device's directory and
    /// manifest when absent, and takes this store's lock on its directory (another round of the same store waits).
    /// Nothing of the folder is merged yet. Recipients given are remembered for the folder, in place of those
    /// before.
    /// - Throws: `SyncFolderError` for a newer format, a symbolic link in place of a directory, a folder this
    ///   store cannot write in, or recipients without an identity of theirs; nothing is merged then.
    func prepareRound(_ path: String, keys request: SyncKeyRequest = SyncKeyRequest()) throws -> SyncRound {
        let folder = try SyncFolder(path: path)
        try folder.refuseStore(at: store.path)
        var round = SyncRound(folder: folder, report: SyncReport(folder: folder.root, deviceID: store.deviceID),
                              log: try store.createdAt())
        try resolveKeys(request, for: &round)
        do {
            try folder.checkFolderManifest()
        } catch is SyncFolder.ManifestPending {
            round.report.manifestPending = SyncFileIssue(
                path: SyncFormat.manifestName,
                reason: "does not read whole (a sync tool may still be copying it): nothing was read or written")
            return round
        }
        try settleRoster(&round)
        // A store outside the folder's roster leaves the folder as it found it: no directory, no manifest, no lock.
        if round.report.joinNeeded != nil { return round }
        for (device, isLink) in try folder.deviceDirectories() where !isLink {
            if let roster = round.roster {
                // With a roster, only the devices that may speak take part, and a device's former ids are those
                // whose key signed its admission: an empty or foreign directory, or a manifest's claim, counts
                // for nothing.
                guard roster.activeKeys(of: device) != nil else { continue }
                round.participants.insert(device)
                round.formerDevices[device] = roster.formerIDs[device] ?? []
                continue
            }
            round.participants.insert(device)
            do {
                if let manifest = try folder.manifest(of: device) {
                    round.formerDevices[device] = Set(manifest.formerDevices)
                }
            } catch {
                // A manifest cut short, unreadable or of a newer format names no former ids: the directory's own
                // changes are still read or, for a newer format, left unread (`readFolder` says so).
            }
        }
        if let renewal = try renewIfCopied() {
            round.report.renewedFromDeviceID = renewal.old
            round.report.renewalReason = renewal.reason
        }
        if round.roster != nil, round.ownKeys?.device != store.deviceID {
            round.roster = try rosterLedger.roster()
            round.ownKeys = try rosterLedger.keys(of: store.deviceID)
        }
        try settleEpochKeys(&round)
        round.report.deviceID = store.deviceID
        round.participants.insert(store.deviceID)
        let signer = round.ownKeys.map { _ in try? rosterLedger.keys(of: store.deviceID) } ?? nil
        round.report.createdManifest = try folder.prepareDirectory(of: store.deviceID) {
            DeviceManifest(device: store.deviceID, formerDevices: try formerDeviceIDs(), roster: round.roster?.id)
        } encode: { manifest in try manifest.encoded(signedWith: signer) }
        round.lock = try folder.lock(directoryOf: store.deviceID)
        round.lockedDevice = store.deviceID
        return round
    }

    /// Sets the round's keys: the recipients given (then remembered for the folder) or else those remembered, and
    /// the identities given. Checked before anything is remembered.
    private func resolveKeys(_ request: SyncKeyRequest, for round: inout SyncRound) throws {
        let ledger = SyncLedger(db: db)
        let root = round.folder.root
        let recipients = try request.recipients ?? (request.encrypt == false ? [] : ledger.recipients(forFolder: root))
        // Every store that writes in a folder speaks in its roster, and encrypts by epochs (`settleEpochKeys`): the
        // recipients only say that it encrypts, and to which keys besides the roster's devices its epoch keys are
        // wrapped. The identities given open segments sealed to them by earlier versions.
        round.keys = try SegmentKeys(recipients: [], identities: request.identities, folder: root)
        if try recipients != ledger.recipients(forFolder: root) {
            try ledger.setRecipients(recipients, forFolder: root)
        }
        if let encrypt = request.encrypt { try rosterLedger.setSetting("encrypt", encrypt ? "1" : nil) }
        round.report.encryptedTo = recipients.map(\.encoded)
    }

    /// The device ids under which this store made changes, other than its own now.
    func formerDeviceIDs() throws -> [String] {
        try db.fetchAll(
            sql: """
                SELECT id FROM devices WHERE id != ?
                    AND number IN (SELECT DISTINCT device FROM changes WHERE receipt IS NULL) ORDER BY id
                """,
            arguments: [store.deviceID]) { try $0.string(0) }
    }

    /// Takes a new device id when the store file is not the one that last synced under this id (a copy of it,
    /// made by hand or by a backup tool, with the same id): the copy, not the first, moves to a new directory,
    /// before it writes anything in the folder (or asks to join a roster). The file is known by its device and
    /// inode. Returns the id it had and why it took a new one; nil when it kept its id.
    func renewIfCopied() throws -> (old: String, reason: String)? {
        guard store.path != ":memory:", let identity = FileIdentity.of(store.path),
              try storeFile.value(of: AdapterState.storeFile.name) != identity else { return nil }
        return try store.write { try renewIfCopiedInTransaction($0) }
    }

    /// `renewIfCopied()` in the caller's transaction, which has read the device id under the write lock: another
    /// round of this store may have renewed meanwhile.
    func renewIfCopiedInTransaction(_ transaction: StoreTransaction) throws -> (old: String, reason: String)? {
        guard store.path != ":memory:", let identity = FileIdentity.of(store.path) else { return nil }
        let recorded = try storeFile.value(of: AdapterState.storeFile.name)
        guard recorded != identity else { return nil }
        try storeFile.set(AdapterState.storeFile.name, to: identity)
        guard let recorded else { return nil }
        let old = transaction.deviceID
        try transaction.renewDeviceID()
        try admitSuccessor(of: old)
        return (old, "the store file is a copy of the one that synced as device \(old) (another file, \(identity), "
            + "than the one it was, \(recorded)): the copy takes a new id before it writes")
    }

    /// Where the identity of the store file its device id belongs to is kept.
    private var storeFile: AdapterState { AdapterState(db: db, owner: AdapterState.storeFile.owner) }
}

extension SyncReplica {
    /// Lists, in every device's directory, the segments this store has not applied or written yet, for the round to
    /// check and apply one by one; notes the files still being copied (pending), those left for long (leftovers,
    /// once), those found damaged before (unchanged: reported again, not read), and this store's own segments that
    /// other devices report damaged. Reads the store; writes nothing.
    func readFolder(_ round: inout SyncRound) throws {
        let ledger = SyncLedger(db: db)
        let known = try ledger.known()
        let seen = try ledger.seen()
        round.remembered = Set(seen.keys)
        let now = Int64(time(nil))
        let own = round.report.deviceID
        for (device, isLink) in try round.folder.deviceDirectories() {
            var report = SyncDeviceReport(device: device)
            defer { round.report.devices.append(report) }
            if isLink {
                report.damaged.append(SyncFileIssue(
                    path: "\(SyncFormat.devicesDirectory)/\(device)",
                    reason: "a symbolic link: not followed (a device's directory must lie inside the folder)"))
                continue
            }
            let directory = round.folder.directory(of: device)
            if let refusal = refusal(ofDirectory: device, in: round) {
                report.refused.append(SyncFileIssue(path: "\(SyncFormat.devicesDirectory)/\(device)",
                                                    reason: refusal))
                continue
            }
            for name in try SyncFolder.list(directory) {
                let relative = "\(SyncFormat.devicesDirectory)/\(device)/\(name)"
                let key = "\(device)/\(name)"
                if [SyncFormat.deviceManifestName, ".DS_Store", SyncRosterFiles.rosterName,
                    SyncRosterFiles.joinName].contains(name) || EpochKeysFile.isKeysFile(name) { continue }
                if name == SyncFormat.statusName {
                    if device != own { noteStatus(of: "\(directory)/\(name)", device: device, in: &round) }
                    continue
                }
                // This store's own temporary files: a round of its own is writing them, or they are removed at
                // the end of this one.
                if device == own && name.hasPrefix(SyncFormat.temporaryPrefix) { continue }
                guard let info = SyncFolder.info("\(directory)/\(name)") else { continue }
                round.listed.insert(key)
                guard info.kind == .regular else {
                    report.damaged.append(SyncFileIssue(path: relative, reason: info.kind == .symbolicLink
                        ? "a symbolic link: not read" : "not a regular file: not read"))
                    continue
                }
                if let range = SyncFormat.segmentRange(of: name) {
                    if let file = known[key], file.size == info.size { continue }
                    if let file = seen[key], file.state == .damaged, file.size == info.size,
                       file.modified == info.modified {
                        report.damaged.append(SyncFileIssue(path: relative, line: file.line, reason: file.reason))
                        continue
                    }
                    let segment = SyncRound.Segment(deviceIndex: round.report.devices.count, device: device,
                                                    name: name, relative: relative, path: "\(directory)/\(name)",
                                                    info: info)
                    if device != own, ledger.covers(range, of: device, in: known) {
                        round.covered.append(segment)
                    } else {
                        round.segments.append(segment)
                    }
                } else if now - info.modified / 1_000_000_000 < SyncFormat.leftoverAge {
                    report.pending.append(SyncFileIssue(path: relative, reason: SyncFormat.pendingReason(forName: name)))
                } else if seen[key].map({ $0.state == .leftover && $0.size == info.size
                                          && $0.modified == info.modified }) != true {
                    let reason = SyncFormat.leftoverReason(forName: name)
                    report.leftovers.append(SyncFileIssue(path: relative, reason: reason))
                    round.seen.append(SyncRound.Seen(device: device, name: name, file: SyncLedger.SeenFile(
                        state: .leftover, size: info.size, modified: info.modified, line: nil, reason: reason)))
                }
            }
        }
    }

    /// Why nothing of `device`'s directory is read, if so: with a roster, a device that may not speak (not
    /// admitted, revoked) or whose manifest it did not sign; in any folder, a manifest that asks for a newer
    /// reader. Only that directory is left; the round goes on.
    private func refusal(ofDirectory device: String, in round: SyncRound) -> String? {
        let own = device == round.report.deviceID
        if let roster = round.roster, !own {
            guard roster.activeKeys(of: device) != nil else {
                return (roster.refusal(of: device) ?? "may not speak") + ": its files are left unread"
            }
            let path = "\(round.folder.directory(of: device))/\(SyncFormat.deviceManifestName)"
            guard let bytes = try? SyncFolder.readFile(path, limit: SyncFormat.maxSmallFileBytes) else {
                return "it has no manifest yet: its files are read once it has written one"
            }
            do {
                _ = try SignedFile.decode(bytes, kind: SyncFormat.name) { roster.activeKeys(of: $0) }
            } catch {
                return "its manifest \(error): its files are left unread"
            }
        }
        do {
            _ = try round.folder.manifest(of: device)
        } catch let error as SyncFolderError where error.kind == .newerVersion {
            return "written by a newer version of marginalia (its manifest asks for a newer reader): update "
                + "marginalia to read this device's changes; the other devices' are read"
        } catch {}
        return nil
    }

    /// Notes the segments of this store's that another device's status file reports damaged: with a roster, only
    /// from a status file that device signed.
    private func noteStatus(of path: String, device: String, in round: inout SyncRound) {
        guard let bytes = try? SyncFolder.readFile(path, limit: SyncFormat.maxSmallFileBytes),
              let status = SyncStatusFile(bytes: bytes), status.device == device else { return }
        if let roster = round.roster {
            guard (try? SignedFile.decode(bytes, kind: SyncStatusFile.format) { roster.activeKeys(of: $0) })?
                .signer == device else { return }
        }
        let prefix = "\(SyncFormat.devicesDirectory)/\(round.report.deviceID)/"
        for entry in status.files where entry.path.hasPrefix(prefix) {
            round.damagedOwn[String(entry.path.dropFirst(prefix.count))] = entry.size
        }
    }
}
