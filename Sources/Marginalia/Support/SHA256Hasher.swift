#if canImport(CryptoKit)
import CryptoKit
#else
internal import CCrypto
#endif

/// SHA-256 of bytes given in pieces (a file as it is read), from the same libraries as `SHA256Digest`.
///
///     let hasher = try SHA256Hasher()
///     try hasher.update(Array("ab".utf8))
///     try hasher.update(Array("c".utf8))
///     try hasher.finalizeHex()  // "ba7816bf…15ad", as SHA256Digest.hex(of: "abc")
final class SHA256Hasher {
    #if canImport(CryptoKit)
    private var hasher = SHA256()
    #else
    private let context: OpaquePointer
    #endif

    /// A hasher that has seen no bytes.
    ///
    /// - Throws: when libcrypto cannot make a digest context.
    init() throws {
        #if !canImport(CryptoKit)
        // "EVP_MD_CTX_new() Allocates and returns a digest context." "EVP_DigestInit_ex() … returns 1 for
        // success and 0 for failure." https://www.openssl.org/docs/man3.0/man3/EVP_DigestInit.html
        guard let context = EVP_MD_CTX_new() else { throw Self.failure("EVP_MD_CTX_new") }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            EVP_MD_CTX_free(context)
            throw Self.failure("EVP_DigestInit_ex")
        }
        self.context = context
        #endif
    }

    deinit {
        #if !canImport(CryptoKit)
        EVP_MD_CTX_free(context)
        #endif
    }

    /// Adds `bytes` to what has been hashed.
    func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        #if canImport(CryptoKit)
        hasher.update(bufferPointer: bytes)
        #else
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else {
            throw Self.failure("EVP_DigestUpdate")
        }
        #endif
    }

    /// Adds `bytes` to what has been hashed.
    func update(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try update($0) }
    }

    /// The digest of every byte given, as 64 lowercase hex digits; call it once.
    func finalizeHex() throws -> String {
        #if canImport(CryptoKit)
        let digest = Array(hasher.finalize())
        #else
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = output.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        guard ok == 1, length == 32 else { throw Self.failure("EVP_DigestFinal_ex") }
        let digest = Array(output.prefix(32))
        #endif
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    private static func failure(_ function: String) -> IOError {
        IOError(operation: "SHA-256", path: "", code: 0, message: "libcrypto's \(function) failed")
    }
}

@available(*, unavailable)
extension SHA256Hasher: Sendable {}
