import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `RetryPolicy`'s decisions, without a server.
final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy(budget: nil, jitter: { $0 })
    private let url = URL(string: "http://127.0.0.1/resource")!

    private func request(_ method: String = "GET", headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    private func response(_ status: Int, headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    private func failure(_ code: URLError.Code, attempt: Int = 1, method: String = "GET", receivedResponseBytes: Bool = false) -> RetryContext {
        RetryContext(request: request(method), error: URLError(code), attempt: attempt, receivedResponseBytes: receivedResponseBytes)
    }

    func testTheRetryableStatusesAreRetried() {
        for status in [408, 429, 500, 502, 503, 504] {
            XCTAssertNotNil(policy.delay(for: RetryContext(request: request(), response: response(status), attempt: 1), now: Date()), "\(status)")
        }
    }

    func testOtherStatusesAreNotRetried() {
        for status in [400, 401, 403, 404, 409, 422, 501, 505] {
            XCTAssertNil(policy.delay(for: RetryContext(request: request(), response: response(status), attempt: 1), now: Date()), "\(status)")
        }
    }

    func testTheRetryableTransportFailuresAreRetried() {
        for code in [URLError.Code.cannotConnectToHost, .timedOut, .dnsLookupFailed, .notConnectedToInternet, .networkConnectionLost] {
            XCTAssertNotNil(policy.delay(for: failure(code), now: Date()), "\(code)")
        }
    }

    func testAConnectionLostAfterResponseBytesIsNotRetried() {
        XCTAssertNil(policy.delay(for: failure(.networkConnectionLost, receivedResponseBytes: true), now: Date()))
    }

    func testOtherTransportFailuresAreNotRetried() {
        for code in [URLError.Code.cannotFindHost, .serverCertificateUntrusted, .cancelled, .badServerResponse, .unsupportedURL] {
            XCTAssertNil(policy.delay(for: failure(code), now: Date()), "\(code)")
        }
    }

    func testOnlyIdempotentMethodsAreRetriedByDefault() {
        for method in ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"] {
            XCTAssertNotNil(policy.delay(for: failure(.timedOut, method: method), now: Date()), method)
        }
        for method in ["POST", "PATCH"] {
            XCTAssertNil(policy.delay(for: failure(.timedOut, method: method), now: Date()), method)
        }
    }

    func testAnIdempotencyKeyMakesAPostRetryable() {
        let context = RetryContext(request: request("POST", headers: ["Idempotency-Key": "k"]), error: URLError(.timedOut), attempt: 1)
        XCTAssertNotNil(policy.delay(for: context, now: Date()))
    }

    func testOptingInRetriesAPost() {
        var policy = self.policy
        policy.retriesNonIdempotentRequests = true
        XCTAssertNotNil(policy.delay(for: failure(.timedOut, method: "POST"), now: Date()))
    }

    func testTwoRetriesAreMadeByDefault() {
        XCTAssertNotNil(policy.delay(for: failure(.timedOut, attempt: 2), now: Date()))
        XCTAssertNil(policy.delay(for: failure(.timedOut, attempt: 3), now: Date()))
    }

    func testTheBackoffBoundDoublesUpToTheCap() {
        let policy = RetryPolicy(backoffBase: 0.5, backoffCap: 3)
        XCTAssertEqual((1...5).map(policy.backoffBound(retry:)), [0.5, 1, 2, 3, 3])
    }

    func testTheDefaultJitterStaysWithinTheBound() {
        let policy = RetryPolicy(backoffBase: 1, budget: nil)
        let delays = (0..<200).compactMap { _ in policy.delay(for: failure(.timedOut), now: Date()) }
        XCTAssertEqual(delays.count, 200)
        XCTAssertTrue(delays.allSatisfy { (0...1).contains($0) })
        XCTAssertGreaterThan(Set(delays).count, 150, "full jitter spreads the retries")
    }

    func testRetryAfterSecondsReplaceTheBackoff() {
        let context = RetryContext(request: request(), response: response(503, headers: ["Retry-After": "7"]), attempt: 1)
        XCTAssertEqual(policy.delay(for: context, now: Date()), 7)
    }

    func testRetryAfterAnHTTPDateWaitsUntilIt() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let context = RetryContext(request: request(), response: response(429, headers: ["Retry-After": "Tue, 14 Nov 2023 22:13:30 GMT"]), attempt: 1)
        XCTAssertEqual(policy.delay(for: context, now: now), 10)
    }

    func testARetryAfterOverTheCapIsNotRetried() {
        let context = RetryContext(request: request(), response: response(503, headers: ["Retry-After": "61"]), attempt: 1)
        XCTAssertNil(policy.delay(for: context, now: Date()))
    }

    func testTheMaximumElapsedTimeStopsRetries() {
        var policy = self.policy
        policy.maximumElapsedTime = 1
        var context = failure(.timedOut)
        context.elapsed = 0.7
        XCTAssertNotNil(policy.delay(for: context, now: Date()), "0.7 + 0.2 fits")
        context.elapsed = 0.9
        XCTAssertNil(policy.delay(for: context, now: Date()), "0.9 + 0.2 does not")
    }

    func testAStalePooledConnectionIsRetriedAtOnceEvenForAPost() async {
        let context = RetryContext(request: request("POST"), error: URLError(.networkConnectionLost), attempt: 1, isReusedConnection: true)
        guard case .retry = await policy.retry(context) else { return XCTFail("expected an immediate retry") }
    }

    func testAOneShotBodyFailsARetryableFailureWithTheReason() async {
        var context = failure(.timedOut)
        context.canReplayBody = false
        guard case .fail(let error) = await policy.retry(context), case .bodyCannotBeReplayed = error as? RetryError else {
            return XCTFail("expected bodyCannotBeReplayed")
        }
    }

    func testASpentBudgetStopsRetries() async {
        let budget = RetryBudget(window: 60, ratio: 0, minimumRetriesPerSecond: 0)
        let policy = RetryPolicy(budget: budget)
        guard case .doNotRetry = await policy.retry(failure(.timedOut)) else { return XCTFail("expected no retry") }
    }
}
