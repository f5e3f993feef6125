import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Responses larger than a task's `ResponseLimits` stop the transfer and fail the task with a
/// typed error, on either transport (the decompression limit on libcurl only).
final class ResponseLimitsTests: XCTestCase {
    /// The completion of a task fetching `reply` from an in-process server under `limits`.
    private func fetch(_ reply: ServerReply, limits: ResponseLimits, download: Bool = false) throws -> Completion {
        let url = try makeServer { _ in reply }.url("/")
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        manager.responseLimits = limits
        return try complete { handler in
            let task = download
                ? try manager.downloadTask(with: URLRequest(url: url), destination: { _, _ in
                    FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
                }, completionHandler: handler)
                : try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)
            manager.resume(task)
        }
    }

    func testADeclaredLengthOverTheLimitFailsNamingTheLimitAndTheLength() throws {
        let result = try fetch(.bytes(3_000_000), limits: ResponseLimits(maximumBodySize: 1_000_000))
        let failure = limitError(result.error)
        XCTAssertEqual(failure?.limit, .bodySize(1_000_000))
        XCTAssertEqual(failure?.declaredLength, 3_000_000)
        XCTAssertEqual(failure?.response?.statusCode, 200)
        XCTAssertEqual(result.error.map { ($0 as NSError).code }, URLError.Code.dataLengthExceedsMaximum.rawValue)
    }

    func testAResponseDeclaredOverTheLimitNeverReachesTheResponseOverride() throws {
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        manager.responseLimits = ResponseLimits(maximumBodySize: 1_000_000)
        let told = Locked(0)
        manager.overrides.dataTaskDidReceiveResponse = { _, _, _ in
            told.withLock { $0 += 1 }
            return .allow
        }
        let server = try makeServer { _ in .bytes(3_000_000) }
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/")), completionHandler: handler))
        }
        XCTAssertEqual(limitError(result.error)?.limit, .bodySize(1_000_000))
        XCTAssertEqual(told.withLock { $0 }, 0)
    }

    func testABodyWithoutADeclaredLengthStopsAtTheLimit() throws {
        let result = try fetch(.chunkedBytes(5_000_000), limits: ResponseLimits(maximumBodySize: 1_000_000))
        let failure = limitError(result.error)
        XCTAssertEqual(failure?.limit, .bodySize(1_000_000))
        XCTAssertNil(failure?.declaredLength)
    }

    func testABodyWithinTheLimitArrivesWhole() throws {
        let result = try fetch(.chunkedBytes(900_000), limits: ResponseLimits(maximumBodySize: 1_000_000))
        XCTAssertNil(result.error)
        XCTAssertEqual(result.object as? Data, ServerReply.bytes(900_000).body)
    }

    func testADownloadStopsAtItsOwnLimitAndLeavesNoFile() throws {
        let result = try fetch(.chunkedBytes(3_000_000), limits: ResponseLimits(maximumBodySize: nil, maximumDownloadSize: 1_000_000),
                               download: true)
        XCTAssertEqual(limitError(result.error)?.limit, .downloadSize(1_000_000))
        XCTAssertNil(result.object, "no destination file is handed out")
    }

    func testAPerTaskLimitReplacesTheManagers() throws {
        let server = try makeServer { _ in .chunkedBytes(300_000) }
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        let result = try complete { handler in
            let task = try manager.dataTask(with: URLRequest(url: server.url("/")), completionHandler: handler)
            manager.setResponseLimits(ResponseLimits(maximumBodySize: 100_000), for: task)
            manager.resume(task)
        }
        XCTAssertEqual(limitError(result.error)?.limit, .bodySize(100_000))
    }
}
