import Foundation

/// Notifications posted by `URLSessionManager`, with AFNetworking's names. They are posted on
/// the queue that finishes the work (not the main queue, which a Linux service may never run):
/// task completion on the task's completion queue right after its completion handler.
extension Notification.Name {
    /// A task was resumed through `URLSessionManager.resume(_:)` (URLSession on Linux offers no
    /// hook for `URLSessionTask.resume()` itself). Object: the task.
    /// AFNetworking: `AFNetworkingTaskDidResumeNotification`.
    public static let taskDidResume = Notification.Name("com.alamofire.networking.task.resume")
    /// A task was suspended through `URLSessionManager.suspend(_:)`. Object: the task.
    /// AFNetworking: `AFNetworkingTaskDidSuspendNotification`.
    public static let taskDidSuspend = Notification.Name("com.alamofire.networking.task.suspend")
    /// A task completed. Object: the task; `userInfo` keys: `SessionNotificationKey`.
    /// AFNetworking: `AFNetworkingTaskDidCompleteNotification`.
    public static let taskDidComplete = Notification.Name("com.alamofire.networking.task.complete")
    /// An attempt of a task failed and its interceptors retry it. Object: the task; `userInfo`
    /// keys: `retryAttempt`, `retryDelay`, and `error` or `retriedResponse`. Beyond AFNetworking.
    public static let taskWillRetry = Notification.Name("com.alamofire.networking.task.retry")
    /// The session became invalid. Object: the session.
    /// AFNetworking: `AFURLSessionDidInvalidateNotification`.
    public static let sessionDidInvalidate = Notification.Name("com.alamofire.networking.session.invalidate")
    /// A download was moved to its destination. Object: the task; `userInfo` has `assetPath`.
    /// AFNetworking: `AFURLSessionDownloadTaskDidMoveFileSuccessfullyNotification`.
    public static let downloadTaskDidMoveFileSuccessfully =
        Notification.Name("com.alamofire.networking.session.download.file-manager-succeed")
    /// A download could not be moved to its destination. Object: the task; `userInfo` has `error`.
    /// AFNetworking: `AFURLSessionDownloadTaskDidFailToMoveFileNotification`.
    public static let downloadTaskDidFailToMoveFile =
        Notification.Name("com.alamofire.networking.session.download.file-manager-error")
}

/// `userInfo` keys of `Notification.Name.taskDidComplete` and the download notifications.
public enum SessionNotificationKey {
    /// The serialized response object. AFNetworking: `AFNetworkingTaskDidCompleteSerializedResponseKey`.
    public static let serializedResponse = "com.alamofire.networking.task.complete.serializedresponse"
    /// The response serializer used. AFNetworking: `AFNetworkingTaskDidCompleteResponseSerializerKey`.
    public static let responseSerializer = "com.alamofire.networking.task.complete.responseserializer"
    /// The response body of a data task. AFNetworking: `AFNetworkingTaskDidCompleteResponseDataKey`.
    public static let responseData = "com.alamofire.networking.complete.finish.responsedata"
    /// The error, if the task failed. AFNetworking: `AFNetworkingTaskDidCompleteErrorKey`.
    public static let error = "com.alamofire.networking.task.complete.error"
    /// The file URL a download was moved to. AFNetworking: `AFNetworkingTaskDidCompleteAssetPathKey`.
    public static let assetPath = "com.alamofire.networking.task.complete.assetpath"
    /// The failed attempt of `taskWillRetry` (1 for the first).
    public static let retryAttempt = "com.alamofire.networking.task.retry.attempt"
    /// Seconds `taskWillRetry` waits before the next attempt.
    public static let retryDelay = "com.alamofire.networking.task.retry.delay"
    /// The error response `taskWillRetry` retries, if the attempt ended with one.
    public static let retriedResponse = "com.alamofire.networking.task.retry.response"
    /// The task's `TaskMetrics`. AFNetworking: `AFNetworkingTaskDidCompleteSessionTaskMetrics`.
    public static let metrics = "com.alamofire.networking.complete.sessiontaskmetrics"
}
