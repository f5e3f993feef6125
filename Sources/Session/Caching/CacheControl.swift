import AFTransport

/// The directives of a request's or a response's `Cache-Control` fields (RFC 9111, 5.2), read
/// as bytes: names in any case, arguments as tokens or quoted strings, elements that are not
/// directives skipped. Where a directive repeats, the most restrictive value counts; a
/// `max-age` or `s-maxage` whose argument is not a number makes the response stale (RFC 9111,
/// 4.2.1), and a number past 2^31 is 2^31 (1.2.2). `no-cache` and `private` naming fields are
/// taken whole. Pure: tested without a server.
struct CacheControl: Equatable {
    /// The largest delta-seconds a cache must handle (RFC 9111, 1.2.2).
    static let maximumDeltaSeconds = 2_147_483_648

    /// `max-age`: a response's freshness lifetime; a request's most acceptable age.
    var maxAge: Int?
    /// `s-maxage`: a response's freshness lifetime in a shared cache.
    var sharedMaxAge: Int?
    /// `no-cache`: a stored response is validated before each use.
    var noCache = false
    /// `no-store`: nothing of the request or response is stored.
    var noStore = false
    /// `private`: a shared cache does not store the response.
    var isPrivate = false
    /// `public`: a shared cache may store the response even where it would not otherwise.
    var isPublic = false
    /// `must-revalidate`: once stale, the response is not used without validation.
    var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches.
    var proxyRevalidate = false
    /// `max-stale`: a request accepts a response stale by this much (`Int.max` without an argument).
    var maxStale: Int?
    /// `min-fresh`: a request wants a response fresh for at least this much longer.
    var minFresh: Int?
    /// `only-if-cached`: a request wants only a stored response, or none.
    var onlyIfCached = false
    /// `stale-while-revalidate` (RFC 5861): a stale response may be used while it is validated.
    var staleWhileRevalidate: Int?
    /// `stale-if-error` (RFC 5861): a stale response may be used when validating it fails.
    var staleIfError: Int?

    /// The directives of `value` (the fields' values joined with commas); none for `nil`.
    init(_ value: String?) {
        guard let value else { return }
        for (name, argument) in Self.directives(of: Array(value.utf8)) {
            switch name {
            case "max-age": maxAge = Self.restrictive(maxAge, Self.seconds(argument) ?? 0)
            case "s-maxage": sharedMaxAge = Self.restrictive(sharedMaxAge, Self.seconds(argument) ?? 0)
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "private": isPrivate = true
            case "public": isPublic = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "max-stale": maxStale = Self.restrictive(maxStale, argument == nil ? Int.max : Self.seconds(argument) ?? 0)
            case "min-fresh": if let seconds = Self.seconds(argument) { minFresh = max(minFresh ?? 0, seconds) }
            case "only-if-cached": onlyIfCached = true
            case "stale-while-revalidate": if let seconds = Self.seconds(argument) { staleWhileRevalidate = Self.restrictive(staleWhileRevalidate, seconds) }
            case "stale-if-error": if let seconds = Self.seconds(argument) { staleIfError = Self.restrictive(staleIfError, seconds) }
            default: break
            }
        }
    }

    /// The smaller of a value seen before (if any) and `new`.
    private static func restrictive(_ old: Int?, _ new: Int) -> Int {
        old.map { min($0, new) } ?? new
    }

    /// A delta-seconds argument: digits only, capped at 2^31; `nil` for anything else.
    private static func seconds(_ argument: String?) -> Int? {
        guard let argument, !argument.isEmpty, argument.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for digit in argument.utf8 {
            value = min(value * 10 + Int(digit - 0x30), maximumDeltaSeconds)
        }
        return value
    }

    /// Directives that only ever restrict what a cache does.
    private static let restrictiveNames: Set<String> = ["no-store", "no-cache", "private", "must-revalidate", "proxy-revalidate"]

    /// The directives of a field value, names lower-cased: elements separated by commas outside
    /// quoted strings, each a token with an optional `=` and a token or quoted-string argument.
    static func directives(of bytes: [UInt8]) -> [(name: String, argument: String?)] {
        var result: [(name: String, argument: String?)] = []
        var index = 0
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        while index < bytes.count {
            while index < bytes.count, isSpace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
            let nameStart = index
            while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
            let name = HTTPToken.asciiLowercased(String(decoding: bytes[nameStart..<index], as: UTF8.self))
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            var argument: String?
            var valid = !name.isEmpty
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                while index < bytes.count, isSpace(bytes[index]) { index += 1 }
                if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    var text: [UInt8] = []
                    index += 1
                    var closed = false
                    while index < bytes.count {
                        let byte = bytes[index]
                        index += 1
                        if byte == UInt8(ascii: "\"") {
                            closed = true
                            break
                        }
                        if byte == UInt8(ascii: "\\"), index < bytes.count {
                            text.append(bytes[index])
                            index += 1
                        } else {
                            text.append(byte)
                        }
                    }
                    valid = valid && closed
                    argument = String(decoding: text, as: UTF8.self)
                } else {
                    let start = index
                    while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
                    argument = String(decoding: bytes[start..<index], as: UTF8.self)
                }
                while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            }
            // Anything else before the next comma makes the element something other than a
            // directive; but one naming a restrictive directive still restricts (`private
            // max-age=60`, a comma missing, stays private).
            if index < bytes.count, bytes[index] != UInt8(ascii: ",") {
                valid = false
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            }
            if valid {
                result.append((name, argument))
            } else if restrictiveNames.contains(name) {
                result.append((name, nil))
            }
        }
        return result
    }
}
