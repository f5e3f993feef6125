@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The lifecycle of the manager's own task as a table, without a manager or a transfer: what
/// each `resume`, `suspend`, `cancel` and the end do in each phase.
final class TaskRunTests: XCTestCase {
    private final class Starter {}
    private final class Transfer {}

    private let starter = Starter()
    private let transfer = Transfer()

    private func fresh() -> TaskRun<Starter, Transfer> {
        TaskRun(request: URLRequest(url: URL(string: "https://api.example.com/a")!), starter: starter)
    }

    /// A run whose first `resume` made `transfer`.
    private func running() -> TaskRun<Starter, Transfer> {
        var run = fresh()
        _ = run.resume()
        XCTAssertEqual(run.made(transfer), .start(suspended: false))
        return run
    }

    func testAFreshTaskIsSuspendedAndShowsItsRequest() {
        let run = fresh()
        XCTAssertEqual(run.phase, .suspended)
        XCTAssertEqual(run.currentRequest?.url?.path, "/a")
        XCTAssertNil(run.transfer)
    }

    func testTheFirstResumeStartsWithTheStarterAndTheNextFindTheTransferBeingMade() {
        var run = fresh()
        guard case .start(let made) = run.resume() else { return XCTFail("not started") }
        XCTAssertTrue(made === starter)
        XCTAssertEqual(run.phase, .running)
        guard case .nothing = run.resume() else { return XCTFail("a running task resumed again") }
    }

    func testASuspendWhileTheTransferIsMadeStartsItSuspended() {
        var run = fresh()
        _ = run.resume()
        XCTAssertNil(run.suspend(), "no transfer to pause yet")
        XCTAssertEqual(run.made(transfer), .start(suspended: true))
        guard case .resumeReading(let resumed) = run.resume() else { return XCTFail("not resumed") }
        XCTAssertTrue(resumed === transfer)
    }

    func testASuspendedTaskResumedBeforeItsTransferWasMadeStartsRunning() {
        var run = fresh()
        _ = run.resume()
        _ = run.suspend()
        guard case .nothing = run.resume() else { return XCTFail("started twice") }
        XCTAssertEqual(run.made(transfer), .start(suspended: false))
    }

    func testSuspendingARunningTaskPausesItsTransferOnce() {
        var run = running()
        XCTAssertTrue(run.suspend() === transfer)
        XCTAssertNil(run.suspend())
        XCTAssertEqual(run.phase, .suspended)
    }

    func testCancellingATaskNeverResumedCompletesItWithTheStarter() {
        var run = fresh()
        guard case .complete(let completing) = run.cancel() else { return XCTFail("not completed") }
        XCTAssertTrue(completing === starter)
        XCTAssertTrue(run.isCancelling)
        guard case .nothing = run.resume() else { return XCTFail("a cancelled task started") }
    }

    func testCancellingARunningTaskCancelsItsTransferOnce() {
        var run = running()
        guard case .cancelTransfer(let cancelled) = run.cancel() else { return XCTFail("transfer not cancelled") }
        XCTAssertTrue(cancelled === transfer)
        guard case .nothing = run.cancel() else { return XCTFail("cancelled twice") }
    }

    func testATransferMadeAfterACancelIsDropped() {
        var run = fresh()
        _ = run.resume()
        guard case .complete = run.cancel() else { return XCTFail("not completed") }
        XCTAssertEqual(run.made(transfer), .drop)
        XCTAssertNil(run.transfer)
    }

    func testTheEndLetsGoOfTheTransferAndStarterAndKeepsTheError() {
        var run = running()
        let (transfer, starter) = run.end(with: URLError(.timedOut))
        XCTAssertTrue(transfer === self.transfer)
        XCTAssertTrue(starter === self.starter)
        XCTAssertEqual(run.phase, .completed)
        XCTAssertEqual((run.error as? URLError)?.code, .timedOut)
        XCTAssertNil(run.transfer)
        XCTAssertNil(run.starter)
        XCTAssertFalse(run.isCancelling)
    }

    func testACompletedTaskIgnoresResumeSuspendAndCancel() {
        var run = running()
        _ = run.end(with: nil)
        guard case .nothing = run.resume() else { return XCTFail("resumed") }
        XCTAssertNil(run.suspend())
        guard case .nothing = run.cancel() else { return XCTFail("cancelled") }
        XCTAssertEqual(run.phase, .completed)
        XCTAssertNil(run.error)
    }
}
