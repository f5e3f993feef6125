/// What a manager's `ResponseCache` did for a task (`TaskMetrics.cacheOutcome`), as
/// `URLSessionTaskTransactionMetrics.resourceFetchType` tells a network load from a cache hit.
public enum CacheOutcome: Sendable, Equatable {
    /// The task did not use a cache: the manager has none, or the request is not a plain GET
    /// of data (a method other than GET, its own validators or range, a stream, a download).
    case notUsed
    /// The network answered: nothing usable was stored, or the stored response was replaced.
    case miss
    /// A fresh stored response answered, without the network.
    case hit
    /// The stored response answered after the server confirmed it (`304 Not Modified`).
    case revalidated
    /// A stale stored response stood in for a failure or a server error (`stale-if-error`).
    case stale
    /// A stale stored response answered while the cache validates it in the background
    /// (`stale-while-revalidate`).
    case staleWhileRevalidating
    /// The request may only be answered from the cache, which had nothing that could answer
    /// it: the task failed with `URLError.resourceUnavailable`.
    case unavailable
}
