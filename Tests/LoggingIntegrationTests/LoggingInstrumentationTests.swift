#if Logging
import AFLocking
import AFNetworking
import AFNetworkingLogging
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import XCTest

/// The lines a `LoggingInstrumentation` writes, on a stub transport.
final class LoggingInstrumentationTests: XCTestCase {
    private let lines = Locked<[RecordingLogHandler.Line]>([])
    private let stubs = StubTransport()

    private func manager(logging: Bool = true) -> URLSessionManager {
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        if logging { manager.instrumentation = LoggingInstrumentation(logger: RecordingLogHandler.logger(recordingInto: lines)) }
        return manager
    }

    private var recorded: [RecordingLogHandler.Line] { lines.withLock { $0 } }

    func testARetriedTaskLogsEachAttemptAtTraceTheRetryAtWarningAndTheCompletionAtDebug() async throws {
        stubs.on("GET", "https://api.example.com/v1/report").replies([.status(503), .text("ready")])
        let manager = manager()
        manager.interceptor = RetryPolicy(budget: nil, jitter: { _ in 0 })
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/v1/report")!))
        XCTAssertEqual(recorded.map { "\($0.level) \($0.message)" }, [
            "trace sending request", "warning attempt failed; retrying", "trace sending request", "trace attempt ended",
            "debug request completed",
        ])
        XCTAssertEqual(recorded.map { $0.metadata["http.request.resend_count"] ?? "-" }, ["0", "0", "1", "1", "-"])
        XCTAssertEqual(recorded[1].metadata["http.response.status_code"], "503")
        XCTAssertEqual(recorded[1].metadata["error.type"], "503")
        XCTAssertEqual(recorded[4].metadata["http.response.status_code"], "200")
        XCTAssertEqual(recorded[4].metadata["attempts"], "2")
        XCTAssertEqual(recorded[4].metadata["http.response.body.size"], "5")
    }

    func testEveryLineOfATaskCarriesItsOwnRequestID() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!))
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!))
        let ids = recorded.map { "\($0.metadata[LoggingInstrumentation.requestIDKey] ?? "")" }
        XCTAssertEqual(ids.count, 6)
        XCTAssertEqual(Set(ids[0..<3]).count, 1)
        XCTAssertEqual(Set(ids[3..<6]).count, 1)
        XCTAssertNotEqual(ids[0], ids[3])
        XCTAssertEqual(ids[0].count, 36)
    }

    func testNoSecretOfTheURLOrHeadersReachesALine() async throws {
        stubs.on("GET", "https://api.example.com/v1/items").reply(.text("ok"))
        let manager = manager()
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/items?access_token=s3cret-q&page=2")!)
        request.setValue("Bearer s3cret-h", forHTTPHeaderField: "Authorization")
        request.setValue("s3cret-k", forHTTPHeaderField: "X-Api-Key")
        request.setValue("text/plain", forHTTPHeaderField: "Accept")
        _ = try await manager.data(for: request)
        XCTAssertEqual(recorded.count, 3)
        XCTAssertEqual(recorded.filter { $0.text.contains("s3cret") }.map(\.text), [])
        XCTAssertEqual(recorded[0].metadata["url.full"], "https://api.example.com/v1/items?access_token=%3Credacted%3E&page=2")
        XCTAssertEqual(recorded[0].metadata["http.request.header"],
                       .dictionary(["Accept": "text/plain", "Authorization": "<redacted>", "X-Api-Key": "<redacted>"]))
    }

    func testACallsLoggerTakesTheCallsTasksInsteadOfTheManagers() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        let manager = manager()
        let callLines = Locked<[RecordingLogHandler.Line]>([])
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!),
                                   logger: RecordingLogHandler.logger(recordingInto: callLines))
        XCTAssertEqual(callLines.withLock { $0.map(\.message) }, ["sending request", "attempt ended", "request completed"])
        XCTAssertEqual(recorded, [])
    }

    func testAManagerWithoutALoggerLogsNothingUntilACallGivesOne() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        let manager = manager(logging: false)
        manager.instrumentation = LoggingInstrumentation()
        let callLines = Locked<[RecordingLogHandler.Line]>([])
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!))
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!),
                                   logger: RecordingLogHandler.logger(recordingInto: callLines))
        XCTAssertEqual(callLines.withLock { $0.count }, 3)
    }

    func testARedirectFollowedIsLoggedAsTheEndOfItsAttempt() async throws {
        stubs.on("GET", "https://api.example.com/old").reply(.redirect(to: "https://api.example.com/new"))
        stubs.on("GET", "https://api.example.com/new").reply(.text("moved"))
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/old")!))
        XCTAssertEqual(recorded.map { "\($0.message) \($0.metadata["url.full"] ?? "-") \($0.metadata["http.response.status_code"] ?? "-")" }, [
            "sending request https://api.example.com/old -", "attempt redirected https://api.example.com/old 302",
            "sending request https://api.example.com/new -", "attempt ended https://api.example.com/new 200",
            "request completed https://api.example.com/new 200",
        ])
    }

    func testARedirectNotFollowedIsAWarning() async throws {
        stubs.on("GET", "https://api.example.com/loop").reply(.redirect(to: "https://api.example.com/loop"))
        let manager = manager()
        do {
            _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/loop")!))
            XCTFail("a redirect loop succeeded")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .httpTooManyRedirects)
        }
        XCTAssertEqual(recorded.last?.level, .warning)
        XCTAssertEqual(recorded.last?.message, "request failed: redirect not followed")
        XCTAssertEqual(recorded.last?.metadata["error.type"], "URLError.httpTooManyRedirects")
    }

    func testALoggerAboveWarningTakesNoLineSoTheTaskGetsNoObserver() {
        let request = URLRequest(url: URL(string: "https://api.example.com/a")!)
        var logger = RecordingLogHandler.logger(recordingInto: lines)
        logger.logLevel = .error
        XCTAssertNil(LoggingInstrumentation(logger: logger).observer(for: request))
        XCTAssertNil(LoggingInstrumentation().observer(for: request))
        logger.logLevel = .warning
        XCTAssertNotNil(LoggingInstrumentation(logger: logger).observer(for: request))
    }
}
#endif
