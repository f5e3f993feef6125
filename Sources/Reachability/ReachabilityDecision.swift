/// What the kernel would use to reach a target: the interface carrying the route.
public struct ReachabilityPath: Sendable, Equatable {
    /// The interface name, e.g. `eth0`, `wlan0`, `wwan0`.
    public let interfaceName: String
    /// What kind of link it is.
    public let interfaceKind: InterfaceKind
    let isUp: Bool
    let isRunning: Bool
}

/// The status for a route lookup's outcome. Pure.
enum ReachabilityDecision {
    /// `nil` (no route, or the target did not resolve) is not reachable; so is a route whose
    /// interface is administratively down or has no carrier (the kernel keeps routes on a link
    /// without carrier, so a route alone proves nothing). Cellular is WWAN; everything else
    /// reachable is "WiFi", as in AFNetworking.
    static func status(for path: ReachabilityPath?) -> NetworkReachabilityStatus {
        guard let path, path.isUp, path.isRunning else { return .notReachable }
        return path.interfaceKind == .cellular ? .reachableViaWWAN : .reachableViaWiFi
    }

    /// The best of several paths (a host with several addresses): reachable beats not, and a
    /// non-cellular path beats a cellular one.
    static func status(for paths: [ReachabilityPath?]) -> NetworkReachabilityStatus {
        paths.map(status(for:)).max { $0.rawValue < $1.rawValue } ?? .notReachable
    }
}
