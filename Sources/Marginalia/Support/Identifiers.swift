import Foundation

/// The ids a store makes: annotation, change and device ids.
package enum Identifiers {
    /// A new id (a lowercase UUID, version 7): ids made later sort after ids made earlier, so the indexes keyed
    /// by them grow at their right edge instead of taking every insert on a random page.
    ///
    /// RFC 9562 section 5.7: "UUIDv7 features a time-ordered value field derived from the widely implemented and
    /// well-known Unix Epoch timestamp source, the number of milliseconds since midnight 1 Jan 1970 UTC, leap
    /// seconds excluded." The 12 bits after the version count the ids made in the same millisecond (section
    /// 6.2, method 1, "Fixed Bit-Length Dedicated Counter"), so ids of one process stay in order; the last 62
    /// bits are random. https://www.rfc-editor.org/rfc/rfc9562#section-5.7
    package static func make() -> String {
        let (milliseconds, counter) = sequence.next(now: Timestamp.nowMilliseconds())
        var generator = SystemRandomNumberGenerator()
        let high = UInt64(milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | UInt64(counter & 0x0FFF)
        let random: UInt64 = generator.next()
        let low = (random & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let hex = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            for word in [high, low] {
                for nibble in 0..<16 {
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

    /// The millisecond and counter of the last id this process made.
    private static let sequence = IdentifierSequence()

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
            guard let value = HexDigit.value(of: digit) else { return nil }
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

/// The time and counter of a process's version 7 ids: the counter orders ids made in one millisecond, and when it
/// is spent (4,096 ids in a millisecond) or the clock steps back, the next ids borrow the following millisecond,
/// so that they never go backwards.
final class IdentifierSequence: @unchecked Sendable {
    private let lock = NSLock()
    private var milliseconds: Int64 = 0
    private var counter = 0

    /// The millisecond and counter for the next id, given the clock's `now`.
    func next(now: Int64) -> (milliseconds: Int64, counter: Int) {
        lock.lock()
        defer { lock.unlock() }
        if now > milliseconds {
            milliseconds = now
            counter = 0
        } else if counter < 0x0FFF {
            counter += 1
        } else {
            milliseconds += 1
            counter = 0
        }
        return (milliseconds, counter)
    }
}
