import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The public task API: the tasks in flight and their progress, data, upload and download
/// tasks, resume data, and resuming, suspending and cancelling a task.
extension URLSessionManager {
    /// The tasks created by this manager that have not completed.
    public var tasks: [URLSessionTask] { table.all.map(\.task) }
    /// The data tasks among `tasks`.
    public var dataTasks: [URLSessionTask] { table.all.filter { $0.kind == .data }.map(\.task) }
    /// The upload tasks among `tasks`.
    public var uploadTasks: [URLSessionTask] { table.all.filter { $0.kind == .upload }.map(\.task) }
    /// The download tasks among `tasks`.
    public var downloadTasks: [URLSessionTask] { table.all.filter { $0.kind == .download }.map(\.task) }

    /// The upload progress of a task of this manager that has not completed.
    public func uploadProgress(for task: URLSessionTask) -> Progress? { table.delegate(for: task)?.uploadProgress }

    /// The download progress of a task of this manager that has not completed.
    public func downloadProgress(for task: URLSessionTask) -> Progress? { table.delegate(for: task)?.downloadProgress }

    /// A data task for `request`, not yet resumed. A request with an `httpBodyStream` is sent
    /// as `uploadTask(withStreamedRequest:...)` sends it. Throws `SessionError.sessionInvalidated`
    /// after invalidation. AFNetworking: `dataTaskWithRequest:uploadProgress:downloadProgress:completionHandler:`.
    public func dataTask(
        with request: URLRequest, credential: URLCredential? = nil,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
        completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeDataTask(with: request, credential: credential, uploadProgress: uploadProgress,
                         downloadProgress: downloadProgress, completion: Self.taskCompletion(completionHandler))
    }

    /// Uploads the file at `fileURL` as the body of `request`, with its length as
    /// `Content-Length`. AFNetworking: `uploadTaskWithRequest:fromFile:progress:completionHandler:`.
    public func uploadTask(
        with request: URLRequest, fromFile fileURL: URL, credential: URLCredential? = nil,
        progress: ProgressHandler? = nil, completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeTask(kind: .upload, request: request, uploadFile: fileURL, credential: credential,
                     handlers: .init(uploadProgress: progress, completion: Self.taskCompletion(completionHandler)))
    }

    /// Uploads `bodyData` as the body of `request`. Sent as the request's body rather than
    /// through URLSession's upload-from-data, which copies the whole body on Linux.
    /// AFNetworking: `uploadTaskWithRequest:fromData:progress:completionHandler:`.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data, credential: URLCredential? = nil,
        progress: ProgressHandler? = nil, completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = bodyData
        return try makeTask(kind: .upload, request: request, credential: credential,
                            handlers: .init(uploadProgress: progress, completion: Self.taskCompletion(completionHandler)))
    }

    /// Uploads the request's `httpBodyStream`. The stream is sent chunked; a `Content-Length`
    /// on the request is removed, because beside a chunked body it makes strict servers refuse
    /// the request. A stream that fails completes the task with `SessionError.bodyStreamFailed`.
    /// AFNetworking: `uploadTaskWithStreamedRequest:progress:completionHandler:`.
    public func uploadTask(
        withStreamedRequest request: URLRequest, credential: URLCredential? = nil,
        progress: ProgressHandler? = nil, completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeDataTask(with: request, credential: credential, uploadProgress: progress,
                         completion: Self.taskCompletion(completionHandler))
    }

    /// Downloads the body of `request` to the URL `destination` returns. The body is written
    /// to a file of the manager's own and moved atomically when the task succeeds; it is
    /// deleted on failure or cancellation, unless resume data was asked for, or the transfer
    /// failed after receiving bytes of a resource that can be resumed (an `ETag` or
    /// `Last-Modified`): then the error, a `URLError`, carries resume data
    /// (`downloadTaskResumeData`, `userInfo[NSURLSessionDownloadTaskResumeData]`), as on Apple
    /// platforms, and the partial file stays until it is resumed or the session invalidated or
    /// the manager freed. The completion's
    /// object is the destination URL. AFNetworking: `downloadTaskWithRequest:progress:destination:completionHandler:`.
    public func downloadTask(
        with request: URLRequest, credential: URLCredential? = nil, progress: ProgressHandler? = nil,
        destination: DownloadDestination? = nil, options: DownloadOptions = [], completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeDownloadTask(request: request, writer: DownloadWriter(), credential: credential, progress: progress,
                             destination: destination, options: options, completion: Self.taskCompletion(completionHandler))
    }

    /// Continues a download from resume data produced by `cancel(_:producingResumeData:)`: asks
    /// for the rest with `Range` and `If-Range`; when the server sends the whole resource
    /// instead (it ignores ranges, or the resource changed), downloads it from the start.
    /// Resume data holds no credential: pass the new `request` for the same URL to send its
    /// headers (an `Authorization` among them); without it the original request's other headers
    /// are sent. Nothing in the data is trusted: its partial file must be a regular file of this
    /// user in the private download directory, with the recorded size. Throws
    /// `SessionError.invalidResumeData` (also when `request` is for another URL), never touching
    /// a file it names otherwise. AFNetworking: `downloadTaskWithResumeData:progress:destination:completionHandler:`.
    public func downloadTask(
        withResumeData resumeData: Data, request: URLRequest? = nil, credential: URLCredential? = nil, progress: ProgressHandler? = nil,
        destination: DownloadDestination? = nil, options: DownloadOptions = [], completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        let resume = try ResumeData(decoding: resumeData)
        let continuation = try resume.continuationRequest(replacing: request)
        let staging = DownloadStaging()
        let handle = try staging.openPartialFile(atPath: resume.partialFilePath, size: resume.bytesReceived)
        stopRemoving(resume)
        let writer = DownloadWriter(resuming: URL(fileURLWithPath: resume.partialFilePath), handle: handle,
                                    resumeOffset: resume.bytesReceived, staging: staging)
        return try makeDownloadTask(request: continuation, writer: writer, credential: credential, progress: progress,
                                    destination: destination, options: options, completion: Self.taskCompletion(completionHandler))
    }

    /// Cancels a download and hands `handler` the data to resume it with, or `nil` when it
    /// cannot be resumed (nothing received yet, or no `ETag`/`Last-Modified` to validate the
    /// range with). URLSession on Linux never produces resume data itself.
    /// AFNetworking: `-[NSURLSessionDownloadTask cancelByProducingResumeData:]`.
    public func cancel(_ task: URLSessionTask, producingResumeData handler: @escaping @Sendable (Data?) -> Void) {
        guard let delegate = table.delegate(for: task), delegate.kind == .download else {
            table.delegate(for: task)?.bodyStream?.release(cancelling: true)
            task.cancel()
            handler(nil)
            return
        }
        delegate.produceResumeData(handler)
        task.cancel()
    }

    /// Resumes `task` and posts `Notification.Name.taskDidResume`.
    public func resume(_ task: URLSessionTask) {
        task.resume()
        post(.taskDidResume, task: task)
    }

    /// Suspends `task` and posts `Notification.Name.taskDidSuspend`.
    public func suspend(_ task: URLSessionTask) {
        task.suspend()
        post(.taskDidSuspend, task: task)
    }

    private static func taskCompletion(_ handler: CompletionHandler?) -> TaskCompletion? {
        guard let handler else { return nil }
        return { _, response, object, error in handler(response, object, error) }
    }
}
