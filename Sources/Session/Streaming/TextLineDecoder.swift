import Foundation

/// Each line as UTF-8 text (invalid bytes replaced), empty lines included; the last line
/// counts without an ending. `ResponseBody.lines(maximumLength:)`.
public struct TextLineDecoder: BodyLineDecoder {
    public init() {}

    public mutating func decode(line: Data) -> String? {
        String(decoding: line, as: UTF8.self)
    }

    public mutating func finish(lastLine: Data?) -> String? {
        lastLine.map { String(decoding: $0, as: UTF8.self) }
    }
}
