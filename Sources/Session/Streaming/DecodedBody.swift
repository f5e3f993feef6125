import Foundation

/// A streamed body decoded line by line into values, as they arrive: lines no longer than
/// `maximumLineLength` bytes (a longer one throws `StreamingError.lineTooLong` without being
/// held), each handed to a `BodyLineDecoder`. Consumed once; it ends with the body, and
/// stopping early cancels the task as the body does.
public struct DecodedBody<Decoder: BodyLineDecoder>: AsyncSequence, Sendable {
    /// A decoded value.
    public typealias Element = Decoder.Value

    let body: ResponseBody
    let decoder: Decoder
    let maximumLineLength: Int

    /// An iterator over the values.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: body.makeAsyncIterator(), decoder: decoder, splitter: LineSplitter(maximumLength: maximumLineLength))
    }

    /// Takes the values in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: ResponseBody.AsyncIterator
        var decoder: Decoder
        var splitter: LineSplitter
        /// The lines of the last chunk, and the index of the next to decode.
        var pending: [Data] = []
        var nextLine = 0
        var ended = false

        /// The next value, or `nil` at the body's end.
        public mutating func next() async throws -> Decoder.Value? {
            while true {
                while nextLine < pending.count {
                    nextLine += 1
                    if let value = try decoder.decode(line: pending[nextLine - 1]) { return value }
                }
                if ended { return nil }
                guard let chunk = try await chunks.next() else {
                    ended = true
                    return try decoder.finish(lastLine: splitter.finish())
                }
                pending = try splitter.lines(in: chunk)
                nextLine = 0
            }
        }
    }
}

extension ResponseBody {
    /// The body's lines as UTF-8 text, each at most `maximumLength` bytes (default 1 MiB).
    public func lines(maximumLength: Int = 1 << 20) -> DecodedBody<TextLineDecoder> {
        DecodedBody(body: self, decoder: TextLineDecoder(), maximumLineLength: maximumLength)
    }

    /// The body as JSON Lines (NDJSON): each non-blank line decoded as `Value` with `decoder`,
    /// each at most `maximumLineLength` bytes (default 1 MiB).
    public func jsonLines<Value: Decodable & Sendable>(
        of type: Value.Type, decoder: JSONDecoder = JSONDecoder(), maximumLineLength: Int = 1 << 20
    ) -> DecodedBody<JSONLinesDecoder<Value>> {
        DecodedBody(body: self, decoder: JSONLinesDecoder(decoder: decoder), maximumLineLength: maximumLineLength)
    }

    /// The body as a server-sent event stream (`text/event-stream`), each line at most
    /// `maximumLineLength` bytes (default 1 MiB), each event's data at most `maximumDataSize`
    /// bytes (default 16 MiB; more throws `StreamingError.eventDataTooLarge`). One connection:
    /// for reconnection, use `URLSessionManager.events(for:)`.
    public func serverSentEvents(
        maximumLineLength: Int = 1 << 20, maximumDataSize: Int = ServerSentEventParser.defaultMaximumDataSize
    ) -> DecodedBody<ServerSentEventParser> {
        DecodedBody(body: self, decoder: ServerSentEventParser(maximumDataSize: maximumDataSize), maximumLineLength: maximumLineLength)
    }
}
