import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class StreamingMultipartFormDataTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    func testBodyLayoutMatchesExactBytes() throws {
        let form = StreamingMultipartFormData(boundary: "Boundary+0123456789ABCDEF")
        try form.appendPart(withForm: "value", name: "field")
        try form.appendPart(withFileData: Data("file body".utf8), name: "upload", fileName: "a.txt", mimeType: "text/plain")
        try form.appendPart(withHeaders: ["X-Extra": "1", "Content-Disposition": "form-data; name=\"raw\""], body: Data("raw".utf8))
        let expected = """
            --Boundary+0123456789ABCDEF\r
            Content-Disposition: form-data; name="field"\r
            \r
            value\r
            --Boundary+0123456789ABCDEF\r
            Content-Disposition: form-data; name="upload"; filename="a.txt"\r
            Content-Type: text/plain\r
            \r
            file body\r
            --Boundary+0123456789ABCDEF\r
            Content-Disposition: form-data; name="raw"\r
            X-Extra: 1\r
            \r
            raw\r
            --Boundary+0123456789ABCDEF--\r

            """
        let stream = form.makeBodyStream()
        XCTAssertEqual(String(decoding: try readAll(stream), as: UTF8.self), expected)
        XCTAssertEqual(stream.contentLength, UInt64(expected.utf8.count))
    }

    func testContentLengthEqualsBytesReadWithFilesAndStreams() throws {
        let form = StreamingMultipartFormData()
        let file = try directory.file("data.bin", contents: Data((0..<100_000).map { UInt8($0 % 251) }))
        try form.appendPart(withFileURL: file, name: "file")
        try form.appendPart(with: InputStream(data: Data(repeating: 7, count: 70_000)), name: "s", fileName: "s.bin", length: 70_000, mimeType: "application/octet-stream")
        try form.appendPart(withForm: Data(), name: "empty")
        let stream = form.makeBodyStream()
        let body = try readAll(stream, chunk: 1000)
        XCTAssertEqual(UInt64(body.count), stream.contentLength)
        XCTAssertEqual(stream.streamStatus, .closed)
    }

    func testRandomBoundaryIsBoundaryPlusSixteenUppercaseHexDigits() {
        let boundary = StreamingMultipartFormData.makeBoundary()
        XCTAssertTrue(boundary.hasPrefix("Boundary+"))
        let digits = boundary.dropFirst("Boundary+".count)
        XCTAssertEqual(digits.count, 16)
        XCTAssertTrue(digits.allSatisfy { "0123456789ABCDEF".contains($0) }, boundary)
        XCTAssertNotEqual(boundary, StreamingMultipartFormData.makeBoundary())
    }

    func testFileURLPartUsesTheLastPathComponentAndTheExtensionsMIMEType() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withFileURL: try directory.file("photo.PNG", contents: Data([1, 2])), name: "pic")
        let body = String(decoding: try readAll(form.makeBodyStream()), as: UTF8.self)
        XCTAssertTrue(body.contains("Content-Disposition: form-data; name=\"pic\"; filename=\"photo.PNG\"\r\nContent-Type: image/png\r\n\r\n"), body)
    }

    func testFileWithUnknownExtensionIsOctetStream() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withFileURL: try directory.file("blob.unknownext", contents: Data([1])), name: "f")
        XCTAssertTrue(String(decoding: try readAll(form.makeBodyStream()), as: UTF8.self).contains("Content-Type: application/octet-stream\r\n"))
    }

    func testNonFileURLIsRejected() {
        let form = StreamingMultipartFormData()
        let url = URL(string: "https://example.com/file.txt")!
        XCTAssertThrowsError(try form.appendPart(withFileURL: url, name: "f")) { error in
            XCTAssertEqual(error as? RequestSerializationError, .notAFileURL(url))
            XCTAssertEqual((error as NSError).code, -1000)
            XCTAssertEqual((error as NSError).localizedFailureReason, "Expected URL to be a file URL")
        }
    }

    func testMissingFileIsRejected() {
        let url = directory.url.appendingPathComponent("missing.txt")
        XCTAssertThrowsError(try StreamingMultipartFormData().appendPart(withFileURL: url, name: "f")) { error in
            XCTAssertEqual(error as? RequestSerializationError, .fileNotReachable(url))
            XCTAssertEqual((error as NSError).localizedFailureReason, "File URL not reachable.")
        }
    }

    func testDirectoryIsRejected() {
        XCTAssertThrowsError(try StreamingMultipartFormData().appendPart(withFileURL: directory.url, name: "f")) {
            XCTAssertEqual($0 as? RequestSerializationError, .fileNotReachable(directory.url))
        }
    }

    func testCRAndLFInNamesFilenamesAndMIMETypesAreRejected() {
        let form = StreamingMultipartFormData()
        let bad = ["a\r\nContent-Type: evil", "a\nb", "a\rb", "a\u{0}b"]
        for value in bad {
            XCTAssertThrowsError(try form.appendPart(withForm: "v", name: value), value.debugDescription) {
                XCTAssertEqual($0 as? RequestSerializationError, .invalidMultipartField(value))
            }
            XCTAssertThrowsError(try form.appendPart(withFileData: Data(), name: value, fileName: "f", mimeType: "text/plain"))
            XCTAssertThrowsError(try form.appendPart(withFileData: Data(), name: "n", fileName: value, mimeType: "text/plain"))
            XCTAssertThrowsError(try form.appendPart(withFileData: Data(), name: "n", fileName: "f", mimeType: value))
            XCTAssertThrowsError(try form.appendPart(with: InputStream(data: Data()), name: "n", fileName: value, length: 0, mimeType: "a/b"))
        }
        XCTAssertTrue(form.isEmpty)
    }

    func testRawHeadersWithCRLFAreRejected() {
        let form = StreamingMultipartFormData()
        XCTAssertThrowsError(try form.appendPart(withHeaders: ["X-A": "1\r\nX-B: 2"], body: Data()))
        XCTAssertThrowsError(try form.appendPart(withHeaders: ["X-A\r\nX-B": "1"], body: Data()))
        XCTAssertTrue(form.isEmpty)
    }

    func testDoubleQuoteInNameAndFilenameIsPercentEncoded() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withFileData: Data(), name: "a\"b", fileName: "c\".txt", mimeType: "text/plain")
        let body = String(decoding: try readAll(form.makeBodyStream()), as: UTF8.self)
        XCTAssertTrue(body.contains("name=\"a%22b\"; filename=\"c%22.txt\""), body)
    }

    /// `"` then U+0301 is one `Character`; its `"` must be `%22` all the same, or a server's
    /// parser ends the value there and reads what follows as more parameters.
    func testDoubleQuoteFollowedByACombiningMarkIsPercentEncoded() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withFileData: Data("png".utf8), name: "n\"\u{301}",
                            fileName: "x\"\u{301}; filename*=UTF-8''evil.php; x=\"\u{301}.png", mimeType: "image/png")
        try form.appendPart(withForm: Data("v".utf8), name: "f\"\u{301}; name*=UTF-8''evil; x=\"\u{301}")
        XCTAssertEqual(try readAll(form.makeBodyStream()), Data("""
            --B\r
            Content-Disposition: form-data; name="n%22\u{301}"; filename="x%22\u{301}; filename*=UTF-8''evil.php; x=%22\u{301}.png"\r
            Content-Type: image/png\r
            \r
            png\r
            --B\r
            Content-Disposition: form-data; name="f%22\u{301}; name*=UTF-8''evil; x=%22\u{301}"\r
            \r
            v\r
            --B--\r

            """.utf8))
    }

    func testInputStreamThatEndsEarlyFailsTheBodyStream() {
        let form = StreamingMultipartFormData()
        XCTAssertNoThrow(try form.appendPart(with: InputStream(data: Data(count: 10)), name: "s", fileName: "s", length: 20, mimeType: "a/b"))
        let stream = form.makeBodyStream()
        XCTAssertThrowsError(try readAll(stream)) {
            XCTAssertEqual($0 as? RequestSerializationError, .bodySourceEndedEarly(expected: 20, received: 10))
        }
        XCTAssertEqual(stream.streamStatus, .error)
        XCTAssertFalse(stream.hasBytesAvailable)
    }

    func testInputStreamThatFailsFailsTheBodyStream() {
        let form = StreamingMultipartFormData()
        XCTAssertNoThrow(try form.appendPart(with: FailingInputStream(), name: "s", fileName: "s", length: 5, mimeType: "a/b"))
        XCTAssertThrowsError(try readAll(form.makeBodyStream())) {
            guard case .bodySourceFailed = $0 as? RequestSerializationError else { return XCTFail("got \($0)") }
        }
    }

    func testFileThatShrinksAfterAppendingFailsTheBodyStream() throws {
        let file = try directory.file("shrinks.bin", contents: Data(count: 1000))
        let form = StreamingMultipartFormData()
        try form.appendPart(withFileURL: file, name: "f")
        try Data(count: 400).write(to: file)
        XCTAssertThrowsError(try readAll(form.makeBodyStream())) {
            XCTAssertEqual($0 as? RequestSerializationError, .bodySourceEndedEarly(expected: 1000, received: 400))
        }
    }

    func testFileRemovedAfterAppendingFailsTheBodyStream() throws {
        let file = try directory.file("removed.bin", contents: Data(count: 10))
        let form = StreamingMultipartFormData()
        try form.appendPart(withFileURL: file, name: "f")
        try FileManager.default.removeItem(at: file)
        XCTAssertThrowsError(try readAll(form.makeBodyStream())) {
            XCTAssertEqual($0 as? RequestSerializationError, .fileNotReachable(file))
        }
    }

    func testBytesStayAvailableUntilTheLastByteIsRead() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withForm: "v", name: "n")
        let stream = form.makeBodyStream()
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 1)
        var count: UInt64 = 0
        while count < stream.contentLength {
            XCTAssertTrue(stream.hasBytesAvailable)
            XCTAssertEqual(stream.read(&buffer, maxLength: 1), 1)
            count += 1
        }
        XCTAssertFalse(stream.hasBytesAvailable)
        XCTAssertEqual(stream.read(&buffer, maxLength: 1), 0)
        XCTAssertEqual(stream.streamStatus, .atEnd)
    }

    func testThrottlingLimitsEachReadToThePacketSizeAndWaits() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withFileData: Data(count: 100), name: "f", fileName: "f", mimeType: "a/b")
        form.throttleBandwidth(withPacketSize: 40, delay: 0.05)
        let stream = form.makeBodyStream()
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 1000)
        var sizes: [Int] = []
        let start = Date()
        while case let count = stream.read(&buffer, maxLength: 1000), count > 0 { sizes.append(count) }
        XCTAssertTrue(sizes.allSatisfy { $0 <= 40 }, "\(sizes)")
        XCTAssertEqual(UInt64(sizes.reduce(0, +)), stream.contentLength)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), Double(sizes.count - 1) * 0.05 * 0.9)
    }

    func testEachBodyStreamIsIndependent() throws {
        let form = StreamingMultipartFormData(boundary: "B")
        try form.appendPart(withFileURL: try directory.file("a.txt", contents: Data("abc".utf8)), name: "f")
        XCTAssertEqual(try readAll(form.makeBodyStream()), try readAll(form.makeBodyStream()))
    }
}
