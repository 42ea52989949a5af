/// A writer's epoch keys in the folder: `devices/<id>/keys-<epoch>-<set>.age`, an age file encrypted to every
/// device of the roster that may speak and to its recovery keys, whose plaintext is an age identity file holding the
/// writer's identity of each epoch so far, newest first, signed in a last comment line:
///
///     # marginalia epoch keys: device <id>, roster <roster id>, epoch <n>
///     # epoch 2
///     AGE-SECRET-KEY-1…
///     # epoch 1
///     AGE-SECRET-KEY-1…
///     # marginalia-signature <base64 Ed25519 of `prefix` and every byte before this line>
///
/// The writer's segments are encrypted to its newest epoch's recipient. A revocation starts a new epoch: the next
/// keys file is not encrypted to the revoked device, so it reads nothing written afterwards; a device admitted later
/// opens every older epoch through the newest file. Stock age opens it with a device's or recovery identity, and
/// then a segment with the identities it holds (`age -d -i recovery.txt keys-….age > epochs.txt`, then
/// `age -d -i epochs.txt SEGMENT | gunzip`). `<set>` is 8 hex digits of a SHA-256 of the recipients, so that a
/// new admission writes a new file under a new name, never over an old one.
enum EpochKeysFile {
    static let prefix = Array("marginalia epoch keys v1\n".utf8)
    static let signatureMarker = "# marginalia-signature "

    /// The file name for `epoch` and `recipients`.
    static func name(epoch: Int, recipients: [AgeRecipient]) -> String {
        let set = (try? SHA256Digest.hex(of: Array(recipients.map(\.encoded).sorted().joined(separator: "\n").utf8)))
            ?? ""
        let digits = String(epoch)
        return "keys-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + "-\(set.prefix(8)).age"
    }

    /// Whether `name` is the name of an epoch keys file.
    static func isKeysFile(_ name: String) -> Bool { name.hasPrefix("keys-") && name.hasSuffix(".age") }

    /// The file's bytes: the identities signed by `keys`, encrypted to `recipients`.
    static func encode(_ identities: [(epoch: Int, identity: AgeIdentity)], roster: String, keys: DeviceKeys,
                       recipients: [AgeRecipient]) throws -> [UInt8] {
        var text = "# marginalia epoch keys: device \(keys.device), roster \(roster), epoch "
            + "\(identities.first?.epoch ?? 0)\n"
        for (epoch, identity) in identities { text += "# epoch \(epoch)\n\(identity.encoded)\n" }
        let signature = try keys.sign(prefix + Array(text.utf8))
        text += signatureMarker + AgeBase64.encode(signature) + "\n"
        return try AgeEncryptingSink.encrypt(Array(text.utf8), to: .recipients(recipients))
    }

    /// The identities of a keys file `device` wrote, opened with `identities` and checked against `signer`; nil
    /// when none of `identities` opens it, or it is not signed by `signer`.
    static func decode(_ bytes: [UInt8], with identities: [AgeIdentity], signer: DevicePublicKeys) -> [AgeIdentity]? {
        guard !identities.isEmpty,
              let plaintext = try? AgeDecryptingSource.decrypt(bytes, with: .identities(identities)),
              let text = String(validating: plaintext, as: UTF8.self),
              let marker = text.range(of: "\n" + signatureMarker) else { return nil }
        let body = String(text[..<marker.lowerBound]) + "\n"
        let encoded = text[marker.upperBound...].trimmingCharacters(in: .newlines)
        guard let signature = AgeBase64.decode(encoded), signer.verifies(signature, of: prefix + Array(body.utf8))
        else { return nil }
        return body.split(separator: "\n").filter { $0.hasPrefix("AGE-SECRET-KEY-1") }
            .compactMap { try? AgeIdentity(text: String($0)) }
    }
}
