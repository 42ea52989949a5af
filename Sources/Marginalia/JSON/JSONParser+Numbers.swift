// MARK: - Numbers

extension JSONParser.Reader {
    /// Reads the number starting at `index`: `.int` when it has no fraction or exponent and fits `Int64`,
    /// `.double` otherwise.
    ///
    /// Up to 19 significant digits are gathered into an integer. When that integer and the power of ten
    /// are both exact doubles, one multiplication or division rounds correctly (Clinger's fast path);
    /// anything else goes to the standard library's correctly rounded conversion of the text.
    mutating func readNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var position = start
        let negative = base[position] == UInt8(ascii: "-")
        if negative { position += 1 }

        // The digits read so far are `significand` × 10^`scale`, exactly unless `truncated`.
        var significand: UInt64 = 0
        var digits = 0
        var scale = 0
        var truncated = false

        guard position < count, let first = digit(at: position) else { throw unexpected(at: position) }
        position += 1
        if first == 0 {
            if position < count, digit(at: position) != nil {
                throw JSONParseError(offset: position - 1, reason: "leading zero in number")
            }
        } else {
            significand = UInt64(first)
            digits = 1
            while position < count, let next = digit(at: position) {
                if digits < 19 {
                    significand = significand &* 10 &+ UInt64(next)
                    digits += 1
                } else {
                    scale += 1
                    truncated = truncated || next != 0
                }
                position += 1
            }
        }

        var isInteger = true
        if position < count, base[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < count, digit(at: position) != nil else { throw unexpected(at: position) }
            while position < count, let next = digit(at: position) {
                if digits < 19 {
                    // Zeros before the first significant digit only move the scale.
                    significand = significand &* 10 &+ UInt64(next)
                    if significand != 0 { digits += 1 }
                    scale -= 1
                } else {
                    truncated = truncated || next != 0
                }
                position += 1
            }
        }

        if position < count, base[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            var exponentIsNegative = false
            if position < count, base[position] == UInt8(ascii: "+") || base[position] == UInt8(ascii: "-") {
                exponentIsNegative = base[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < count, digit(at: position) != nil else { throw unexpected(at: position) }
            var exponent = 0
            while position < count, let next = digit(at: position) {
                // Past a million the value is zero or out of range anyway; stop growing before overflow.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(next) }
                position += 1
            }
            scale += exponentIsNegative ? -exponent : exponent
        }
        index = position

        if isInteger && scale == 0 {
            if negative && significand <= UInt64(Int64.max) + 1 {
                return .int(Int64(truncatingIfNeeded: 0 &- significand))
            }
            if !negative && significand <= UInt64(Int64.max) {
                return .int(Int64(significand))
            }
        }
        if !truncated && significand <= 1 << 53 && (-22...22).contains(scale) {
            let magnitude = Double(significand)
            let power = powersOfTen[abs(scale)]
            let value = scale < 0 ? magnitude / power : magnitude * power
            return .double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return .double(value)
    }

    /// The value of the ASCII digit at `offset`, or `nil` if the byte there is not a digit.
    @inline(__always)
    private func digit(at offset: Int) -> UInt8? {
        let value = base[offset] &- UInt8(ascii: "0")
        return value < 10 ? value : nil
    }
}

/// 10^0 through 10^22, every one exactly representable as a `Double`.
private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
