import Foundation

/// JSON Lines (NDJSON): each non-blank line one JSON value decoded as `Value`; the last line
/// counts without an ending. A line that does not decode throws the decoder's `DecodingError`,
/// and the sequence ends there. `ResponseBody.jsonLines(of:decoder:maximumLineLength:)`.
public struct JSONLinesDecoder<Value: Decodable & Sendable>: BodyLineDecoder {
    private let decoder: JSONDecoder

    /// Decodes with `decoder` (default `JSONDecoder()`).
    public init(decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
    }

    /// The line's value; `nil` for a blank line.
    public mutating func decode(line: Data) throws -> Value? {
        guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return nil }
        return try decoder.decode(Value.self, from: line)
    }

    /// The last line's value, when the body ended without a line ending.
    public mutating func finish(lastLine: Data?) throws -> Value? {
        try lastLine.flatMap { try decode(line: $0) }
    }
}
