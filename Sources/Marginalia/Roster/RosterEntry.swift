/// One signed statement of a roster: who founded it, who admitted which device with which keys, who revoked whom,
/// which paper key may recover what is encrypted. Every entry is signed by the device it names as `by`, with the
/// key the roster holds for that device, so an entry reads the same wherever it was found: in this store, in any
/// device's roster file in the folder, in an invitation.
///
///     {"roster":"…","kind":"admit","device":"<subject>","signingKey":"<base64>","recipient":"age1…",
///      "name":"phone","by":"<signer>","at":"2026-12-03T10:00:00.000Z","sig":"<base64>"}
///
/// The signature is Ed25519 over `RosterEntry.signaturePrefix` followed by the entry's JSON without `sig`, its
/// members in the order above (`body(includingSignature: false)`): an entry whose members were reordered, added to
/// or changed no longer verifies.
package struct RosterEntry: Hashable, Sendable {
    package enum Kind: String, Sendable {
        /// The founding device: `device` == `by`, its keys; the roster's id is derived from them.
        case found
        /// `by` admits `device` with its keys; `succeeds`: `by` is an id `device` held before (a copy's renewal),
        /// whose changes `device`'s directory may carry.
        case admit
        /// `by` revokes `device`; the devices `device` admitted that stay admitted are listed in `keep`.
        case revoke
        /// `by` adds a paper recovery recipient (`recipient`): encrypted sync wraps its keys to it too.
        case recovery
    }

    package var roster: String
    package var kind: Kind
    /// The device the entry is about (the signer, for `found` and `recovery`).
    package var device: String
    package var keys: DevicePublicKeys?
    /// A recovery entry's recipient.
    package var recoveryRecipient: AgeRecipient?
    package var name: String?
    package var succeeds = false
    package var keep: [String] = []
    /// The device that signed the entry.
    package var by: String
    /// When the signer made it (ISO 8601): shown, never trusted for order.
    package var at: String
    package var signature: [UInt8] = []

    package static let signaturePrefix = Array("marginalia roster entry v1\n".utf8)

    /// The id of a roster founded by `device` with `signingKey`: 32 hex digits of a SHA-256 of both.
    package static func rosterID(founder device: String, signingKey: [UInt8]) -> String {
        let digest = (try? SHA256Digest.hex(of: Array("marginalia roster\n\(device)\n".utf8) + signingKey)) ?? ""
        return String(digest.prefix(32))
    }

    /// The entry as JSON, with its signature or without it (what is signed).
    package func body(includingSignature: Bool) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("roster", .string(roster)), ("kind", .string(kind.rawValue)), ("device", .string(device)),
        ]
        if let keys {
            members.append(("signingKey", .string(keys.encodedSigningKey)))
            members.append(("recipient", .string(keys.recipient.encoded)))
        }
        if let recoveryRecipient { members.append(("recipient", .string(recoveryRecipient.encoded))) }
        if let name { members.append(("name", .string(name))) }
        if succeeds { members.append(("succeeds", .bool(true))) }
        if kind == .revoke { members.append(("keep", .array(keep.sorted().map(JSONValue.string)))) }
        members.append(("by", .string(by)))
        members.append(("at", .string(at)))
        if includingSignature { members.append(("sig", .string(AgeBase64.encode(signature)))) }
        return .object(JSONObject(members))
    }

    /// What the signer signs.
    package var signedMessage: [UInt8] {
        Self.signaturePrefix + ((try? JSONWriter.encode(body(includingSignature: false))) ?? [])
    }

    /// The entry's id: the SHA-256 (hex) of what is signed, the same wherever the entry was read.
    package var id: String { (try? SHA256Digest.hex(of: signedMessage)) ?? String(repeating: "0", count: 64) }

    /// The entry's JSON text, as stored and written into the folder.
    package var encoded: String { (try? JSONWriter.encodeString(body(includingSignature: true))) ?? "{}" }

    /// Signs the entry with `keys`, which must be the keys of `by`.
    package mutating func sign(with keys: DeviceKeys) throws {
        precondition(keys.device == by, "an entry is signed by the device it names as its signer")
        signature = try keys.sign(signedMessage)
    }

    /// Whether `keys` signed this entry.
    package func isSigned(by keys: DevicePublicKeys) -> Bool {
        keys.verifies(signature, of: signedMessage)
    }

    package init(roster: String, kind: Kind, device: String, keys: DevicePublicKeys? = nil,
                 recoveryRecipient: AgeRecipient? = nil, name: String? = nil, succeeds: Bool = false,
                 keep: [String] = [], by: String, at: String) {
        self.roster = roster
        self.kind = kind
        self.device = device
        self.keys = keys
        self.recoveryRecipient = recoveryRecipient
        self.name = name
        self.succeeds = succeeds
        self.keep = keep
        self.by = by
        self.at = at
    }

    /// Reads an entry strictly: the members of its kind, each of the right form; its signature is checked by the
    /// roster, which knows the signer's key.
    /// - Throws: `FieldError` naming the member.
    package init(json value: JSONValue) throws {
        guard case .object(let object) = value else { throw FieldError(field: "", reason: "not a JSON object") }
        func text(_ key: String) throws -> String {
            guard case .string(let value)? = object[key], !value.isEmpty, value.utf8.count <= 256 else {
                throw FieldError(field: key, reason: "must be non-empty text")
            }
            return value
        }
        guard let kind = Kind(rawValue: try text("kind")) else {
            throw FieldError(field: "kind", reason: "must be found, admit, revoke or recovery")
        }
        var allowed: Set<String> = ["roster", "kind", "device", "by", "at", "sig"]
        self.init(roster: try text("roster"), kind: kind, device: try text("device"), by: try text("by"),
                  at: try text("at"))
        for id in [device, by] where !Identifiers.isValidMachineID(id) {
            throw FieldError(field: id == device ? "device" : "by", reason: "must be a device id")
        }
        switch kind {
        case .found, .admit:
            allowed.formUnion(["signingKey", "recipient", "name", "succeeds"])
            guard let key = AgeBase64.decode(try text("signingKey")), key.count == 32 else {
                throw FieldError(field: "signingKey", reason: "must be a 32-byte Ed25519 key in base64")
            }
            guard let recipient = try? AgeRecipient(text: try text("recipient")) else {
                throw FieldError(field: "recipient", reason: "must be an age recipient (age1…)")
            }
            keys = DevicePublicKeys(signingKey: key, recipient: recipient)
            if object["name"] != nil { name = try text("name") }
            if case .bool(let flag)? = object["succeeds"] { succeeds = flag }
        case .revoke:
            allowed.insert("keep")
            guard case .array(let values)? = object["keep"] else {
                throw FieldError(field: "keep", reason: "must be a list of device ids")
            }
            for case .string(let id) in values { keep.append(id) }
        case .recovery:
            allowed.insert("recipient")
            guard let recipient = try? AgeRecipient(text: try text("recipient")) else {
                throw FieldError(field: "recipient", reason: "must be an age recipient (age1…)")
            }
            recoveryRecipient = recipient
        }
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw FieldError(field: unknown, reason: "unknown field")
        }
        guard let signature = AgeBase64.decode(try text("sig")), signature.count == 64 else {
            throw FieldError(field: "sig", reason: "must be a 64-byte Ed25519 signature in base64")
        }
        self.signature = signature
    }

    /// Reads an entry from its JSON text.
    package init(text: String) throws {
        do {
            try self.init(json: try JSONParser.parse(text))
        } catch let error as JSONParseError {
            throw FieldError(field: "", reason: "not JSON: \(error)")
        }
    }
}
