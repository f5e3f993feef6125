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
        guard let statusLine = lines.first, let (version, code) = Self.statusLine(statusLine) else { return nil }
        // Names and values in arrays, a repeated name found by comparing bytes: with a lowercased
        // copy of every name and a dictionary of spellings, parsing cost 56,000 instructions of a
        // small response (callgrind, BENCHMARKS.md).
        var names: [String] = []
        var values: [String] = []
        names.reserveCapacity(lines.count)
        values.reserveCapacity(lines.count)
        var setCookies: [String] = []
        var previous: Int?
        var lookup = NameLookup()
        for line in lines.dropFirst() {
            if let first = line.utf8.first, first == 0x20 || first == 0x09 {
                if let previous { values[previous] += " " + Self.trimmingSpaces(line[...]) }
                continue
            }
            guard let colon = Self.colon(in: line) else {
                previous = nil
                continue
            }
            let name = line[..<colon]
            let value = Self.trimmingSpaces(line[line.utf8.index(after: colon)...])
            if Self.equalIgnoringASCIICase(name, "set-cookie") { setCookies.append(value) }
            if let index = lookup.index(of: name, in: names) {
                values[index] += ", " + value
                previous = index
            } else {
                names.append(String(name))
                values.append(value)
                previous = names.count - 1
                lookup.added(names)
            }
        }
        var fields = [String: String](minimumCapacity: names.count)
        for (name, value) in zip(names, values) { fields[name] = value }
        return ResponseHead(statusCode: code, httpVersion: version, fields: fields, setCookies: setCookies)
    }

    /// The index of the first colon of `line`, searched in its contiguous UTF-8 bytes (the
    /// generic search over `String.UTF8View` cost 300 instructions a line).
    private static func colon(in line: String) -> String.Index? {
        let offset = line.utf8.withContiguousStorageIfAvailable { $0.firstIndex(of: UInt8(ascii: ":")) }
            ?? line.utf8.firstIndex(of: UInt8(ascii: ":")).map { line.utf8.distance(from: line.utf8.startIndex, to: $0) }
        return offset.map { line.utf8.index(line.utf8.startIndex, offsetBy: $0) }
    }

    /// Finds a field name already seen, in any case: by comparing bytes while there are few
    /// (a dictionary of lowercased names costs more for a typical head), through one once there
    /// are many (a flood of header lines stays linear).
    private struct NameLookup {
        private static let linearLimit = 16
        private var lowercased: [String: Int]?

        func index(of name: Substring, in names: [String]) -> Int? {
            if let lowercased { return lowercased[name.lowercased()] }
            return names.firstIndex { ResponseHead.equalIgnoringASCIICase($0.utf8, name.utf8) }
        }

        /// `names` got a new last name.
        mutating func added(_ names: [String]) {
            if lowercased != nil {
                lowercased?[names[names.count - 1].lowercased()] = names.count - 1
            } else if names.count > Self.linearLimit {
                lowercased = Dictionary(names.enumerated().map { ($1.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
            }
        }
    }

    /// The version and the code of a final response's status line (`HTTP/1.1 200 OK`,
    /// `HTTP/2 204`): spaces between the parts, a code of three digits from 200 to 599.
    private static func statusLine(_ line: String) -> (version: String, code: Int)? {
        let bytes = line.utf8
        guard bytes.starts(with: "HTTP/".utf8), let space = bytes.firstIndex(of: 0x20) else { return nil }
        guard let start = bytes[space...].firstIndex(where: { $0 != 0x20 }) else { return nil }
        let codeBytes = bytes[start...].prefix { $0 != 0x20 }
        guard codeBytes.count == 3, codeBytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let code = codeBytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (200..<600).contains(code) else { return nil }
        return (String(line[..<space]), code)
    }

    /// Whether `name` is `other` in any ASCII case (header names are ASCII tokens).
    private static func equalIgnoringASCIICase(_ name: Substring, _ other: StaticString) -> Bool {
        other.withUTF8Buffer { equalIgnoringASCIICase(name.utf8, $0) }
    }

    fileprivate static func equalIgnoringASCIICase<A: Collection<UInt8>, B: Collection<UInt8>>(_ name: A, _ other: B) -> Bool {
        guard name.count == other.count else { return false }
        return zip(name, other).allSatisfy { a, b in a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20)) }
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
