/// The clocks of an annotation's registers as the `clocks` blob of its row (schema 5): for each distinct stamp,
/// the registers it set.
///
///     blob   = entry*                              entries in stamp order (`ClockStamp <`)
///     entry  = varint(hlc.packed) varint(device number) change-id varint(register count) register*
///     change-id = 0x00 and the 16 bytes of a lowercase canonical UUID | 0x01 varint(length) UTF-8
///     register  = 1 kind | 2 anchor | 3 note | 4 color | 5 deleted    (in this order, then tags by name)
///               | 6 varint(length) UTF-8 of the tag name               (the register `tag:<name>`)
///               | 0 varint(length) UTF-8 of any other register name
///
/// Varints are unsigned LEB128: seven bits a byte, least significant first, the high bit set on all but the last.
/// A typical annotation (one stamp for all its registers) takes about 30 bytes, against 380 for the JSON object of
/// text stamps it replaces.
enum FieldClocks {
    /// The registers with a one-byte code, by code.
    private static let named = ["kind", "anchor", "note", "color", "deleted"]
    private static let tagCode: UInt8 = 6
    private static let otherCode: UInt8 = 0

    /// The blob of `clocks`, devices numbered by `devices`.
    static func encode(_ clocks: [String: ClockStamp], devices: DeviceTable) throws -> [UInt8] {
        // Grouped by sorting rather than hashing: an annotation holds a handful of registers, most on one stamp.
        let sorted = clocks.sorted { $0.value != $1.value ? $0.value < $1.value : registerOrder($0.key, $1.key) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        var start = 0
        while start < sorted.count {
            let stamp = sorted[start].value
            var end = start + 1
            while end < sorted.count, sorted[end].value == stamp { end += 1 }
            defer { start = end }
            appendVarint(UInt64(stamp.hlc.packed), to: &bytes)
            appendVarint(UInt64(try devices.number(of: stamp.device)), to: &bytes)
            if let uuid = Identifiers.uuidBytes(stamp.changeID) {
                bytes.append(0)
                bytes.append(contentsOf: uuid)
            } else {
                bytes.append(1)
                appendText(stamp.changeID, to: &bytes)
            }
            appendVarint(UInt64(end - start), to: &bytes)
            for name in sorted[start..<end].map(\.key) {
                if let index = named.firstIndex(of: name) {
                    bytes.append(UInt8(index + 1))
                } else if name.hasPrefix("tag:") {
                    bytes.append(tagCode)
                    appendText(String(name.dropFirst(4)), to: &bytes)
                } else {
                    bytes.append(otherCode)
                    appendText(name, to: &bytes)
                }
            }
        }
        return bytes
    }

    /// The clocks a blob `encode` made holds; nil when it is not one, or names a device `devices` lacks.
    static func decode(_ bytes: [UInt8], devices: DeviceTable) -> [String: ClockStamp]? {
        var reader = Reader(bytes: bytes)
        var clocks: [String: ClockStamp] = [:]
        while !reader.atEnd {
            guard let packed = reader.varint(), packed <= UInt64(Int64.max), let hlc = HLC(packed: Int64(packed)),
                  let number = reader.varint(), number <= UInt64(Int64.max),
                  let device = devices.id(of: Int64(number)), let kind = reader.byte() else { return nil }
            let changeID: String
            switch kind {
            case 0:
                guard let uuid = reader.bytes(16) else { return nil }
                changeID = Identifiers.uuidText(uuid)
            case 1:
                guard let text = reader.text() else { return nil }
                changeID = text
            default:
                return nil
            }
            let stamp = ClockStamp(hlc: hlc, device: device, changeID: changeID)
            guard let count = reader.varint() else { return nil }
            for _ in 0..<count {
                guard let code = reader.byte() else { return nil }
                let name: String
                switch code {
                case 1...UInt8(named.count): name = named[Int(code) - 1]
                case tagCode:
                    guard let tag = reader.text() else { return nil }
                    name = "tag:" + tag
                case otherCode:
                    guard let text = reader.text() else { return nil }
                    name = text
                default:
                    return nil
                }
                guard clocks.updateValue(stamp, forKey: name) == nil else { return nil }
            }
        }
        return clocks
    }

    /// The order registers are written in within an entry: the named ones by code, then the others by name.
    private static func registerOrder(_ lhs: String, _ rhs: String) -> Bool {
        let left = named.firstIndex(of: lhs) ?? named.count
        let right = named.firstIndex(of: rhs) ?? named.count
        if left != right { return left < right }
        return Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8))
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index >= bytes.count }

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count <= bytes.count - index else { return nil }
            defer { index += count }
            return Array(bytes[index..<index + count])
        }

        mutating func text() -> String? {
            guard let length = varint(), length <= UInt64(bytes.count - index),
                  let utf8 = bytes(Int(length)) else { return nil }
            return String(validating: utf8, as: UTF8.self)
        }
    }
}
