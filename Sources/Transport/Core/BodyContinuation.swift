import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response body continued across attempts: when an attempt whose body was cut after reaching
/// the task is retried, the next attempt asks for the rest (`RangeContinuation`), its answer
/// must continue the body or the task fails with the cut, and the bytes received before count
/// toward the task's size limit. A value its `CurlTransfer` owns; pure, tested without a server.
struct BodyContinuation {
    /// What the next attempt asks for, and the error that ends the task when the server does
    /// not continue the body.
    private var pending: (range: RangeContinuation, error: URLError)?
    /// The error of a continuation the server refused, until the hop that refused it ends.
    private var refusal: URLError?
    /// The body bytes the task received before the current hop's continuation.
    private(set) var receivedBefore: Int64 = 0

    /// Whether the next attempt continues the body.
    var isPending: Bool { pending != nil }

    /// An attempt ended and goes to the interceptors: `range` continues the response it
    /// delivered, if that can be continued, `failure` is how it ended and `delivered` the body
    /// bytes its hop delivered. A failed attempt with a range is continued by the next; any
    /// other starts the next over.
    mutating func attemptEnded(range: RangeContinuation?, failure: URLError?, delivered: Int64) {
        pending = range.flatMap { range in failure.map { (range, $0) } }
        receivedBefore = pending == nil ? 0 : receivedBefore + delivered
    }

    /// The next attempt's request: `adapted`, asking for the rest when it continues the body.
    func request(_ adapted: URLRequest) -> URLRequest {
        pending.map { $0.range.request(adapted) } ?? adapted
    }

    /// A final response head arrived: `nil` when no continuation was asked for; else whether it
    /// continues the body (`false`: refused, and the hop's end fails the task, `takeRefusal`).
    mutating func headArrived(_ response: HTTPURLResponse) -> Bool? {
        guard let pending else { return nil }
        self.pending = nil
        if pending.range.isContinued(by: response) { return true }
        refusal = pending.error
        return false
    }

    /// The error a refused continuation fails the task with, once, when its hop ends.
    mutating func takeRefusal() -> URLError? {
        defer { refusal = nil }
        return refusal
    }

    /// What a size limit of `limit` bytes leaves for the current hop's body.
    func bytesLeft(of limit: Int64) -> Int64 {
        limit - receivedBefore
    }
}
