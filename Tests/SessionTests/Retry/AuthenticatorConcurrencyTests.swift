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

/// An `Authenticator` under 50 concurrent requests whose token has expired, against a stubbed
/// service whose protected resource takes only the newest token its token route issued.
final class AuthenticatorConcurrencyTests: XCTestCase {
    private struct RefreshFailed: Error, Equatable {}

    private static let concurrentRequests = 50
    private static let base = URL(string: "https://api.example.com")!

    /// The service: `/token` issues `t1`, `t2`, … after `tokenDelay` seconds; `/protected`
    /// answers 200 to the newest token and 401 to any other.
    private final class Service: Sendable {
        let stubs = StubTransport()
        let tokens: StubRoute
        private let issued = Locked(0)

        init(tokenDelay: TimeInterval) {
            tokens = stubs.on("GET", "/token")
            tokens.reply { [issued] _ in
                StubReply.text("t\(issued.withLock { $0 += 1; return $0 })").delayed(by: tokenDelay)
            }
            stubs.on("GET", "/protected").reply { [issued] request in
                let newest = issued.withLock { $0 }
                return .status(newest > 0 && request.value(forHeader: "Authorization") == "Bearer t\(newest)" ? 200 : 401)
            }
        }

        /// The Authorization header of every request to the protected resource, in order.
        var protectedAuthorizations: [String?] {
            stubs.requests.filter { $0.path == "/protected" }.map { $0.value(forHeader: "Authorization") }
        }

        /// A manager on the service, invalidated when `test` ends.
        func manager(for test: XCTestCase) -> URLSessionManager {
            let manager = URLSessionManager(transport: stubs.transport)
            manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
            test.addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
            return manager
        }

        /// A new token, fetched with `manager` (not the authenticated one, which waits for it).
        func fetchToken(with manager: URLSessionManager) async throws -> String {
            String(decoding: try await manager.data(for: URLRequest(url: AuthenticatorConcurrencyTests.base.appendingPathComponent("token"))).value, as: UTF8.self)
        }
    }

    private func bearer(_ refresh: @escaping Authenticator<String>.Refresh) -> Authenticator<String> {
        Authenticator(credential: "expired", apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: refresh)
    }

    /// Sends the 50 requests at once and returns their completions.
    private func sendConcurrently(through manager: URLSessionManager) throws -> [Completion] {
        let recorder = CompletionRecorder(count: Self.concurrentRequests)
        let url = Self.base.appendingPathComponent("protected")
        for _ in 0..<Self.concurrentRequests {
            manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler))
        }
        wait(for: [recorder.expectation], timeout: 60)
        return recorder.completions
    }

    func testFiftyRequestsWithAnExpiredTokenShareOneRefreshAndAllSucceed() throws {
        let service = Service(tokenDelay: 0.3)
        let tokens = service.manager(for: self)
        let refreshes = Locked(0)
        let authenticator = bearer { _ in
            refreshes.withLock { $0 += 1 }
            return try await service.fetchToken(with: tokens)
        }
        let manager = service.manager(for: self)
        manager.interceptor = authenticator
        let completions = try sendConcurrently(through: manager)
        XCTAssertEqual(completions.count, Self.concurrentRequests)
        XCTAssertEqual(completions.compactMap(\.error).map { "\($0)" }, [])
        XCTAssertEqual(completions.map(\.status), Array(repeating: 200, count: Self.concurrentRequests))
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertEqual(authenticator.refreshCount, 1)
        XCTAssertEqual(authenticator.credential, "t1")
        XCTAssertEqual(service.tokens.callCount, 1, "one refresh reached the service")
        let sent = service.protectedAuthorizations
        XCTAssertEqual(sent.filter { $0 == "Bearer t1" }.count, Self.concurrentRequests, "each request succeeded once with the new token")
        XCTAssertLessThanOrEqual(sent.filter { $0 == "Bearer expired" }.count, Self.concurrentRequests,
                                 "no request sent the stale token twice")
        XCTAssertEqual(sent.count, sent.filter { $0 == "Bearer t1" || $0 == "Bearer expired" }.count)
    }

    func testAFailingRefreshFailsEveryRequestWithItsError() throws {
        let service = Service(tokenDelay: 0)
        let authenticator = bearer { _ in
            try await Task.sleep(nanoseconds: 500_000_000)
            throw RefreshFailed()
        }
        let manager = service.manager(for: self)
        manager.interceptor = authenticator
        let completions = try sendConcurrently(through: manager)
        XCTAssertEqual(completions.count, Self.concurrentRequests)
        XCTAssertEqual(completions.filter { $0.error is RefreshFailed }.count, Self.concurrentRequests,
                       "\(completions.map { String(describing: $0.error) }.prefix(3))")
        XCTAssertGreaterThanOrEqual(authenticator.refreshCount, 1)
        XCTAssertEqual(authenticator.credential, "expired", "a failed refresh keeps no new credential")
    }

    func testATokenKnownToBeStaleIsRefreshedBeforeTheNextRequestIsSent() throws {
        let service = Service(tokenDelay: 0)
        let tokens = service.manager(for: self)
        let authenticator = Authenticator<String>(credential: "expired", apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: { _ in try await service.fetchToken(with: tokens) }, needsRefresh: { $0 == "expired" })
        let manager = service.manager(for: self)
        manager.interceptor = authenticator
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: Self.base.appendingPathComponent("protected")), completionHandler: handler))
        }
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(service.protectedAuthorizations, ["Bearer t1"])
    }
}
