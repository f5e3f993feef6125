import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Stream uploads: URLSession on Linux sends them chunked, breaks when `Content-Length` is also
/// set, and ends the body at the first moment no bytes are available.
final class UploadBodyStreamTests: XCTestCase {
    private func anythingRequest() throws -> URLRequest {
        var request = URLRequest(url: try HTTPBin.url("/anything"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        return request
    }

    private func echoedBody(_ result: Completion) throws -> Data {
        let text = try XCTUnwrap(result.json?["data"] as? String)
        let prefix = "data:application/octet-stream;base64,"
        return text.hasPrefix(prefix) ? try XCTUnwrap(Data(base64Encoded: String(text.dropFirst(prefix.count)))) : Data(text.utf8)
    }

    func testStreamWithAContentLengthHeaderIsAcceptedAndArrivesByteExact() throws {
        let manager = makeManager()
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        var request = try anythingRequest()
        request.httpBodyStream = InputStream(data: body)
        request.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try echoedBody(result), body)
        XCTAssertEqual(progress.last?.completedUnitCount, 200_000)
    }

    func testMultipartUploadThroughTheManagerArrivesByteExact() throws {
        let manager = makeManager()
        let file = Data((0..<123_457).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: try HTTPBin.url("/post").absoluteString) { form in
            try form.appendPart(withFileData: file, name: "f", fileName: "f.bin", mimeType: "application/octet-stream")
        }
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertEqual(HTTPBin.fileContents(try XCTUnwrap(result.json))["f"], file)
        XCTAssertEqual(progress.last?.totalUnitCount, Int64(request.multipartContentLength!))
    }

    func testMomentarilyEmptyStreamIsNotTruncated() throws {
        let manager = makeManager()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        var request = try anythingRequest()
        request.httpBodyStream = HesitantInputStream(data: body)
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try echoedBody(result), body)
    }

    func testFailingStreamFailsTheTaskWithBodyStreamFailed() throws {
        let manager = makeManager()
        var request = try anythingRequest()
        request.httpBodyStream = FailingInputStream()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        guard case .bodyStreamFailed? = result.error as? SessionError else {
            return XCTFail("expected bodyStreamFailed, got \(String(describing: result.error))")
        }
    }

    func testMultipartSourceEndingEarlyFailsTheTaskWithItsTypedError() throws {
        let manager = makeManager()
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: try HTTPBin.url("/post").absoluteString) { form in
            try form.appendPart(with: InputStream(data: Data(count: 10)), name: "s", fileName: "s", length: 50, mimeType: "a/b")
        }
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        guard case .bodyStreamFailed(let underlying)? = result.error as? SessionError else {
            return XCTFail("expected bodyStreamFailed, got \(String(describing: result.error))")
        }
        XCTAssertEqual(underlying as? RequestSerializationError, .bodySourceEndedEarly(expected: 50, received: 10))
    }
}

/// A stream that reports no bytes available every other time it is asked, while `read` still
/// delivers: the shape of a pipe whose writer is momentarily behind.
final class HesitantInputStream: InputStream {
    private let data: Data
    private var offset = 0
    private var askedTimes = 0

    override init(data: Data) {
        self.data = data
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}

    override var hasBytesAvailable: Bool {
        askedTimes += 1
        return askedTimes % 2 == 0 && offset < data.count
    }

    override var streamStatus: Stream.Status { offset < data.count ? .open : .atEnd }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let count = min(len, data.count - offset, 7_000)
        data.copyBytes(to: buffer, from: offset..<(offset + count))
        offset += count
        return count
    }
}
