import AFSession
import Foundation
import XCTest

/// `RetryBudget`'s sliding window, with explicit times.
final class RetryBudgetTests: XCTestCase {
    func testRetriesAreAShareOfTheRequestsInTheWindow() {
        let budget = RetryBudget(window: 10, ratio: 0.2, minimumRetriesPerSecond: 0)
        for time in 0..<10 { budget.recordRequest(at: TimeInterval(time)) }
        XCTAssertTrue(budget.withdrawRetry(at: 9.5))
        XCTAssertTrue(budget.withdrawRetry(at: 9.6))
        XCTAssertFalse(budget.withdrawRetry(at: 9.7), "two retries for ten requests")
    }

    func testTheMinimumAllowsRetriesWithoutTraffic() {
        let budget = RetryBudget(window: 10, ratio: 0, minimumRetriesPerSecond: 0.3)
        XCTAssertTrue(budget.withdrawRetry(at: 0))
        XCTAssertTrue(budget.withdrawRetry(at: 1))
        XCTAssertTrue(budget.withdrawRetry(at: 2))
        XCTAssertFalse(budget.withdrawRetry(at: 3))
    }

    func testOldRequestsAndRetriesLeaveTheWindow() {
        let budget = RetryBudget(window: 10, ratio: 0.5, minimumRetriesPerSecond: 0)
        budget.recordRequest(at: 0)
        budget.recordRequest(at: 1)
        XCTAssertTrue(budget.withdrawRetry(at: 2))
        XCTAssertFalse(budget.withdrawRetry(at: 3))
        XCTAssertFalse(budget.withdrawRetry(at: 10.5), "the request at 0 left the window")
        budget.recordRequest(at: 12)
        budget.recordRequest(at: 13)
        XCTAssertTrue(budget.withdrawRetry(at: 13), "only the retry at 2 had been counted, and it left")
    }
}
