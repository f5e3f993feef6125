import Foundation

/// What kind of link carries a route.
public enum InterfaceKind: String, Sendable {
    /// Wi-Fi: the interface has a `wireless` or `phy80211` entry in sysfs, or `DEVTYPE=wlan`.
    case wifi
    /// Cellular: `DEVTYPE=wwan` or `ppp`, or a `wwan*`, `rmnet*` or `ppp*` name.
    case cellular
    /// A physical interface that is neither Wi-Fi nor cellular, such as Ethernet.
    case wired
    /// The loopback interface (`lo`).
    case loopback
    /// Bridges, tunnels, virtual pairs and anything else.
    case other

    /// Classifies an interface from its name and what sysfs says of it: Wi-Fi has a
    /// `wireless` or `phy80211` entry or `DEVTYPE=wlan`; cellular has `DEVTYPE=wwan` or `ppp`,
    /// or a `wwan*`/`rmnet*`/`ppp*` name. (`type` is 1 for Ethernet and Wi-Fi alike, so it
    /// cannot tell them apart.)
    static func classify(name: String, isLoopback: Bool, deviceType: String?, hasWirelessEntry: Bool, isPhysical: Bool) -> InterfaceKind {
        if isLoopback { return .loopback }
        if hasWirelessEntry || deviceType == "wlan" { return .wifi }
        if deviceType == "wwan" || deviceType == "ppp" || ["wwan", "rmnet", "ppp"].contains(where: name.hasPrefix) { return .cellular }
        if deviceType == nil && isPhysical { return .wired }
        return .other
    }

    /// Reads sysfs for `name`. Best effort: in a network namespace without its own sysfs mount
    /// the entries describe the host's interfaces, and a missing entry reads as "not there".
    static func of(interface name: String, isLoopback: Bool) -> InterfaceKind {
        let base = "/sys/class/net/\(name)"
        let uevent = (try? String(contentsOfFile: base + "/uevent", encoding: .utf8)) ?? ""
        let deviceType = uevent.split(separator: "\n").first { $0.hasPrefix("DEVTYPE=") }.map { String($0.dropFirst(8)) }
        let fileManager = FileManager.default
        return classify(
            name: name, isLoopback: isLoopback, deviceType: deviceType,
            hasWirelessEntry: fileManager.fileExists(atPath: base + "/wireless") || fileManager.fileExists(atPath: base + "/phy80211"),
            isPhysical: fileManager.fileExists(atPath: base + "/device"))
    }
}
