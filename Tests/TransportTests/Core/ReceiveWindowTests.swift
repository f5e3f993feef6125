@testable import AFSession
@testable import AFTransport
import Foundation
import XCTest

final class ReceiveWindowTests: XCTestCase {
    private final class ResumeCounter: @unchecked Sendable {
        // @unchecked: `count` is only touched under `lock`.
        private let lock = NSLock()
        private var calls = 0
        func increment() { lock.withLock { calls += 1 } }
        var count: Int { lock.withLock { calls } }
    }

    private func window(limit: Int) -> (ReceiveWindow, ResumeCounter) {
        let counter = ResumeCounter()
        return (ReceiveWindow(limit: limit) { counter.increment() }, counter)
    }

    func testChunksAreAdmittedWhileLessThanTheLimitWaits() {
        let (window, _) = window(limit: 100)
        XCTAssertTrue(window.admit(60))
        XCTAssertTrue(window.admit(60))
        XCTAssertFalse(window.admit(1))
    }

    func testAPausedTransferResumesOnceHalfTheWindowIsFree() {
        let (window, resumes) = window(limit: 100)
        XCTAssertTrue(window.admit(120))
        XCTAssertFalse(window.admit(10))
        window.consumed(60)
        XCTAssertEqual(resumes.count, 0, "60 bytes still wait, more than half the window")
        window.consumed(10)
        XCTAssertEqual(resumes.count, 1)
        window.consumed(50)
        XCTAssertEqual(resumes.count, 1, "resumed once per pause")
        XCTAssertTrue(window.admit(10))
    }

    func testConsumingNeverResumesATransferThatDidNotPause() {
        let (window, resumes) = window(limit: 100)
        XCTAssertTrue(window.admit(90))
        window.consumed(90)
        XCTAssertEqual(resumes.count, 0)
    }
}
