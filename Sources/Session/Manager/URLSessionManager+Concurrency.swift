import AFLocking
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response and the value its serializer made of it.
public struct HTTPResponse<Value: Sendable>: Sendable {
    /// The HTTP response.
    public let response: HTTPURLResponse
    /// The serialized value.
    public let value: Value

    /// The response's status code.
    public var statusCode: Int { response.statusCode }
}

/// A snapshot of a transfer's progress.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes done.
    public let completedBytes: Int64
    /// Bytes expected, or -1 when unknown.
    public let totalBytes: Int64

    /// `completedBytes / totalBytes` between 0 and 1, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        totalBytes > 0 ? min(max(Double(completedBytes) / Double(totalBytes), 0), 1) : nil
    }

    /// A snapshot of `completedBytes` out of `totalBytes` (-1 when unknown).
    public init(completedBytes: Int64, totalBytes: Int64) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    init(_ progress: Progress) {
        self.init(completedBytes: progress.completedUnitCount, totalBytes: progress.totalUnitCount)
    }
}

/// An upload or download in flight: its progress as an `AsyncStream` and its result.
/// Cancelling the Swift task that awaits `value`, or calling `cancel()`, cancels the transfer.
public final class Transfer<Value: Sendable>: Sendable {
    /// Progress snapshots, newest first-come; it finishes when the transfer does. A slow
    /// consumer sees only the most recent snapshot, never a growing backlog.
    public let progress: AsyncStream<TransferProgress>
    private let result: Task<HTTPResponse<Value>, any Error>
    private let cancellation: TaskCancellation

    init(
        progress: AsyncStream<TransferProgress>, cancellation: TaskCancellation,
        result: Task<HTTPResponse<Value>, any Error>
    ) {
        self.progress = progress
        self.cancellation = cancellation
        self.result = result
    }

    /// The response and value, once the transfer completed.
    public var response: HTTPResponse<Value> {
        get async throws {
            try await withTaskCancellationHandler {
                try await result.value
            } onCancel: {
                cancellation.cancel()
            }
        }
    }

    /// The value, once the transfer completed.
    public var value: Value {
        get async throws { try await response.value }
    }

    /// Cancels the transfer; `value` then throws `URLError.cancelled`.
    public func cancel() {
        cancellation.cancel()
    }
}

/// Links a Swift task's cancellation to a URLSession task that may not exist yet.
final class TaskCancellation: Sendable {
    private let state = Locked<(task: URLSessionTask?, cancelled: Bool)>((nil, false))

    /// Records the task; cancels it at once if cancellation came first.
    func set(_ task: URLSessionTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        guard let task = state.withLock({ state -> URLSessionTask? in
            state.cancelled = true
            return state.task
        }) else { return }
        // URLSession's own protocol cancels only once a read of the body has returned: a
        // streamed body waiting on its sequence is closed first.
        (task.originalRequest?.httpBodyStream as? UploadBodyStream)?.release(cancelling: true)
        task.cancel()
    }
}

extension URLSessionManager {
    /// Sends `request` and returns the response with the value `serializer` made of it.
    /// Throws the transport, session or serialization error; cancelling the calling task
    /// cancels the request.
    public func response<S: URLResponseSerialization>(
        for request: URLRequest, serializer: S, credential: URLCredential? = nil,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil
    ) async throws -> HTTPResponse<S.SerializedObject> {
        try await run { completion in
            try makeDataTask(with: request, credential: credential, uploadProgress: uploadProgress,
                             downloadProgress: downloadProgress, serializer: serializer, completion: completion)
        }
    }

    /// Sends `request`; returns the response and body when the status is 2xx, and throws
    /// `ResponseSerializationError` (carrying both) otherwise.
    public func data(for request: URLRequest, credential: URLCredential? = nil) async throws -> HTTPResponse<Data> {
        let response = try await response(for: request, serializer: HTTPResponseSerializer(), credential: credential)
        return HTTPResponse(response: response.response, value: response.value ?? Data())
    }

    /// Downloads `request` to `destination` and returns its URL.
    public func download(
        for request: URLRequest, to destination: URL, options: DownloadOptions = [], credential: URLCredential? = nil,
        progress: ProgressHandler? = nil
    ) async throws -> HTTPResponse<URL> {
        try await run { completion in
            try makeDownloadTask(request: request, writer: DownloadWriter(), credential: credential, progress: progress,
                                 destination: { _, _ in destination }, options: options, completion: completion)
        }
    }

    /// Starts downloading `request` to `destination`, with progress as an `AsyncStream`.
    public func startDownload(
        for request: URLRequest, to destination: URL, options: DownloadOptions = [], credential: URLCredential? = nil
    ) -> Transfer<URL> {
        transfer { progress, completion in
            try self.makeDownloadTask(request: request, writer: DownloadWriter(), credential: credential, progress: progress,
                                      destination: { _, _ in destination }, options: options, completion: completion)
        }
    }

    /// Starts uploading the file at `fileURL` (or, when `nil`, the request's body stream or
    /// body), with progress as an `AsyncStream` and the response serialized by `serializer`.
    public func startUpload<S: URLResponseSerialization>(
        for request: URLRequest, fromFile fileURL: URL? = nil, serializer: S, credential: URLCredential? = nil
    ) -> Transfer<S.SerializedObject> {
        transfer { progress, completion in
            guard let fileURL else {
                return try self.makeDataTask(with: request, credential: credential, uploadProgress: progress,
                                             serializer: serializer, completion: completion)
            }
            return try self.makeTask(kind: .upload, request: request, uploadFile: fileURL, credential: credential, serializer: serializer,
                                     handlers: .init(uploadProgress: progress, completion: completion))
        }
    }

    /// Creates a task with a completion that resumes the caller, resumes it, and links
    /// cancellation of the calling Swift task to it. Without progress handlers the task hands
    /// its completion's last step (serializing) to this caller, which runs it on its own
    /// executor: the result crosses one queue, from the transport's to the caller's.
    func run<Value: Sendable>(_ make: (@escaping TaskCompletion) throws -> URLSessionTask) async throws -> HTTPResponse<Value> {
        let cancellation = TaskCancellation()
        let completion: Completion = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                do {
                    let task = try make { _, response, object, error in
                        continuation.resume(returning: .delivered(response, object, error))
                    }
                    table.delegate(for: task)?.deliver { continuation.resume(returning: .toFinish($0)) }
                    cancellation.set(task)
                    resume(task)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        switch completion {
        case .delivered(let response, let object, let error):
            return try Self.result(response: response, object: object, error: error).get()
        case .toFinish(let finish):
            let (response, object, error) = finish()
            return try Self.result(response: response, object: object, error: error).get()
        }
    }

    /// How a task's completion reaches the Swift task awaiting it.
    private enum Completion: Sendable {
        /// Serialized and handed over by the task's delivery queue.
        case delivered(URLResponse?, (any Sendable)?, (any Error)?)
        /// Its last step, for the awaiting task to run.
        case toFinish(TaskDelegate.Finish)
    }

    private func transfer<Value: Sendable>(
        _ make: @escaping @Sendable (ProgressHandler?, @escaping TaskCompletion) throws -> URLSessionTask
    ) -> Transfer<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        let cancellation = TaskCancellation()
        let result = Task<HTTPResponse<Value>, any Error> {
            defer { continuation.finish() }
            return try await run { completion in
                let task = try make({ continuation.yield(TransferProgress($0)) }, completion)
                cancellation.set(task)
                return task
            }
        }
        return Transfer(progress: stream, cancellation: cancellation, result: result)
    }

    private static func result<Value: Sendable>(
        response: URLResponse?, object: (any Sendable)?, error: (any Error)?
    ) -> Result<HTTPResponse<Value>, any Error> {
        if let error { return .failure(error) }
        guard let response = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        // A serializer whose value is optional delivers `nil` as a missing object; casting
        // `nil` to an optional `Value` succeeds, to any other `Value` it fails.
        let boxed: Any? = object
        guard let value = boxed as? Value else {
            return .failure(URLError(.cannotParseResponse))
        }
        return .success(HTTPResponse(response: response, value: value))
    }
}
