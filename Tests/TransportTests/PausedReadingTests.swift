@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The libcurl transport pauses reading while the delegate queue holds a window's worth of
/// unprocessed body and resumes once it drains. A one-byte window pauses before nearly every
/// chunk, so a lost resume hangs these tests and a chunk lost or repeated on resume changes
/// the bytes. (What the window saves in memory is measured by `afn-benchmarks transfer`.)
final class PausedReadingTests: XCTestCase {
    private static let path = "/bytes/102400?seed=7"

    private func slowManager() -> URLSessionManager {
        let manager = URLSessionManager(transport: .libcurl)
        manager.receiveWindowLimit = 1
        manager.overrides.dataTaskDidReceiveData = { _, _, _ in usleep(3_000) }
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testADataTaskPausedBeforeEveryChunkReceivesTheWholeBody() async throws {
        let (_, expected) = try await HTTPBin.fetch(Self.path)
        let manager = slowManager()
        let response = try await manager.data(for: URLRequest(url: try HTTPBin.url(Self.path)))
        XCTAssertEqual(response.value, expected)
    }

    func testADownloadPausedBeforeEveryChunkWritesTheWholeBody() async throws {
        let (_, expected) = try await HTTPBin.fetch(Self.path)
        let manager = slowManager()
        manager.overrides.downloadTaskDidWriteData = { _, _, _, _, _ in usleep(3_000) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("body")
        _ = try await manager.download(for: URLRequest(url: try HTTPBin.url(Self.path)), to: destination)
        XCTAssertEqual(try Data(contentsOf: destination), expected)
    }
}
