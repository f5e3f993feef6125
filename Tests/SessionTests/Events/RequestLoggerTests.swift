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

/// `RequestLogger` on a manager against an in-process server, a stub transport and a closed port: one line per
/// request, no secret.
final class RequestLoggerTests: XCTestCase {
    private func logger(_ lines: Locked<[String]>, headers: Bool = true) -> RequestLogger {
        RequestLogger(redaction: Redaction(additionalHeaders: ["X-Tenant-Secret"]), includesHeaders: headers) { line in
            lines.withLock { $0.append(line) }
        }
    }

    func testEveryCredentialHeaderIsRedacted() throws {
        let lines = Locked<[String]>([])
        let logger = logger(lines)
        let manager = makeManager()
        manager.eventMonitors = [logger]
        var request = URLRequest(url: try makeServer().url("/get?access_token=q-secret-1&page=2"))
        let secrets = ["Authorization": "Bearer h-secret-2", "Cookie": "session=h-secret-3", "Proxy-Authorization": "Basic h-secret-4",
                       "X-Api-Key": "h-secret-5", "X-Tenant-Secret": "h-secret-6"]
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("visible-value", forHTTPHeaderField: "X-Trace")
        let completion = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        XCTAssertEqual(completion.status, 200)
        logger.queue.sync {}
        let output = lines.withLock { $0 }.joined(separator: "\n")
        XCTAssertEqual(lines.withLock { $0.count }, 1, output)
        XCTAssertFalse(output.contains("secret-"), output)
        XCTAssertTrue(output.contains("X-Trace: visible-value"), output)
        XCTAssertTrue(output.contains("Authorization: <redacted>"), output)
        XCTAssertTrue(output.hasPrefix("GET http://127.0.0.1:"), output)
        XCTAssertTrue(output.contains("/get?access_token=%3Credacted%3E&page=2 -> 200, "), output)
        XCTAssertTrue(output.hasSuffix("attempt 1; headers: Authorization: <redacted>, Cookie: <redacted>, Proxy-Authorization: <redacted>, "
                                       + "X-Api-Key: <redacted>, X-Tenant-Secret: <redacted>, X-Trace: visible-value"), output)
    }

    func testTheAdaptedCredentialIsRedactedAndEachRetryLogged() throws {
        let lines = Locked<[String]>([])
        let logger = logger(lines)
        let stubs = StubTransport()
        stubs.on("GET", "/v1/report").replies([.status(503), .text("ready")])
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.interceptor = InterceptorChain([HeaderInterceptor(name: "Authorization") { _ in "Bearer adapted-secret" }, RetryPolicy.immediate])
        manager.eventMonitors = [logger]
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: URL(string: "https://api.example.com/v1/report")!), completionHandler: handler))
        }
        XCTAssertEqual(completion.status, 200)
        logger.queue.sync {}
        let output = lines.withLock { $0 }
        XCTAssertEqual(output.count, 2, "\(output)")
        XCTAssertTrue(output.first?.hasPrefix("GET https://api.example.com/v1/report -> 503, ") ?? false, "\(output)")
        XCTAssertTrue(output.first?.contains("attempt 1; retrying in 0.0 ms") ?? false, "\(output)")
        XCTAssertTrue(output.last?.hasPrefix("GET https://api.example.com/v1/report -> 200, ") ?? false, "\(output)")
        XCTAssertTrue(output.last?.contains("attempt 2; headers: Authorization: <redacted>") ?? false, "\(output)")
        XCTAssertFalse(output.joined().contains("adapted-secret"))
    }

    func testAFailureIsLoggedWithItsCode() throws {
        let lines = Locked<[String]>([])
        let logger = logger(lines, headers: false)
        let manager = makeManager()
        manager.eventMonitors = [logger]
        let port = try XCTUnwrap(UnusedPort.find())
        _ = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!), completionHandler: handler))
        }
        logger.queue.sync {}
        let output = lines.withLock { $0 }
        XCTAssertEqual(output.count, 1)
        XCTAssertTrue(output.first?.contains("-> error -1004") ?? false, "\(output)")
    }
}
