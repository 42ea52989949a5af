/// The last line of a segment of format 3, after its trailer: its writer's Ed25519 signature of every line before
/// it, for the roster it writes in.
///
///     {"type":"signature","roster":"<roster id>","by":"<device id>","ed25519":"<base64>"}
///
/// What is signed: `prefix`, the roster id and a line feed, then the SHA-256 (64 lowercase hex digits) of the
/// segment's plaintext lines before this one, each with its line feed. The header inside names the writer and the
/// range of its log, so a signed segment cannot be passed off as another device's or another range's; in an
/// encrypted segment the signature lies inside the encryption, over the same plaintext.
struct SegmentSignature: Equatable {
    static let prefix = Array("marginalia sync segment v1\n".utf8)

    var roster: String
    var by: String
    var signature: [UInt8]

    var json: JSONValue {
        .object(JSONObject([("type", .string("signature")), ("roster", .string(roster)), ("by", .string(by)),
                            ("ed25519", .string(AgeBase64.encode(signature)))]))
    }

    static func message(roster: String, digest: String) -> [UInt8] {
        prefix + Array("\(roster)\n\(digest)".utf8)
    }

    init(roster: String, by: String, signature: [UInt8]) {
        self.roster = roster
        self.by = by
        self.signature = signature
    }

    /// Reads the record strictly.
    init(json object: JSONObject) throws {
        guard Set(object.keys) == ["type", "roster", "by", "ed25519"] else {
            throw FieldError(field: "signature", reason: "must hold exactly type, roster, by and ed25519")
        }
        guard case .string(let roster)? = object["roster"], case .string(let by)? = object["by"],
              case .string(let text)? = object["ed25519"], let signature = AgeBase64.decode(text),
              signature.count == 64 else {
            throw FieldError(field: "ed25519", reason: "must be a 64-byte Ed25519 signature in base64")
        }
        self.init(roster: roster, by: by, signature: signature)
    }
}

/// Signs the segments a device writes.
struct SegmentSigner {
    let roster: String
    let keys: DeviceKeys

    func sign(digest: String, of header: SegmentHeader) throws -> SegmentSignature {
        SegmentSignature(roster: roster, by: keys.device,
                         signature: try keys.sign(SegmentSignature.message(roster: roster, digest: digest)))
    }
}

/// What a reader asks of a segment's signature: made for this roster by the device the header names, which must be
/// one that may speak, with its key.
struct SegmentTrust {
    let roster: Roster

    /// - Throws: `SegmentFile.Problem`, refused, for a segment unsigned, signed for another roster or by another
    ///   device than its header names, by a device that may not speak, or whose signature does not match.
    func check(_ signature: SegmentSignature?, of header: SegmentHeader, digest: String, line: Int) throws {
        func refuse(_ reason: String) -> SegmentFile.Problem {
            SegmentFile.Problem(line: line, reason: reason, refused: true)
        }
        guard let signature else { throw refuse("not signed: no device of this folder's roster wrote it") }
        guard signature.roster == roster.id else { throw refuse("signed for another roster (\(signature.roster))") }
        guard signature.by == header.device else {
            throw refuse("signed by device \(signature.by), but its header names device \(header.device)")
        }
        guard let keys = roster.activeKeys(of: signature.by) else {
            let why = roster.refusal(of: signature.by) ?? "may not speak"
            throw refuse("signed by device \(signature.by), which \(why)")
        }
        guard keys.verifies(signature.signature, of: SegmentSignature.message(roster: roster.id, digest: digest)) else {
            throw refuse("the signature does not match device \(signature.by)'s key: altered, or forged")
        }
    }
}
