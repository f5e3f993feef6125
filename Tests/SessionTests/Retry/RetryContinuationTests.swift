import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Retries that continue a cut body with a range request.
final class RetryContinuationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    private func makeRetryingManager() -> URLSessionManager {
        makeManager(interceptor: RetryPolicy.immediate)
    }

    func testADownloadCutAfterFortyPercentContinuesWithARangeAndProgressNeverRunsBackwards() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let destination = directory.url.appendingPathComponent("continued.bin")
        let progress = ProgressLog()
        let completion = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: try FaultServer.url("/cut/100000?id=\(id)")), progress: progress.handler,
                                                    destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 200, "the task's response is the first one")
        XCTAssertEqual(try Data(contentsOf: destination), Data((0..<100_000).map { UInt8($0 % 256) }))
        XCTAssertEqual(try FaultServer.log(id).map(\.range), [nil, "bytes=40000-"])
        XCTAssertTrue(progress.isMonotonic, "progress never ran backwards")
        XCTAssertEqual(progress.last?.completedUnitCount, 100_000)
    }

    func testADataTaskCutAfterFortyPercentContinuesToTheWholeBody() throws {
        let id = FaultServer.uniqueID()
        let completion = try complete { handler in
            let manager = makeRetryingManager()
            manager.resume(try manager.dataTask(with: URLRequest(url: try FaultServer.url("/cut/100000?id=\(id)")), completionHandler: handler))
        }
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.object as? Data, Data((0..<100_000).map { UInt8($0 % 256) }))
    }

    func testAServerThatSendsTheWholeResourceAgainFailsTheTaskWithTheCut() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try FaultServer.url("/cut/100000?id=\(id)&ranges=0")), completionHandler: handler))
        }
        XCTAssertEqual((completion.error as? URLError)?.code, .networkConnectionLost, "\(String(describing: completion.error))")
        XCTAssertEqual(try FaultServer.log(id).map(\.range), [nil, "bytes=40000-"])
    }
}
