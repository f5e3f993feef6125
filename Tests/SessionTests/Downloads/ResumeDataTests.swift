import AFLocking
import AFNetworkingTesting
@testable import AFSession
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Resumable downloads, which URLSession on Linux does not offer (no resume data, and
/// `downloadTask(withResumeData:)` fails at once).
final class ResumeDataTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    /// A partial file in the private staging directory, as a cancelled download leaves one.
    private func stagedPartialFile(_ contents: Data) throws -> URL {
        let staging = DownloadStaging()
        try staging.prepare()
        let url = staging.directory.appendingPathComponent("\(UUID().uuidString).download")
        let handle = try DownloadStaging.createPrivateFile(at: url)
        try handle.write(contentsOf: contents)
        try handle.close()
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// A `TestServer` answering with `handler`, stopped at the test's end.
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    /// A resource of `body` with the strong validator `etag` and `Accept-Ranges: bytes`:
    /// `Range: bytes=k-` (without `If-Range`, or with `etag`) is answered 206 with the rest,
    /// anything else 200 with the whole, whose connection is closed after `cutAfter` body bytes
    /// when given; both dripped `drip` when given.
    private static func ranged(_ body: Data, etag: String, cutAfter: Int? = nil, drip: (size: Int, interval: TimeInterval)? = nil) -> TestServer.Handler {
        { request in
            var reply: ServerReply
            let ifRange = request.value(forHeader: "If-Range")
            if let range = request.value(forHeader: "Range"), range.unicodeScalars.starts(with: "bytes=".unicodeScalars),
               range.unicodeScalars.last == "-", let start = Int(String(range.unicodeScalars.dropFirst(6).dropLast())),
               start < body.count, ifRange == nil || ifRange == etag {
                reply = .status(206, fields: ["Content-Range": "bytes \(start)-\(body.count - 1)/\(body.count)", "ETag": etag],
                                body: body.suffix(from: start))
            } else {
                reply = .status(200, fields: ["ETag": etag, "Accept-Ranges": "bytes"], body: body)
                reply.cutAfterBodyBytes = cutAfter
            }
            if let drip { reply = reply.dripped(drip.size, every: drip.interval) }
            return reply
        }
    }

    /// httpbin's `/range/102400` resource: the letters a to z over and over.
    private static let letters = Data((0..<102_400).map { UInt8(ascii: "a") + UInt8($0 % 26) })

    /// A server of `letters`, dripped 1 KiB every 20 ms (the whole in two seconds) to a URL with
    /// a `duration` query item, as httpbin's `/range/102400?duration=2&chunk_size=1024`, and at
    /// once to any other.
    private func lettersServer() throws -> TestServer {
        try server { request in
            let slow = request.queryItems.contains { $0.name == "duration" }
            return Self.ranged(Self.letters, etag: "\"range102400\"", drip: slow ? (1024, 0.02) : nil)(request)
        }
    }

    /// The fault server's cut resource: 100,000 bytes of 0, 1, ... 255 over and over, cut after
    /// 40% unless the rest is asked for with a range.
    private static let cutResource = Data((0..<100_000).map { UInt8($0 % 256) })

    private func straightDownload(_ url: URL, manager: URLSessionManager) throws -> Data {
        let destination = directory.url.appendingPathComponent("straight-\(UUID().uuidString)")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: url), destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        return try Data(contentsOf: destination)
    }

    /// Starts a slow download and cancels it for resume data once `bytes` arrived.
    private func resumeDataAfterCancelling(_ url: URL, after bytes: Int64, manager: URLSessionManager) throws -> Data? {
        let enough = expectation(description: "enough bytes")
        let once = LockedFlag()
        let recorder = CompletionRecorder()
        let task = try manager.downloadTask(
            with: URLRequest(url: url),
            progress: { progress in
                if progress.completedUnitCount >= bytes, !once.value {
                    once.set(true)
                    enough.fulfill()
                }
            },
            completionHandler: recorder.handler)
        manager.resume(task)
        wait(for: [enough], timeout: 10)
        let produced = expectation(description: "resume data")
        let resumeData = Locked<Data?>(nil)
        manager.cancel(task) { data in
            resumeData.withLock { $0 = data }
            produced.fulfill()
        }
        wait(for: [produced, recorder.expectation], timeout: 10)
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
        return resumeData.withLock { $0 }
    }

    func testResumeDataHoldsNoHeaderTheManagerAddedInternally() throws {
        let manager = makeManager()
        let slow = try XCTUnwrap(URL(string: try lettersServer().baseURL.absoluteString + "/range/102400?duration=2&chunk_size=1024"))
        let resumeData = try XCTUnwrap(try resumeDataAfterCancelling(slow, after: 10_000, manager: manager))
        let decoded = try ResumeData(decoding: resumeData)
        XCTAssertEqual(decoded.headers.keys.filter { $0.lowercased().hasPrefix("x-afnetworking") }, [])
    }

    func testCancelledDownloadResumesWithARangeAndMatchesAStraightDownload() throws {
        let manager = makeManager()
        let server = try lettersServer()
        let expected = try straightDownload(server.baseURL.appendingPathComponent("range/102400"), manager: manager)
        XCTAssertEqual(expected, Self.letters)
        let resumedFrom = Locked<Int64>(-1)
        var overrides = SessionDelegateOverrides()
        overrides.downloadTaskDidResume = { _, _, offset, _ in resumedFrom.withLock { $0 = offset } }
        manager.overrides = overrides

        let slow = try XCTUnwrap(URL(string: server.baseURL.absoluteString + "/range/102400?duration=2&chunk_size=1024"))
        let resumeData = try XCTUnwrap(try resumeDataAfterCancelling(slow, after: 20_000, manager: manager))
        let destination = directory.url.appendingPathComponent("resumed.bin")
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resumeData, progress: progress.handler,
                                                    destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), expected)
        XCTAssertGreaterThanOrEqual(resumedFrom.withLock { $0 }, 20_000, "the server was not asked for the remaining range")
        XCTAssertEqual(server.requests.last?.value(forHeader: "Range"), "bytes=\(resumedFrom.withLock { $0 })-")
        XCTAssertEqual(server.requests.last?.value(forHeader: "If-Range"), "\"range102400\"")
        XCTAssertEqual(progress.last?.completedUnitCount, 102_400)
        XCTAssertEqual(progress.last?.totalUnitCount, 102_400)
    }

    /// A server of the cut resource at `/cut/100000`.
    private func cutServer() throws -> TestServer {
        try server(Self.ranged(Self.cutResource, etag: "\"cut-v1\"", cutAfter: 40_000))
    }

    /// Downloads the resource of `server` that is cut after 40%; returns the failure.
    private func failedCutDownload(_ server: TestServer, manager: URLSessionManager, headers: [String: String] = [:]) throws -> URLError {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("cut/100000"))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: request,
                                                    destination: { _, _ in XCTFail("not finished"); return URL(fileURLWithPath: "/") },
                                                    completionHandler: handler))
        }
        return try XCTUnwrap(result.error as? URLError, "\(String(describing: result.error))")
    }

    func testADownloadCutAfterFortyPercentResumesFromItsErrorsResumeDataToAnIdenticalFile() throws {
        let manager = makeManager()
        let server = try cutServer()
        let failure = try failedCutDownload(server, manager: manager)
        // URLSession's own protocol reports a connection closed before the declared length as `.unknown`.
        XCTAssertEqual(failure.code, HTTPTransport.underTest == .urlSession ? .unknown : .networkConnectionLost)
        let resumeData = try XCTUnwrap(failure.downloadTaskResumeData)
        XCTAssertEqual(failure.userInfo[NSURLSessionDownloadTaskResumeData] as? Data, resumeData)
        XCTAssertEqual(try ResumeData(decoding: resumeData).bytesReceived, 40_000)
        let destination = directory.url.appendingPathComponent("cut.bin")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resumeData, destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), Self.cutResource)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Range") }, [nil, "bytes=40000-"], "only the remaining range was asked for")
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-Range") }, [nil, "\"cut-v1\""], "the rest of the same resource")
    }

    func testAPartialFileNobodyResumedIsRemovedWhenTheSessionIsInvalidated() throws {
        let manager = makeManager()
        let failure = try failedCutDownload(try cutServer(), manager: manager)
        let partial = try ResumeData(decoding: try XCTUnwrap(failure.downloadTaskResumeData)).partialFilePath
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial))
        manager.invalidateSession(cancelingTasks: false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial))
    }

    func testAKeptPartialFileOutlivesTheSessionAndResumesWithAnotherManager() throws {
        let manager = makeManager()
        let resumeData = try XCTUnwrap(try failedCutDownload(try cutServer(), manager: manager).downloadTaskResumeData)
        try manager.keepPartialFile(ofResumeData: resumeData)
        manager.invalidateSession(cancelingTasks: false)
        let partial = try ResumeData(decoding: resumeData).partialFilePath
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial))
        let destination = directory.url.appendingPathComponent("kept.bin")
        let other = makeManager()
        let result = try complete { handler in
            other.resume(try other.downloadTask(withResumeData: resumeData, destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), Self.cutResource)
    }

    func testAPartialFileNobodyResumedIsRemovedWhenTheManagerIsFreed() throws {
        var manager: URLSessionManager? = URLSessionManager(transport: .underTest)
        let failure = try failedCutDownload(try cutServer(), manager: manager!)
        let partial = try ResumeData(decoding: try XCTUnwrap(failure.downloadTaskResumeData)).partialFilePath
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial))
        weak let freed = manager
        manager = nil
        let deadline = Date().addingTimeInterval(5)
        while freed != nil, Date() < deadline { usleep(10_000) }
        XCTAssertNil(freed)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial))
    }

    func testResumeFallsBackToAFullDownloadWhenTheServerIgnoresRanges() throws {
        let manager = makeManager()
        // As httpbin's /bytes/5000?seed=7: the same 5,000 random bytes whatever the request.
        var generator = SeededGenerator(seed: 7)
        let resource = Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let server = try server { _ in .status(200, fields: ["Content-Type": "application/octet-stream"], body: resource) }
        let url = server.baseURL.appendingPathComponent("bytes/5000")
        let expected = try straightDownload(url, manager: manager)
        XCTAssertEqual(expected, resource)
        let partial = try stagedPartialFile(Data(repeating: 0xEE, count: 1200))
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"v1\""])
        let resume = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 1200))
        let destination = directory.url.appendingPathComponent("full.bin")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resume.encoded, destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), expected)
        XCTAssertEqual(server.requests.last?.value(forHeader: "Range"), "bytes=1200-", "the rest was asked for")
    }

    func testResumeRequestAsksForTheRestWithIfRange() throws {
        let partial = try directory.file("p", contents: Data(count: 10))
        let request = URLRequest(url: URL(string: "http://example.com/file")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"abc\"", "Last-Modified": "Tue, 01 Jan 2030 00:00:00 GMT"])
        let continuation = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 10)).continuationRequest(replacing: nil)
        XCTAssertEqual(continuation.value(forHTTPHeaderField: "Range"), "bytes=10-")
        XCTAssertEqual(continuation.value(forHTTPHeaderField: "If-Range"), "\"abc\"")
    }

    func testWeakETagFallsBackToLastModified() throws {
        let partial = try directory.file("p", contents: Data(count: 10))
        let request = URLRequest(url: URL(string: "http://example.com/file")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "W/\"abc\"", "Last-Modified": "Tue, 01 Jan 2030 00:00:00 GMT"])
        let continuation = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 10)).continuationRequest(replacing: nil)
        XCTAssertEqual(continuation.value(forHTTPHeaderField: "If-Range"), "Tue, 01 Jan 2030 00:00:00 GMT")
    }

    func testNoResumeDataWithoutAValidatorAndNoFileLeft() throws {
        let manager = makeManager()
        let before = DownloadTests.filesInProgress()
        // 400 bytes over four seconds without a validator, as httpbin's /drip?numbytes=400&duration=4.
        let server = try server { _ in .status(200, fields: ["Content-Type": "application/octet-stream"], body: Data(repeating: 0x2A, count: 400)).dripped(10, every: 0.1) }
        XCTAssertNil(try resumeDataAfterCancelling(server.baseURL.appendingPathComponent("drip"), after: 10, manager: manager))
        manager.completionGroup.wait()
        XCTAssertEqual(DownloadTests.filesInProgress().subtracting(before), [])
    }

    func testForeignResumeDataIsRejected() {
        let manager = makeManager()
        XCTAssertThrowsError(try manager.downloadTask(withResumeData: Data("not resume data".utf8))) { error in
            guard case .invalidResumeData? = error as? SessionError else { return XCTFail("got \(error)") }
        }
    }

    func testResumeDataWhosePartialFileIsGoneIsRejected() throws {
        let partial = try stagedPartialFile(Data(count: 10))
        let request = URLRequest(url: URL(string: "http://example.com/file")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"abc\""])
        let resume = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 10))
        try FileManager.default.removeItem(at: partial)
        XCTAssertThrowsError(try makeManager().downloadTask(withResumeData: resume.encoded)) { error in
            guard case .invalidResumeData? = error as? SessionError else { return XCTFail("got \(error)") }
        }
    }

    func testResumeDataLeavesOutCredentialHeaders() throws {
        let partial = try stagedPartialFile(Data(count: 10))
        var request = URLRequest(url: URL(string: "http://example.com/file")!)
        let secrets = ["Authorization": "Bearer s3cret-token", "Proxy-Authorization": "Basic cHJveHk6cHc=", "Cookie": "session=s3cret-cookie",
                       "X-Api-Key": "s3cret-key", "Private-Token": "s3cret-private", "X-Goog-Api-Key": "s3cret-goog"]
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/octet-stream", forHTTPHeaderField: "Accept")
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"abc\""])
        let resume = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 10))
        XCTAssertEqual(resume.headers, ["Accept": "application/octet-stream"])
        let encoded = String(decoding: resume.encoded, as: UTF8.self)
        for secret in secrets.values { XCTAssertFalse(encoded.contains(secret), encoded) }
    }

    func testResumingWithTheNewRequestSendsItsCredentialAgain() throws {
        let server = try cutServer()
        let manager = makeManager()
        let failure = try failedCutDownload(server, manager: manager, headers: ["Authorization": "Bearer first"])
        let resumeData = try XCTUnwrap(failure.downloadTaskResumeData)
        XCTAssertFalse(String(decoding: resumeData, as: UTF8.self).contains("Bearer"))
        var request = URLRequest(url: server.baseURL.appendingPathComponent("cut/100000"))
        request.setValue("Bearer again", forHTTPHeaderField: "Authorization")
        let destination = directory.url.appendingPathComponent("cut.bin")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resumeData, request: request, destination: { _, _ in destination },
                                                    completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer first", "Bearer again"])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Range") }, [nil, "bytes=40000-"])
    }

    func testResumeDataForAnotherURLIsRefusedAndItsFileKept() throws {
        let partial = try stagedPartialFile(Data(count: 10))
        let request = URLRequest(url: URL(string: "http://example.com/file")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"abc\""])
        let resume = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 10))
        XCTAssertThrowsError(try makeManager().downloadTask(withResumeData: resume.encoded, request: URLRequest(url: URL(string: "http://example.com/other")!))) { error in
            guard case .invalidResumeData(let reason)? = error as? SessionError else { return XCTFail("got \(error)") }
            XCTAssertTrue(reason.contains("http://example.com/other"), reason)
        }
        XCTAssertEqual(try Data(contentsOf: partial), Data(count: 10))
    }

    func testHostileResumeDataNamingAnotherFileIsRefusedAndTheFileLeftAlone() throws {
        let victim = try directory.file("victim", contents: Data(count: 10))
        let request = URLRequest(url: URL(string: "http://example.com/file")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"abc\""])
        let resume = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: victim, bytesReceived: 10))
        let manager = makeManager()
        XCTAssertThrowsError(try manager.downloadTask(withResumeData: resume.encoded)) { error in
            guard case .invalidResumeData? = error as? SessionError else { return XCTFail("got \(error)") }
        }
        XCTAssertThrowsError(try manager.keepPartialFile(ofResumeData: resume.encoded))
        manager.invalidateSession(cancelingTasks: true)
        XCTAssertEqual(try Data(contentsOf: victim), Data(count: 10))
    }

    func testPartialFilesAreMode0600InTheirPrivateDirectory() throws {
        let manager = makeManager()
        let failure = try failedCutDownload(try cutServer(), manager: manager)
        let partial = try ResumeData(decoding: try XCTUnwrap(failure.downloadTaskResumeData)).partialFilePath
        var info = stat()
        XCTAssertEqual(lstat(partial, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o600)
        XCTAssertEqual(lstat(URL(fileURLWithPath: partial).deletingLastPathComponent().path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o700)
        XCTAssertEqual(info.st_uid, geteuid())
    }
}
