import Foundation

/// The ids a store makes: annotation, change and device ids.
package enum Identifiers {
    /// A new random id (a lowercase UUID).
    package static func make() -> String {
        // A version 4 UUID (RFC 9562 section 5.4): 122 random bits, version 0100, variant 10.
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        bytes.0 = (bytes.0 & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        bytes.1 = (bytes.1 & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let hex = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            for (word, shifts) in [(bytes.0, 0..<16), (bytes.1, 0..<16)] {
                for nibble in shifts {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = hex[Int((word >> UInt64(60 - 4 * nibble)) & 0xF)]
                    index += 1
                }
            }
            return 36
        }
    }

    /// Whether `text` can be a device or change id: 1 to 64 ASCII letters, digits, `.`, `_` or `-`.
    ///
    /// Narrower than content ids, because these are machine-made and stored space-separated in field clocks.
    package static func isValidMachineID(_ text: String) -> Bool {
        let bytes = text.utf8
        return (1...64).contains(bytes.count) && bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
