import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests answered inside the process instead of on the network: made by the
/// `AFNetworkingTesting` product's `StubTransport`, handed to one manager as its transport
/// (`HTTPTransport.stubbed`). Only the hop is replaced: each request, as the transport would send
/// it (adapted by the interceptors, its body whole), is answered by the stub, and the answer goes
/// through everything a server's does (the head's framing and parsing, redirects and Basic
/// challenges by the manager's rules, the interceptors' retries, limits, the task's body sink,
/// progress and metrics). Beyond AFNetworking.
public final class TransportStub: Sendable, Hashable {
    /// Answers one request: the request, its whole body, and the trailer fields after it.
    package let respond: @Sendable (URLRequest, Data, [String: String]) -> StubAnswer
    /// The clock of the stubbed transport's timeouts, retry waits and delays; `nil` for the
    /// system's.
    package let clock: (any TransportClock)?

    package init(clock: (any TransportClock)? = nil, respond: @escaping @Sendable (URLRequest, Data, [String: String]) -> StubAnswer) {
        self.clock = clock
        self.respond = respond
    }

    /// Whether both are the same stub (identity).
    public static func == (lhs: TransportStub, rhs: TransportStub) -> Bool { lhs === rhs }

    /// Hashes the stub's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

/// When a stub answers a request.
package enum StubAnswer: Sendable {
    /// At once, with this reply.
    case now(StubbedReply)
    /// Later: the closure is called once with a function to hand the reply to (from any thread,
    /// at most once; a reply to a task that has ended is dropped). The task's idle and total
    /// timeouts run while it waits.
    case later(@Sendable (_ reply: @escaping @Sendable (StubbedReply) -> Void) -> Void)
}

/// A stub's reply to one request, as the transport plays it.
package struct StubbedReply: Sendable {
    package enum Outcome: Sendable {
        /// A response: its status line's code, header fields, body in chunks, and the trailer
        /// fields after the body.
        case response(status: Int, fields: [(name: String, value: String)], chunks: [Data], trailers: [(name: String, value: String)] = [])
        /// The attempt fails with this error, as a transport failure (the interceptors may retry).
        case transportFailure(URLError)
        /// The task fails with this error at once (no retry).
        case taskFailure(any Error)
    }

    package var outcome: Outcome
    /// Seconds before the answer; cancelling the task ends the wait.
    package var delay: TimeInterval
    /// Seconds between body chunks.
    package var interval: TimeInterval
    /// The error the hop ends with after its chunks (a connection cut mid-body), if any.
    package var cut: URLError?

    package init(outcome: Outcome, delay: TimeInterval = 0, interval: TimeInterval = 0, cut: URLError? = nil) {
        self.outcome = outcome
        self.delay = delay
        self.interval = interval
        self.cut = cut
    }
}
