import AFLocking
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Numbers a server sends are checked before arithmetic: a typed error, never a trap (libcurl
/// transport; URLSession's own protocol traps inside FoundationNetworking's `_EasyHandle` on the
/// same response, which no code of ours runs before).
final class ServerNumbersTests: XCTestCase {
    func testAResumedLengthNearInt64MaxFailsTheTaskInsteadOfTrapping() throws {
        let server = try TestServer(writing: "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 10-20/21\r\n"
                                    + "Content-Length: 9223372036854775807\r\nETag: \"v1\"\r\n\r\nabc")
        defer { server.stop() }
        let url = server.baseURL
        let staging = DownloadStaging()
        try staging.prepare()
        let partial = staging.directory.appendingPathComponent("\(UUID().uuidString).download")
        try DownloadStaging.createPrivateFile(at: partial).write(contentsOf: Data(count: 10))
        defer { try? FileManager.default.removeItem(at: partial) }
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"v1\""])
        let resume = try XCTUnwrap(ResumeData(request: URLRequest(url: url), response: response, partialFile: partial, bytesReceived: 10))
        let manager = URLSessionManager(transport: .libcurl)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let totals = Locked<[Int64]>([])
        let failure = Locked<(any Error)?>(nil)
        let done = expectation(description: "completion")
        manager.resume(try manager.downloadTask(
            withResumeData: resume.encoded, progress: { progress in totals.withLock { $0.append(progress.totalUnitCount) } },
            destination: { _, _ in URL(fileURLWithPath: "/nonexistent/never") }
        ) { _, _, error in
            failure.withLock { $0 = error }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertNotNil(failure.withLock { $0 })
        XCTAssertFalse(totals.withLock { $0 }.contains(Int64.max))
    }
}
