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
    /// A header line with no colon (not a folded continuation): refused as libcurl 7.88 and
    /// later refuse it, also where the libcurl loaded (7.74) lets it through.
    case fieldWithoutColon(String)
    /// A trailer section (the fields after a body) over `ResponseFraming.largestTrailerSection`
    /// bytes.
    case trailerSectionTooLarge

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
        case .fieldWithoutColon(let line): "a header line without a colon (\(line.prefix(64)))"
        case .trailerSectionTooLarge: "a trailer section over \(ResponseFraming.largestTrailerSection) bytes"
        }
    }
}

/// Checks a response's head, as the lines libcurl hands over (status line first, line ends
/// removed), for the faults of `ResponseFramingError`. Interim (1xx) heads are checked only for
/// their status line. Pure: tested without a server.
enum ResponseFraming {
    /// The longest `Location` followed, in bytes.
    static let longestLocation = 32 * 1024
    /// The most bytes of trailer fields a response may send: they are kept in memory until the
    /// body ends, and no server needs more for a checksum or a status.
    static let largestTrailerSection = 64 * 1024

    /// The fault of trailer line `line` (line end removed) in a section of `sectionBytes` bytes
    /// so far, the line included: a control character inside it, or a section too large.
    static func fault(inTrailer line: String, sectionBytes: Int) -> ResponseFramingError? {
        if sectionBytes > largestTrailerSection { return .trailerSectionTooLarge }
        var framing = Framing()
        var line = line
        return line.withUTF8 { framing.read(field: $0) }
    }

    static func fault(in lines: [String]) -> ResponseFramingError? {
        guard let statusLine = lines.first else { return nil }
        guard let (version, code) = ResponseHead.statusLine(statusLine) else { return .malformedStatusLine(statusLine) }
        if code < 200 { return nil }
        var framing = Framing()
        for line in lines.dropFirst() {
            // Bytes read in place, no string made unless there is a fault: this runs for every
            // response (with Foundation's trimming and splitting it cost 41,000 instructions of a
            // small request, callgrind).
            var line = line
            if let fault = line.withUTF8({ framing.read(field: $0) }) { return fault }
        }
        return framing.fault(version: version)
    }

    /// What the fields of one head say about its framing, read line by line.
    private struct Framing {
        var length: Int64?
        var chunked = 0
        var hasTransferEncoding = false
        var locations = 0

        mutating func read(field bytes: UnsafeBufferPointer<UInt8>) -> ResponseFramingError? {
            var colon: Int?
            for index in bytes.indices {
                let byte = bytes[index]
                if byte == 0x0D || byte == 0x0A || byte == 0 {
                    let end = colon ?? bytes[index...].firstIndex(of: UInt8(ascii: ":")) ?? bytes.count
                    return .controlCharacterInField(name: String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self))
                }
                if colon == nil, byte == UInt8(ascii: ":") { colon = index }
            }
            guard let colon else {
                // A line starting with a space or a tab continues the one before (obs-fold).
                guard let first = bytes.first, first != 0x20, first != 0x09 else { return nil }
                return .fieldWithoutColon(String(decoding: bytes, as: UTF8.self))
            }
            // Only three names matter; most fields are passed over by their length alone.
            guard [8, 14, 17].contains(colon) else { return nil }
            let name = UnsafeBufferPointer(rebasing: bytes[..<colon])
            let value = ResponseFraming.trimmed(bytes, from: colon + 1)
            if HTTPToken.equalIgnoringASCIICase(name, "content-length".utf8) {
                switch ContentLength.length(of: UnsafeBufferPointer(rebasing: bytes[value]), after: length) {
                case .success(let declared):
                    length = declared
                    return nil
                case .failure(let fault):
                    return fault
                }
            } else if HTTPToken.equalIgnoringASCIICase(name, "transfer-encoding".utf8) {
                hasTransferEncoding = true
                ResponseFraming.forEachElement(of: bytes, in: value) { element in
                    if HTTPToken.equalIgnoringASCIICase(UnsafeBufferPointer(rebasing: bytes[element]), "chunked".utf8) { chunked += 1 }
                }
            } else if HTTPToken.equalIgnoringASCIICase(name, "location".utf8) {
                locations += 1
                if value.count > ResponseFraming.longestLocation { return .locationTooLong(bytes: value.count) }
            }
            return nil
        }

        func fault(version: String) -> ResponseFramingError? {
            if chunked > 1 { return .repeatedChunked }
            if hasTransferEncoding, version == "HTTP/1.0" { return .transferEncodingInHTTP10 }
            if locations > 1 { return .multipleLocations }
            return nil
        }
    }

    /// `range` of `bytes` from `start` without the spaces and tabs around it.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int? = nil) -> Range<Int> {
        var lower = start
        var upper = end ?? bytes.count
        while lower < upper, bytes[lower] == 0x20 || bytes[lower] == 0x09 { lower += 1 }
        while upper > lower, bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }

    /// Calls `body` with each comma-separated element of `range`, trimmed (an empty one included).
    private static func forEachElement(of bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>, _ body: (Range<Int>) -> Void) {
        var start = range.lowerBound
        for index in range where bytes[index] == UInt8(ascii: ",") {
            body(trimmed(bytes, from: start, to: index))
            start = index + 1
        }
        body(trimmed(bytes, from: start, to: range.upperBound))
    }
}
