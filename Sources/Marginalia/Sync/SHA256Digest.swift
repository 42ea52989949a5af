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
        let digest = try self.digest(of: bytes)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
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
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        guard ok == 1, length == 32 else {
            throw GzipError.io(operation: "SHA-256", path: "", code: 0, message: "libcrypto's EVP_Digest failed")
        }
        return Array(output.prefix(32))
        #endif
    }
}
