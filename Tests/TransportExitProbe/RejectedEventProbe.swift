#if DEBUG
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `transport-exit-probe rejected-event` (debug builds, with the tests: it reaches the transfer
/// as they do): a stubbed task's running transfer receives an event its phase cannot receive,
/// with the build's own `assertsOnRejectedEvents`. A debug build stops there; were it to go on,
/// the task's completion is written to standard error and the probe exits 0.
func probeRejectedEvent() -> Never {
    let stubs = StubTransport()
    stubs.on("GET", "/slow").reply(StubReply.text("late").delayed(by: 60))
    let manager = URLSessionManager(transport: stubs.transport)
    manager.responseSerializer = HTTPResponseSerializer()
    let completed = DispatchSemaphore(value: 0)
    // The transfer is the task's to keep (its timers hold it weakly): kept here until the end.
    var transfer: CurlTransfer?
    do {
        let task = try manager.dataTask(with: URLRequest(url: URL(string: "https://api.example.com/slow")!)) { _, _, error in
            FileHandle.standardError.write(Data("completed: \(error.map { "\($0)" } ?? "no error")\n".utf8))
            completed.signal()
        }
        guard let made = manager.table.delegate(for: task)?.makeTransfer() as? CurlTransfer else {
            FileHandle.standardError.write(Data("no transfer for a stubbed task\n".utf8))
            exit(1)
        }
        transfer = made
        made.transport.start(made)
        made.transport.async { made.perform(made.machine.retryTimerFired()) }
    } catch {
        FileHandle.standardError.write(Data("no task: \(error)\n".utf8))
        exit(1)
    }
    // The reply comes after a minute: a task still running after ten seconds was not failed.
    if completed.wait(timeout: .now() + 10) == .timedOut {
        FileHandle.standardError.write(Data("not completed\n".utf8))
        exit(2)
    }
    withExtendedLifetime(transfer) { exit(0) }
}
#endif
