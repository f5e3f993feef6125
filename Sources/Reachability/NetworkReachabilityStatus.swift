/// Whether a target can be reached, and over what kind of interface.
/// AFNetworking: `AFNetworkReachabilityStatus`.
public enum NetworkReachabilityStatus: Int, Sendable, CustomStringConvertible {
    /// Not determined yet: the state until monitoring has evaluated the route once.
    case unknown = -1
    /// No usable route: no route, or its interface is down or has no carrier.
    case notReachable = 0
    /// Reachable over a cellular (WWAN) interface.
    case reachableViaWWAN = 1
    /// Reachable over any other interface. As in AFNetworking, "WiFi" here means any reachable
    /// path that is not cellular: wired Ethernet, Wi-Fi, a bridge, a VPN or loopback alike.
    case reachableViaWiFi = 2

    /// `true` for both reachable cases.
    public var isReachable: Bool { self == .reachableViaWWAN || self == .reachableViaWiFi }

    /// AFNetworking's strings: "Unknown", "Not Reachable", "Reachable via WWAN",
    /// "Reachable via WiFi". AFNetworking: `AFStringFromNetworkReachabilityStatus`.
    public var description: String {
        switch self {
        case .unknown: return "Unknown"
        case .notReachable: return "Not Reachable"
        case .reachableViaWWAN: return "Reachable via WWAN"
        case .reachableViaWiFi: return "Reachable via WiFi"
        }
    }
}
