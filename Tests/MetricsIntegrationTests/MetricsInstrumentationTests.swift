#if Metrics
import AFNetworking
import AFNetworkingMetrics
import AFNetworkingTesting
import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MetricsTestKit
import XCTest

/// The metrics a `MetricsInstrumentation` records into its factory, for requests to a
/// `TestServer` on loopback over libcurl.
final class MetricsInstrumentationTests: XCTestCase {
    private let metrics = TestMetrics()

    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    /// Sends `method` to `path` of `base` with `body`; returns the error it failed with, if any.
    @discardableResult
    private func send(_ path: String, to base: URL, method: String = "GET", body: Data? = nil) async -> (any Error)? {
        let manager = URLSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.instrumentation = MetricsInstrumentation(factory: metrics)
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body
        do {
            _ = try await manager.response(for: request, serializer: HTTPResponseSerializer())
            return nil
        } catch {
            return error
        }
    }

    /// Each duration's dimensions as `name=value`, in order, with how many values it has.
    private var durations: [String: Int] {
        Dictionary(metrics.timers(label: MetricsInstrumentation.requestDuration).map {
            ($0.dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: " "), $0.values.count)
        }, uniquingKeysWith: +)
    }

    func testA200RecordsOneDurationWithItsMethodServerStatusAndProtocol() async throws {
        let server = try server { _ in .text("fine") }
        await send("ok", to: server.baseURL)
        XCTAssertEqual(durations, [
            "http.request.method=GET server.address=127.0.0.1 server.port=\(server.port) http.response.status_code=200 "
                + "network.protocol.version=1.1": 1,
        ])
    }

    func testA404RecordsItsStatusAsTheErrorType() async throws {
        let server = try server { _ in .status(404) }
        let error = await send("missing", to: server.baseURL)
        XCTAssertEqual((error as? ResponseSerializationError)?.response?.statusCode, 404)
        XCTAssertEqual(durations, [
            "http.request.method=GET server.address=127.0.0.1 server.port=\(server.port) http.response.status_code=404 error.type=404 "
                + "network.protocol.version=1.1": 1,
        ])
    }

    func testARefusedConnectionRecordsItsErrorTypeAndNoStatus() async throws {
        let stopped = try TestServer()
        let (base, port) = (stopped.baseURL, stopped.port)
        stopped.stop()
        let error = await send("down", to: base)
        XCTAssertEqual((error as? URLError)?.code, .cannotConnectToHost)
        XCTAssertEqual(durations, [
            "http.request.method=GET server.address=127.0.0.1 server.port=\(port) error.type=URLError.cannotConnectToHost": 1,
        ])
    }

    func testEachRedirectHopRecordsADurationOfItsOwn() async throws {
        let server = try server { request in
            request.path == "/old" ? ServerReply(.redirect(to: "/new", status: 301)) : .text("moved")
        }
        await send("old", to: server.baseURL)
        XCTAssertEqual(durations, [
            "http.request.method=GET server.address=127.0.0.1 server.port=\(server.port) http.response.status_code=301 "
                + "network.protocol.version=1.1": 1,
            "http.request.method=GET server.address=127.0.0.1 server.port=\(server.port) http.response.status_code=200 "
                + "network.protocol.version=1.1": 1,
        ])
    }

    func testAMethodHTTPDoesNotDefineIsRecordedAsOther() async throws {
        let server = try server { _ in .text("purged") }
        await send("cache", to: server.baseURL, method: "PURGE")
        XCTAssertEqual(durations, [
            "http.request.method=_OTHER server.address=127.0.0.1 server.port=\(server.port) http.response.status_code=200 "
                + "network.protocol.version=1.1": 1,
        ])
    }

    func testTheActiveRequestsMeterRisesForTheAttemptAndFallsBackToZero() async throws {
        let server = try server { _ in .text("fine") }
        await send("ok", to: server.baseURL)
        let meter = try metrics.expectMeter(MetricsInstrumentation.activeRequests, [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
        ])
        XCTAssertEqual(meter.values, [1, 0])
    }

    func testTheBodySizesOfAnAttemptAreRecordedInBytes() async throws {
        let server = try server { _ in .text("twelve bytes") }
        await send("echo", to: server.baseURL, method: "POST", body: Data("seven b".utf8))
        let dimensions = [
            ("http.request.method", "POST"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("http.response.status_code", "200"), ("network.protocol.version", "1.1"),
        ]
        XCTAssertEqual(try metrics.expectRecorder(MetricsInstrumentation.requestBodySize, dimensions).values, [7])
        XCTAssertEqual(try metrics.expectRecorder(MetricsInstrumentation.responseBodySize, dimensions).values, [12])
    }
}
#endif
