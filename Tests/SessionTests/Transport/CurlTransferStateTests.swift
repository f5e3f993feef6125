@testable import AFSession
import XCTest

/// The lifecycle of one libcurl transfer, event by event, without a server.
final class CurlTransferStateTests: XCTestCase {
    private typealias State = CurlTransferState<String>

    private func isStart(_ completion: State.Completion, of next: String) -> Bool {
        if case .startNextHop(let request) = completion { return request == next }
        return false
    }

    func testARunningHopDeliversToTheClientAndFinishesLoading() {
        var state = State()
        XCTAssertFalse(state.deliversToClient)
        state.handleStarted()
        XCTAssertTrue(state.deliversToClient)
        state.deliveredResponse()
        guard case .finishLoading = state.hopFinished(curlCode: 0) else { return XCTFail("expected finishLoading") }
        XCTAssertFalse(state.deliversToClient)
    }

    func testAHopThatSucceedsWithoutAResponseFails() {
        var state = State()
        state.handleStarted()
        guard case .failWithoutResponse = state.hopFinished(curlCode: 0) else { return XCTFail("expected failWithoutResponse") }
        XCTAssertFalse(state.deliversToClient)
    }

    func testAFailedHopFailsWithItsCode() {
        var state = State()
        state.handleStarted()
        guard case .fail(let code) = state.hopFinished(curlCode: 7) else { return XCTFail("expected fail") }
        XCTAssertEqual(code, 7)
    }

    func testARedirectDiscardsTheHopsBodyThenStartsTheNextHop() {
        var state = State()
        state.handleStarted()
        state.redirect(to: "next")
        XCTAssertFalse(state.deliversToClient, "the redirect's own body is not the task's")
        XCTAssertTrue(isStart(state.hopFinished(curlCode: 0), of: "next"))
        state.handleStarted()
        XCTAssertTrue(state.deliversToClient)
    }

    func testAHopThatFailsWhileAwaitingTheNextFailsTheTask() {
        var state = State()
        state.handleStarted()
        state.redirect(to: "next")
        guard case .fail(let code) = state.hopFinished(curlCode: 56) else { return XCTFail("expected fail") }
        XCTAssertEqual(code, 56)
    }

    func testTheBasicRetryIsRecordedOnce() {
        var state = State()
        state.handleStarted()
        state.retryAuthenticated(with: "again")
        XCTAssertTrue(state.authenticationAttempted)
        XCTAssertTrue(isStart(state.hopFinished(curlCode: 0), of: "again"))
    }

    func testACancelledTransferTellsTheClientNothingMore() {
        var state = State()
        state.handleStarted()
        state.cancelled()
        XCTAssertFalse(state.deliversToClient)
        guard case .nothing = state.hopFinished(curlCode: 0) else { return XCTFail("expected nothing") }
        XCTAssertFalse(state.failed(), "the client is not told of a failure after a cancel")
    }

    func testAFailureIsReportedOnlyOnce() {
        var state = State()
        XCTAssertTrue(state.failed())
        XCTAssertFalse(state.failed())
        guard case .nothing = state.hopFinished(curlCode: 0) else { return XCTFail("expected nothing") }
    }

    func testEventsAfterTheEndChangeNothing() {
        var state = State()
        state.handleStarted()
        _ = state.hopFinished(curlCode: 0)
        state.redirect(to: "late")
        state.retryAuthenticated(with: "late")
        XCTAssertFalse(state.authenticationAttempted)
        guard case .nothing = state.hopFinished(curlCode: 0) else { return XCTFail("expected nothing") }
    }
    func testWithInterceptorsAFailureBeforeAResponseIsPutToThem() {
        var state = State()
        state.handleStarted()
        guard case .considerRetry(let code) = state.hopFinished(curlCode: 7, retriable: true) else { return XCTFail("expected considerRetry") }
        XCTAssertEqual(code, 7)
        XCTAssertTrue(state.decided(retry: true))
        state.handleStarted()
        XCTAssertTrue(state.deliversToClient, "the next attempt delivers")
    }

    func testAHeldResponseGoesToTheInterceptorsAndItsBodyIsNotDelivered() {
        var state = State()
        state.handleStarted()
        state.hold()
        XCTAssertTrue(state.isHolding)
        XCTAssertFalse(state.deliversToClient)
        guard case .considerRetry(0) = state.hopFinished(curlCode: 0, retriable: true) else { return XCTFail("expected considerRetry") }
        XCTAssertTrue(state.decided(retry: false))
        XCTAssertTrue(state.responseDelivered, "the held response goes to the client")
    }

    func testAReleasedHoldDeliversTheRest() {
        var state = State()
        state.handleStarted()
        state.hold()
        state.releaseHeld()
        XCTAssertTrue(state.deliversToClient)
        XCTAssertTrue(state.responseDelivered)
    }

    func testACutAfterTheResponseIsRetriedOnlyWhenItCanContinue() {
        var state = State()
        state.handleStarted()
        state.deliveredResponse()
        guard case .fail(56) = state.hopFinished(curlCode: 56, retriable: true) else { return XCTFail("expected fail") }
        var continuable = State()
        continuable.handleStarted()
        continuable.deliveredResponse()
        guard case .considerRetry(56) = continuable.hopFinished(curlCode: 56, retriable: true, canContinue: true) else {
            return XCTFail("expected considerRetry")
        }
    }

    func testACancelWhileDecidingLeavesNothingToDo() {
        var state = State()
        state.handleStarted()
        _ = state.hopFinished(curlCode: 7, retriable: true)
        state.cancelled()
        XCTAssertFalse(state.decided(retry: true))
    }

    func testAnIdleTimeoutWithInterceptorsIsPutToThem() {
        var state = State()
        state.handleStarted()
        guard case .considerRetry = state.attemptFailed(retriable: true) else { return XCTFail("expected considerRetry") }
        var plain = State()
        plain.handleStarted()
        guard case .tellClient = plain.attemptFailed(retriable: false) else { return XCTFail("expected tellClient") }
    }
}
