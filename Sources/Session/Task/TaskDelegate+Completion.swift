import AFLocking
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Completing a task, exactly once: its error, metrics and resume data decided, the response
/// serialized (or the download moved) on the processing queue, the handlers called on the
/// delivery queue.
extension TaskDelegate {
    /// What completing a task decided, for the manager's `taskDidComplete` override.
    struct Completed {
        /// The error the task completes with; `nil` for success.
        let error: (any Error)?
    }

    /// The task completed with its transport's `error`. Runs at most once (`nil` after the first);
    /// the metrics override runs now, the handlers later on the delivery queue, or for an
    /// awaiting caller with no progress handler the rest on its own executor (`Awaiter`).
    func complete(error urlSessionError: (any Error)?, manager: URLSessionManager) -> Completed? {
        // A body closed to cancel the task made its transport fail the read first: a cancellation.
        let urlSessionError = urlSessionError != nil && bodyStream?.wasCancelled == true
            ? URLError(.cancelled, userInfo: task.originalRequest?.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]) : urlSessionError
        let ended: (Live, Shown)? = state.withLock { state in
            switch state.run.end() {
            case .ended(let live):
                if let failure = bodyStream?.failure { live.record(.failed(SessionError.bodyStreamFailed(underlying: failure))) }
                return (live, state.shown)
            case .reject(let error):
                Self.rejected(error)
                return nil
            }
        }
        guard let (snapshot, shown) = ended else { return nil }
        // The task is over: a body's producer ends and a read waiting on it returns.
        bodyStream?.release()
        // The delegate's own copies first: URLSession's getters wait for its work queue.
        let response = shown.response ?? (task.response as? HTTPURLResponse)
        var outcome = snapshot.failure.map { $0.error(response: response) } ?? urlSessionError
        let metrics = TaskMetrics(
            taskStart: taskStart, responseStart: snapshot.responseStart, taskEnd: Date(),
            countOfRequestBodyBytesSent: shown.bytesSent,
            countOfResponseBodyBytesReceived: shown.bytesReceived, redirectCount: snapshot.redirectCount,
            transactionMetrics: snapshot.transactions, cacheOutcome: snapshot.cacheUse.outcome)
        if let writer = snapshot.writer {
            writer.close()
            if let failure = outcome {
                outcome = finishFailedDownload(writer, response: response, error: failure, handler: snapshot.resumeDataHandler, manager: manager)
            }
        }
        let error = outcome
        recordInCache(snapshot, response: response, error: error)
        let released = state.withLock { $0.run.complete(with: error) }
        withExtendedLifetime(released) {}
        // Before the completion is scheduled, as URLSession reports metrics before completing: a
        // completion handler may read what the metrics override stored.
        manager.override(\.taskDidFinishCollectingMetrics)?(session, task, metrics)
        if !monitors.isEmpty {
            monitors.notify { [task] in $0.task(task, didCompleteWith: response, error: error, metrics: metrics) }
        }
        observed?.completed(response: response, error: error, metrics: metrics)
        let group = completionGroup
        group.enter()
        let data = snapshot.data
        let writer = snapshot.writer
        if let awaiter = snapshot.awaiter, handlers.uploadProgress == nil, handlers.downloadProgress == nil {
            // No handler to run first: the awaiting Swift task serializes on its own executor.
            awaiter { [self] in
                let result = serialize(response: response, data: data, error: error, writer: writer, manager: manager)
                manager.postCompletion(of: task, response: response, data: data, result: result,
                                       serializer: responseSerializer, metrics: metrics)
                group.leave()
                return (response, result.object, result.error)
            }
            return Completed(error: error)
        }
        let finish: @Sendable (Result) -> Void = { [self] result in
            handlers.completion?(task, response, result.object, result.error)
            manager.postCompletion(of: task, response: response, data: data, result: result,
                                   serializer: responseSerializer, metrics: metrics)
            group.leave()
        }
        if hasCompletionQueue {
            // Keep the serializer off a caller's queue (which may be the main queue).
            manager.processingQueue.async { [self] in
                let result = serialize(response: response, data: data, error: error, writer: writer, manager: manager)
                deliveryQueue.async { finish(result) }
            }
        } else {
            deliveryQueue.async { [self] in
                finish(serialize(response: response, data: data, error: error, writer: writer, manager: manager))
            }
        }
        return Completed(error: error)
    }

    /// Keeps the partial file as resume data when it was asked for and can be validated, or
    /// when the transfer failed after bytes of a successful response arrived (then the error
    /// carries the resume data, as on Apple platforms, and the manager removes the file unless
    /// it is resumed); deletes it otherwise. Returns the error the task completes with.
    private func finishFailedDownload(
        _ writer: DownloadWriter, response: HTTPURLResponse?, error: any Error, handler: (@Sendable (Data?) -> Void)?,
        manager: URLSessionManager
    ) -> any Error {
        let request = Self.withoutRangeHeaders(task.originalRequest ?? task.currentRequest ?? URLRequest(url: URL(fileURLWithPath: "/")))
        let resume = ResumeData(request: request, response: response, partialFile: writer.fileURL, bytesReceived: writer.bytesInFile)
        if let handler {
            if resume == nil { writer.discard() }
            deliveryQueue.async { handler(resume?.encoded) }
            return error
        }
        guard let urlError = error as? URLError, urlError.code != .cancelled, let resume,
              let status = response?.statusCode, (200..<300).contains(status) else {
            writer.discard()
            return error
        }
        manager.keepUntilResumed(writer.fileURL)
        var userInfo = urlError.userInfo
        userInfo[NSURLSessionDownloadTaskResumeData] = resume.encoded
        return URLError(urlError.code, userInfo: userInfo)
    }

    private static func withoutRangeHeaders(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Range")
        request.setValue(nil, forHTTPHeaderField: "If-Range")
        return request
    }

    /// The completion's last step, run by an awaiting caller: serializes and returns the
    /// response, the serialized object and the error.
    typealias Finish = @Sendable () -> (URLResponse?, (any Sendable)?, (any Error)?)
    /// Hands an awaiting caller the completion's last step, instead of a hop to the delivery
    /// queue before the caller's own.
    typealias Awaiter = @Sendable (@escaping Finish) -> Void

    struct Result: Sendable {
        var object: (any Sendable)?
        var error: (any Error)?
        var assetPath: URL?
    }

    /// On the processing queue: the response serializer for data and uploads; validation, then
    /// the move to the destination, for downloads.
    private func serialize(response: HTTPURLResponse?, data: Data, error: (any Error)?, writer: DownloadWriter?, manager: URLSessionManager) -> Result {
        if let error { return Result(error: error) }
        guard let writer else {
            do {
                return Result(object: try responseSerializer.erasedResponseObject(for: response, data: data))
            } catch {
                return Result(error: error)
            }
        }
        do {
            _ = try responseSerializer.responseObject(for: response, data: nil)
        } catch let failure as ResponseSerializationError where failure.data == nil {
            // The API's error body went to the file: its first MiB goes on the error, as a held
            // error body does for a data task's interceptors.
            let body = writer.prefix(RetryContext.maximumHeldBodyLength)
            writer.discard()
            return Result(error: ResponseSerializationError(reason: failure.reason, response: failure.response, data: body,
                                                            underlyingError: failure.underlyingError))
        } catch {
            writer.discard()
            return Result(error: error)
        }
        let destination = response.flatMap { handlers.destination?(writer.fileURL, $0) }
            ?? manager.override(\.downloadTaskDidFinishDownloading)?(session, task, writer.fileURL)
        guard let destination else {
            writer.discard()
            return Result()
        }
        do {
            try DownloadMover.move(writer.fileURL, to: destination, options: handlers.downloadOptions)
            manager.post(.downloadTaskDidMoveFileSuccessfully, task: task, userInfo: [SessionNotificationKey.assetPath: destination])
            return Result(object: destination, assetPath: destination)
        } catch {
            writer.discard()
            manager.post(.downloadTaskDidFailToMoveFile, task: task, userInfo: [SessionNotificationKey.error: error])
            return Result(error: error)
        }
    }
}
