import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `AttemptEnd`'s OpenTelemetry values, without a server.
final class AttemptEndTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/a")!

    private func end(status: Int? = nil, error: (any Error)? = nil, protocolName: String? = nil) -> AttemptEnd {
        AttemptEnd(
            attempt: AttemptStart(resendCount: 0, retryAttempt: 1, followsRedirect: false), request: URLRequest(url: url),
            response: status.map { HTTPURLResponse(url: url, statusCode: $0, httpVersion: "HTTP/1.1", headerFields: nil)! }, error: error,
            next: .completion, networkProtocolName: protocolName, duration: 0.25)
    }

    func testASuccessHasNoErrorType() {
        XCTAssertNil(end(status: 304).errorType)
    }

    func testAClientOrServerErrorStatusIsItsOwnErrorType() {
        XCTAssertEqual([404, 503].map { end(status: $0).errorType }, ["404", "503"])
    }

    func testAURLErrorIsNamedByItsCode() {
        XCTAssertEqual(end(error: URLError(.timedOut)).errorType, "URLError.timedOut")
    }

    func testAURLErrorOfACodeWithoutANameShowsTheNumber() {
        XCTAssertEqual(AttemptEnd.errorType(of: URLError(.backgroundSessionWasDisconnected)), "URLError(-997)")
    }

    func testAnErrorCaseWithValuesIsNamedWithoutThem() {
        let response = HTTPURLResponse(url: url, statusCode: 302, httpVersion: nil, headerFields: nil)!
        let refused = SessionError.redirectRefused(reason: "secret reason https://user:pw@example.com", response: response)
        XCTAssertEqual(AttemptEnd.errorType(of: refused), "SessionError.redirectRefused")
    }

    func testAnErrorCaseWithoutValuesIsNamed() {
        XCTAssertEqual(AttemptEnd.errorType(of: SessionError.sessionInvalidated), "SessionError.sessionInvalidated")
    }

    func testAnErrorThatIsNoEnumerationIsNamedByItsType() {
        struct Broken: Error {}
        XCTAssertEqual(AttemptEnd.errorType(of: Broken()), "Broken")
    }

    func testAnErrorWinsOverTheStatus() {
        XCTAssertEqual(end(status: 200, error: URLError(.networkConnectionLost)).errorType, "URLError.networkConnectionLost")
    }

    func testTheProtocolVersionIsOpenTelemetrysSpelling() {
        XCTAssertEqual(["http/1.1", "h2", "http/1.0", "spdy/3"].map { end(protocolName: $0).networkProtocolVersion }, ["1.1", "2", "1.0", nil])
    }
}
