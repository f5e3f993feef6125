import AFLocking
import Foundation

extension Notification.Name {
    /// Posted when a manager's status changes; `userInfo[ReachabilityNotificationKey.status]`
    /// holds the new `NetworkReachabilityStatus` raw value. Object: the manager.
    /// AFNetworking: `AFNetworkingReachabilityDidChangeNotification`.
    public static let reachabilityDidChange = Notification.Name("com.alamofire.networking.reachability.change")
}

/// `userInfo` keys of `Notification.Name.reachabilityDidChange`.
public enum ReachabilityNotificationKey {
    /// The new status, as an `Int` (`NetworkReachabilityStatus.rawValue`).
    /// AFNetworking: `AFNetworkingReachabilityNotificationStatusItem`.
    public static let status = "AFNetworkingReachabilityNotificationStatusItem"
}

/// Monitors whether a target can be reached, on Linux, from rtnetlink events: every link,
/// address or route change (IPv4 and IPv6) triggers a fresh route lookup for the target (no
/// packet is sent, nothing is polled). A route counts only when its interface is up and has a
/// carrier. Host targets are resolved on the manager's own queue, again at every change; a
/// host that does not resolve is not reachable.
///
/// The status is `.unknown` until monitoring has evaluated once; changes (only changes) go to
/// the status-change handler, the `reachabilityDidChange` notification and `statusUpdates`
/// streams, in that order, on the manager's queue. AFNetworking: `AFNetworkReachabilityManager`.
public final class NetworkReachabilityManager: Sendable {
    /// A manager for the default route: "is the network there at all". AFNetworking: `sharedManager`.
    public static let shared = NetworkReachabilityManager()

    private enum Target: Sendable {
        case addresses([RouteProbe.Address])
        case host(String)
    }

    private struct State {
        var status: NetworkReachabilityStatus = .unknown
        var path: ReachabilityPath?
        var monitor: NetlinkMonitor?
        var handler: (@Sendable (NetworkReachabilityStatus) -> Void)?
        var streams: [UUID: AsyncStream<NetworkReachabilityStatus>.Continuation] = [:]
        /// Incremented by every start and stop, so that an evaluation started before a stop
        /// cannot report after it.
        var generation = 0
    }

    private let target: Target
    private let queue = DispatchQueue(label: "AFNetworking.reachability")
    private let state = Locked(State())

    /// A manager for the default route, judged by the routes to an IPv4 and an IPv6
    /// documentation address (any address without a more specific route takes the default).
    /// AFNetworking: `manager`.
    public convenience init() {
        self.init(target: .addresses(["192.0.2.1", "2001:db8::1"].compactMap(RouteProbe.Address.init(literal:))))
    }

    /// A manager for a host name, resolved on the manager's queue at every change.
    /// AFNetworking: `managerForDomain:`.
    public convenience init(domain: String) {
        self.init(target: RouteProbe.Address(literal: domain).map { .addresses([$0]) } ?? .host(domain))
    }

    /// A manager for an IPv4 or IPv6 address literal; `nil` when `address` is not one.
    /// AFNetworking: `managerForAddress:`.
    public convenience init?(address: String) {
        guard let parsed = RouteProbe.Address(literal: address) else { return nil }
        self.init(target: .addresses([parsed]))
    }

    private init(target: Target) {
        self.target = target
    }

    deinit {
        stopMonitoring()
    }

    // MARK: Status

    /// The current status. AFNetworking: `networkReachabilityStatus`.
    public var networkReachabilityStatus: NetworkReachabilityStatus { state.withLock { $0.status } }
    /// Whether the target is reachable over any interface.
    public var isReachable: Bool { networkReachabilityStatus.isReachable }
    /// Whether the target is reachable over a cellular interface.
    public var isReachableViaWWAN: Bool { networkReachabilityStatus == .reachableViaWWAN }
    /// Whether the target is reachable over a non-cellular interface.
    public var isReachableViaWiFi: Bool { networkReachabilityStatus == .reachableViaWiFi }
    /// The interface carrying the route to the target, when there is one (not in AFNetworking).
    public var path: ReachabilityPath? { state.withLock { $0.path } }

    /// "Unknown", "Not Reachable", "Reachable via WWAN" or "Reachable via WiFi".
    /// AFNetworking: `localizedNetworkReachabilityStatusString`.
    public func localizedNetworkReachabilityStatusString() -> String { networkReachabilityStatus.description }

    /// Receives every status change on the manager's queue; `nil` removes it.
    /// AFNetworking: `setReachabilityStatusChangeBlock:`.
    public func setReachabilityStatusChangeBlock(_ handler: (@Sendable (NetworkReachabilityStatus) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    /// Status changes as an `AsyncStream`, starting with the current status when it is known.
    /// The stream ends when the consumer stops iterating.
    public var statusUpdates: AsyncStream<NetworkReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkReachabilityStatus.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        let current = state.withLock { state -> NetworkReachabilityStatus in
            state.streams[id] = continuation
            return state.status
        }
        if current != .unknown { continuation.yield(current) }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Monitoring

    /// Starts monitoring and evaluates at once; calling it again while monitoring does nothing.
    /// Where rtnetlink is unavailable the status is evaluated once and not updated.
    public func startMonitoring() {
        let generation: Int? = state.withLock { state in
            guard state.monitor == nil else { return nil }
            state.generation += 1
            let monitor = NetlinkMonitor(queue: queue) { [weak self] in self?.evaluate(generation: nil) }
            state.monitor = monitor
            return state.generation
        }
        guard let generation else { return }
        _ = state.withLock { $0.monitor }?.start()
        queue.async { [weak self] in self?.evaluate(generation: generation) }
    }

    /// Stops monitoring; the status stays as last evaluated. Safe to call at any time.
    public func stopMonitoring() {
        state.withLock { state -> NetlinkMonitor? in
            defer { state.monitor = nil }
            state.generation += 1
            return state.monitor
        }?.stop()
    }

    /// On the manager's queue: looks the route up and delivers a change.
    private func evaluate(generation expected: Int?) {
        let paths: [ReachabilityPath?]
        switch target {
        case .addresses(let addresses): paths = addresses.map(RouteProbe.path(to:))
        case .host(let host): paths = RouteProbe.resolve(host).map(RouteProbe.path(to:))
        }
        let status = ReachabilityDecision.status(for: paths)
        let path = paths.compactMap { $0 }.first { ReachabilityDecision.status(for: $0) == status }
        let change = state.withLock { state -> (handler: (@Sendable (NetworkReachabilityStatus) -> Void)?, streams: [AsyncStream<NetworkReachabilityStatus>.Continuation])? in
            guard state.monitor != nil, expected.map({ $0 == state.generation }) ?? true else { return nil }
            state.path = status.isReachable ? path : nil
            guard status != state.status else { return nil }
            state.status = status
            return (state.handler, Array(state.streams.values))
        }
        guard let change else { return }
        change.handler?(status)
        NotificationCenter.default.post(name: .reachabilityDidChange, object: self,
                                        userInfo: [ReachabilityNotificationKey.status: status.rawValue])
        change.streams.forEach { $0.yield(status) }
    }
}
