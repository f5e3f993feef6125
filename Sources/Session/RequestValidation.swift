import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request must be before a byte of it is sent, on either transport: a method that is an
/// RFC 9110 token, header names that are tokens, no CR, LF or NUL in any header value (libcurl
/// and URLSession would put them on the wire as extra lines: a smuggled header or request),
/// the same for the configuration's additional headers, and timeouts that are numbers of
/// seconds (NaN and negative values are refused; infinity means no limit). Pure: tested
/// without a server.
enum RequestValidation {
    /// The first problem of `request` sent with the given timeouts, or `nil`.
    static func problem(of request: URLRequest, timeouts: KeyValuePairs<String, TimeInterval?>) -> String? {
        let method = request.httpMethod ?? "GET"
        guard isToken(method) else { return "the method \(quoted(method)) is not an RFC 9110 token" }
        if let problem = request.allHTTPHeaderFields.flatMap(problem(of:)) { return problem }
        for (name, seconds) in timeouts {
            if let seconds, seconds.isNaN || seconds < 0 { return "\(name) is \(seconds): a timeout is a number of seconds, at least 0" }
        }
        return nil
    }

    /// The first problem of a configuration's `httpAdditionalHeaders`, or `nil`.
    static func problem(ofAdditionalHeaders headers: [AnyHashable: Any]) -> String? {
        var fields: [String: String] = [:]
        for (name, value) in headers {
            guard let name = name as? String else { return "httpAdditionalHeaders: a name is not a string" }
            fields[name] = "\(value)"
        }
        return problem(of: fields).map { "httpAdditionalHeaders: \($0)" }
    }

    private static func problem(of fields: [String: String]) -> String? {
        for (name, value) in fields {
            guard isToken(name) else { return "the header name \(quoted(name)) is not an RFC 9110 token" }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                return "the value of \(name) holds CR, LF or NUL"
            }
        }
        return nil
    }

    /// Whether `text` is a non-empty RFC 9110 token: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// `text` in quotes with control characters escaped, for an error message.
    private static func quoted(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined() + "\""
    }
}
