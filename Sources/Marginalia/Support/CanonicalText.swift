import Foundation

extension StringProtocol {
    /// The text in Unicode Normalization Form C, as `precomposedStringWithCanonicalMapping` gives it, without
    /// calling it for ASCII text: no ASCII character has a decomposition or combines with another, so ASCII text is
    /// its own NFC (the tests check it for every ASCII character, alone and beside others).
    var canonicallyComposed: String {
        utf8.allSatisfy { $0 < 0x80 } ? String(self) : precomposedStringWithCanonicalMapping
    }
}
