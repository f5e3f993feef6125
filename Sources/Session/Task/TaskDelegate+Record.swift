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
    /// (`ManagedDataTask`), which shows its response and counts from here while it runs and
    /// after; what only a running task needs is let go when it completes (`release()`).
    struct State {
        var data = Data()
        var upload = ProgressCounts()
        var download = ProgressCounts()
        var response: HTTPURLResponse?
        var responseStart: Date?
        var transactions: [TransactionMetrics] = []
        /// The redirects followed by the task (its metrics), and by its current attempt (the limit).
        var redirectCount = 0
        var attemptRedirectCount = 0
        var endedAtRedirect = false
        var carriesJarCookies = false
        var requestCarriesJarCookies = false
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        /// The first failure the manager saw itself, which decides the task's error.
        var failure: Failure?
        var writer: DownloadWriter?
        var resumeDataHandler: (@Sendable (Data?) -> Void)?
        /// The async caller awaiting the task, set before it runs (`URLSessionManager.run`).
        var awaiter: Awaiter?
        var pendingDeliveries: Set<Direction> = []
        var completed = false
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

        /// What a `ManagedDataTask` shows and what runs it; unused for a task of URLSession's own
        /// protocol, which keeps its own.
        var run = TaskRun<TaskDelegate, any CarriedTransfer>(request: nil, starter: nil)

        init(writer: DownloadWriter?, settings: TaskSettings) {
            self.writer = writer
            self.settings = settings
            download.completed = writer?.resumeOffset ?? 0
        }

        /// Records `failure` unless one was recorded before.
        mutating func record(_ failure: Failure) {
            if self.failure == nil { self.failure = failure }
        }

        /// The bytes of the request body expected in all: the transfer's count once it knows
        /// it, else `knownUploadLength`, else -1.
        func expectedToSend(knownUploadLength: Int64?) -> Int64 {
            upload.total > 0 ? upload.total : knownUploadLength ?? -1
        }

        /// Lets go of what only a running task needs, once its completion took what it uses:
        /// the body, the caller's closures, the stored responses the cache handed it, the
        /// failure, the metrics, the download's writer, the task's interceptor and client
        /// identity. The task, which may be kept long after, shows the rest (its response,
        /// counts, requests and `run`).
        mutating func release() {
            data = Data()
            awaiter = nil
            resumeDataHandler = nil
            cacheAnswer = nil
            cacheUse = .none
            cacheRequest = nil
            sentRequest = nil
            failure = nil
            transactions = []
            writer = nil
            settings.interceptor = nil
            settings.clientIdentity = nil
        }
    }
}
