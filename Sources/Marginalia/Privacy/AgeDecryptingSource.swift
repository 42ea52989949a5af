/// A `ByteSource` that decrypts an age file read from another source.
///
/// Making it reads the header, unwraps the file key with the given identities or passphrase and checks the header's
/// MAC; each `read(into:)` then gives plaintext one authenticated chunk at a time. A chunk that fails authentication,
/// a file that ends before its last chunk and bytes after it are refused when reached, so plaintext read before such
/// an error is authentic but incomplete.
///
///     let age = try AgeDecryptingSource(with: .identities(identities), source: FileSource(path: path))
///     let gzip = try GzipReader(source: age)
package final class AgeDecryptingSource: ByteSource {
    private let source: any ByteSource
    private let cipher: AgePayloadCipher
    private var input: [UInt8]
    private var plaintext: [UInt8] = []
    private var delivered = 0
    private var index: UInt64 = 0
    /// What comes once the plaintext decrypted so far is read: more chunks (nil), the end, or an error.
    private var ending: Ending?
    private var failure: (any Error)?
    /// The MAC of the header read, checked against the file key: it binds the file key, and so every payload chunk,
    /// for whoever authenticates the file beyond what age does (a sync segment's tag).
    package let headerMAC: [UInt8]

    private enum Ending {
        case end
        case failure(AgeError)
    }

    /// A source of the plaintext of the age file `source` reads, decrypted with `key`.
    ///
    /// - Throws: `AgeError` (not age, armored, malformed or truncated header, no identity matches, wrong passphrase,
    ///   header MAC mismatch, truncated payload nonce), `PlatformCryptoError`, or `source`'s error.
    package init(with key: AgeKey, source: any ByteSource) throws {
        if case .recipients = key { throw AgeError.recipientsCannotDecrypt }
        let (header, rest) = try AgeHeaderReader.read(from: source)
        let fileKey = try AgeFileKey.unwrap(header, with: key)
        guard try header.verifies(fileKey: fileKey) else { throw AgeError.headerMACMismatch }
        headerMAC = header.mac
        self.source = source
        input = rest
        _ = try Self.fill(&input, to: AgeFormat.payloadNonceSize, from: source)
        guard input.count >= AgeFormat.payloadNonceSize else { throw AgeError.truncatedPayload }
        cipher = try AgePayloadCipher(fileKey: fileKey, nonce: Array(input.prefix(AgeFormat.payloadNonceSize)))
        input.removeFirst(AgeFormat.payloadNonceSize)
    }

    /// Copies decrypted plaintext into `buffer`, decrypting the next chunk when what was decrypted is used up.
    ///
    /// - Returns: The bytes copied; 0 only after the last chunk was authenticated and nothing followed it.
    /// - Throws: `AgeError.chunkAuthenticationFailed`, `.emptyLastChunk`, `.truncatedPayload`, `.trailingData`,
    ///   `PlatformCryptoError`, or the inner source's error; the same error again on every later call.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let failure { throw failure }
        while delivered == plaintext.count {
            do {
                switch ending {
                case .end?: return 0
                case .failure(let error)?: throw error
                case nil: try decryptNextChunk()
                }
            } catch {
                failure = error
                throw error
            }
        }
        let count = min(buffer.count, plaintext.count - delivered)
        guard count > 0, let destination = buffer.baseAddress else { return 0 }
        plaintext.withUnsafeBytes { all in
            destination.copyMemory(from: all.baseAddress! + delivered, byteCount: count)
        }
        delivered += count
        return count
    }

    /// Reads one chunk and the byte after it, which tells a full chunk that is last from one that is not.
    private func decryptNextChunk() throws {
        let sealedSize = AgeFormat.chunkSize + AgeFormat.tagSize
        let atEnd = try Self.fill(&input, to: sealedSize + 1, from: source)
        let sealed = Array(input.prefix(sealedSize))
        input.removeFirst(sealed.count)
        if atEnd {
            guard sealed.count >= AgeFormat.tagSize else { throw AgeError.truncatedPayload }
            if let opened = try cipher.open(sealed, index: index, last: true) {
                guard !opened.isEmpty || index == 0 else { throw AgeError.emptyLastChunk(index: Int(index)) }
                plaintext = opened
                ending = .end
            } else if sealed.count == sealedSize, let opened = try cipher.open(sealed, index: index, last: false) {
                // A full chunk that is not the last, then the end of the file: its plaintext is authentic.
                plaintext = opened
                ending = .failure(.truncatedPayload)
            } else {
                throw AgeError.chunkAuthenticationFailed(index: Int(index))
            }
        } else if let opened = try cipher.open(sealed, index: index, last: false) {
            plaintext = opened
        } else if let opened = try cipher.open(sealed, index: index, last: true) {
            // A full chunk sealed as the last one, with bytes after it: its plaintext is authentic.
            plaintext = opened
            ending = .failure(.trailingData)
        } else {
            throw AgeError.chunkAuthenticationFailed(index: Int(index))
        }
        delivered = 0
        index += 1
    }

    /// Reads from `source` until `buffer` holds `count` bytes or the source ends; whether it ended.
    private static func fill(_ buffer: inout [UInt8], to count: Int, from source: any ByteSource) throws -> Bool {
        var scratch = [UInt8](repeating: 0, count: max(0, count - buffer.count))
        while buffer.count < count {
            let got = try scratch.withUnsafeMutableBytes {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(count - buffer.count)))
            }
            if got == 0 { return true }
            buffer += scratch.prefix(got)
        }
        return false
    }

    /// The plaintext of the age file `bytes`, decrypted with `key`.
    ///
    /// - Throws: as `init(with:source:)` and `read(into:)`.
    package static func decrypt(_ bytes: [UInt8], with key: AgeKey) throws -> [UInt8] {
        let reader = try AgeDecryptingSource(with: key, source: ByteArraySource(bytes))
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: AgeFormat.chunkSize)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try reader.read(into: $0) }
            if count == 0 { return output }
            output += chunk.prefix(count)
        }
    }
}

@available(*, unavailable)
extension AgeDecryptingSource: Sendable {}
