import AFLocking
import AFReachability
import AFSerialization
import Foundation
import XCTest

/// Manager behaviour on the host, with loopback targets only (no packet, no DNS query).
final class NetworkReachabilityManagerTests: XCTestCase {
    func testStatusIsUnknownBeforeMonitoring() throws {
        let manager = try XCTUnwrap(NetworkReachabilityManager(address: "127.0.0.1"))
        XCTAssertEqual(manager.networkReachabilityStatus, .unknown)
        XCTAssertFalse(manager.isReachable)
        XCTAssertEqual(manager.localizedNetworkReachabilityStatusString(), "Unknown")
    }

    func testInvalidAddressLiteralGivesNoManager() {
        XCTAssertNil(NetworkReachabilityManager(address: "not an address"))
        XCTAssertNil(NetworkReachabilityManager(address: "300.1.1.1"))
    }

    func testLoopbackAddressBecomesReachableThroughLoWithClosureAndNotification() throws {
        let manager = try XCTUnwrap(NetworkReachabilityManager(address: "127.0.0.1"))
        let changed = expectation(description: "closure")
        manager.setReachabilityStatusChangeBlock { status in
            XCTAssertEqual(status, .reachableViaWiFi)
            changed.fulfill()
        }
        let notified = expectation(forNotification: .reachabilityDidChange, object: manager) { notification in
            notification.userInfo?[ReachabilityNotificationKey.status] as? Int == NetworkReachabilityStatus.reachableViaWiFi.rawValue
        }
        manager.startMonitoring()
        wait(for: [changed, notified], timeout: 2)
        XCTAssertTrue(manager.isReachableViaWiFi)
        XCTAssertEqual(manager.path?.interfaceName, "lo")
        XCTAssertEqual(manager.path?.interfaceKind, .loopback)
        manager.stopMonitoring()
    }

    func testIPv6LoopbackAndLocalhostNameAreReachable() throws {
        for manager in [try XCTUnwrap(NetworkReachabilityManager(address: "::1")), NetworkReachabilityManager(domain: "localhost")] {
            let reachable = expectation(description: "reachable")
            manager.setReachabilityStatusChangeBlock { if $0.isReachable { reachable.fulfill() } }
            manager.startMonitoring()
            wait(for: [reachable], timeout: 2)
            manager.stopMonitoring()
        }
    }

    func testStatusUpdatesStreamDeliversTheFirstStatus() async throws {
        let manager = try XCTUnwrap(NetworkReachabilityManager(address: "127.0.0.1"))
        let updates = manager.statusUpdates
        manager.startMonitoring()
        var iterator = updates.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first, .reachableViaWiFi)
        manager.stopMonitoring()
    }

    func testStartingTwiceStoppingTwiceAndDeallocatingWhileMonitoringAreSafe() throws {
        weak var weakManager: NetworkReachabilityManager?
        try {
            let manager = try XCTUnwrap(NetworkReachabilityManager(address: "127.0.0.1"))
            weakManager = manager
            manager.startMonitoring()
            manager.startMonitoring()
            manager.stopMonitoring()
            manager.stopMonitoring()
            manager.startMonitoring()
        }()
        let deadline = Date().addingTimeInterval(2)
        while weakManager != nil && Date() < deadline { usleep(10_000) }
        XCTAssertNil(weakManager, "a monitoring manager must still be released")
    }

    func testChangesAreDeliveredOnlyOnChange() throws {
        let manager = try XCTUnwrap(NetworkReachabilityManager(address: "127.0.0.1"))
        let calls = Locked<Int>(0)
        let first = expectation(description: "first")
        manager.setReachabilityStatusChangeBlock { _ in
            if calls.withLock({ $0 += 1; return $0 }) == 1 { first.fulfill() }
        }
        manager.startMonitoring()
        wait(for: [first], timeout: 2)
        manager.stopMonitoring()
        manager.startMonitoring()
        Thread.sleep(forTimeInterval: 0.3)
        manager.stopMonitoring()
        XCTAssertEqual(calls.withLock { $0 }, 1, "a re-evaluation with the same status must not be delivered")
    }
}
