import Foundation

/// Reads a `Retry-After` header (RFC 9110, 10.2.3): a number of seconds, or an HTTP date.
/// Pure: tested without a server.
enum RetryAfter {
    /// The seconds to wait that `value` asks for, counted from `now`; `nil` when it is neither
    /// form. A date in the past asks for no wait.
    static func delay(from value: String, now: Date) -> TimeInterval? {
        let value = value.trimmingCharacters(in: .whitespaces)
        if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            return TimeInterval(value) ?? .infinity
        }
        guard let date = httpDate(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// The three date forms HTTP accepts: IMF-fixdate, RFC 850 and asctime.
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]

    /// `value` read in one of `formats` (default: HTTP's three forms), or `nil`.
    static func httpDate(_ value: String, formats: [String] = formats) -> Date? {
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date }
        }
        return nil
    }
}
