@testable import AFSession
import AFNetworkingTesting
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Nothing goes on the wire that could smuggle a line: methods and header names are tokens, no
/// value holds CR, LF or NUL, and timeouts are numbers of seconds; checked before a task is made,
/// on both transports.
final class RequestValidationTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1/x")!

    private func problem(_ request: URLRequest, timeout: TimeInterval? = nil) -> String? {
        RequestValidation.problem(of: request, timeouts: ["timeout": timeout])
    }

    private func request(method: String? = nil, headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    func testOrdinaryRequestsPass() {
        XCTAssertNil(problem(request(method: "GET", headers: ["Accept": "*/*", "X-Empty": ""])))
        XCTAssertNil(problem(request(method: "PROPFIND")))
        XCTAssertNil(problem(request(method: "M-SEARCH"), timeout: .infinity))
        XCTAssertNil(RequestValidation.problem(ofAdditionalHeaders: ["User-Agent": "afn"]))
    }

    func testMethodsMustBeTokens() {
        XCTAssertEqual(problem(request(method: "GET /x HTTP/1.1\r\nHost: a\r\n\r\nGET")),
                       #"the method "GET /x HTTP/1.1\r\nHost: a\r\n\r\nGET" is not an RFC 9110 token"#)
        XCTAssertNotNil(problem(request(method: "GE T")))
        XCTAssertNotNil(problem(request(method: "GET\u{0}")))
        XCTAssertNotNil(problem(request(method: "GÉT")))
    }

    func testAnEmptyMethodIsRefused() {
        var empty = URLRequest(url: url)
        empty.httpMethod = ""
        // Foundation may read back "GET" for an empty method; either way nothing empty is sent.
        XCTAssertTrue(empty.httpMethod == "GET" || problem(empty) != nil)
        XCTAssertFalse(RequestValidation.isToken(""))
    }

    func testHeaderNamesMustBeTokens() {
        XCTAssertNotNil(problem(request(headers: ["X-A\r\nInjected": "1"])))
        XCTAssertNotNil(problem(request(headers: ["X A": "1"])))
    }

    func testHeaderValuesMustNotHoldLineBreaksOrNUL() {
        // URLRequest on Linux drops a value with a line break or NUL itself; the configuration's
        // additional headers reach the wire as given.
        XCTAssertEqual(RequestValidation.problem(ofAdditionalHeaders: ["X-Split": "a\r\nInjected: b"]),
                       "httpAdditionalHeaders: the value of X-Split holds CR, LF or NUL")
        XCTAssertNotNil(RequestValidation.problem(ofAdditionalHeaders: ["X-Nul": "a\u{0}b"]))
        XCTAssertNotNil(RequestValidation.problem(ofAdditionalHeaders: ["X-Bad\nName": "1"]))
    }

    func testTimeoutsMustBeNumbersOfSecondsAtLeastZero() {
        XCTAssertEqual(problem(request(), timeout: .nan), "timeout is nan: a timeout is a number of seconds, at least 0")
        XCTAssertNotNil(problem(request(), timeout: -1))
        XCTAssertNil(problem(request(), timeout: .infinity))
        XCTAssertNil(problem(request(), timeout: .greatestFiniteMagnitude))
    }

    // MARK: Through the manager, on the transport under test, against the in-process TestServer

    private func assertRefusedBeforeSending(_ make: (URLSessionManager) throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        let manager = makeManager()
        XCTAssertThrowsError(try make(manager), file: file, line: line) { error in
            guard case .invalidRequest? = error as? SessionError else { return XCTFail("\(error)", file: file, line: line) }
        }
    }

    func testACRLFMethodFailsTaskCreation() throws {
        let server = try makeServer()
        var smuggling = URLRequest(url: server.url("/bytes/1"))
        smuggling.httpMethod = "GET /bytes/2 HTTP/1.1\r\nHost: x\r\n\r\nGET"
        assertRefusedBeforeSending { _ = try $0.dataTask(with: smuggling) }
    }

    func testAConfigurationHeaderWithALineBreakFailsTaskCreation() throws {
        let server = try makeServer()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Split": "a\r\nX-Injected: 1"]
        let manager = URLSessionManager(configuration: configuration, transport: .underTest)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        XCTAssertThrowsError(try manager.dataTask(with: URLRequest(url: server.url("/headers")))) { error in
            guard case .invalidRequest? = error as? SessionError else { return XCTFail("\(error)") }
        }
    }

    func testANaNTimeoutFailsTaskCreation() throws {
        let server = try makeServer()
        var request = URLRequest(url: server.url("/get"))
        request.timeoutInterval = .nan
        assertRefusedBeforeSending { _ = try $0.dataTask(with: request) }
    }

    func testANegativeConnectTimeoutFailsTaskCreation() throws {
        let server = try makeServer()
        let request = URLRequest(url: server.url("/get"))
        assertRefusedBeforeSending { manager in
            manager.connectTimeout = -1
            _ = try manager.dataTask(with: request)
        }
    }

    func testANaNTotalTimeoutIsRefused() throws {
        let server = try makeServer()
        let manager = makeManager()
        let task = try manager.dataTask(with: URLRequest(url: server.url("/get")))
        XCTAssertThrowsError(try manager.setTotalTimeout(.nan, for: task))
        XCTAssertThrowsError(try manager.setTotalTimeout(-5, for: task))
    }

    func testAnInfiniteTimeoutMeansNoLimit() throws {
        let server = try makeServer()
        for seconds in [TimeInterval.infinity, .greatestFiniteMagnitude, 1e300] {
            var request = URLRequest(url: server.url("/get"))
            request.timeoutInterval = seconds
            let manager = makeManager()
            manager.connectTimeout = seconds
            let result = try complete { handler in
                let task = try manager.dataTask(with: request, completionHandler: handler)
                try manager.setTotalTimeout(seconds, for: task)
                manager.resume(task)
            }
            XCTAssertNil(result.error, "\(seconds)")
        }
        XCTAssertEqual(server.requests.count, 3)
    }
}
