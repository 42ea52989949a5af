/// Values written one after another into bytes, compactly, for an import's scratch database: integers as varints,
/// strings as their length and UTF-8 bytes, optionals behind a presence byte. `PackedReader` reads them back in the
/// same order, giving back the same bytes of every string.
struct PackedWriter {
    private(set) var bytes: [UInt8] = []

    init() {}

    mutating func put(byte: UInt8) {
        bytes.append(byte)
    }

    mutating func put(_ value: Int64) {
        // Zigzag, then seven bits a byte, low first (as protocol buffers' varints): small numbers take one byte.
        var rest = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func put(_ value: Int) {
        put(Int64(value))
    }

    mutating func put(_ text: String) {
        put(Int64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    mutating func put(optional value: Int64?) {
        bytes.append(value == nil ? 0 : 1)
        if let value { put(value) }
    }

    mutating func put(optional value: Int?) {
        put(optional: value.map(Int64.init))
    }

    mutating func put(optional text: String?) {
        bytes.append(text == nil ? 0 : 1)
        if let text { put(text) }
    }
}

/// Reads back what a `PackedWriter` wrote, in the order it was written.
struct PackedReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    /// Reads `bytes`, which must outlive the reader (a row's bytes, during the call that reads the row).
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw Self.truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int64() throws -> Int64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw Self.truncated }
            value |= UInt64(next & 0x7F) << shift
            if next < 0x80 { break }
            shift += 7
        }
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    mutating func int() throws -> Int {
        Int(try int64())
    }

    mutating func string() throws -> String {
        let length = try int()
        guard length >= 0, offset + length <= bytes.count else { throw Self.truncated }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
    }

    mutating func optionalInt64() throws -> Int64? { try byte() == 0 ? nil : try int64() }

    mutating func optionalInt() throws -> Int? { try byte() == 0 ? nil : try int() }

    mutating func optionalString() throws -> String? { try byte() == 0 ? nil : try string() }

    /// What a reader throws for bytes that end before the values they should hold.
    private static var truncated: StoreError {
        StoreError.corruptRow(reason: "an import's scratch database holds a value cut short")
    }
}
