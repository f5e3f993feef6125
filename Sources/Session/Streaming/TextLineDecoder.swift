import Foundation

/// Each line as UTF-8 text (invalid bytes replaced), empty lines included; the last line
/// counts without an ending. `ResponseBody.lines(maximumLength:)`.
public struct TextLineDecoder: BodyLineDecoder {
    /// A decoder of UTF-8 lines.
    public init() {}

    /// The line as text.
    public mutating func decode(line: Data) -> String? {
        String(decoding: line, as: UTF8.self)
    }

    /// The last line as text, when the body ended without a line ending.
    public mutating func finish(lastLine: Data?) -> String? {
        lastLine.map { String(decoding: $0, as: UTF8.self) }
    }
}
