/// The keys of a sync round: the recipients this store encrypts its segments to in the folder (none: it writes
/// them plain), and the identities that open and authenticate the encrypted segments it reads.
///
/// An encrypted segment is an age file whose plaintext is the segment as it is written plain, with one more field in
/// its header, `auth`: a tag only holders of an identity can make, since anyone who knows a recipient can encrypt
/// to it.
///
///     key = HKDF-SHA-256(ikm: the identity's secret key, salt: empty, info: "marginalia sync authentication v1",
///                        32 bytes)
///     auth = hex(HMAC-SHA-256(key, the age header's MAC || UTF-8 of the header's device id))
///
/// The header MAC binds the file key, and through it every payload chunk: the tag stands for the whole file. The
/// segment's name is left out, so that a sync tool's conflict copy (the same bytes under another name) still reads.
/// A reader checks the tag before it hands on any change; a segment whose tag is missing or matches none of its
/// identities is refused, never merged.
struct SegmentKeys {
    /// What the segments written are encrypted to, and the key their tags are made with.
    struct Sealing {
        var recipients: [AgeRecipient]
        /// The key of the header's tag; nil for a segment of a store in a roster, which its signature authenticates.
        var authenticationKey: [UInt8]?
    }

    /// How the segments written are sealed; nil: they are written plain.
    let sealing: Sealing?
    /// The identities encrypted segments are opened with.
    let identities: [AgeIdentity]
    /// The authentication key of each identity, in the same order.
    private let authenticationKeys: [[UInt8]]

    /// The `info` of the HKDF that derives an identity's authentication key.
    static let authenticationInfo = Array("marginalia sync authentication v1".utf8)

    /// No keys: segments are written plain, and encrypted ones are refused.
    static let none = SegmentKeys(sealing: nil, identities: [], authenticationKeys: [])

    private init(sealing: Sealing?, identities: [AgeIdentity], authenticationKeys: [[UInt8]]) {
        self.sealing = sealing
        self.identities = identities
        self.authenticationKeys = authenticationKeys
    }

    /// The keys of a round that encrypts to `recipients` (none: writes plain) and reads with `identities`. The
    /// segments written are authenticated with the first identity whose recipient is among `recipients`, so that
    /// the holders of those recipients' identities can check them.
    /// - Throws: `SyncFolderError` `.identityNeeded` for recipients without such an identity (on `folder`);
    ///   `PlatformCryptoError`.
    init(recipients: [AgeRecipient], identities: [AgeIdentity], folder: String) throws {
        let keys = try identities.map(Self.authenticationKey(of:))
        var sealing: Sealing?
        if !recipients.isEmpty {
            guard let author = identities.firstIndex(where: { recipients.contains($0.recipient) }) else {
                throw SyncFolderError(file: folder, kind: .identityNeeded, reason: "the store encrypts the segments "
                    + "it writes here to \(recipients.map(\.encoded).joined(separator: ", ")); a segment is "
                    + "authenticated with the identity of one of them, and none was given")
            }
            sealing = Sealing(recipients: recipients, authenticationKey: keys[author])
        }
        self.init(sealing: sealing, identities: identities, authenticationKeys: keys)
    }

    /// These keys, the segments written encrypted to `epoch` (a roster's epoch recipient, with no tag: the
    /// signature authenticates them) or plain (nil), and read also with `readers`.
    func sealing(toEpoch epoch: AgeRecipient?, readingAlso readers: [AgeIdentity]) throws -> SegmentKeys {
        let added = readers.filter { reader in !identities.contains { $0.secretKey == reader.secretKey } }
        return SegmentKeys(sealing: epoch.map { Sealing(recipients: [$0], authenticationKey: nil) },
                           identities: identities + added,
                           authenticationKeys: authenticationKeys + (try added.map(Self.authenticationKey(of:))))
    }

    /// The authentication key of `identity`: HKDF-SHA-256 of its secret key.
    static func authenticationKey(of identity: AgeIdentity) throws -> [UInt8] {
        try PlatformCrypto.hkdfSHA256(ikm: identity.secretKey, salt: [], info: authenticationInfo, count: 32)
    }

    /// The tag of a segment of `device` whose age header has `headerMAC`, under `key`: 64 lowercase hex digits.
    static func tag(key: [UInt8], headerMAC: [UInt8], device: String) throws -> String {
        SHA256Digest.hex(ofDigest: try PlatformCrypto.hmacSHA256(key: key, message: headerMAC + Array(device.utf8)))
    }

    // MARK: - Writing

    /// An encryptor into `output` when segments are sealed, having written the age header there and set `header`'s
    /// tag; nil when they are written plain. Its `finish()` must be called after the gzip stream's.
    func seal(_ header: inout SegmentHeader, into output: any ByteSink) throws -> AgeEncryptingSink? {
        guard let sealing else { return nil }
        let encryptor = try AgeEncryptingSink(to: .recipients(sealing.recipients), sink: output)
        if let key = sealing.authenticationKey {
            header.auth = try Self.tag(key: key, headerMAC: encryptor.headerMAC, device: header.device)
        }
        return encryptor
    }

    // MARK: - Reading

    /// The plaintext of a segment read from `source`: the bytes themselves for a plain segment, the payload for an
    /// encrypted one (recognised by its first bytes) with the MAC of its age header, for `authenticate`.
    /// - Throws: `SegmentFile.Problem`: refused for a file no identity given opens, cut short for a header cut
    ///   short, damaged for one altered; the source's error.
    func open(_ source: any ByteSource) throws -> (source: any ByteSource, headerMAC: [UInt8]?) {
        let head = try PrefixedSource.peek(AgeFormat.versionLine.count, from: source)
        let whole = PrefixedSource(head, then: source)
        guard AgeFormat.looksLikeAge(head) else { return (whole, nil) }
        guard !identities.isEmpty else {
            throw SegmentFile.Problem(line: nil, reason: "encrypted to a key this store does not hold (age): no "
                + "identity was given", refused: true)
        }
        do {
            let decrypting = try AgeDecryptingSource(with: .identities(identities), source: whole)
            return (decrypting, decrypting.headerMAC)
        } catch let error as AgeError {
            throw Self.problem(error)
        }
    }

    /// Checks the tag of an encrypted segment's `header`, whose age header has `headerMAC`, in constant time
    /// against each identity's.
    /// - Throws: `SegmentFile.Problem`, refused, when it has none or none matches.
    func authenticate(_ header: SegmentHeader, headerMAC: [UInt8]) throws {
        let refusal = "not authenticated: not written by a holder of the identity"
        guard let auth = header.auth else {
            throw SegmentFile.Problem(line: 1, reason: refusal + " (the header has no tag)", refused: true)
        }
        for key in authenticationKeys {
            let expected = try Self.tag(key: key, headerMAC: headerMAC, device: header.device)
            if PlatformCrypto.constantTimeEqual(Array(expected.utf8), Array(auth.utf8)) { return }
        }
        throw SegmentFile.Problem(line: 1, reason: refusal + " (the tag does not match)", refused: true)
    }

    /// An age failure as what it says of a segment: cut short (a copy in progress), refused (a key this store does
    /// not hold), or damaged.
    static func problem(_ error: AgeError) -> SegmentFile.Problem {
        switch error {
        case .truncatedHeader, .truncatedPayload:
            return SegmentFile.Problem(line: nil, reason: "encrypted file: \(error)", cutShort: true)
        case .noIdentityMatches, .notPassphraseEncrypted, .workFactorTooHigh:
            return SegmentFile.Problem(line: nil, reason: "encrypted to a key this store does not hold (\(error))",
                                       refused: true)
        default:
            return SegmentFile.Problem(line: nil, reason: "encrypted file: \(error)")
        }
    }
}

/// The keys a sync round is asked to use: the recipients to encrypt to from now on in this folder (nil: those the
/// store remembers for it; empty: none, writing plain), and the identities it holds.
struct SyncKeyRequest: Sendable {
    var recipients: [AgeRecipient]?
    var identities: [AgeIdentity]
    /// With a roster: true turns encryption by epochs on, false off (and forgets the recipients), nil keeps it.
    var encrypt: Bool?

    init(recipients: [AgeRecipient]? = nil, identities: [AgeIdentity] = [], encrypt: Bool? = nil) {
        self.recipients = recipients
        self.identities = identities
        self.encrypt = encrypt
    }
}
