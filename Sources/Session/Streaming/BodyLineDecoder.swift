import Foundation

/// Turns a streamed body's lines into values, one line at a time (`DecodedBody`).
public protocol BodyLineDecoder: Sendable {
    /// What one decoded line (or the body's end) gives: a `String`, a `Decodable`, an event.
    associatedtype Value: Sendable
    /// The value `line` (without its ending) completes, if any.
    mutating func decode(line: Data) throws -> Value?
    /// The value the body's end completes, given its last line when it had no ending.
    mutating func finish(lastLine: Data?) throws -> Value?
}
