import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The task's one record: what changes about it, kept under one lock (`TaskDelegate.state`)
/// by its delegate and, for a task of the manager's own, by the task too.
extension TaskDelegate {
    /// One direction's progress: the counts, and the `Progress` object once someone needs it (a
    /// progress handler, `uploadProgress(for:)`): two objects with their handlers cost 9,000
    /// instructions of a small request that nobody watched.
    struct ProgressCounts {
        var completed: Int64 = 0
        var total: Int64 = 0
        var object: Progress?

        mutating func set(completed: Int64, total: Int64? = nil) {
            self.completed = completed
            if let total { self.total = total }
            if let object {
                if let total { object.totalUnitCount = total }
                object.completedUnitCount = completed
            }
        }
    }

    /// Everything that changes about one task, under one lock: the task's record. The
    /// delegate keeps it, and so does the task when it is the manager's own
    /// (`ManagedDataTask`). What the task shows in every phase, during its run and after
    /// (its response, counts, current request, progress), is here; what only a live task
    /// needs is owned by the phases of its `run` (`Live`), and let go of when it completes.
    struct State {
        /// The counts and the response.
        var shown = Shown()
        /// The request the task sends now: its own, a validation's, a redirect's.
        var currentRequest: URLRequest?
        /// The `Progress` the task handed out as `progress`, kept after it completed.
        var progress: Progress?
        /// The directions whose progress handler has a call pending (`deliver(handler:direction:)`).
        var pendingDeliveries: Set<Direction> = []
        /// The lifecycle, whose phases own what the live task needs.
        var run: TaskRun<any CarriedTransfer, Live>

        /// The record of a task made to send `request`, owning `live`.
        init(request: URLRequest?, live: Live) {
            currentRequest = request
            shown.download.completed = live.writer?.resumeOffset ?? 0
            run = TaskRun(live)
        }

        /// Runs `body` with what the live task owns and what it shows, changed in place; `nil`
        /// once the task completed.
        mutating func live<Result>(_ body: (inout Live, inout Shown) -> Result) -> Result? {
            // Swapped out and back (moves), so that both are changed in place.
            var shown = Shown()
            swap(&shown, &self.shown)
            defer { swap(&shown, &self.shown) }
            return run.live { body(&$0, &shown) }
        }
    }

    /// What the task shows of its transfer in every phase: its counts and its response.
    struct Shown {
        var upload = ProgressCounts()
        var download = ProgressCounts()
        var response: HTTPURLResponse?
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0

        /// The bytes of the request body expected in all: the transfer's count once it knows
        /// it, else `knownUploadLength`, else -1.
        func expectedToSend(knownUploadLength: Int64?) -> Int64 {
            upload.total > 0 ? upload.total : knownUploadLength ?? -1
        }
    }

    /// What a live task owns, from when it is made until it completes (its run's phases keep
    /// it): the body, its cache state, its failure, the caller's closures, its download's
    /// writer, its settings. Its completion takes it whole. A class, made once a task and
    /// changed in place through the phase that holds it: moved from phase to phase as a value,
    /// its two dozen fields cost thousands of instructions a request.
    final class Live {
        var data = Data()
        var responseStart: Date?
        var transactions: [TransactionMetrics] = []
        /// The redirects followed by the task (its metrics), and by its current attempt (the limit).
        var redirectCount = 0
        var attemptRedirectCount = 0
        var endedAtRedirect = false
        var carriesJarCookies = false
        var requestCarriesJarCookies = false
        /// The first failure the manager saw itself, which decides the task's error.
        var failure: Failure?
        var writer: DownloadWriter?
        var resumeDataHandler: (@Sendable (Data?) -> Void)?
        /// The async caller awaiting the task, set before it runs (`URLSessionManager.run`).
        var awaiter: Awaiter?
        var settings: TaskSettings
        /// What the task does with its manager's `ResponseCache`.
        var cacheUse = CacheUse.none
        /// The transfer's body is not the task's: the cache answered in its place.
        var discardsBody = false
        /// A request sent carried credentials the task's own request did not.
        var sentCredentials = false
        /// The last request sent for the task, as it went out (`willSendForCache`): the cache
        /// reads its key and `Vary`'s fields from it. Kept only with a cache.
        var sentRequest: URLRequest?
        /// The streamed body is not kept for the cache: its response may not be stored, or the
        /// body grew past the cache's memory capacity.
        var cacheBodyRefused = false
        /// How the cache answers a task of URLSession's own protocol without the network,
        /// decided when the task was made (`URLSessionManager.makeTask`).
        var cacheAnswer: CacheStep?
        /// The request the cache was asked about, when the task's own carries the validators
        /// the cache added (URLSession's own protocol).
        var cacheRequest: URLRequest?
        /// The transfer's receive window, told of each chunk handled, when the task's body
        /// waits on the delegate queue for an override (`TaskEventDelivery.delegateQueue`); a
        /// streamed body's channel keeps its own.
        var receiveWindow: ReceiveWindow?

        init(writer: DownloadWriter?, settings: TaskSettings) {
            self.writer = writer
            self.settings = settings
        }

        /// Records `failure` unless one was recorded before.
        func record(_ failure: Failure) {
            if self.failure == nil { self.failure = failure }
        }
    }
}
