import AFLocking
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A transfer's own handling of an event its state machine rejects (a defect of the transfer,
/// which no server or caller can cause): release builds fail the task once with the typed
/// error; debug builds stop at it, which `transport-exit-probe rejected-event` shows in a
/// process of its own.
final class CurlTransferTests: XCTestCase {
    /// A running transfer of a task whose stubbed reply comes only after a minute, and the
    /// errors its task completed with.
    private func runningTransfer() throws -> (transfer: CurlTransfer, errors: Locked<[(any Error)?]>, completed: XCTestExpectation) {
        let stubs = StubTransport()
        stubs.on("GET", "/slow").reply(StubReply.text("late").delayed(by: 60))
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let errors = Locked<[(any Error)?]>([])
        let completed = expectation(description: "completed")
        let task = try manager.dataTask(with: URLRequest(url: URL(string: "https://api.example.com/slow")!)) { _, _, error in
            errors.withLock { $0.append(error) }
            completed.fulfill()
        }
        let transfer = try XCTUnwrap(manager.table.delegate(for: task)?.makeTransfer() as? CurlTransfer)
        transfer.transport.start(transfer)
        return (transfer, errors, completed)
    }

    func testARejectedEventFailsTheTaskOnceWithTheTypedErrorAndStopsTheTransfer() throws {
        let (transfer, errors, completed) = try runningTransfer()
        let stopped = expectation(description: "stopped")
        transfer.transport.async {
            transfer.assertsOnRejectedEvents = false
            transfer.perform(transfer.machine.retryTimerFired())
            XCTAssertNil(transfer.stubPlayback, "the stub's reply still runs")
            // A late event after the end does nothing.
            transfer.perform(transfer.machine.hopFinished(failure: nil, closedInHead: URLError(.networkConnectionLost), canContinue: false))
            stopped.fulfill()
        }
        wait(for: [stopped, completed], timeout: 5)
        let recorded = errors.withLock { $0 }
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first.flatMap { $0 as? TransferStateError }, TransferStateError(event: "retryTimerFired", phase: "running"))
        XCTAssertEqual(recorded.first.flatMap { $0 }.map { ($0 as NSError).code }, NSURLErrorUnknown)
    }

    #if DEBUG
    /// A debug build stops the process at a rejected event, naming it: the probe's transfer, with
    /// the build's own setting, rejects one (the probe is built with the tests, in debug).
    func testADebugBuildStopsTheProcessAtARejectedEvent() throws {
        XCTAssertTrue(CurlTransfer.isDebugBuild)
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("transport-exit-probe")
        let process = Process()
        process.executableURL = probe
        process.arguments = ["rejected-event"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertTrue(stderr.contains("the event retryTimerFired reached the phase running"), stderr)
        XCTAssertFalse(stderr.contains("completed"), stderr)
    }
    #endif
}
