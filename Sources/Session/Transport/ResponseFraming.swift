import Foundation

/// What makes a response's head unsafe to frame a body by, per RFC 9112: the libcurl transport
/// refuses such a head (`URLError.badServerResponse` with this as the underlying error) rather
/// than guess, as lenient parsers do, where a body ends. A guess is how a response is smuggled
/// or a connection desynchronised. Beyond AFNetworking.
public enum ResponseFramingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status line is not `HTTP/x.y` and a three-digit code.
    case malformedStatusLine(String)
    /// A `Content-Length` that is not a decimal number within 64 bits (a sign, hexadecimal,
    /// an overflow).
    case invalidContentLength(String)
    /// Several `Content-Length` values that differ (`5, 10`).
    case conflictingContentLengths(String)
    /// `chunked` named more than once in `Transfer-Encoding`.
    case repeatedChunked
    /// `Transfer-Encoding` in an HTTP/1.0 response, which has no such framing.
    case transferEncodingInHTTP10
    /// A CR, LF or NUL inside the header field `name` (a bare CR splits lines for some parsers).
    case controlCharacterInField(name: String)
    /// More than one `Location` field: which one a redirect goes to would be a guess.
    case multipleLocations
    /// A `Location` longer than `ResponseFraming.longestLocation` bytes.
    case locationTooLong(bytes: Int)
    /// A header line longer than libcurl takes (100 KiB).
    case headerLineTooLong

    /// The fault in words.
    public var description: String {
        switch self {
        case .malformedStatusLine(let line): "a malformed status line (\(line.prefix(64)))"
        case .invalidContentLength(let value): "an invalid Content-Length (\(value.prefix(64)))"
        case .conflictingContentLengths(let values): "conflicting Content-Length values (\(values.prefix(64)))"
        case .repeatedChunked: "chunked named more than once in Transfer-Encoding"
        case .transferEncodingInHTTP10: "Transfer-Encoding in an HTTP/1.0 response"
        case .controlCharacterInField(let name): "a CR, LF or NUL inside the header field \(name.prefix(64))"
        case .multipleLocations: "more than one Location field"
        case .locationTooLong(let bytes): "a Location of \(bytes) bytes (the limit is \(ResponseFraming.longestLocation))"
        case .headerLineTooLong: "a header line longer than 100 KiB"
        }
    }
}

/// Checks a response's head, as the lines libcurl hands over (status line first, line ends
/// removed), for the faults of `ResponseFramingError`. Interim (1xx) heads are checked only for
/// their status line. Pure: tested without a server.
enum ResponseFraming {
    /// The longest `Location` followed, in bytes.
    static let longestLocation = 32 * 1024

    static func fault(in lines: [String]) -> ResponseFramingError? {
        guard let statusLine = lines.first else { return nil }
        guard let (version, code) = ResponseHead.statusLine(statusLine) else { return .malformedStatusLine(statusLine) }
        if code < 200 { return nil }
        var lengths: [String] = []
        var chunked = 0
        var hasTransferEncoding = false
        var locations = 0
        for line in lines.dropFirst() {
            // Bytes compared in place: this runs for every response (a lowercased copy of each
            // name would cost thousands of instructions a request).
            let bytes = line.utf8
            if bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                return .controlCharacterInField(name: String(line.prefix { $0 != ":" }))
            }
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = bytes[..<colon]
            let value = { line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
            if ResponseHead.equalIgnoringASCIICase(name, "content-length".utf8) {
                lengths += value().split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            } else if ResponseHead.equalIgnoringASCIICase(name, "transfer-encoding".utf8) {
                hasTransferEncoding = true
                chunked += value().split(separator: ",").filter { $0.trimmingCharacters(in: .whitespaces).lowercased() == "chunked" }.count
            } else if ResponseHead.equalIgnoringASCIICase(name, "location".utf8) {
                locations += 1
                let length = value().utf8.count
                if length > longestLocation { return .locationTooLong(bytes: length) }
            }
        }
        for length in lengths where !isDecimal(length) || Int64(length) == nil { return .invalidContentLength(length) }
        if Set(lengths.map { Int64($0) }).count > 1 { return .conflictingContentLengths(lengths.joined(separator: ", ")) }
        if chunked > 1 { return .repeatedChunked }
        if hasTransferEncoding, version == "HTTP/1.0" { return .transferEncodingInHTTP10 }
        if locations > 1 { return .multipleLocations }
        return nil
    }

    private static func isDecimal<S: StringProtocol>(_ text: S) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
