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

    /// The 16 bytes of `text` when it is a UUID in its canonical lowercase form (8-4-4-4-12 hex digits).
    package static func uuidBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 36 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(16)
        var high: UInt8?
        for (index, digit) in digits.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard digit == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                result.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return result
    }

    /// The canonical lowercase text of 16 UUID bytes.
    package static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
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
