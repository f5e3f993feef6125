import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// How a manager applies its interceptors and a task's own, seen in the requests a stub
/// transport records.
final class RequestInterceptorTests: XCTestCase {
    private struct AdaptationFailed: Error {}

    private struct Failing: RequestInterceptor {
        func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { throw AdaptationFailed() }
    }

    private let url = URL(string: "https://api.example.com/v1/items")!

    /// A manager on `stubs` with `interceptor`, invalidated when the test ends.
    private func manager(_ stubs: StubTransport, interceptor: any RequestInterceptor) -> URLSessionManager {
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.interceptor = interceptor
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testATasksOwnInterceptorRunsAfterTheManagersAndOnlyForThatTask() throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/items").reply(.text("[]"))
        let manager = manager(stubs, interceptor: HeaderInterceptor.chain("manager"))
        _ = try complete { handler in
            let task = try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)
            manager.setInterceptor(HeaderInterceptor.chain("task"), for: task)
            manager.resume(task)
        }
        _ = try complete { handler in manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)) }
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "X-Chain") }, ["manager,task", "manager"])
    }

    func testAnAdaptationThatThrowsCompletesTheTaskWithItsErrorAndSendsNothing() throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/items").reply(.text("[]"))
        let manager = manager(stubs, interceptor: Failing())
        let completion = try complete { handler in manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)) }
        XCTAssertTrue(completion.error is AdaptationFailed, "\(String(describing: completion.error))")
        XCTAssertEqual(stubs.requests.count, 0)
    }
}
