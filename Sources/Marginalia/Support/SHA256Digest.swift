#if canImport(CryptoKit)
import CryptoKit
#else
internal import CCrypto
#endif

/// SHA-256 from a well-kept library: CryptoKit on Apple's systems, the system's libcrypto (OpenSSL) elsewhere.
///
///     SHA256Digest.hex(of: Array("abc".utf8))
///     // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
enum SHA256Digest {
    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    static func hex(of bytes: [UInt8]) throws -> String {
        hex(ofDigest: try digest(of: bytes))
    }

    /// `digest` (any bytes) as lowercase hexadecimal digits, two a byte, written straight into the string.
    static func hex(ofDigest digest: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: digest.count * 2) { text in
            // "0123456789abcdef", a byte each.
            func digit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x57 + value }
            for (index, byte) in digest.enumerated() {
                text[2 * index] = digit(byte >> 4)
                text[2 * index + 1] = digit(byte & 0x0F)
            }
            return digest.count * 2
        }
    }

    /// The 32 bytes of the digest of `bytes`.
    static func digest(of bytes: [UInt8]) throws -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: bytes))
        #else
        // "EVP_Digest() is a wrapper around the EVP_DigestInit_ex(), EVP_DigestUpdate() and EVP_DigestFinal_ex()
        // functions" and returns 1 for success. https://www.openssl.org/docs/man3.0/man3/EVP_DigestInit.html
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, sha256 ?? EVP_sha256(), nil)
            }
        }
        guard ok == 1, length == 32 else {
            throw IOError(operation: "SHA-256", path: "", code: 0, message: "libcrypto's EVP_Digest failed")
        }
        output.removeLast(output.count - 32)
        return output
        #endif
    }

    #if !canImport(CryptoKit)
    /// libcrypto's SHA-256, fetched once for the process (nil if the fetch failed: `EVP_sha256()` is used then).
    /// "If you perform the same operation many times then it is recommended to use "Explicit fetching" to
    /// prefetch an algorithm once initially, and then pass this created object to any operations that are
    /// currently using "Implicit fetching"." https://www.openssl.org/docs/man3.0/man7/crypto.html
    /// It is never freed: it lives as long as the process.
    nonisolated(unsafe) private static let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)
    #endif
}
