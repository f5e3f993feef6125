import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Retries of requests whose bodies are streams.
final class RetryBodyReplayTests: XCTestCase {
    func testAMultipartBodyOfFilesAndDataIsSentAgainOnARetry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("part.bin", contents: Data(repeating: 9, count: 5000))
        let id = FaultServer.uniqueID()
        var request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: try FaultServer.sequence(id, "reset,200").absoluteString, parameters: ["field": "value"]
        ) { form in try form.appendPart(withFileURL: file, name: "file") }
        request.setValue("upload-1", forHTTPHeaderField: "Idempotency-Key")
        let manager = makeManager(interceptor: RetryPolicy.immediate)
        let progress = ProgressLog()
        let completion = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(try FaultServer.log(id).count, 2)
        XCTAssertTrue(progress.isMonotonic, "upload progress never ran backwards")
    }
}
