import Foundation

/// The parts of a `multipart/form-data` body, for assertions on uploads: each part's name,
/// file name and content. Pure.
public enum MultipartParts {
    /// One part.
    public struct Part: Sendable, Equatable {
        /// The `name` of its `Content-Disposition`.
        public var name: String?
        /// The `filename` of its `Content-Disposition`, for a file part.
        public var filename: String?
        /// Its `Content-Type`, when it has one.
        public var contentType: String?
        /// Its bytes.
        public var content: Data
    }

    /// The parts of `body` under the boundary its `contentType` names; empty when it is not
    /// a multipart body. Read as bytes: a `"` or `;` followed by a combining mark is one
    /// `Character`, which a search of the text would pass over where a server's parser stops.
    public static func parse(_ body: Data, contentType: String?) -> [Part] {
        guard let contentType, let boundary = boundary(in: Array(contentType.utf8)), !boundary.isEmpty else { return [] }
        let bytes = [UInt8](body)
        let delimiter = [UInt8]("--".utf8) + boundary
        var parts: [Part] = []
        var starts: [Int] = []
        var index = 0
        while index + delimiter.count <= bytes.count {
            if bytes[index] == delimiter[0], Array(bytes[index..<(index + delimiter.count)]) == delimiter {
                starts.append(index)
                index += delimiter.count
            } else {
                index += 1
            }
        }
        for (start, end) in zip(starts, starts.dropFirst()) {
            // The part lies between the delimiter's line end and the CRLF before the next one.
            let partStart = start + delimiter.count + 2
            let partEnd = end - 2
            guard partStart <= partEnd, let headEnd = find([13, 10, 13, 10], in: bytes, from: partStart, to: partEnd) else { continue }
            var part = Part(content: Data(bytes[(headEnd + 4)..<partEnd]))
            var lineStart = partStart
            while lineStart < headEnd {
                let lineEnd = find([13, 10], in: bytes, from: lineStart, to: headEnd) ?? headEnd
                let line = bytes[lineStart..<lineEnd]
                if let value = value(of: "content-disposition:", in: line) {
                    part.name = parameter("name", in: value)
                    part.filename = parameter("filename", in: value)
                } else if let value = value(of: "content-type:", in: line) {
                    part.contentType = String(decoding: value, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                }
                lineStart = lineEnd + 2
            }
            parts.append(part)
        }
        return parts
    }

    /// The `boundary` parameter of a content type: after `boundary=`, up to a `;`, without the
    /// quotes and spaces around it.
    private static func boundary(in contentType: [UInt8]) -> [UInt8]? {
        let key = Array("boundary=".utf8)
        guard let start = find(key, in: contentType, from: 0, to: contentType.count, ignoringASCIICase: true) else { return nil }
        let value = contentType[(start + key.count)...].prefix { $0 != UInt8(ascii: ";") }
        let isTrimmed = { (byte: UInt8) in byte == UInt8(ascii: "\"") || byte == 0x20 }
        return Array(value.drop(while: isTrimmed).reversed().drop(while: isTrimmed).reversed())
    }

    /// The rest of `line` when it starts with the field name `name` (lowercase, with its colon)
    /// in any case.
    private static func value(of name: String, in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let name = Array(name.utf8)
        guard line.count >= name.count, find(name, in: Array(line.prefix(name.count)), from: 0, to: name.count, ignoringASCIICase: true) == 0 else {
            return nil
        }
        return line.dropFirst(name.count)
    }

    /// The quoted parameter `name` (`; name="value"`) of a `Content-Disposition` value, up to the
    /// next `"`.
    private static func parameter(_ name: String, in value: ArraySlice<UInt8>) -> String? {
        let key = Array("; \(name)=\"".utf8)
        let bytes = Array(value)
        guard let start = find(key, in: bytes, from: 0, to: bytes.count) else { return nil }
        return String(decoding: bytes[(start + key.count)...].prefix { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, to end: Int, ignoringASCIICase: Bool = false) -> Int? {
        let fold = { (byte: UInt8) in ignoringASCIICase && (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        var index = start
        while index + needle.count <= end {
            if needle.indices.allSatisfy({ fold(bytes[index + $0]) == needle[$0] }) { return index }
            index += 1
        }
        return nil
    }
}
