import AFLocking
import Foundation

/// A request body produced by an `AsyncSequence` of `Data` chunks as the transport sends it,
/// of a known length (sent with `Content-Length`) or not (sent chunked on HTTP/1.1, as DATA
/// frames on HTTP/2). The sequence is pulled one chunk at a time as the transport needs bytes,
/// from a task of its own: a slow producer holds back only its own upload, never the transport's
/// queue, and nothing is produced ahead of the connection beyond the transport's small read-ahead
/// buffer. A body made with `restartingWith` can start over (a new sequence from the closure),
/// so it is sent again on a fresh connection, a retry or a 307/308 redirect; a body made with
/// `once` is sent at most once (a 307/308 then fails with `SessionError.redirectWouldDropBody`,
/// and retry policies do not retry it). A sequence that throws fails the task with
/// `SessionError.bodyStreamFailed`; so does one producing more or fewer bytes than `length`.
/// Cancelling the task cancels the producing task. Beyond AFNetworking (AsyncHTTPClient's
/// `HTTPClientRequest.Body.stream`).
public struct StreamedRequestBody: Sendable {
    /// The body's length in bytes, when known.
    public let length: Int64?
    /// Whether the body can start over.
    public let canRestart: Bool
    /// Starts producing into `pipe` a new pass over the body, or `nil` when none is left.
    let start: @Sendable (BodyPipe) -> Task<Void, Never>?

    /// A body that starts over with a new sequence from `makeSequence` each time it is sent.
    public init<Chunks: AsyncSequence & Sendable>(length: Int64? = nil, restartingWith makeSequence: @escaping @Sendable () -> Chunks)
    where Chunks.Element == Data {
        self.length = length
        canRestart = true
        start = { pipe in Self.produce(makeSequence(), into: pipe) }
    }

    /// A body sent from `sequence` once.
    public init<Chunks: AsyncSequence & Sendable>(length: Int64? = nil, once sequence: Chunks) where Chunks.Element == Data {
        self.length = length
        canRestart = false
        let sent = Locked(false)
        start = { pipe in
            let again = sent.withLock { sent in
                defer { sent = true }
                return sent
            }
            return again ? nil : Self.produce(sequence, into: pipe)
        }
    }

    /// Pulls `sequence` into `pipe`, one chunk per demand, until it ends, fails or is cancelled.
    private static func produce<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, into pipe: BodyPipe) -> Task<Void, Never>
    where Chunks.Element == Data {
        Task {
            var chunks = sequence.makeAsyncIterator()
            while await pipe.demand() {
                do {
                    guard let chunk = try await chunks.next() else { return pipe.end() }
                    if !chunk.isEmpty { pipe.deliver(chunk) } else { pipe.deliverNothing() }
                } catch {
                    return pipe.fail(error)
                }
            }
        }
    }
}
