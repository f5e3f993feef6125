import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The async transfer API and its progress stream, against the in-process `TestServer`.
final class URLSessionManagerAsyncTests: XCTestCase {
    func testDataReturnsTheBody() async throws {
        let server = try makeServer { _ in .bytes(3000) }
        let manager = makeManager()
        let response = try await manager.data(for: URLRequest(url: server.url("/bytes")))
        XCTAssertEqual(response.value, ServerReply.bytes(3000).body)
    }

    func testDownloadReturnsTheDestination() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try makeServer { _ in .bytes(4000) }
        let manager = makeManager()
        let destination = directory.url.appendingPathComponent("d.bin")
        let response = try await manager.download(for: URLRequest(url: server.url("/bytes")), to: destination)
        XCTAssertEqual(response.value, destination)
        XCTAssertEqual(try Data(contentsOf: destination), ServerReply.bytes(4000).body)
    }

    func testStartDownloadStreamsProgressAndFinishes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 25 chunks of 4 KiB over a second.
        let server = try makeServer { _ in ServerReply.bytes(102_400).dripped(4096, every: 0.04) }
        let manager = makeManager()
        let destination = directory.url.appendingPathComponent("p.bin")
        let transfer = manager.startDownload(for: URLRequest(url: server.url("/range")), to: destination)
        var seen: [TransferProgress] = []
        for await progress in transfer.progress { seen.append(progress) }
        let value = try await transfer.value
        XCTAssertEqual(value, destination)
        XCTAssertGreaterThan(seen.count, 1)
        XCTAssertEqual(seen.last, TransferProgress(completedBytes: 102_400, totalBytes: 102_400))
        XCTAssertTrue(zip(seen, seen.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
    }

    func testStartUploadStreamsProgress() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("u.bin", contents: Data(count: 300_000))
        let server = try makeServer()
        let manager = makeManager()
        var request = URLRequest(url: server.url("/post"))
        request.httpMethod = "POST"
        let transfer = manager.startUpload(for: request, fromFile: file, serializer: JSONResponseSerializer())
        var last: TransferProgress?
        for await progress in transfer.progress { last = progress }
        let value = try await transfer.value
        XCTAssertNotNil(value as? [String: Any])
        XCTAssertEqual(last?.completedBytes, 300_000)
        XCTAssertEqual(last?.fractionCompleted, 1)
        XCTAssertEqual(server.requests.first?.body, try Data(contentsOf: file))
    }

    func testCancellingATransferCancelsItsTask() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 100 bytes over 5 s.
        let server = try makeServer { _ in ServerReply.bytes(100).dripped(1, every: 0.05) }
        let manager = makeManager()
        let transfer = manager.startDownload(for: URLRequest(url: server.url("/drip")), to: directory.url.appendingPathComponent("c"))
        try await Task.sleep(nanoseconds: 200_000_000)
        transfer.cancel()
        do {
            _ = try await transfer.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled)
        }
    }
}
