import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response's status line and header fields, as libcurl hands them over line by line,
/// turned into what URLSession reports. Pure: tested without a server.
struct ResponseHead: Equatable {
    /// The status code, e.g. 200.
    var statusCode: Int
    /// `HTTP/1.1`, `HTTP/1.0` or `HTTP/2`, as the status line names it.
    var httpVersion: String
    /// The fields by name, in the spelling of their first occurrence; the values of a repeated
    /// field joined with ", " (RFC 9110, 5.3).
    var fields: [String: String]
    /// Every `Set-Cookie` value on its own: joined, the commas in their dates would split them
    /// wrongly.
    var setCookies: [String]

    /// The head of the block `lines` (its status line first, line ends removed), or `nil` for
    /// an interim block (1xx, such as `100 Continue`, which a final block follows) or a status
    /// line that is not HTTP. Lines without a colon are ignored; a line that starts with a
    /// space or tab continues the previous field (obsolete line folding).
    static func parse(_ lines: [String]) -> ResponseHead? {
        guard let statusLine = lines.first else { return nil }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3, let code = Int(parts[1]),
              (200..<600).contains(code) else { return nil }
        var fields: [String: String] = [:]
        var spellings: [String: String] = [:]
        var setCookies: [String] = []
        var previous: String?
        for line in lines.dropFirst() {
            // Searched as UTF-8 bytes: by `Character`, finding the colon alone cost thousands of
            // instructions a line.
            if let first = line.utf8.first, first == 0x20 || first == 0x09 {
                if let previous { fields[previous]! += " " + Self.trimmingSpaces(line[...]) }
                continue
            }
            guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else {
                previous = nil
                continue
            }
            let name = String(line[..<colon])
            let value = Self.trimmingSpaces(line[line.utf8.index(after: colon)...])
            let key = name.lowercased()
            if key == "set-cookie" { setCookies.append(value) }
            if let spelling = spellings[key] {
                fields[spelling]! += ", " + value
                previous = spelling
            } else {
                spellings[key] = name
                fields[name] = value
                previous = name
            }
        }
        return ResponseHead(statusCode: code, httpVersion: String(parts[0]), fields: fields, setCookies: setCookies)
    }

    /// `text` without the spaces and tabs around it (HTTP's optional whitespace), trimmed in
    /// Swift: Foundation's `trimmingCharacters(in:)` goes through NSString, which cost a
    /// quarter of a small request's instructions.
    static func trimmingSpaces(_ text: Substring) -> String {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }

    /// The response URLSession's client receives for `url`.
    func response(for url: URL) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
    }
}
