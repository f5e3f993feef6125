import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posting the `Notification.Name`s of a task (`SessionNotifications`).
extension URLSessionManager {
    func post(_ name: Notification.Name, task: URLSessionTask, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: task, userInfo: userInfo)
    }

    func postCompletion(
        of task: URLSessionTask, response: URLResponse?, data: Data, result: TaskDelegate.Result,
        serializer: any URLResponseSerialization, metrics: TaskMetrics
    ) {
        // Built with the key type `Notification` keeps: a `[String: Any]` is converted element
        // by element (6,600 instructions a task).
        var userInfo = [AnyHashable: Any](minimumCapacity: 6)
        userInfo[SessionNotificationKey.responseSerializer] = serializer
        userInfo[SessionNotificationKey.metrics] = metrics
        if !data.isEmpty { userInfo[SessionNotificationKey.responseData] = data }
        if let object = result.object { userInfo[SessionNotificationKey.serializedResponse] = object }
        if let error = result.error { userInfo[SessionNotificationKey.error] = error }
        if let assetPath = result.assetPath { userInfo[SessionNotificationKey.assetPath] = assetPath }
        post(.taskDidComplete, task: task, userInfo: userInfo)
    }
}
