/// Why a streamed body could not be decoded.
public enum StreamingError: Error, Equatable, Sendable {
    /// A line was longer than the decoder's limit, in bytes.
    case lineTooLong(limit: Int)
}
