import AFReachability
import Foundation
import XCTest

/// Run again under the thread sanitizer by `scripts/test.sh` (every `*ConcurrencyTests` class).
final class NetworkReachabilityManagerConcurrencyTests: XCTestCase {
    func testStartStopAndReadsFromManyThreadsAreSafe() throws {
        let manager = try XCTUnwrap(NetworkReachabilityManager(address: "127.0.0.1"))
        manager.setReachabilityStatusChangeBlock { _ in }
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            switch index % 4 {
            case 0: manager.startMonitoring()
            case 1: manager.stopMonitoring()
            case 2: _ = (manager.networkReachabilityStatus, manager.path, manager.isReachable)
            default: manager.setReachabilityStatusChangeBlock { _ in }
            }
        }
        manager.startMonitoring()
        let deadline = Date().addingTimeInterval(2)
        while !manager.isReachable && Date() < deadline { usleep(5_000) }
        XCTAssertTrue(manager.isReachable)
        manager.stopMonitoring()
    }
}
