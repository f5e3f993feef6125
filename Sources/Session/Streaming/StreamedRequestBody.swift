import AFLocking
import AFSerialization
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
/// Cancelling the task cancels the producing task; a task that ends before its sequence did
/// cancels the sequence's iteration even if no chunk was asked of it (an `AsyncStream`'s
/// `onTermination` runs): a sequence's `next()` should return once its task is cancelled, as
/// Swift's cooperative cancellation asks.
///
/// A body with `trailers` ends with trailer fields (a checksum of what was sent, say), asked of
/// the closure once the sequence has ended. Such a body is sent chunked over HTTP/1.1 whatever
/// the manager's `httpVersion` (libcurl sends request trailers in HTTP/1.1's chunked framing
/// only), its `length`, if given, checked but not declared. A field whose name is not a token,
/// whose value holds CR, LF or NUL, or that frames or routes the message (`Content-Length`,
/// `Transfer-Encoding`, `Trailer`, `TE`, `Host`) fails the task with
/// `SessionError.bodyStreamFailed` (`RequestSerializationError.invalidHeader`), as does a
/// closure that throws. Beyond AFNetworking (AsyncHTTPClient's `HTTPClientRequest.Body.stream`).
public struct StreamedRequestBody: Sendable {
    /// The body's length in bytes, when known.
    public let length: Int64?
    /// Whether the body can start over.
    public let canRestart: Bool
    /// Whether the body ends with trailer fields.
    public var hasTrailers: Bool { trailers != nil }
    /// Starts producing into `pipe` a new pass over the body, or `nil` when none is left.
    let start: @Sendable (BodyPipe) -> Task<Void, Never>?
    let trailers: Trailers?

    /// Gives a body's trailer fields once its sequence has ended.
    public typealias Trailers = @Sendable () async throws -> [String: String]

    /// A body that starts over with a new sequence from `makeSequence` each time it is sent,
    /// ending with the fields `trailers` gives (none by default).
    public init<Chunks: AsyncSequence & Sendable>(
        length: Int64? = nil, trailers: Trailers? = nil, restartingWith makeSequence: @escaping @Sendable () -> Chunks
    ) where Chunks.Element == Data {
        self.length = length
        self.trailers = trailers
        canRestart = true
        start = { pipe in Self.produce(makeSequence(), trailers: trailers, into: pipe) }
    }

    /// A body sent from `sequence` once, ending with the fields `trailers` gives (none by
    /// default).
    public init<Chunks: AsyncSequence & Sendable>(length: Int64? = nil, trailers: Trailers? = nil, once sequence: Chunks)
    where Chunks.Element == Data {
        self.length = length
        self.trailers = trailers
        canRestart = false
        let sent = Locked(false)
        start = { pipe in
            let again = sent.withLock { sent in
                defer { sent = true }
                return sent
            }
            return again ? nil : Self.produce(sequence, trailers: trailers, into: pipe)
        }
    }

    /// The names a trailer must not carry: they frame or route the message.
    static let fieldsNotAllowedInTrailers: Set<String> = ["content-length", "transfer-encoding", "trailer", "te", "host"]

    /// Pulls `sequence` into `pipe`, one chunk per demand, until it ends (then the trailers),
    /// fails, or the pipe closes (then the sequence's iteration is cancelled).
    private static func produce<Chunks: AsyncSequence & Sendable>(_ sequence: Chunks, trailers: Trailers?, into pipe: BodyPipe)
    -> Task<Void, Never> where Chunks.Element == Data {
        Task {
            var chunks = sequence.makeAsyncIterator()
            while await pipe.demand() {
                do {
                    guard let chunk = try await chunks.next() else {
                        let fields = try await trailers?() ?? [:]
                        try HTTPHeaderValidation.validate(headers: fields)
                        if let (name, value) = fields.first(where: { fieldsNotAllowedInTrailers.contains($0.key.lowercased()) }) {
                            throw RequestSerializationError.invalidHeader(name: name, value: value)
                        }
                        return pipe.end(trailers: fields)
                    }
                    pipe.deliver(chunk)
                } catch {
                    return pipe.fail(error)
                }
            }
            // The reader went away (the task ended) before the sequence did: the sequence hears
            // that its iteration is over, as a cancelled consumer tells it, even when it was
            // never asked for a chunk (an `AsyncStream`'s `onTermination` runs).
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try? await chunks.next()
        }
    }
}
