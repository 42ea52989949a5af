/// The roster's files in a device's directory: `roster.json`, the entries the device knows (replaced whole when it
/// learns more; each entry is signed by its own signer and checked on its own), and `join.json`, a device's request
/// to be admitted by invitation. Both are signed files (`SignedFile`).
///
///     {"format":"marginalia-roster","roster":"<id>","entries":[{…entry…}, …],"sig":{…}}
///     {"format":"marginalia-join","roster":"<id>","device":"<id>","signingKey":"…","recipient":"age1…",
///      "name":"…","proof":"<hex>","sig":{…}}
///
/// The join request's `proof` is HMAC-SHA-256 under the invitation's token of what it asks (`JoinRequest.message`):
/// only a holder of the invitation can make it, and it binds the keys the inviting device then admits.
enum SyncRosterFiles {
    static let rosterName = "roster.json"
    static let joinName = "join.json"
    static let rosterFormat = "marginalia-roster"
    static let joinFormat = "marginalia-join"

    /// The roster file of a device knowing `entries`.
    static func rosterFile(roster: String, entries: [RosterEntry], keys: DeviceKeys) throws -> [UInt8] {
        try SignedFile.encode([("format", .string(rosterFormat)), ("roster", .string(roster)),
                               ("entries", .array(entries.map { $0.body(includingSignature: true) }))],
                              kind: rosterFormat, keys: keys)
    }

    /// The entries of a roster file, read leniently: an entry that does not read is skipped (each is checked against
    /// the roster on its own, whoever's file it came in).
    static func entries(inRosterFile bytes: [UInt8]) -> [RosterEntry] {
        guard case .object(let object)? = try? JSONParser.parse(bytes),
              case .string(rosterFormat)? = object["format"], case .array(let values)? = object["entries"] else {
            return []
        }
        return values.prefix(10_000).compactMap { try? RosterEntry(json: $0) }
    }
}

/// A device's request to be admitted to a roster, made from an invitation.
package struct JoinRequest: Equatable, Sendable {
    package var roster: String
    package var device: String
    package var keys: DevicePublicKeys
    package var name: String?
    package var proof: [UInt8]

    static func message(roster: String, device: String, keys: DevicePublicKeys) -> [UInt8] {
        Array("marginalia join v1\n\(roster)\n\(device)\n\(keys.encodedSigningKey)\n\(keys.recipient.encoded)".utf8)
    }

    /// The request of `keys`' device under the invitation `token`.
    package init(roster: String, keys: DeviceKeys, name: String?, token: [UInt8]) throws {
        self.roster = roster
        device = keys.device
        self.keys = keys.publicKeys
        self.name = name
        proof = try PlatformCrypto.hmacSHA256(key: token, message: Self.message(roster: roster, device: device,
                                                                                 keys: self.keys))
    }

    /// Whether the request was made with the invitation `token`.
    package func isMade(with token: [UInt8]) -> Bool {
        guard let expected = try? PlatformCrypto.hmacSHA256(
            key: token, message: Self.message(roster: roster, device: device, keys: keys)) else { return false }
        return PlatformCrypto.constantTimeEqual(expected, proof)
    }

    /// The request as its device writes it into the folder, signed with its own key.
    func file(signedWith keys: DeviceKeys) throws -> [UInt8] {
        var members: [(String, JSONValue)] = [
            ("format", .string(SyncRosterFiles.joinFormat)), ("roster", .string(roster)), ("device", .string(device)),
            ("signingKey", .string(self.keys.encodedSigningKey)), ("recipient", .string(self.keys.recipient.encoded)),
        ]
        if let name { members.append(("name", .string(name))) }
        members.append(("proof", .string(SHA256Digest.hex(ofDigest: proof))))
        return try SignedFile.encode(members, kind: SyncRosterFiles.joinFormat, keys: keys)
    }

    /// Reads a join request from the directory of `directory`, signed by the keys it asks to be admitted with.
    /// - Throws: `SignedFile.Refusal` naming what is wrong.
    init(file bytes: [UInt8], directory: String) throws {
        guard case .object(let object)? = try? JSONParser.parse(bytes),
              case .string(let roster)? = object["roster"], case .string(let device)? = object["device"],
              case .string(let key)? = object["signingKey"], let signingKey = AgeBase64.decode(key),
              signingKey.count == 32, case .string(let recipientText)? = object["recipient"],
              let recipient = try? AgeRecipient(text: recipientText), case .string(let proofText)? = object["proof"],
              let proof = Self.bytes(ofHex: proofText), proof.count == 32 else {
            throw SignedFile.Refusal(reason: "not a join request marginalia wrote")
        }
        guard device == directory else {
            throw SignedFile.Refusal(reason: "names device \(device), but lies in devices/\(directory)")
        }
        let keys = DevicePublicKeys(signingKey: signingKey, recipient: recipient)
        _ = try SignedFile.decode(bytes, kind: SyncRosterFiles.joinFormat) { $0 == device ? keys : nil }
        self.roster = roster
        self.device = device
        self.keys = keys
        if case .string(let name)? = object["name"] { self.name = name }
        self.proof = proof
    }

    static func bytes(ofHex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
