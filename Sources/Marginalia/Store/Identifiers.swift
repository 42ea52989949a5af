import Foundation

/// The ids a store makes: annotation, change and device ids.
public enum Identifiers {
    /// A new random id (a lowercase UUID).
    public static func make() -> String {
        UUID().uuidString.lowercased()
    }

    /// Whether `text` can be a device or change id: 1 to 64 ASCII letters, digits, `.`, `_` or `-`.
    ///
    /// Narrower than content ids, because these are machine-made and stored space-separated in field clocks.
    public static func isValidMachineID(_ text: String) -> Bool {
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
