/// Dates as reading apps write them in English, to milliseconds since 1970.
///
///     ClippingDate.milliseconds("Tuesday, November 19, 2013 1:23:50 PM")   // month first, 12-hour clock
///     ClippingDate.milliseconds("Monday, 30 November 2026 21:14:05")       // day first, 24-hour clock
///     ClippingDate.milliseconds("Saturday, 29 April 17 21:23:29 GMT-02:23") // two-digit year, an offset
///     ClippingDate.milliseconds("2026-11-30 21:14:05")                      // ISO 8601 (KOReader, Readwise)
///
/// A date without an offset is taken as UTC: the file does not say which zone the device was in.
enum ClippingDate {
    private static let months = ["january", "february", "march", "april", "may", "june", "july", "august",
                                 "september", "october", "november", "december"]

    /// The time `text` names, or nil when it is not a date this reads.
    static func milliseconds(_ text: String) -> Int64? {
        if let iso = iso8601(text) { return iso }
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { String($0) }
        guard let monthIndex = tokens.firstIndex(where: { month(of: $0) != nil }),
              let month = month(of: tokens[monthIndex]) else { return nil }
        let day: Int
        let year: Int
        if monthIndex > 0, let before = Int(tokens[monthIndex - 1]), monthIndex + 1 < tokens.count,
           let after = Int(tokens[monthIndex + 1]) {
            (day, year) = (before, after)
        } else if monthIndex + 2 < tokens.count, let first = Int(tokens[monthIndex + 1]),
                  let second = Int(tokens[monthIndex + 2]) {
            (day, year) = (first, second)
        } else {
            return nil
        }
        var hour = 0
        var minute = 0
        var second = 0
        var offsetMinutes = 0
        for token in tokens[(monthIndex + 1)...] {
            let upper = token.uppercased()
            if upper.hasPrefix("GMT") || upper.hasPrefix("UTC") {
                guard let offset = offset(upper.dropFirst(3)) else { return nil }
                offsetMinutes = offset
            } else if token.contains(":") {
                let parts = token.split(separator: ":").map { Int($0) }
                guard parts.count >= 2, parts.count <= 3, let h = parts[0], let m = parts[1] else { return nil }
                (hour, minute, second) = (h, m, parts.count == 3 ? (parts[2] ?? -1) : 0)
            } else if upper == "PM" {
                if hour < 12 { hour += 12 }
            } else if upper == "AM" {
                if hour == 12 { hour = 0 }
            }
        }
        return make(year: year < 100 ? 2000 + year : year, month: month, day: day, hour: hour, minute: minute,
                    second: second, millisecond: 0, offsetMinutes: offsetMinutes)
    }

    /// `2026-11-30T21:14:05Z`, `2026-11-30 21:14:05`, `2026-11-30T21:14:05.123+02:00`, `2026-11-30`.
    static func iso8601(_ text: String) -> Int64? {
        let scalars = Array(text.trimmingSpaces.unicodeScalars)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count else { return nil }
            var value = 0
            for index in range {
                let code = scalars[index].value
                guard code >= 0x30 && code <= 0x39 else { return nil }
                value = value * 10 + Int(code - 0x30)
            }
            return value
        }
        guard scalars.count >= 10, scalars[4] == "-", scalars[7] == "-",
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        guard scalars.count > 10 else {
            return make(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, millisecond: 0,
                        offsetMinutes: 0)
        }
        guard scalars.count >= 19, scalars[10] == "T" || scalars[10] == " ", scalars[13] == ":", scalars[16] == ":",
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var index = 19
        var millisecond = 0
        if index < scalars.count, scalars[index] == "." {
            index += 1
            var digits = 0
            while index < scalars.count, let digit = number(index..<(index + 1)) {
                if digits < 3 { millisecond = millisecond * 10 + digit }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { millisecond *= 10 } }
        }
        var offsetMinutes = 0
        if index < scalars.count {
            let rest = String(String.UnicodeScalarView(scalars[index...]))
            if rest == "Z" {
                offsetMinutes = 0
            } else if let offset = offset(Substring(rest)) {
                offsetMinutes = offset
            } else {
                return nil
            }
        }
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                    millisecond: millisecond, offsetMinutes: offsetMinutes)
    }

    private static func month(of token: String) -> Int? {
        let lower = token.lowercased()
        guard lower.count >= 3, lower.allSatisfy(\.isLetter) else { return nil }
        return months.firstIndex { $0 == lower || ($0.hasPrefix(lower) && lower.count == 3) }.map { $0 + 1 }
    }

    /// `+02:00`, `-0223`, `+2` → minutes east of UTC.
    private static func offset(_ text: Substring) -> Int? {
        guard let sign = text.first, sign == "+" || sign == "-" else { return text.isEmpty ? 0 : nil }
        let digits = text.dropFirst().filter { $0 != ":" }
        guard !digits.isEmpty, digits.count <= 4, let value = Int(digits) else { return nil }
        let minutes = digits.count <= 2 ? value * 60 : (value / 100) * 60 + value % 100
        return sign == "-" ? -minutes : minutes
    }

    /// Milliseconds since 1970 of a civil date and time at `offsetMinutes` east of UTC; nil when out of range.
    static func make(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int,
                     offsetMinutes: Int) -> Int64? {
        guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        // Days from civil, Howard Hinnant's algorithm (http://howardhinnant.github.io/date_algorithms.html).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = Int64(era * 146_097 + dayOfEra - 719_468)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millisecond)
    }
}
