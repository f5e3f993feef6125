import AFReachability
import AFSerialization
import Foundation
import XCTest

/// End-to-end reachability in a private network namespace that `scripts/test.sh` creates
/// (`unshare -r -n -m`, loopback up, and an `/etc/hosts` naming `reachability-target.test`).
/// The tests build a veth pair and flip links, addresses and routes there; the machine's own
/// network is never touched, and no packet is sent (documentation address ranges only).
final class ReachabilityNamespaceTests: XCTestCase {
    static let target = "203.0.113.10"
    static let targetName = "reachability-target.test"

    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["AFN_NETNS"] == "1" else {
            throw XCTSkip("needs a private network namespace: run through scripts/test.sh, as root or with unprivileged user namespaces")
        }
        try ip("link", "add", "afn0", "type", "veth", "peer", "name", "afn1")
        try ip("link", "set", "afn1", "up")
        try ip("addr", "add", "198.51.100.1/24", "dev", "afn0")
        try ip("link", "set", "afn0", "up")
    }

    override func tearDownWithError() throws {
        if ProcessInfo.processInfo.environment["AFN_NETNS"] == "1" { try ip("link", "del", "afn0") }
    }

    private func ip(_ arguments: String...) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "ip \(arguments.joined(separator: " "))")
    }

    private func addDefaultRoute() throws { try ip("route", "add", "default", "via", "198.51.100.2", "dev", "afn0") }

    /// Waits up to `seconds` for `manager` to report `status`.
    private func expect(_ status: NetworkReachabilityStatus, from manager: NetworkReachabilityManager, within seconds: TimeInterval = 1,
                        _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(seconds)
        while manager.networkReachabilityStatus != status && Date() < deadline { usleep(5_000) }
        XCTAssertEqual(manager.networkReachabilityStatus, status, message, file: file, line: line)
    }

    /// The same sequence for any target: no default route, route added, link down, carrier
    /// lost, address removed, route removed, each change reported within one second.
    private func exerciseTransitions(_ manager: NetworkReachabilityManager) throws {
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        expect(.notReachable, from: manager, "without a default route")

        try addDefaultRoute()
        expect(.reachableViaWiFi, from: manager, "after adding a default route")
        XCTAssertEqual(manager.path?.interfaceName, "afn0")

        try ip("link", "set", "afn0", "down")
        expect(.notReachable, from: manager, "after setting the link down")
        try ip("link", "set", "afn0", "up")
        try addDefaultRoute()
        expect(.reachableViaWiFi, from: manager, "after restoring the link and route")

        try ip("link", "set", "afn1", "down")
        expect(.notReachable, from: manager, "after the peer went down (no carrier, route still there)")
        try ip("link", "set", "afn1", "up")
        expect(.reachableViaWiFi, from: manager, "after the carrier came back")

        try ip("addr", "del", "198.51.100.1/24", "dev", "afn0")
        expect(.notReachable, from: manager, "after removing the address")
        try ip("addr", "add", "198.51.100.1/24", "dev", "afn0")
        try addDefaultRoute()
        expect(.reachableViaWiFi, from: manager, "after restoring the address and route")

        try ip("route", "del", "default")
        expect(.notReachable, from: manager, "after removing the route")
        try addDefaultRoute()
        expect(.reachableViaWiFi, from: manager, "after restoring the route")
    }

    func testSharedManagerFollowsTheDefaultRoute() throws {
        try exerciseTransitions(NetworkReachabilityManager.shared)
    }

    func testAddressTargetFollowsTheDefaultRoute() throws {
        try exerciseTransitions(try XCTUnwrap(NetworkReachabilityManager(address: Self.target)))
    }

    func testHostTargetFollowsTheDefaultRoute() throws {
        try exerciseTransitions(NetworkReachabilityManager(domain: Self.targetName))
    }

    func testUnresolvableHostIsNotReachable() throws {
        try addDefaultRoute()
        let manager = NetworkReachabilityManager(domain: "no-such-host.invalid")
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        expect(.notReachable, from: manager, within: 2, "an unresolvable host")
    }

    func testChangesAreDeliveredOnceEachThroughTheStream() async throws {
        let manager = try XCTUnwrap(NetworkReachabilityManager(address: Self.target))
        let updates = manager.statusUpdates
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        var iterator = updates.makeAsyncIterator()
        let initial = await iterator.next()
        XCTAssertEqual(initial, .notReachable)
        try addDefaultRoute()
        let afterRoute = await iterator.next()
        XCTAssertEqual(afterRoute, .reachableViaWiFi)
        try ip("route", "del", "default")
        let afterRemoval = await iterator.next()
        XCTAssertEqual(afterRemoval, .notReachable)
    }
}
