import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A streamed response's body as it arrives: an `AsyncSequence` of chunks (`Data`, in the sizes
/// the transport reads), consumed once. The transport reads ahead of the consumer by at most
/// its receive window (1 MiB) and then waits, so a slow consumer holds memory flat whatever the
/// body's size. The task is cancelled when the consumer's Swift task is cancelled, or when the
/// body (and every iterator of it) is released before its end. Failures arrive as thrown
/// errors: the transport's `URLError`, a limit's `SessionError`. Beyond AFNetworking, which has
/// no streamed body; the peer is AsyncHTTPClient's `HTTPClientResponse.Body`.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, as the transport read it.
    public typealias Element = Data

    /// Cancels the task when the last holder of the body lets go before its end.
    final class Consumer: Sendable {
        let channel: ResponseBodyChannel

        init(channel: ResponseBodyChannel) {
            self.channel = channel
        }

        deinit {
            if !channel.isDrained { channel.cancel() }
        }
    }

    let consumer: Consumer

    init(channel: ResponseBodyChannel) {
        consumer = Consumer(channel: channel)
    }

    /// Takes the body's chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: Consumer

        /// The next chunk, or `nil` at the body's end.
        public mutating func next() async throws -> Data? {
            let channel = consumer.channel
            return try await withTaskCancellationHandler {
                try await channel.nextChunk()
            } onCancel: {
                channel.cancel()
            }
        }
    }

    /// An iterator over the body; the body is consumed once, whichever iterator takes it.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer)
    }

    /// The trailer fields the server sent after the body (a checksum, a final status), by name
    /// in the server's spelling, a repeated name's values joined with ", "; empty when it sent
    /// none. `nil` until the body has been read to its end (or when it failed), and on
    /// URLSession's own protocol, which drops them. Kept apart from the head: a trailer never
    /// changes the response's fields. Bounded (64 KiB, or the task fails with
    /// `URLError.badServerResponse`). Beyond AFNetworking.
    public var trailers: [String: String]? { consumer.channel.trailers }

    /// The whole body, collected; throws `SessionError.responseLimitExceeded` past `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        var body = Data()
        for try await chunk in self {
            guard body.count + chunk.count <= limit else {
                consumer.channel.cancel()
                throw SessionError.responseLimitExceeded(limit: .bodySize(Int64(limit)), declaredLength: nil, response: nil)
            }
            body.append(chunk)
        }
        return body
    }
}
