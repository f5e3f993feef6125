import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `ResponseLimits` on the libcurl transfer answered by a stub (no socket): a body past the
/// task's limit stops the transfer and fails the task with `responseLimitExceeded`. The server
/// tests are `ResponseLimitsTests`.
final class ResponseLimitsStubTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/export")!
    private let bytes = Data((0..<3000).map { UInt8($0 % 251) })

    /// A manager with `limits` whose one route answers `replies` in order, and the route.
    private func manager(_ replies: [StubReply], limits: ResponseLimits, interceptor: (any RequestInterceptor)? = nil) -> (URLSessionManager, StubRoute) {
        let stubs = StubTransport()
        let route = stubs.on(nil, url.absoluteString).replies(replies)
        let manager = makeManager(stubs: stubs, interceptor: interceptor)
        manager.responseLimits = limits
        return (manager, route)
    }

    /// A reply of `bytes` without a declared length (chunked), 100 bytes at a time.
    private var undeclared: StubReply {
        StubReply.status(200, fields: ["Transfer-Encoding": "chunked"], body: bytes).chunked(100)
    }

    func testADeclaredLengthOverTheLimitFailsBeforeAnyBodyNamingTheLimitAndTheLength() throws {
        let (manager, _) = manager([.status(200, body: bytes)], limits: ResponseLimits(maximumBodySize: 1000))
        var task: URLSessionTask?
        let completion = try run(URLRequest(url: url), on: manager) { task = $0 }
        let failure = limitError(completion.error)
        XCTAssertEqual(failure?.limit, .bodySize(1000))
        XCTAssertEqual(failure?.declaredLength, 3000)
        XCTAssertEqual(failure?.response?.statusCode, 200)
        XCTAssertEqual((completion.error as NSError?)?.code, URLError.Code.dataLengthExceedsMaximum.rawValue)
        XCTAssertEqual(task?.countOfBytesReceived, 0)
    }

    func testABodyWithoutADeclaredLengthStopsAtTheLimit() throws {
        let (manager, _) = manager([undeclared], limits: ResponseLimits(maximumBodySize: 1000))
        var task: URLSessionTask?
        let completion = try run(URLRequest(url: url), on: manager) { task = $0 }
        let failure = limitError(completion.error)
        XCTAssertEqual(failure?.limit, .bodySize(1000))
        XCTAssertNil(failure?.declaredLength)
        XCTAssertLessThanOrEqual(task?.countOfBytesReceived ?? .max, 1000)
    }

    func testABodyOfExactlyTheLimitArrivesWhole() throws {
        let (manager, _) = manager([StubReply.status(200, fields: ["Transfer-Encoding": "chunked"], body: bytes.prefix(1000)).chunked(100)],
                                   limits: ResponseLimits(maximumBodySize: 1000))
        let completion = try run(URLRequest(url: url), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.object as? Data, bytes.prefix(1000))
    }

    func testAPerTaskLimitReplacesTheManagers() throws {
        let (manager, _) = manager([undeclared], limits: ResponseLimits(maximumBodySize: 1_000_000))
        let completion = try run(URLRequest(url: url), on: manager) { manager.setResponseLimits(ResponseLimits(maximumBodySize: 500), for: $0) }
        XCTAssertEqual(limitError(completion.error)?.limit, .bodySize(500))
    }

    func testADownloadStopsAtItsOwnLimitAndLeavesNoFile() throws {
        let partialFilesBefore = DownloadTests.filesInProgress()
        let (manager, _) = manager([undeclared], limits: ResponseLimits(maximumBodySize: nil, maximumDownloadSize: 1000))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("limit-stub-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: destination) }
        let completion = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: url), destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertEqual(limitError(completion.error)?.limit, .downloadSize(1000))
        XCTAssertNil(completion.object, "no destination file is handed out")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(DownloadTests.filesInProgress().subtracting(partialFilesBefore), [], "no partial file left")
    }

    func testADownloadIsNotBoundByTheBodySizeLimit() throws {
        let (manager, _) = manager([undeclared], limits: ResponseLimits(maximumBodySize: 1000))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("limit-stub-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: destination) }
        let completion = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: url), destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(completion.error)
        XCTAssertEqual(try Data(contentsOf: destination), bytes)
    }

    func testEachAttemptHasTheWholeLimit() throws {
        let policy = RetryPolicy(budget: nil, jitter: { _ in 0 })
        let (manager, route) = manager([.status(503, body: bytes.prefix(800)), .status(200, body: bytes.prefix(800))],
                                       limits: ResponseLimits(maximumBodySize: 1000), interceptor: policy)
        let completion = try run(URLRequest(url: url), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.object as? Data, bytes.prefix(800))
        XCTAssertEqual(route.callCount, 2)
    }

    func testARedirectsOwnBodyIsNotCountedAgainstTheLimit() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.status(302, fields: ["Location": "/v1/next"], body: bytes))
        stubs.on("GET", "https://api.example.com/v1/next").reply(.status(200, body: bytes.prefix(900)))
        let manager = makeManager(stubs: stubs)
        manager.responseLimits = ResponseLimits(maximumBodySize: 1000)
        let completion = try run(URLRequest(url: url), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.object as? Data, bytes.prefix(900))
    }

    func testAnErrorBodyPastTheLimitWhileHeldEndsTheTaskWithoutARetry() throws {
        let policy = RetryPolicy(budget: nil, jitter: { _ in 0 })
        let (manager, route) = manager([StubReply.status(503, fields: ["Transfer-Encoding": "chunked"], body: bytes).chunked(100), .text("ready")],
                                       limits: ResponseLimits(maximumBodySize: 1000), interceptor: policy)
        let completion = try run(URLRequest(url: url), on: manager)
        let failure = limitError(completion.error)
        XCTAssertEqual(failure?.limit, .bodySize(1000))
        XCTAssertEqual(failure?.response?.statusCode, 503)
        XCTAssertEqual(route.callCount, 1, "the task had already failed with the limit: the retry was sent for nothing")
    }

    func testAnUncompressedBodyPastTheDecompressionAllowanceIsNoBomb() throws {
        // No Content-Encoding: every decoded byte is a received byte, a ratio of 1:1. Past
        // 100 × 64 KiB the stub's ratio would exceed 100:1 were its bytes not counted as received.
        let body = Data(count: 7 << 20)
        let (manager, _) = manager([StubReply.status(200, body: body).chunked(64 * 1024)], limits: .default)
        let completion = try run(URLRequest(url: url), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual((completion.object as? Data)?.count, body.count)
    }

    /// A 10-byte body of undeclared length with a strong ETag cut after 4 bytes, and its rest (`bytes=4-`) answered
    /// by `rest`, under a body limit of 8 bytes: the whole body is past it.
    private func continuedPastTheLimit(rest: StubReply) throws -> (Completion, StubTransport) {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString, headers: ["Range": "bytes=4-"]).reply(rest)
        stubs.on("GET", url.absoluteString).reply(
            StubReply.status(200, fields: ["ETag": #""v1""#, "Transfer-Encoding": "chunked"], body: Data("0123456789".utf8)).cut(afterBodyBytes: 4))
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(backoffBase: 0.01, budget: nil, jitter: { $0 }))
        manager.responseLimits = ResponseLimits(maximumBodySize: 8)
        return (try run(URLRequest(url: url), on: manager), stubs)
    }

    func testARangeContinuationDeclaringMoreThanTheLimitLeftFailsWithTheLimit() throws {
        let (completion, stubs) = try continuedPastTheLimit(
            rest: .status(206, fields: ["Content-Range": "bytes 4-9/10", "ETag": #""v1""#], body: Data("456789".utf8)))
        XCTAssertEqual(limitError(completion.error)?.limit, .bodySize(8))
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testARangeContinuationCountsTheBytesReceivedBeforeItAgainstTheLimit() throws {
        let (completion, stubs) = try continuedPastTheLimit(
            rest: StubReply.status(206, fields: ["Content-Range": "bytes 4-9/10", "ETag": #""v1""#, "Transfer-Encoding": "chunked"],
                                   body: Data("456789".utf8)).chunked(2))
        XCTAssertEqual(limitError(completion.error)?.limit, .bodySize(8))
        XCTAssertEqual(stubs.requests.count, 2)
    }
}
