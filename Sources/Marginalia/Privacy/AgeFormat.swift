/// The constants of the age v1 format (https://c2sp.org/age) and a check of a file's first bytes.
package enum AgeFormat {
    /// The first line of every age v1 file, its line feed included.
    package static let versionLine = Array("age-encryption.org/v1\n".utf8)
    /// What every age file's first line starts with, whatever its version.
    package static let versionPrefix = Array("age-encryption.org/".utf8)
    /// The first line of an ASCII-armored age file.
    package static let armorBegin = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)
    /// The most bytes of plaintext in one payload chunk: 64 KiB.
    package static let chunkSize = 64 * 1024
    /// The bytes a chunk grows by when sealed: the Poly1305 tag.
    package static let tagSize = 16
    /// The bytes of the file key.
    package static let fileKeySize = 16
    /// The bytes of the payload nonce that follows the header.
    package static let payloadNonceSize = 16
    /// The scrypt work factor (log2 N) passphrase encryption uses, as age's.
    package static let defaultScryptWorkFactor = 18
    /// The largest scrypt work factor (log2 N) decryption accepts, as age's: 2^22 needs 4 GiB.
    package static let maxScryptWorkFactor = 22
    /// The largest header decryption reads.
    package static let maxHeaderSize = 64 * 1024
    /// The most stanzas a header may have.
    package static let maxStanzas = 1024

    /// Whether `head`, the first bytes of a file, is the start of a binary age file (`age-encryption.org/v1\n`),
    /// as opposed to a gzip stream (which starts 0x1F 0x8B) or anything else.
    ///
    /// Give it at least the 22 bytes of the version line; fewer match when they are its start.
    package static func looksLikeAge(_ head: some Collection<UInt8>) -> Bool {
        !head.isEmpty && head.prefix(versionLine.count).elementsEqual(versionLine.prefix(head.count))
    }

    /// Whether `head` is the start of an ASCII-armored age file, which this library refuses (`AgeError.armored`).
    package static func looksLikeArmoredAge(_ head: some Collection<UInt8>) -> Bool {
        let text = head.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r")
            || $0 == UInt8(ascii: "\n") }
        return !text.isEmpty && text.prefix(armorBegin.count).elementsEqual(armorBegin.prefix(text.count))
    }
}
