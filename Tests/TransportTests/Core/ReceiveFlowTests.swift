@testable import AFTransport
import XCTest

/// When a transfer takes its body's next chunk, and when reading resumes.
final class ReceiveFlowTests: XCTestCase {
    func testAChunkTheWindowAdmitsIsTaken() {
        var flow = ReceiveFlow()
        XCTAssertTrue(flow.admitsChunk(windowAdmits: true))
        XCTAssertFalse(flow.isPaused)
    }

    func testAFullWindowPausesReadingUntilItResumes() {
        var flow = ReceiveFlow()
        XCTAssertFalse(flow.admitsChunk(windowAdmits: false))
        XCTAssertTrue(flow.isPaused)
        flow.readingResumed()
        XCTAssertFalse(flow.isPaused)
        XCTAssertTrue(flow.admitsChunk(windowAdmits: true))
    }

    func testASuspendedTransferPausesAtItsNextChunkWithoutAskingTheWindow() {
        var flow = ReceiveFlow()
        flow.suspend()
        var asked = false
        XCTAssertFalse(flow.admitsChunk(windowAdmits: { asked = true; return true }()))
        XCTAssertFalse(asked)
        XCTAssertTrue(flow.isPaused)
    }

    func testResumingAfterAPauseWhileSuspendedResumesReading() {
        var flow = ReceiveFlow()
        flow.suspend()
        _ = flow.admitsChunk(windowAdmits: true)
        XCTAssertTrue(flow.taskResumed())
        XCTAssertTrue(flow.admitsChunk(windowAdmits: true))
    }

    func testResumingBeforeAnyChunkArrivedLeavesReadingAsItIs() {
        var flow = ReceiveFlow()
        flow.suspend()
        XCTAssertFalse(flow.taskResumed())
        XCTAssertFalse(flow.isPaused)
        XCTAssertTrue(flow.admitsChunk(windowAdmits: true))
    }

    func testResumingATaskNeverSuspendedDoesNothing() {
        var flow = ReceiveFlow()
        _ = flow.admitsChunk(windowAdmits: false)
        XCTAssertFalse(flow.taskResumed())
        XCTAssertTrue(flow.isPaused)
    }
}
