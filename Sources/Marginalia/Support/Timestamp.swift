import Foundation

/// Conversions between wall-clock milliseconds and ISO 8601 text (UTC).
@usableFromInline package enum Timestamp {
    /// The last millisecond of the year 9999: ISO 8601 times after it need more than four digits for the year.
    package static let latestMilliseconds: Int64 = 253_402_300_799_999

    /// Milliseconds since 1970-01-01T00:00:00Z, now.
    @Sendable @usableFromInline package static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `2026-11-29T12:14:41.123Z` for the given milliseconds.
    package static func iso8601(milliseconds: Int64) -> String {
        let days = floorDiv(milliseconds, 86_400_000)
        let msOfDay = milliseconds - days * 86_400_000
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let millis = msOfDay % 1000
        func two(_ value: Int64) -> String { String(value).leftPadded(to: 2, with: "0") }
        return "\(String(year).leftPadded(to: 4, with: "0"))-\(two(month))-\(two(day))"
            + "T\(two(hour)):\(two(minute)):\(two(second)).\(String(millis).leftPadded(to: 3, with: "0"))Z"
    }

    /// Parses an ISO 8601 date or date-time into milliseconds since 1970.
    ///
    /// Accepts `2026-11-29`, `2026-11-29T12:14`, `2026-11-29T12:14:41`, with optional fraction of a second
    /// and a zone (`Z`, `+02:00`, `-0500`); a time without a zone is taken as UTC. Returns nil otherwise.
    package static func parseISO8601(_ text: String) -> Int64? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
              let day = scanner.digits(2), (1...12).contains(month),
              (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var milliseconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400_000
        if scanner.isAtEnd { return milliseconds }
        guard scanner.take("T") || scanner.take(" "), let hour = scanner.digits(2), scanner.take(":"),
              let minute = scanner.digits(2), hour < 24, minute < 60 else { return nil }
        milliseconds += hour * 3_600_000 + minute * 60_000
        if scanner.take(":") {
            guard let second = scanner.digits(2), second < 60 else { return nil }
            milliseconds += second * 1000
            if scanner.take(".") || scanner.take(",") {
                guard let fraction = scanner.fraction() else { return nil }
                milliseconds += fraction
            }
        }
        if scanner.take("Z") || scanner.take("z") {
            return scanner.isAtEnd ? milliseconds : nil
        }
        if scanner.isAtEnd { return milliseconds }
        let sign: Int64
        if scanner.take("+") { sign = 1 } else if scanner.take("-") { sign = -1 } else { return nil }
        guard let zoneHours = scanner.digits(2), zoneHours < 24 else { return nil }
        // ISO 8601 allows an offset of whole hours alone: +02.
        if scanner.isAtEnd { return milliseconds - sign * zoneHours * 3_600_000 }
        _ = scanner.take(":")
        guard let zoneMinutes = scanner.digits(2), scanner.isAtEnd, zoneHours < 24, zoneMinutes < 60 else { return nil }
        return milliseconds - sign * (zoneHours * 3_600_000 + zoneMinutes * 60_000)
    }

    // MARK: - Civil calendar (proleptic Gregorian), after Howard Hinnant's days_from_civil

    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilDate(daysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// A duration in words, rounded down to the largest unit that fits: "a day", "2 days", "90 minutes".
    package static func duration(_ milliseconds: Int64) -> String {
        for (size, unit) in [(Int64(86_400_000), "day"), (3_600_000, "hour"), (60_000, "minute"), (1000, "second")]
        where milliseconds >= size {
            let count = milliseconds / size
            // Whole days and hours read as such; otherwise the next smaller unit keeps it exact enough.
            if size > 1000, milliseconds % size != 0, count < 2 { continue }
            return count == 1 ? "a\(unit == "hour" ? "n" : "") \(unit)" : "\(count) \(unit)s"
        }
        return "\(milliseconds) ms"
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}

/// Reads fixed-width digit runs and single characters from ASCII bytes.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func digits(_ count: Int) -> Int64? {
        guard index + count <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// A fraction of a second (one or more digits), in milliseconds, truncated.
    mutating func fraction() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            if count < 3 { value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        if count < 3 {
            for _ in count..<3 { value *= 10 }
        }
        return value
    }
}
