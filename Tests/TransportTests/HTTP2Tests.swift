import AFLocking
import AFSecurity
import AFSerialization
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// HTTP/2 against nginx in front of httpbin: its access log names the connection (nginx's
/// serial number) and the protocol of every request.
final class HTTP2Tests: XCTestCase {
    private struct Outcome {
        var response: HTTPURLResponse?
        var body: Data?
        var error: (any Error)?
        var metrics: TaskMetrics?
    }

    private func manager(_ version: HTTPVersion = .automatic) throws -> URLSessionManager {
        let manager = URLSessionManager()
        manager.httpVersion = version
        manager.responseSerializer = HTTPResponseSerializer()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [Fixtures.certificate("root-ca")]))
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// Runs `requests` at once and returns each one's outcome, in order; `started` sees the tasks.
    private func run(_ requests: [URLRequest], on manager: URLSessionManager, started: ([URLSessionTask]) -> Void = { _ in }) throws -> [Outcome] {
        let outcomes = Locked([ObjectIdentifier: Outcome]())
        // The metrics arrive on the delegate queue, the completions on the completion queue.
        let group = DispatchGroup()
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, task, metrics in
            outcomes.withLock { $0[ObjectIdentifier(task), default: Outcome()].metrics = metrics }
            group.leave()
        }
        manager.overrides = overrides
        let tasks = try requests.map { request in
            group.enter()
            group.enter()
            let box = Locked<URLSessionTask?>(nil)
            let task = try manager.dataTask(with: request) { response, object, error in
                if let task = box.withLock({ $0 }) {
                    outcomes.withLock {
                        $0[ObjectIdentifier(task), default: Outcome()].response = response as? HTTPURLResponse
                        $0[ObjectIdentifier(task), default: Outcome()].body = object as? Data
                        $0[ObjectIdentifier(task), default: Outcome()].error = error
                    }
                }
                group.leave()
            }
            box.withLock { $0 = task }
            return task
        }
        tasks.forEach { $0.resume() }
        started(tasks)
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "tasks still running")
        manager.completionGroup.wait()
        return tasks.map { task in outcomes.withLock { $0[ObjectIdentifier(task)] ?? Outcome() } }
    }

    private func markedRequests(_ count: Int, at base: URL, path: String = "/get") -> (marker: String, requests: [URLRequest]) {
        let marker = UUID().uuidString
        return (marker, (0..<count).map { URLRequest(url: URL(string: base.absoluteString + "\(path)?probe=\(marker)&n=\($0)")!) })
    }

    func testConcurrentRequestsToOneOriginShareOneHTTP2Connection() throws {
        let server = try HTTP2Server.running()
        let (marker, requests) = markedRequests(100, at: server.tlsURL)
        let outcomes = try run(requests, on: try manager())
        XCTAssertEqual(outcomes.filter { $0.response?.statusCode == 200 }.count, 100, "\(outcomes.compactMap(\.error).first.map { "\($0)" } ?? "")")
        XCTAssertEqual(Set(outcomes.map(\.metrics?.networkProtocolName)), ["h2"])
        let logged = server.requests(containing: marker, count: 100)
        XCTAssertEqual(logged.count, 100)
        XCTAssertEqual(Set(logged.map(\.protocol)), ["HTTP/2.0"])
        XCTAssertEqual(Set(logged.map(\.connection)).count, 1, "connections: \(Set(logged.map(\.connection)))")
    }

    func testHTTP1_1UsesSeveralConnections() throws {
        let server = try HTTP2Server.running()
        let (marker, requests) = markedRequests(100, at: server.tlsURL)
        let outcomes = try run(requests, on: try manager(.http1_1))
        XCTAssertEqual(outcomes.filter { $0.response?.statusCode == 200 }.count, 100)
        XCTAssertEqual(Set(outcomes.map(\.metrics?.networkProtocolName)), ["http/1.1"])
        let logged = server.requests(containing: marker, count: 100)
        XCTAssertEqual(Set(logged.map(\.protocol)), ["HTTP/1.1"])
        XCTAssertGreaterThan(Set(logged.map(\.connection)).count, 1)
    }

    func testPriorKnowledgeSpeaksHTTP2OverCleartext() throws {
        let server = try HTTP2Server.running()
        let (marker, requests) = markedRequests(10, at: server.cleartextURL)
        let outcomes = try run(requests, on: try manager(.http2PriorKnowledge))
        XCTAssertEqual(outcomes.filter { $0.response?.statusCode == 200 }.count, 10, "\(outcomes.compactMap(\.error))")
        XCTAssertEqual(Set(outcomes.map(\.metrics?.networkProtocolName)), ["h2"])
        XCTAssertEqual(Set(server.requests(containing: marker, count: 10).map(\.protocol)), ["HTTP/2.0"])
    }

    func testCleartextWithoutPriorKnowledgeStaysOnHTTP1() throws {
        let server = try HTTP2Server.running()
        let outcome = try run([URLRequest(url: try HTTPBin.url("/get"))], on: try manager())[0]
        XCTAssertEqual(outcome.metrics?.networkProtocolName, "http/1.1")
        _ = server
    }

    func testStreamedUploadOverHTTP2ArrivesWhole() throws {
        let server = try HTTP2Server.running()
        let body = Data((0..<300_000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        var request = URLRequest(url: server.tlsURL.appendingPathComponent("post"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: body)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let outcome = try run([request], on: try manager())[0]
        XCTAssertEqual(outcome.response?.statusCode, 200, "\(String(describing: outcome.error))")
        let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: outcome.body ?? Data()) as? [String: Any])
        XCTAssertEqual(echo["data"] as? String, String(decoding: body, as: UTF8.self))
        XCTAssertEqual(outcome.metrics?.networkProtocolName, "h2")
    }

    func testDownloadOverHTTP2PausedByTheReceiveWindowArrivesWhole() throws {
        let server = try HTTP2Server.running()
        let manager = try manager()
        manager.receiveWindowLimit = 8 * 1024
        let path = "/bytes/102400?seed=7"
        let expected = try run([URLRequest(url: try HTTPBin.url(path))], on: try self.manager())[0].body
        let outcome = try run([URLRequest(url: URL(string: server.tlsURL.absoluteString + path)!)], on: manager)[0]
        XCTAssertEqual(outcome.body?.count, 102_400)
        XCTAssertEqual(outcome.body, expected)
        XCTAssertEqual(outcome.metrics?.networkProtocolName, "h2")
    }

    func testRedirectIsFollowedOnTheSameHTTP2Connection() throws {
        let server = try HTTP2Server.running()
        let marker = UUID().uuidString
        let url = URL(string: server.tlsURL.absoluteString + "/redirect-to?url=/get%3Fprobe%3D\(marker)")!
        let outcome = try run([URLRequest(url: url)], on: try manager())[0]
        XCTAssertEqual(outcome.response?.statusCode, 200)
        XCTAssertEqual(outcome.response?.url?.path, "/get")
        XCTAssertEqual(outcome.metrics?.redirectCount, 1)
        XCTAssertEqual(outcome.metrics?.networkProtocolName, "h2")
        XCTAssertEqual(server.requests(containing: marker, count: 2).count, 2, "the redirect and its target")
    }

    func testCancellingOneStreamLeavesTheOthersOnTheConnection() throws {
        let server = try HTTP2Server.running()
        let marker = UUID().uuidString
        let requests = (0..<6).map { URLRequest(url: URL(string: server.tlsURL.absoluteString + "/drip?duration=1&numbytes=4&delay=0&probe=\(marker)&n=\($0)")!) }
        let outcomes = try run(requests, on: try manager()) { tasks in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.4) { tasks[0].cancel() }
        }
        XCTAssertEqual((outcomes[0].error as? URLError)?.code, .cancelled)
        for outcome in outcomes.dropFirst() {
            XCTAssertEqual(outcome.response?.statusCode, 200, "\(String(describing: outcome.error))")
            XCTAssertEqual(outcome.body, Data(repeating: UInt8(ascii: "*"), count: 4))
        }
        let connections = Set(server.requests(containing: marker, count: 6).map(\.connection))
        XCTAssertEqual(connections.count, 1, "one connection for all six streams")
    }
}
