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
    /// The header lines as they came, after the status line: each field as the server sent it,
    /// for a reader of repeated fields (`FieldLinesResponse`). A slice of the lines parsed, so
    /// that keeping it copies nothing.
    var fieldLines: ArraySlice<String> = []

    /// The head of the block `lines` (its status line first, line ends removed), or `nil` for
    /// an interim block (1xx, such as `100 Continue`, which a final block follows) or a status
    /// line that is not HTTP (`ResponseFraming` refuses such a block first). Lines without a
    /// colon, or whose name is not a token, are ignored; a line that starts with a space or tab
    /// continues the previous field (obsolete line folding).
    static func parse(_ lines: [String]) -> ResponseHead? {
        guard let statusLine = lines.first, let (version, code) = Self.statusLine(statusLine), code >= 200 else { return nil }
        let (fields, setCookies) = Self.fields(of: lines.dropFirst())
        return ResponseHead(statusCode: code, httpVersion: version, fields: fields, setCookies: setCookies, fieldLines: lines.dropFirst())
    }

    /// The fields of header lines `lines` (line ends removed), as `parse` reads a head's: by
    /// name in the spelling of its first occurrence, repeated fields joined with ", ", and every
    /// `Set-Cookie` value on its own. Also reads a trailer section.
    static func fields(of lines: ArraySlice<String>) -> (fields: [String: String], setCookies: [String]) {
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
        for line in lines {
            guard let field = Self.field(of: line) else {
                previous = nil
                continue
            }
            guard let name = field.name else {
                if let previous { values[previous] += " " + field.value }
                continue
            }
            if HTTPToken.equalIgnoringASCIICase(name.utf8, "set-cookie".utf8) { setCookies.append(field.value) }
            if let index = lookup.index(of: name, in: names) {
                values[index] += ", " + field.value
                previous = index
            } else {
                names.append(name)
                values.append(field.value)
                previous = names.count - 1
                lookup.added(names)
            }
        }
        var fields = [String: String](minimumCapacity: names.count)
        for (name, value) in zip(names, values) { fields[name] = value }
        return (fields, setCookies)
    }

    /// The name and the value of a header line, its value without the spaces and tabs around
    /// it (HTTP's optional whitespace); no name for a line that continues the previous field
    /// (it starts with a space or tab); `nil` for a line without a colon or whose name is not
    /// an RFC 9110 token (as Firefox ignores it): `HTTPURLResponse` folds names by Unicode
    /// case, so `Set-Coo\u{212A}ie` (a Kelvin sign) would be read as `Set-Cookie`. Read in the line's
    /// contiguous UTF-8 bytes, each string made once: through `Substring` and
    /// `String.UTF8View` indices, parsing cost 3,300 instructions a line (callgrind).
    static func field(of line: String) -> (name: String?, value: String)? {
        var line = line
        return line.withUTF8 { bytes -> (name: String?, value: String)? in
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
            let string = { (range: Range<Int>) in String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            let valueStart: Int
            var name: String?
            if let first = bytes.first, isSpace(first) {
                valueStart = 0
            } else {
                guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
                      UnsafeBufferPointer(rebasing: bytes[0..<colon]).allSatisfy(HTTPToken.isTokenByte) else { return nil }
                name = string(0..<colon)
                valueStart = colon + 1
            }
            guard let start = bytes[valueStart...].firstIndex(where: { !isSpace($0) }),
                  let last = bytes[start...].lastIndex(where: { !isSpace($0) }) else { return (name, "") }
            return (name, string(start..<(last + 1)))
        }
    }

    /// Finds a field name already seen, in any case: by comparing bytes while there are few
    /// (a dictionary of lowercased names costs more for a typical head), through one once there
    /// are many (a flood of header lines stays linear).
    private struct NameLookup {
        private static let linearLimit = 16
        private var lowercased: [String: Int]?

        func index(of name: String, in names: [String]) -> Int? {
            if let lowercased { return lowercased[name.lowercased()] }
            return names.firstIndex { HTTPToken.equalIgnoringASCIICase($0.utf8, name.utf8) }
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

    /// The version and the code of a status line (`HTTP/1.1 200 OK`, `HTTP/2 204`): spaces
    /// between the parts, a code of any three digits from 100 (RFC 9112; a code of 600 or more
    /// is the server's to give and is surfaced), or `nil` for a malformed line.
    static func statusLine(_ line: String) -> (version: String, code: Int)? {
        let bytes = line.utf8
        guard bytes.starts(with: "HTTP/".utf8), let space = bytes.firstIndex(of: 0x20), bytes.distance(from: bytes.startIndex, to: space) > 5 else {
            return nil
        }
        guard let start = bytes[space...].firstIndex(where: { $0 != 0x20 }) else { return nil }
        let codeBytes = bytes[start...].prefix { $0 != 0x20 }
        guard codeBytes.count == 3, codeBytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let code = codeBytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard code >= 100 else { return nil }
        return (String(line[..<space]), code)
    }

    /// The response the task receives for `url`: an `HTTPURLResponse` whose fields are joined as
    /// URLSession's are, which also holds each field as it came (`FieldLinesResponse`).
    func response(for url: URL) -> HTTPURLResponse? {
        FieldLinesResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields, fieldLines: fieldLines)
    }
}
