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
        guard let date = HTTPDate.parse(value, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
