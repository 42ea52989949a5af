/// An invitation to join a store's roster: what `device join` needs on the new device, made by `device invite` on
/// one already admitted. It carries the roster's entries (so that the new device knows whose files to trust from
/// its first round), the inviting device and a one-time token that proves the new device's request. It holds no
/// private key; it is secret while unused (whoever holds it can ask to be admitted), so it is written readable by
/// its owner only, and it expires.
///
///     {"format":"marginalia-invitation","version":1,"roster":"<id>","from":"<device id>","fingerprint":"…",
///      "token":"<64 hex digits>","expires":"2026-12-10T10:00:00.000Z","entries":[…]}
public struct DeviceInvitation: Sendable {
    static let format = "marginalia-invitation"

    /// The roster the invitation admits to.
    public let roster: String
    /// The inviting device.
    public let from: String
    /// The inviting device's fingerprint, for a person to compare.
    public let fingerprint: String
    /// When it stops admitting (ISO 8601).
    public let expires: String
    package let token: [UInt8]
    package let entries: [RosterEntry]

    package init(roster: String, from: String, fingerprint: String, expires: String, token: [UInt8],
                 entries: [RosterEntry]) {
        self.roster = roster
        self.from = from
        self.fingerprint = fingerprint
        self.expires = expires
        self.token = token
        self.entries = entries
    }

    /// The invitation as a file's bytes (JSON and a line feed).
    public func encoded() throws -> [UInt8] {
        try MarginaliaError.classifying {
            try JSONWriter.encode(.object(JSONObject([
                ("format", .string(Self.format)), ("version", .int(1)), ("roster", .string(roster)),
                ("from", .string(from)), ("fingerprint", .string(fingerprint)),
                ("token", .string(SHA256Digest.hex(ofDigest: token))), ("expires", .string(expires)),
                ("entries", .array(entries.map { $0.body(includingSignature: true) })),
            ]))) + [0x0A]
        }
    }

    /// Reads an invitation file.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the file and what is wrong.
    public init(bytes: [UInt8], file: String) throws {
        func refuse(_ reason: String) -> MarginaliaError {
            MarginaliaError(category: .invalidData, reason: .other("\(file) is not an invitation marginalia "
                + "wrote: \(reason)"))
        }
        guard case .object(let object)? = try? JSONParser.parse(bytes) else { throw refuse("not JSON") }
        guard case .string(Self.format)? = object["format"] else { throw refuse("format must be \(Self.format)") }
        guard case .int(let version)? = object["version"], version == 1 else {
            throw refuse("version must be 1 (a newer marginalia wrote it?)")
        }
        guard case .string(let roster)? = object["roster"], case .string(let from)? = object["from"],
              case .string(let fingerprint)? = object["fingerprint"], case .string(let expires)? = object["expires"],
              case .string(let tokenText)? = object["token"], let token = JoinRequest.bytes(ofHex: tokenText),
              token.count == 32, case .array(let values)? = object["entries"] else {
            throw refuse("roster, from, fingerprint, expires, token (64 hex digits) and entries are required")
        }
        var entries: [RosterEntry] = []
        for (index, value) in values.enumerated() {
            do {
                entries.append(try RosterEntry(json: value))
            } catch let error as FieldError {
                throw refuse("entry \(index + 1): \(error)")
            }
        }
        self.init(roster: roster, from: from, fingerprint: fingerprint, expires: expires, token: token,
                  entries: entries)
    }
}
