import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server-sent events from a URL as they arrive, across reconnections
/// (`URLSessionManager.events(for:maximumLineLength:)`): the request is sent with
/// `Accept: text/event-stream`, the response must be 2xx `text/event-stream` (anything else
/// throws its `ResponseSerializationError` and is not retried, as the standard says; a 204 ends
/// the stream), and the body is parsed as the WHATWG standard says. When a connection ends or
/// fails, the manager's interceptor decides whether to reconnect (no interceptor, or
/// `.doNotRetry`: the sequence ends, or throws the failure; `.fail(error)`: it throws `error`):
/// the new request carries `Last-Event-ID`, and waits the
/// server's `retry` time when it set one, otherwise the interceptor's delay. A connection that
/// delivered an event counts as a success: attempts count again from 1. Beyond AFNetworking.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent

    let manager: URLSessionManager
    let request: URLRequest
    let maximumLineLength: Int

    /// An iterator that connects when first asked for an event.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(manager: manager, request: request, maximumLineLength: maximumLineLength)
    }

    /// Takes the events in order, reconnecting as the interceptor allows.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let manager: URLSessionManager
        let request: URLRequest
        let maximumLineLength: Int
        private var connection: DecodedBody<ServerSentEventParser>.AsyncIterator?
        private var parser = ServerSentEventParser()
        private var attempt = 1
        private var ended = false
        private let start = Date()

        init(manager: URLSessionManager, request: URLRequest, maximumLineLength: Int) {
            self.manager = manager
            self.request = request
            self.maximumLineLength = maximumLineLength
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
        /// failed, or `nil` when the interceptor does not reconnect; throws the error of an
        /// interceptor that fails the stream (`.fail`).
        private func reconnectionDelay(after failure: (any Error)?) async throws -> TimeInterval? {
            if failure is CancellationError || (failure as? URLError)?.code == .cancelled || Task.isCancelled { return nil }
            if failure is StreamingError { return nil }
            guard let interceptor = manager.interceptor else { return nil }
            // What was delivered is kept: the stream continues from `Last-Event-ID`.
            let context = RetryContext(
                request: request, error: failure ?? URLError(.networkConnectionLost), attempt: attempt,
                receivedResponseBytes: true, canContinue: true, elapsed: Date().timeIntervalSince(start))
            let server = parser.reconnectionTime.map { TimeInterval($0) / 1000 }
            switch await interceptor.retry(context) {
            case .retry: return server ?? 0
            case .retryAfter(let delay): return server ?? delay
            case .doNotRetry: return nil
            case .fail(let error): throw error
            }
        }
    }
}

extension URLSessionManager {
    /// The server-sent events of `request`'s URL, reconnecting as the manager's interceptor
    /// allows (`ServerSentEventStream`); each line at most `maximumLineLength` bytes (default
    /// 1 MiB). Beyond AFNetworking.
    public func events(for request: URLRequest, maximumLineLength: Int = 1 << 20) -> ServerSentEventStream {
        ServerSentEventStream(manager: self, request: request, maximumLineLength: maximumLineLength)
    }
}
