import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-sent events from a URL as they arrive, across reconnections
/// (`URLSessionManager.events(for:maximumLineLength:maximumDataSize:)`): the request is sent with
/// `Accept: text/event-stream`, the response must be 2xx `text/event-stream` (anything else
/// throws its `ResponseSerializationError` and is not retried, as the standard says; a 204 ends
/// the stream), and the body is parsed as the WHATWG standard says. When a connection ends or
/// fails, the manager's interceptor decides whether to reconnect (no interceptor, or
/// `.doNotRetry`: the sequence ends, or throws the failure; `.fail(error)`: it throws `error`):
/// the new request carries `Last-Event-ID`, and waits the
/// server's `retry` time when it set one, otherwise the interceptor's delay, at most
/// `maximumReconnectionDelay` (one hour) either way. A connection that delivered an event counts
/// as a success: attempts count again from 1. An event's data past the stream's limit throws
/// `StreamingError.eventDataTooLarge`, not retried. Beyond AFNetworking.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent

    /// The longest wait before a reconnection, whatever the server's `retry` field or the
    /// interceptor asks for: one hour (3600 s). A longer wait is shortened to it, so that no
    /// number a server sends makes the stream wait for ever, or overflow.
    public static let maximumReconnectionDelay: TimeInterval = 3600

    let manager: URLSessionManager
    let request: URLRequest
    let maximumLineLength: Int
    let maximumDataSize: Int

    /// An iterator that connects when first asked for an event.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(manager: manager, request: request, maximumLineLength: maximumLineLength, maximumDataSize: maximumDataSize)
    }

    /// The wait before a reconnection: the server's `retry` time in milliseconds when it set
    /// one, else the interceptor's delay, within 0...`maximumReconnectionDelay` (a delay that is
    /// not a number reads as 0).
    static func reconnectionDelay(retryMilliseconds: Int?, interceptorDelay: TimeInterval) -> TimeInterval {
        let delay = retryMilliseconds.map { TimeInterval($0) / 1000 } ?? interceptorDelay
        guard delay > 0 else { return 0 }
        return Swift.min(delay, maximumReconnectionDelay)
    }

    /// Takes the events in order, reconnecting as the interceptor allows.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let manager: URLSessionManager
        let request: URLRequest
        let maximumLineLength: Int
        private var connection: DecodedBody<ServerSentEventParser>.AsyncIterator?
        private var parser: ServerSentEventParser
        private var attempt = 1
        private var ended = false
        private let start = Date()

        init(manager: URLSessionManager, request: URLRequest, maximumLineLength: Int, maximumDataSize: Int) {
            self.manager = manager
            self.request = request
            self.maximumLineLength = maximumLineLength
            parser = ServerSentEventParser(maximumDataSize: maximumDataSize)
        }

        /// The next event, reconnecting as the interceptor allows; `nil` when the stream ended.
        public mutating func next() async throws -> ServerSentEvent? {
            while !ended {
                var failure: (any Error)?
                do {
                    if connection == nil { connection = try await connect() }
                    if let event = try await connection?.next() {
                        attempt = 1
                        return event
                    }
                } catch let error as ResponseSerializationError {
                    ended = true
                    throw error
                } catch {
                    failure = error
                }
                if let state = connection?.decoder { parser = state.continued }
                connection = nil
                let delay: TimeInterval?
                do {
                    delay = ended ? nil : try await reconnectionDelay(after: failure)
                } catch {
                    ended = true
                    throw error
                }
                guard let delay else {
                    ended = true
                    if let failure { throw failure }
                    return nil
                }
                // `delay` is within 0...maximumReconnectionDelay: the product fits a UInt64.
                try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                attempt += 1
            }
            return nil
        }

        /// A connection's parsed body; `nil` connection and `ended` for a 204.
        private mutating func connect() async throws -> DecodedBody<ServerSentEventParser>.AsyncIterator? {
            var request = request
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            if !parser.lastEventID.isEmpty { request.setValue(parser.lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            let streamed = try await manager.stream(
                for: request, validation: HTTPResponseSerializer(acceptableStatusCodes: IndexSet(200..<300), acceptableContentTypes: ["text/event-stream"]))
            if streamed.statusCode == 204 {
                ended = true
                return nil
            }
            return DecodedBody(body: streamed.body, decoder: parser, maximumLineLength: maximumLineLength).makeAsyncIterator()
        }

        /// How long to wait before reconnecting after a connection ended (`failure` `nil`) or
        /// failed (bounded: `reconnectionDelay(retryMilliseconds:interceptorDelay:)`), or `nil`
        /// when the interceptor does not reconnect; throws the error of an interceptor that fails
        /// the stream (`.fail`).
        private func reconnectionDelay(after failure: (any Error)?) async throws -> TimeInterval? {
            if failure is CancellationError || (failure as? URLError)?.code == .cancelled || Task.isCancelled { return nil }
            if failure is StreamingError { return nil }
            guard let interceptor = manager.interceptor else { return nil }
            // What was delivered is kept: the stream continues from `Last-Event-ID`.
            let context = RetryContext(
                request: request, error: failure ?? URLError(.networkConnectionLost), attempt: attempt,
                receivedResponseBytes: true, canContinue: true, elapsed: Date().timeIntervalSince(start))
            let server = parser.reconnectionTime
            switch await interceptor.retry(context) {
            case .retry: return ServerSentEventStream.reconnectionDelay(retryMilliseconds: server, interceptorDelay: 0)
            case .retryAfter(let delay): return ServerSentEventStream.reconnectionDelay(retryMilliseconds: server, interceptorDelay: delay)
            case .doNotRetry: return nil
            case .fail(let error): throw error
            }
        }
    }
}

extension URLSessionManager {
    /// The server-sent events of `request`'s URL, reconnecting as the manager's interceptor
    /// allows (`ServerSentEventStream`); each line at most `maximumLineLength` bytes (default
    /// 1 MiB), each event's data at most `maximumDataSize` bytes (default `nil`: 16 MiB, or the
    /// manager's `responseLimits.maximumBodySize` when that is smaller, since an event's data is
    /// held in memory until its blank line). Beyond AFNetworking.
    public func events(for request: URLRequest, maximumLineLength: Int = 1 << 20, maximumDataSize: Int? = nil) -> ServerSentEventStream {
        let bodyLimit = responseLimits.maximumBodySize.map { Int(clamping: $0) } ?? .max
        let dataLimit = maximumDataSize ?? min(ServerSentEventParser.defaultMaximumDataSize, bodyLimit)
        return ServerSentEventStream(manager: self, request: request, maximumLineLength: maximumLineLength, maximumDataSize: dataLimit)
    }
}
