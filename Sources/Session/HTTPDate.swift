import Foundation

/// HTTP's date forms (RFC 9110, 5.6.7), read as bytes: IMF-fixdate (`Sun, 06 Nov 1994
/// 08:49:37 GMT`), and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
/// (`Sun Nov  6 08:49:37 1994`) forms, which recipients must still accept. Pure: tested without
/// a server. A `DateFormatter` made for each value cost tens of thousands of instructions, and
/// accepted what HTTP does not (other time zones, missing fields).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }

    /// The moment `value` names, or `nil` when it is in none of the three forms or names no
    /// real time (31 February, 25 o'clock). An RFC 850 two-digit year more than 50 years after
    /// `now`'s year is the most recent such year in the past (RFC 9110).
    static func parse(_ value: String, now: Date = Date()) -> Date? {
        let bytes = Array(value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
        var reader = Reader(bytes: bytes)
        // Every form starts with the weekday's name, which says nothing the date does not.
        guard reader.skipLetters(min: 3) else { return nil }
        if reader.take(UInt8(ascii: ",")) {
            guard reader.take(0x20), let day = reader.digits(2) else { return nil }
            if reader.take(0x20) {
                guard let month = reader.month(), reader.take(0x20), let year = reader.digits(4), reader.take(0x20),
                      let time = reader.time(), reader.gmt() else { return nil }
                return date(year: year, month: month, day: day, time: time)
            }
            guard reader.take(UInt8(ascii: "-")), let month = reader.month(), reader.take(UInt8(ascii: "-")), let twoDigits = reader.digits(2),
                  reader.take(0x20), let time = reader.time(), reader.gmt() else { return nil }
            return date(year: fullYear(twoDigits, now: now), month: month, day: day, time: time)
        }
        // asctime: `Mon dd` with a one-digit day padded by a space, then the time and the year.
        guard reader.take(0x20), let month = reader.month(), reader.take(0x20) else { return nil }
        _ = reader.take(0x20)
        guard let day = reader.digits(1...2), reader.take(0x20), let time = reader.time(), reader.take(0x20), let year = reader.digits(4),
              reader.atEnd else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// The year of an RFC 850 date's two digits, as RFC 9110 reads them.
    private static func fullYear(_ twoDigits: Int, now: Date) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let thisYear = calendar.component(.year, from: now)
        var year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 { year -= 100 }
        return year
    }

    /// The moment of a date and time in GMT, or `nil` for one that does not exist.
    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...lengths[month - 1]).contains(day), time.hour < 24, time.minute < 60, time.second < 61 else { return nil }
        // Days from 1970-01-01 to the date (the proleptic Gregorian calendar's civil-day count).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        // A leap second reads as the last second of its minute.
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + min(time.second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Reads a date's parts from the front of its bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// Skips a run of at least `min` ASCII letters (a weekday's name).
        mutating func skipLetters(min: Int) -> Bool {
            let start = index
            while index < bytes.count, (0x61...0x7A).contains(bytes[index] | 0x20) { index += 1 }
            return index - start >= min
        }

        /// A number of exactly `count` digits.
        mutating func digits(_ count: Int) -> Int? {
            digits(count...count)
        }

        /// A number of `counts` digits, as many as there are.
        mutating func digits(_ counts: ClosedRange<Int>) -> Int? {
            var value = 0
            var read = 0
            while read < counts.upperBound, index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
                read += 1
            }
            return counts.contains(read) ? value : nil
        }

        /// A month's three-letter name, in any case: 1 to 12.
        mutating func month() -> Int? {
            guard index + 3 <= bytes.count else { return nil }
            let name = bytes[index..<(index + 3)].map { $0 | 0x20 }
            guard let month = HTTPDate.months.firstIndex(where: { $0 == name }) else { return nil }
            index += 3
            return month + 1
        }

        /// `hh:mm:ss`.
        mutating func time() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), take(UInt8(ascii: ":")), let minute = digits(2), take(UInt8(ascii: ":")), let second = digits(2) else {
                return nil
            }
            return (hour, minute, second)
        }

        /// ` GMT` and the end.
        mutating func gmt() -> Bool {
            take(0x20) && take(UInt8(ascii: "G")) && take(UInt8(ascii: "M")) && take(UInt8(ascii: "T")) && atEnd
        }
    }
}
