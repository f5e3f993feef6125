import AFLocking
import Foundation

/// One route of a `StubTransport`: the requests it matches and what it answers them with, one
/// reply for every request, an ordered sequence (503, 503, 200 for a retry test; the last one
/// repeats), or a closure that sees the request. Counts its calls.
public final class StubRoute: Sendable, CustomStringConvertible {
    private enum Replies {
        case sequence([StubReply])
        case closure(@Sendable (RecordedRequest) -> StubReply)
    }

    private struct State {
        var replies = Replies.sequence([.status(200)])
        var requests: [RecordedRequest] = []
    }

    /// The requests this route answers.
    public let matcher: RequestMatcher
    private let state = Locked(State())

    init(matcher: RequestMatcher) {
        self.matcher = matcher
    }

    /// Answers every matching request with `reply`.
    @discardableResult
    public func reply(_ reply: StubReply) -> StubRoute {
        state.withLock { $0.replies = .sequence([reply]) }
        return self
    }

    /// Answers the matching requests with `replies` in order; the last answers every one after.
    @discardableResult
    public func replies(_ replies: [StubReply]) -> StubRoute {
        state.withLock { $0.replies = .sequence(replies.isEmpty ? [.status(200)] : replies) }
        return self
    }

    /// Answers each matching request with what `makeReply` returns for it. Runs on the
    /// transport's queue: it must not wait for the manager.
    @discardableResult
    public func reply(with makeReply: @escaping @Sendable (RecordedRequest) -> StubReply) -> StubRoute {
        state.withLock { $0.replies = .closure(makeReply) }
        return self
    }

    /// How many requests this route answered.
    public var callCount: Int { state.withLock { $0.requests.count } }

    /// The requests this route answered, in order.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The matcher's description.
    public var description: String { matcher.description }

    /// The reply to `request`, counting the call.
    func answer(_ request: RecordedRequest) -> StubReply {
        let (replies, call): (Replies, Int) = state.withLock { state in
            state.requests.append(request)
            return (state.replies, state.requests.count)
        }
        switch replies {
        case .sequence(let sequence): return sequence[min(call, sequence.count) - 1]
        case .closure(let makeReply): return makeReply(request)
        }
    }
}

/// Why a `StubTransport` failed a task.
public enum StubError: Error, Equatable, CustomStringConvertible {
    /// No route matched `request` (method and URL); `nearest` describes the routes that came
    /// closest, closest first.
    case unmatched(request: String, nearest: [String])

    /// The request and the nearest routes, in a sentence.
    public var description: String {
        switch self {
        case .unmatched(let request, let nearest):
            let closest = nearest.isEmpty ? "no route is set" : "the nearest routes: " + nearest.joined(separator: "; ")
            return "No stub matches \(request) (\(closest))."
        }
    }
}
