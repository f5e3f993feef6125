import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// How a manager applies its interceptors and a task's own, against httpbin and the fault server.
final class RequestInterceptorTests: XCTestCase {
    private struct AdaptationFailed: Error {}

    private struct Failing: RequestInterceptor {
        func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { throw AdaptationFailed() }
    }

    /// The `X-Chain` header httpbin saw, from the body the manager handed back as data.
    private func chainHeader(of completion: Completion) throws -> String? {
        let json = try JSONSerialization.jsonObject(with: XCTUnwrap(completion.object as? Data)) as? [String: Any]
        return (json?["headers"] as? [String: String])?["X-Chain"]
    }

    func testATasksOwnInterceptorRunsAfterTheManagersAndOnlyForThatTask() throws {
        let manager = makeManager(interceptor: HeaderInterceptor.chain("manager"))
        let url = try HTTPBin.url("/headers")
        let tagged = try complete { handler in
            let task = try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)
            manager.setInterceptor(HeaderInterceptor.chain("task"), for: task)
            manager.resume(task)
        }
        let plain = try complete { handler in manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)) }
        XCTAssertEqual(try chainHeader(of: tagged), "manager,task")
        XCTAssertEqual(try chainHeader(of: plain), "manager")
    }

    func testAnAdaptationThatThrowsCompletesTheTaskWithItsErrorAndSendsNothing() throws {
        let id = FaultServer.uniqueID()
        let manager = makeManager(interceptor: Failing())
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try FaultServer.sequence(id, "200")), completionHandler: handler))
        }
        XCTAssertTrue(completion.error is AdaptationFailed, "\(String(describing: completion.error))")
        XCTAssertEqual(try FaultServer.log(id).count, 0)
    }
}
