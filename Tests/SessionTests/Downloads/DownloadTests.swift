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

/// Downloads are written by the manager: atomic moves, destination options, and no leftover
/// files (URLSession on Linux leaves its own behind, also after a cancel).
final class DownloadTests: XCTestCase {
    var directory: TemporaryDirectory!
    private var filesBefore: Set<String> = []

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        filesBefore = Self.filesInProgress()
    }

    override func tearDown() { directory.remove() }

    static func filesInProgress() -> Set<String> {
        let directory = DownloadStaging().directory
        return Set((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
    }

    /// Checked at once after the task completed: the partial file goes before the completion
    /// runs. (The staging directory is the user's: another test run on the machine at the same
    /// time shows its files here too.)
    private func assertNoFileLeftBehind(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Self.filesInProgress().subtracting(filesBefore), [], "download files left behind", file: file, line: line)
    }

    /// A `TestServer` answering with `handler`, stopped at the test's end.
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    /// `count` bytes with their `Content-Length`, as httpbin's `/bytes/<count>`.
    private static func bytes(_ count: Int) -> ServerReply {
        .status(200, fields: ["Content-Type": "application/octet-stream"], body: Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
    }

    /// Downloads `path` from a server answering `reply`.
    private func download(_ path: String, answered reply: ServerReply, to destination: URL, options: DownloadOptions = []) throws -> Completion {
        let server = try server { _ in reply }
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: server.baseURL.appendingPathComponent(path)), destination: { _, _ in destination },
                                                    options: options, completionHandler: handler))
        }
        manager.completionGroup.wait()
        return result
    }

    func testExistingFileIsKeptWithoutTheReplaceOption() throws {
        let destination = try directory.file("existing.bin", contents: Data("old".utf8))
        let result = try download("bytes/500", answered: Self.bytes(500), to: destination)
        guard case .downloadFileFailed(let reason, _)? = result.error as? SessionError else {
            return XCTFail("expected downloadFileFailed, got \(String(describing: result.error))")
        }
        XCTAssertTrue(reason.contains("exists"), reason)
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8))
        assertNoFileLeftBehind()
    }

    func testExistingFileIsReplacedWithTheReplaceOption() throws {
        let destination = try directory.file("existing.bin", contents: Data("old".utf8))
        let result = try download("bytes/500", answered: Self.bytes(500), to: destination, options: .replaceExistingFile)
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), Self.bytes(500).body)
        assertNoFileLeftBehind()
    }

    func testMissingDirectoriesAreCreatedWithTheOption() throws {
        let destination = directory.url.appendingPathComponent("a/b/c.bin")
        let result = try download("bytes/64", answered: Self.bytes(64), to: destination, options: .createIntermediateDirectories)
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), Self.bytes(64).body)
    }

    func testFailedStatusIsAnErrorAndNothingIsMoved() throws {
        let destination = directory.url.appendingPathComponent("never.bin")
        let result = try download("status/404", answered: .status(404), to: destination)
        XCTAssertEqual((result.error as? ResponseSerializationError)?.reason, .unacceptableStatusCode(404))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        assertNoFileLeftBehind()
    }

    func testAFailedStatusKeepsTheErrorBodyOnTheError() throws {
        let problem = Data(#"{"error":"no such export"}"#.utf8)
        let server = try TestServer { _ in .status(404, fields: ["Content-Type": "application/json"], body: problem) }
        defer { server.stop() }
        let manager = makeManager()
        let destination = directory.url.appendingPathComponent("never.json")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: server.baseURL.appendingPathComponent("exports/7")),
                                                    destination: { _, _ in destination }, completionHandler: handler))
        }
        manager.completionGroup.wait()
        let error = try XCTUnwrap(result.error as? ResponseSerializationError)
        XCTAssertEqual(error.statusCode, 404)
        XCTAssertEqual(error.data, problem)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        assertNoFileLeftBehind()
    }

    func testAnErrorBodyOnADownloadsErrorIsBoundedToOneMebibyte() throws {
        let large = Data(repeating: 0x61, count: RetryContext.maximumHeldBodyLength + 4096)
        let server = try TestServer { _ in .status(500, body: large) }
        defer { server.stop() }
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: server.baseURL.appendingPathComponent("exports/8")),
                                                    destination: { [directory] _, _ in directory!.url.appendingPathComponent("never") },
                                                    completionHandler: handler))
        }
        manager.completionGroup.wait()
        XCTAssertEqual((result.error as? ResponseSerializationError)?.data, large.prefix(RetryContext.maximumHeldBodyLength))
        assertNoFileLeftBehind()
    }

    func testCancelledDownloadLeavesNoFile() throws {
        let manager = makeManager()
        let recorder = CompletionRecorder()
        let received = expectation(description: "some bytes arrived")
        let once = LockedFlag()
        let target = directory.url.appendingPathComponent("x")
        // 2,000 bytes over four seconds, as httpbin's /drip?numbytes=2000&duration=4.
        let server = try server { _ in Self.bytes(2000).dripped(10, every: 0.02) }
        let task = try manager.downloadTask(
            with: URLRequest(url: server.baseURL.appendingPathComponent("drip")),
            progress: { progress in
                if progress.completedUnitCount > 0, !once.value {
                    once.set(true)
                    received.fulfill()
                }
            },
            destination: { _, _ in target }, completionHandler: recorder.handler)
        manager.resume(task)
        wait(for: [received], timeout: 10)
        task.cancel()
        wait(for: [recorder.expectation], timeout: 10)
        manager.completionGroup.wait()
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
        assertNoFileLeftBehind()
    }

    func testTransportFailureAfterSomeBytesLeavesNoFile() throws {
        let manager = makeManager()
        // One byte at once, then three seconds of silence: the one-second idle timeout fires
        // with a partial file on disk.
        let server = try server { _ in Self.bytes(2).dripped(1, every: 3) }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("drip"))
        request.timeoutInterval = 1
        let target = directory.url.appendingPathComponent("y")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: request, destination: { _, _ in target }, completionHandler: handler))
        }
        manager.completionGroup.wait()
        XCTAssertEqual((result.error as? URLError)?.code, .timedOut)
        XCTAssertEqual(manager.downloadTasks.count, 0)
        assertNoFileLeftBehind()
    }

    func testProgressTotalIsUnknownForAContentCodedBody() throws {
        // Like httpbin's /gzip, the reply declares the encoded length; the body is counted decoded.
        let server = try server { _ in
            .status(200, fields: ["Content-Type": "application/json", "Content-Encoding": "gzip"], body: GzipFixture.coded)
        }
        let manager = makeManager()
        let progress = ProgressLog()
        let destination = directory.url.appendingPathComponent("coded.json")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: server.baseURL.appendingPathComponent("gzip")), progress: progress.handler,
                                                    destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        let last = try XCTUnwrap(progress.last)
        XCTAssertEqual(last.totalUnitCount, -1)
        XCTAssertEqual(try Data(contentsOf: destination), GzipFixture.decoded)
        XCTAssertEqual(last.completedUnitCount, Int64(GzipFixture.decoded.count))
    }

    func testFractionCompletedNeverPassesOne() {
        XCTAssertEqual(TransferProgress(completedBytes: 300, totalBytes: 100).fractionCompleted, 1)
        XCTAssertEqual(TransferProgress(completedBytes: -5, totalBytes: 100).fractionCompleted, 0)
        XCTAssertNil(TransferProgress(completedBytes: 5, totalBytes: -1).fractionCompleted)
    }
}
