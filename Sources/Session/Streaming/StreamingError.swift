/// Why a streamed body could not be decoded.
public enum StreamingError: Error, Equatable, Sendable {
    /// A line was longer than the decoder's limit, in bytes.
    case lineTooLong(limit: Int)
    /// A server-sent event's data (its `data` lines, without a blank line to end the event) grew
    /// past the limit, in bytes (`ServerSentEventParser.maximumDataSize`).
    case eventDataTooLarge(limit: Int)
}
