@testable import AFReachability
import XCTest

final class ReachabilityDecisionTests: XCTestCase {
    private func path(_ kind: InterfaceKind, up: Bool = true, running: Bool = true) -> ReachabilityPath {
        ReachabilityPath(interfaceName: "if0", interfaceKind: kind, isUp: up, isRunning: running)
    }

    func testNoRouteIsNotReachable() {
        XCTAssertEqual(ReachabilityDecision.status(for: nil as ReachabilityPath?), .notReachable)
    }

    func testWiredWifiLoopbackAndOtherAreReachableViaWiFi() {
        for kind in [InterfaceKind.wired, .wifi, .loopback, .other] {
            XCTAssertEqual(ReachabilityDecision.status(for: path(kind)), .reachableViaWiFi, "\(kind)")
        }
    }

    func testCellularIsReachableViaWWAN() {
        XCTAssertEqual(ReachabilityDecision.status(for: path(.cellular)), .reachableViaWWAN)
    }

    func testLinkDownOrWithoutCarrierIsNotReachable() {
        XCTAssertEqual(ReachabilityDecision.status(for: path(.wired, up: false)), .notReachable)
        XCTAssertEqual(ReachabilityDecision.status(for: path(.wired, running: false)), .notReachable)
    }

    func testBestOfSeveralPathsWins() {
        XCTAssertEqual(ReachabilityDecision.status(for: [nil, path(.cellular), path(.wired, running: false)]), .reachableViaWWAN)
        XCTAssertEqual(ReachabilityDecision.status(for: [path(.cellular), path(.wifi)]), .reachableViaWiFi)
        XCTAssertEqual(ReachabilityDecision.status(for: []), .notReachable)
    }
}

final class InterfaceKindTests: XCTestCase {
    func testClassification() {
        XCTAssertEqual(InterfaceKind.classify(name: "lo", isLoopback: true, deviceType: nil, hasWirelessEntry: false, isPhysical: false), .loopback)
        XCTAssertEqual(InterfaceKind.classify(name: "wlp2s0", isLoopback: false, deviceType: "wlan", hasWirelessEntry: false, isPhysical: true), .wifi)
        XCTAssertEqual(InterfaceKind.classify(name: "wlan0", isLoopback: false, deviceType: nil, hasWirelessEntry: true, isPhysical: true), .wifi)
        XCTAssertEqual(InterfaceKind.classify(name: "wwan0", isLoopback: false, deviceType: nil, hasWirelessEntry: false, isPhysical: true), .cellular)
        XCTAssertEqual(InterfaceKind.classify(name: "usb0", isLoopback: false, deviceType: "wwan", hasWirelessEntry: false, isPhysical: true), .cellular)
        XCTAssertEqual(InterfaceKind.classify(name: "rmnet_data0", isLoopback: false, deviceType: nil, hasWirelessEntry: false, isPhysical: false), .cellular)
        XCTAssertEqual(InterfaceKind.classify(name: "ppp0", isLoopback: false, deviceType: nil, hasWirelessEntry: false, isPhysical: false), .cellular)
        XCTAssertEqual(InterfaceKind.classify(name: "eth0", isLoopback: false, deviceType: nil, hasWirelessEntry: false, isPhysical: true), .wired)
        XCTAssertEqual(InterfaceKind.classify(name: "veth1", isLoopback: false, deviceType: nil, hasWirelessEntry: false, isPhysical: false), .other)
        XCTAssertEqual(InterfaceKind.classify(name: "br0", isLoopback: false, deviceType: "bridge", hasWirelessEntry: false, isPhysical: false), .other)
    }
}

final class NetworkReachabilityStatusTests: XCTestCase {
    func testRawValuesAndStringsMatchAFNetworking() {
        XCTAssertEqual(NetworkReachabilityStatus.unknown.rawValue, -1)
        XCTAssertEqual(NetworkReachabilityStatus.notReachable.rawValue, 0)
        XCTAssertEqual(NetworkReachabilityStatus.reachableViaWWAN.rawValue, 1)
        XCTAssertEqual(NetworkReachabilityStatus.reachableViaWiFi.rawValue, 2)
        XCTAssertEqual(NetworkReachabilityStatus.unknown.description, "Unknown")
        XCTAssertEqual(NetworkReachabilityStatus.notReachable.description, "Not Reachable")
        XCTAssertEqual(NetworkReachabilityStatus.reachableViaWWAN.description, "Reachable via WWAN")
        XCTAssertEqual(NetworkReachabilityStatus.reachableViaWiFi.description, "Reachable via WiFi")
    }
}
