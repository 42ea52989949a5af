/// Who may speak in a sync folder: the state a set of signed roster entries adds up to.
///
/// The state depends on the set of entries only, never on their order or their clocks, so two stores that hold the
/// same entries agree, and an entry found twice changes nothing:
/// - the founder is the root; a device is *admitted* when an `admit` entry for it is signed by an admitted device
///   (with that device's key, as its own admission gave it);
/// - a device is *revoked* when any admitted device signed a `revoke` entry for it; a revoked device speaks no more,
///   and the devices it admitted stay admitted only when a revocation of it lists them in `keep` (so a lost device
///   cannot admit a device of its own afterwards and back-date it);
/// - a device id admitted with two different keys is *disputed*: it speaks no more until revoked and admitted anew
///   under another id;
/// - the epoch counts the devices revoked: a revocation made on two devices at once ends in the same epoch on both.
public struct Roster: Sendable {
    /// A device of the roster, admitted or no longer.
    public struct Member: Sendable, Hashable {
        /// Its device id.
        public let device: String
        /// The keys its admission gave it.
        public let keys: DevicePublicKeys
        /// Its name when admitted, if one was given.
        public let name: String?
        /// The device that admitted it (itself, for the founder).
        public let admittedBy: String
        /// Whether it may speak now.
        public let isActive: Bool
        /// The device that revoked it, when it is revoked.
        public let revokedBy: String?
    }

    /// The roster's id: derived from its founder's id and key.
    public let id: String
    /// The device that founded the roster.
    public let founder: String
    /// Every device admitted, active or not, by id.
    public let members: [String: Member]
    /// Device ids admitted with two different keys: none of them speaks.
    public let disputed: Set<String>
    /// The paper recovery recipients added by active devices.
    public let recoveryRecipients: [AgeRecipient]
    /// How many devices were revoked: a new epoch for each.
    public let epoch: Int
    /// The entries the state was made of, those that verified (`entries`) and those that did not, with why.
    package let entries: [RosterEntry]
    package let unverified: [(entry: RosterEntry, reason: String)]
    /// Former ids a device holds, by device: ids whose key signed its admission as their successor.
    package let formerIDs: [String: Set<String>]

    /// The active devices' ids, sorted.
    public var activeDevices: [String] { members.values.filter(\.isActive).map(\.device).sorted() }

    /// The keys of `device` when it may speak now; nil when it is not admitted, revoked or disputed.
    public func activeKeys(of device: String) -> DevicePublicKeys? {
        guard let member = members[device], member.isActive else { return nil }
        return member.keys
    }

    /// Why `device` may not speak; nil when it may.
    public func refusal(of device: String) -> String? {
        if disputed.contains(device) { return "admitted with two different keys: it speaks no more" }
        guard let member = members[device] else { return "not admitted to this folder's roster" }
        if let revoker = member.revokedBy { return "revoked by device \(revoker)" }
        return member.isActive ? nil : "admitted by device \(member.admittedBy), which was revoked since"
    }

    /// The state of the roster `id` that `entries` (of any rosters, in any order, repeated or not) add up to; nil
    /// when none of them founds it.
    package init?(id: String, entries all: [RosterEntry]) {
        var seen = Set<String>()
        let entries = all.filter { $0.roster == id }.map(Signed.init).filter { seen.insert($0.id).inserted }
            .sorted { $0.id < $1.id }
        guard let founding = entries.first(where: { entry in
            entry.kind == .found && entry.device == entry.by && entry.keys.map {
                RosterEntry.rosterID(founder: entry.device, signingKey: $0.signingKey) == id && entry.isSigned(by: $0)
            } == true
        }), let founderKeys = founding.keys else { return nil }
        self.id = id
        founder = founding.device

        // Ever admitted: the founder, then whoever an admitted device admitted with a valid signature.
        var keys: [String: DevicePublicKeys] = [founding.device: founderKeys]
        var disputed = Set<String>()
        var admissions: [Signed] = []
        var verified = Set<String>([founding.id])
        var changed = true
        while changed {
            changed = false
            for entry in entries where entry.kind == .admit && !verified.contains(entry.id) {
                guard let signer = keys[entry.by], entry.isSigned(by: signer), let subject = entry.keys else {
                    continue
                }
                verified.insert(entry.id)
                admissions.append(entry)
                if let known = keys[entry.device], known != subject { disputed.insert(entry.device) }
                if keys[entry.device] == nil { keys[entry.device] = subject }
                changed = true
            }
        }
        var revokedBy: [String: String] = [:]
        var kept: [String: Set<String>] = [:]
        for entry in entries where entry.kind == .revoke {
            guard let signer = keys[entry.by], entry.isSigned(by: signer) else { continue }
            verified.insert(entry.id)
            // One revoker is named, the same on every store: the least id among them.
            if let named = revokedBy[entry.device], named <= entry.by {} else { revokedBy[entry.device] = entry.by }
            kept[entry.device, default: []].formUnion(entry.keep)
        }
        // Active: reached from the founder through admissions whose signer is not revoked, or kept by a revocation.
        var active = Set<String>()
        var reached = Set([founding.device])
        var queue = [founding.device]
        while let signer = queue.popLast() {
            if revokedBy[signer] == nil && !disputed.contains(signer) { active.insert(signer) }
            for entry in admissions where entry.by == signer && !reached.contains(entry.device) {
                guard revokedBy[signer] == nil || kept[signer]?.contains(entry.device) == true else { continue }
                reached.insert(entry.device)
                queue.append(entry.device)
            }
        }
        var members: [String: Member] = [:]
        var formerIDs: [String: Set<String>] = [:]
        members[founding.device] = Member(device: founding.device, keys: founderKeys, name: founding.name,
                                          admittedBy: founding.device, isActive: active.contains(founding.device),
                                          revokedBy: revokedBy[founding.device])
        for entry in admissions where members[entry.device] == nil {
            guard let subject = entry.keys else { continue }
            members[entry.device] = Member(device: entry.device, keys: subject, name: entry.name,
                                           admittedBy: entry.by, isActive: active.contains(entry.device),
                                           revokedBy: revokedBy[entry.device])
        }
        for entry in admissions where entry.succeeds { formerIDs[entry.device, default: []].insert(entry.by) }
        var recovery: [AgeRecipient] = []
        for entry in entries where entry.kind == .recovery {
            guard let signer = keys[entry.by], entry.isSigned(by: signer) else { continue }
            verified.insert(entry.id)
            if active.contains(entry.by), let recipient = entry.recoveryRecipient, !recovery.contains(recipient) {
                recovery.append(recipient)
            }
        }
        self.members = members
        self.disputed = disputed
        self.formerIDs = formerIDs
        recoveryRecipients = recovery.sorted { $0.encoded < $1.encoded }
        epoch = revokedBy.count
        self.entries = entries.filter { verified.contains($0.id) }.map(\.entry)
        unverified = entries.filter { !verified.contains($0.id) }.map { entry in
            (entry.entry, keys[entry.by] == nil ? "signed by device \(entry.by), which is not admitted"
                : "the signature does not match device \(entry.by)'s key")
        }
    }
}

/// An entry with its id and signed bytes made once (each is a JSON encoding, the id a SHA-256 too), for the many
/// looks the state takes at it.
@dynamicMemberLookup
private struct Signed {
    let entry: RosterEntry
    let id: String
    let message: [UInt8]

    init(_ entry: RosterEntry) {
        self.entry = entry
        message = entry.signedMessage
        id = (try? SHA256Digest.hex(of: message)) ?? String(repeating: "0", count: 64)
    }

    subscript<T>(dynamicMember path: KeyPath<RosterEntry, T>) -> T { entry[keyPath: path] }

    func isSigned(by keys: DevicePublicKeys) -> Bool { keys.verifies(entry.signature, of: message) }
}
