import Foundation

/// Records notifications of one name posted for objects matching `object` while it lives.
final class NotificationLog: @unchecked Sendable {
    // @unchecked: `notifications` is only touched under `lock`.
    private let lock = NSLock()
    private var notifications: [Notification] = []
    private var token: (any NSObjectProtocol)?

    init(_ name: Notification.Name) {
        token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] notification in
            guard let self else { return }
            lock.lock()
            notifications.append(notification)
            lock.unlock()
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    func posted(for object: AnyObject) -> [Notification] {
        lock.lock()
        defer { lock.unlock() }
        return notifications.filter { ($0.object as AnyObject?) === object }
    }
}
