// MARK: - Encoding

extension JSONWriter {
    /// Writes a whole tree; the caller has placed its comma or key and restores the bytes if this throws.
    mutating func write(_ value: JSONValue) throws(JSONWriteError) {
        switch value {
        case .null:
            writeLiteral("null")
        case .bool(let flag):
            writeLiteral(flag ? "true" : "false")
        case .int(let number):
            writeInteger(number)
        case .double(let number):
            guard number.isFinite else { throw .nonFiniteNumber }
            writeDouble(number)
        case .string(let text):
            writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for position in elements.indices {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                try write(elements[position])
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for position in object.entries.indices {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(object.entries[position].key)
                bytes.append(UInt8(ascii: ":"))
                try write(object.entries[position].value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    mutating func writeLiteral(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Writes a finite double: Swift's `description` is the shortest text that reads back to the same value,
    /// and for finite values its forms (`5.0`, `0.1`, `1e-07`, `1.5e+300`, `-0.0`) are all JSON numbers.
    mutating func writeDouble(_ value: Double) {
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func writeInteger(_ value: Int64) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes `text` in quotes, copying runs of bytes that need no escape at once.
    mutating func writeString(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in writeEscaped(utf8) }
        if written == nil {
            let utf8 = Array(text.utf8)
            utf8.withUnsafeBufferPointer { writeEscaped($0) }
        }
    }

    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var position = 0
        while true {
            position = Self.plainRunEnd(utf8, from: position)
            guard position < utf8.count else { break }
            let byte = utf8[position]
            if position > runStart {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
            }
            position += 1
            runStart = position
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
                bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        if utf8.count > runStart {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The offset of the first byte at or after `start` that must be escaped: a quote, a backslash or a control.
    ///
    /// Eight bytes at a time, as in the parser: borrows only spill above a byte that is found, so the
    /// lowest set bit of `mask` marks the first one.
    @inline(__always)
    private static func plainRunEnd(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        let count = utf8.count
        var position = start
        let ones: UInt64 = 0x0101_0101_0101_0101
        while position &+ 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let controls = (word &- ones &* 0x20) & ~word
            let mask = (controls | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & (ones &* 0x80)
            if mask != 0 {
                return position &+ mask.trailingZeroBitCount &>> 3
            }
            position &+= 8
        }
        while position < count {
            let byte = base[position]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return position
            }
            position += 1
        }
        return position
    }
}
