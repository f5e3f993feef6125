import AFLocking
import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Pooled connections on the libcurl transport: a request that loses the keep-alive race is
/// re-sent on a fresh connection with its body, no request waits behind another's response on
/// plain http, and header values go out as given.
final class ConnectionReuseTests: XCTestCase {
    private func manager() -> URLSessionManager {
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func send(_ request: URLRequest, with manager: URLSessionManager, timeout: TimeInterval = 10) -> (object: (any Sendable)?, error: (any Error)?) {
        let done = expectation(description: "completion")
        let result = Locked<(object: (any Sendable)?, error: (any Error)?)>((nil, nil))
        do {
            manager.resume(try manager.dataTask(with: request) { _, object, error in
                result.withLock { $0 = (object, error) }
                done.fulfill()
            })
        } catch {
            XCTFail("\(error)")
            return (nil, error)
        }
        wait(for: [done], timeout: timeout)
        return result.withLock { $0 }
    }

    func testADataBodyIsResentOnAFreshConnectionWhenThePooledOneWasClosed() throws {
        // The server answers one request a connection and closes the next one unanswered: the
        // keep-alive race, lost every time.
        let manager = manager()
        for method in ["POST", "PUT"] {
            var request = URLRequest(url: try FaultServer.url("/once-per-connection/0"))
            request.httpMethod = method
            request.httpBody = Data("payload".utf8)
            for attempt in 1...2 {
                let result = send(request, with: manager)
                XCTAssertNil(result.error, "\(method) \(attempt): \(String(describing: result.error))")
                XCTAssertEqual(result.object as? Data, Data("ok".utf8))
            }
        }
    }

    func testAFileAndAMultipartBodyAreResentOnAFreshConnectionToo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("body.bin", contents: Data(repeating: 0x61, count: 100_000))
        let manager = manager()
        for attempt in 1...2 {
            var request = URLRequest(url: try FaultServer.url("/once-per-connection/0"))
            request.httpMethod = "PUT"
            let done = expectation(description: "file upload \(attempt)")
            let failure = Locked<(any Error)?>(nil)
            manager.resume(try manager.uploadTask(with: request, fromFile: file) { _, _, error in
                failure.withLock { $0 = error }
                done.fulfill()
            })
            wait(for: [done], timeout: 10)
            XCTAssertNil(failure.withLock { $0 }, "file upload \(attempt)")
        }
        for attempt in 1...2 {
            let multipart = try HTTPRequestSerializer().multipartFormRequest(
                method: "POST", urlString: try FaultServer.url("/once-per-connection/0").absoluteString, parameters: ["a": "1"]
            ) { form in
                try form.appendPart(withFileURL: file, name: "file")
            }
            let result = send(multipart, with: manager)
            XCTAssertNil(result.error, "multipart \(attempt): \(String(describing: result.error))")
        }
    }

    func testAPlainHTTPRequestNeverWaitsBehindAnotherResponseOfTheSameOrigin() throws {
        let manager = manager()
        let slow = expectation(description: "slow")
        manager.resume(try manager.dataTask(with: URLRequest(url: try FaultServer.raw("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", delay: 3000))) { _, _, _ in
            slow.fulfill()
        })
        usleep(200_000)
        var quick = URLRequest(url: try FaultServer.url("/bytes/10"))
        quick.timeoutInterval = 2
        let started = Date()
        let result = send(quick, with: manager, timeout: 5)
        XCTAssertNil(result.error, "\(String(describing: result.error))")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        wait(for: [slow], timeout: 10)
    }

    func testAnEmptyHeaderValueIsSentAsAnEmptyValue() throws {
        var request = URLRequest(url: try HTTPBin.url("/headers"))
        request.setValue("", forHTTPHeaderField: "X-Empty")
        let result = send(request, with: manager())
        let body = try XCTUnwrap(result.object as? Data)
        let headers = try XCTUnwrap((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["headers"] as? [String: String])
        XCTAssertEqual(headers["X-Empty"], "")
    }

    private func assertNextResponseIsItsOwn(after first: URLRequest, file: StaticString = #filePath, line: UInt = #line) throws {
        let manager = manager()
        _ = send(first, with: manager)
        usleep(300_000)
        for size in 10...13 {
            let result = send(URLRequest(url: try FaultServer.url("/bytes/\(size)")), with: manager)
            XCTAssertNil(result.error, "\(String(describing: result.error))", file: file, line: line)
            XCTAssertEqual(result.object as? Data, Data((0..<size).map { UInt8($0) }), "a shifted response", file: file, line: line)
        }
    }

    func testBytesArrivingOnAnIdleConnectionNeverAnswerTheNextRequest() throws {
        try assertNextResponseIsItsOwn(after: URLRequest(url: try FaultServer.url("/extra-after-204/50")))
    }

    func testBytesSentRightAfterA204NeverAnswerTheNextRequest() throws {
        try assertNextResponseIsItsOwn(after: URLRequest(url: try FaultServer.url("/extra-after-204/0")))
    }

    func testABodyAfterAHEADResponseNeverAnswersTheNextRequest() throws {
        var head = URLRequest(url: try FaultServer.url("/head-with-body/0"))
        head.httpMethod = "HEAD"
        try assertNextResponseIsItsOwn(after: head)
    }

    func testAPooledHTTPSConnectionIsReusedUnderThePolicyThatTrustedIt() throws {
        // The policy's evaluation runs in a connection's handshake only; a transfer on the
        // pooled connection takes its response by the mark that evaluation left on it.
        let server = try TLSServer.named("localhost")
        let manager = manager()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [Fixtures.certificate("root-ca")]))
        let reused = Locked<[Bool]>([])
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, _, metrics in
            reused.withLock { $0 += metrics.transactionMetrics.map(\.isReusedConnection) }
        }
        manager.overrides = overrides
        for attempt in 1...3 {
            let result = send(URLRequest(url: server.url("/get")), with: manager)
            XCTAssertNil(result.error, "request \(attempt): \(String(describing: result.error))")
        }
        // Every response was taken; a later one on the pooled connection (the server may still
        // close an idle connection between two requests).
        let connections = reused.withLock { $0 }
        XCTAssertEqual(connections.count, 3)
        XCTAssertTrue(connections.dropFirst().contains(true), "\(connections)")
    }
}
