import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// An `Authenticator`'s rule for a request refused again after its refresh, on a stubbed service.
final class AuthenticatorTests: XCTestCase {
    /// A service whose protected resource refuses every token, and a manager on it.
    private func refusingService(interceptor: (Authenticator<String>) -> any RequestInterceptor)
    -> (manager: URLSessionManager, route: StubRoute, authenticator: Authenticator<String>) {
        let stubs = StubTransport()
        let route = stubs.on("GET", "/protected")
        route.reply(.status(401))
        let refreshed = Locked(0)
        let authenticator = Authenticator<String>(credential: "t0", apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: { _ in "t\(refreshed.withLock { $0 += 1; return $0 })" })
        let manager = URLSessionManager(transport: stubs.transport)
        manager.interceptor = interceptor(authenticator)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return (manager, route, authenticator)
    }

    private func assertRefusedAfterOneRefresh(_ interceptor: (Authenticator<String>) -> any RequestInterceptor) async throws {
        let service = refusingService(interceptor: interceptor)
        do {
            _ = try await service.manager.data(for: URLRequest(url: URL(string: "https://api.example.com/protected")!))
            XCTFail("a request refused after its refresh succeeded")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.statusCode, 401)
        }
        XCTAssertEqual(service.route.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer t0", "Bearer t1"])
        XCTAssertEqual(service.authenticator.refreshCount, 1)
    }

    func testARequestRefusedAgainAfterItsRefreshIsNotRetried() async throws {
        try await assertRefusedAfterOneRefresh { $0 }
    }

    func testARequestRefusedAgainAfterItsRefreshIsNotRetriedBesideARetryPolicy() async throws {
        try await assertRefusedAfterOneRefresh { InterceptorChain([$0, RetryPolicy()]) }
    }
}
