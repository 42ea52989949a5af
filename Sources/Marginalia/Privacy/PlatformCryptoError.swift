/// A call into the platform's cryptography library failed for a reason other than its input (out of memory, a
/// missing algorithm): which call.
package struct PlatformCryptoError: CategorizedError, Equatable {
    /// The library function that failed, as it is named (`EVP_PKEY_derive`, `RAND_bytes`, …).
    package var function: String

    /// A failure of `function`.
    package init(function: String) {
        self.function = function
    }

    /// The failure in words.
    package var description: String { "the cryptography library's \(function) failed" }

    /// Not the input's fault: the machine could not do the work.
    package var category: MarginaliaError.Category { .io }
}
