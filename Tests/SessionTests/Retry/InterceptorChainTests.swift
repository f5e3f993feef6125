import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `InterceptorChain` composes adaptations in order and takes the first retry decision.
final class InterceptorChainTests: XCTestCase {
    private struct Decides: RequestInterceptor {
        let decision: RetryDecision
        func retry(_ context: RetryContext) async -> RetryDecision { decision }
    }

    func testAdaptationsRunInOrder() async throws {
        let chain = InterceptorChain([HeaderInterceptor.chain("a"), HeaderInterceptor.chain("b")])
        let adapted = try await chain.adapt(URLRequest(url: URL(string: "http://127.0.0.1/")!), attempt: 1)
        XCTAssertEqual(adapted.value(forHTTPHeaderField: "X-Chain"), "a,b")
    }

    func testTheFirstDecisionOtherThanDoNotRetryWins() async {
        let chain = InterceptorChain([Decides(decision: .doNotRetry), Decides(decision: .retryAfter(3)), Decides(decision: .retry)])
        let decision = await chain.retry(RetryContext(request: URLRequest(url: URL(string: "http://127.0.0.1/")!), attempt: 1))
        guard case .retryAfter(let delay) = decision else { return XCTFail("\(decision)") }
        XCTAssertEqual(delay, 3)
    }
}
