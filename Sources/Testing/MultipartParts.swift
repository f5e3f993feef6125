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
    /// a multipart body.
    public static func parse(_ body: Data, contentType: String?) -> [Part] {
        guard let contentType, let range = contentType.range(of: "boundary=") else { return [] }
        let boundary = contentType[range.upperBound...].split(separator: ";").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) } ?? ""
        guard !boundary.isEmpty else { return [] }
        let bytes = [UInt8](body)
        let delimiter = [UInt8](("--" + boundary).utf8)
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
            let head = String(decoding: bytes[partStart..<headEnd], as: UTF8.self)
            var part = Part(content: Data(bytes[(headEnd + 4)..<partEnd]))
            for line in head.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = parameter("name", in: line)
                    part.filename = parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
        return parts
    }

    private static func parameter(_ name: String, in line: String) -> String? {
        guard let range = line.range(of: "; \(name)=\"") else { return nil }
        return line[range.upperBound...].split(separator: "\"", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int, to end: Int) -> Int? {
        var index = start
        while index + needle.count <= end {
            if Array(bytes[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
