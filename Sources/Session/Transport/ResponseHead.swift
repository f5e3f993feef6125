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
            if let first = line.first, first == " " || first == "\t" {
                if let previous { fields[previous]! += " " + line.trimmingCharacters(in: .whitespaces) }
                continue
            }
            guard let colon = line.firstIndex(of: ":") else {
                previous = nil
                continue
            }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
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

    /// The protocol as ALPN names it: `HTTP/2` is `h2`, `HTTP/1.1` is `http/1.1`.
    var networkProtocolName: String {
        switch httpVersion {
        case "HTTP/2", "HTTP/2.0": return "h2"
        case "HTTP/3": return "h3"
        default: return httpVersion.lowercased()
        }
    }

    /// The response URLSession's client receives for `url`.
    func response(for url: URL) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
    }
}
