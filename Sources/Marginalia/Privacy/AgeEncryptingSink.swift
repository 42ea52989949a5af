/// A `ByteSink` that encrypts what is written to it as an age file into another sink.
///
/// The header (a fresh file key wrapped in one X25519 stanza per recipient, or one scrypt stanza) is written when the
/// sink is made; then the payload nonce and each 64 KiB chunk as the plaintext arrives. `finish()` writes the last
/// chunk and must be called: without it the file is truncated, and age refuses it.
///
///     let file = try FileSink(path: path)
///     let age = try AgeEncryptingSink(to: .recipients([recipient]), sink: file)
///     let gzip = try GzipWriter(sink: age)
///     … gzip.write(…) …
///     try gzip.finish()
///     try age.finish()
package final class AgeEncryptingSink: ByteSink {
    private let sink: any ByteSink
    private let cipher: AgePayloadCipher
    private var pending: [UInt8] = []
    private var index: UInt64 = 0
    private var finished = false
    /// The MAC of the header written (https://c2sp.org/age#header): it binds the file key, and so every payload chunk,
    /// for whoever authenticates the file beyond what age does (a sync segment's tag).
    package let headerMAC: [UInt8]

    /// A sink that encrypts to `key` into `sink`, having written the header and payload nonce to it.
    ///
    /// - Parameters:
    ///   - key: Recipients (or identities, whose recipients are used), or a passphrase.
    ///   - sink: Where the age file goes.
    ///   - scryptWorkFactor: log2 of scrypt's N for a passphrase; age's default, 18, unless a test needs it fast.
    /// - Throws: `AgeError.noRecipients`, `.invalidRecipient`, `.unsupportedOnThisPlatform` (a passphrase where there
    ///   is no scrypt), `PlatformCryptoError`, or `sink`'s error.
    package init(to key: AgeKey, sink: any ByteSink,
                 scryptWorkFactor: Int = AgeFormat.defaultScryptWorkFactor) throws {
        let (fileKey, stanzas) = try AgeFileKey.make(for: key, scryptWorkFactor: scryptWorkFactor)
        let nonce = try PlatformCrypto.randomBytes(AgeFormat.payloadNonceSize)
        self.sink = sink
        cipher = try AgePayloadCipher(fileKey: fileKey, nonce: nonce)
        let header = try AgeHeader.encode(stanzas: stanzas, fileKey: fileKey)
        headerMAC = header.mac
        try (header.bytes + nonce).withUnsafeBytes { try sink.write($0) }
        pending.reserveCapacity(AgeFormat.chunkSize)
    }

    /// Encrypts `bytes`, writing each chunk once it is full and more bytes follow it.
    ///
    /// - Throws: `AgeError.alreadyFinished`, `PlatformCryptoError`, or the inner sink's error.
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !finished else { throw AgeError.alreadyFinished }
        var rest = bytes[...]
        while !rest.isEmpty {
            // A full chunk is sealed only when a byte follows it: the last chunk may be full, and must be flagged.
            if pending.count == AgeFormat.chunkSize { try flush(last: false) }
            let count = min(AgeFormat.chunkSize - pending.count, rest.count)
            pending += rest.prefix(count)
            rest = rest.dropFirst(count)
        }
    }

    /// Writes the last chunk; call it once after the last write. The inner sink is not closed.
    ///
    /// - Throws: `AgeError.alreadyFinished`, `PlatformCryptoError`, or the inner sink's error.
    package func finish() throws {
        guard !finished else { throw AgeError.alreadyFinished }
        try flush(last: true)
        finished = true
    }

    private func flush(last: Bool) throws {
        do {
            let sealed = try cipher.seal(pending, index: index, last: last)
            try sealed.withUnsafeBytes { try sink.write($0) }
        } catch {
            finished = true
            throw error
        }
        pending.removeAll(keepingCapacity: true)
        index += 1
    }

    /// `plaintext` as an age file encrypted to `key`.
    ///
    /// - Throws: as `init(to:sink:scryptWorkFactor:)`.
    package static func encrypt(_ plaintext: [UInt8], to key: AgeKey,
                                scryptWorkFactor: Int = AgeFormat.defaultScryptWorkFactor) throws -> [UInt8] {
        let output = ByteArraySink()
        let encryptor = try AgeEncryptingSink(to: key, sink: output, scryptWorkFactor: scryptWorkFactor)
        try plaintext.withUnsafeBytes { try encryptor.write($0) }
        try encryptor.finish()
        return output.bytes
    }
}

@available(*, unavailable)
extension AgeEncryptingSink: Sendable {}
