import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// An `Authenticator` under 50 concurrent requests whose token has expired, against the fault
/// server's protected resource, which takes only the newest token it issued.
final class AuthenticatorConcurrencyTests: XCTestCase {
    private struct RefreshFailed: Error, Equatable {}

    private static let concurrentRequests = 50

    /// Fetches a new token for `id` from the fault server, after `delay` ms there, with a
    /// manager of its own (the authenticated one waits for the refresh).
    private static func fetchToken(_ id: Int, delay: Int, with manager: URLSessionManager) async throws -> String {
        let response = try await manager.data(for: URLRequest(url: try FaultServer.url("/token/\(id)?delay=\(delay)")))
        return String(decoding: response.value, as: UTF8.self)
    }

    private func bearer(_ refresh: @escaping Authenticator<String>.Refresh) -> Authenticator<String> {
        Authenticator(credential: "expired", apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: refresh)
    }

    /// Sends the 50 requests at once and returns their completions.
    private func sendConcurrently(_ id: Int, through manager: URLSessionManager) throws -> [Completion] {
        let recorder = CompletionRecorder(count: Self.concurrentRequests)
        let url = try FaultServer.url("/protected/\(id)")
        for _ in 0..<Self.concurrentRequests {
            manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler))
        }
        wait(for: [recorder.expectation], timeout: 60)
        return recorder.completions
    }

    func testFiftyRequestsWithAnExpiredTokenShareOneRefreshAndAllSucceed() throws {
        let id = FaultServer.uniqueID()
        let tokens = makeManager()
        tokens.responseSerializer = HTTPResponseSerializer()
        let refreshes = Locked(0)
        let authenticator = bearer { _ in
            refreshes.withLock { $0 += 1 }
            return try await Self.fetchToken(id, delay: 300, with: tokens)
        }
        let manager = makeManager()
        manager.interceptor = authenticator
        let completions = try sendConcurrently(id, through: manager)
        XCTAssertEqual(completions.count, Self.concurrentRequests)
        XCTAssertEqual(completions.compactMap(\.error).map { "\($0)" }, [])
        XCTAssertEqual(completions.map(\.status), Array(repeating: 200, count: Self.concurrentRequests))
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertEqual(authenticator.refreshCount, 1)
        XCTAssertEqual(authenticator.credential, "t1")
        XCTAssertEqual(try FaultServer.log(id).filter { $0.path.hasPrefix("/token/") }.count, 1, "one refresh reached the server")
        let sent = try FaultServer.log(id).filter { $0.path.hasPrefix("/protected/") }.map(\.authorization)
        XCTAssertEqual(sent.filter { $0 == "Bearer t1" }.count, Self.concurrentRequests, "each request succeeded once with the new token")
        XCTAssertLessThanOrEqual(sent.filter { $0 == "Bearer expired" }.count, Self.concurrentRequests,
                                 "no request sent the stale token twice")
        XCTAssertEqual(sent.count, sent.filter { $0 == "Bearer t1" || $0 == "Bearer expired" }.count)
    }

    func testAFailingRefreshFailsEveryRequestWithItsError() throws {
        let id = FaultServer.uniqueID()
        let authenticator = bearer { _ in
            try await Task.sleep(nanoseconds: 500_000_000)
            throw RefreshFailed()
        }
        let manager = makeManager()
        manager.interceptor = authenticator
        let completions = try sendConcurrently(id, through: manager)
        XCTAssertEqual(completions.count, Self.concurrentRequests)
        XCTAssertEqual(completions.filter { $0.error is RefreshFailed }.count, Self.concurrentRequests,
                       "\(completions.map { String(describing: $0.error) }.prefix(3))")
        XCTAssertGreaterThanOrEqual(authenticator.refreshCount, 1)
        XCTAssertEqual(authenticator.credential, "expired", "a failed refresh keeps no new credential")
    }

    func testATokenKnownToBeStaleIsRefreshedBeforeTheNextRequestIsSent() throws {
        let id = FaultServer.uniqueID()
        let tokens = makeManager()
        tokens.responseSerializer = HTTPResponseSerializer()
        let authenticator = Authenticator<String>(credential: "expired", apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: { _ in try await Self.fetchToken(id, delay: 0, with: tokens) }, needsRefresh: { $0 == "expired" })
        let manager = makeManager()
        manager.interceptor = authenticator
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try FaultServer.url("/protected/\(id)")), completionHandler: handler))
        }
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(try FaultServer.log(id).filter { $0.path.hasPrefix("/protected/") }.map(\.authorization), ["Bearer t1"])
    }
}
