import AFLocking
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

    private func straightDownload(_ path: String, manager: URLSessionManager) throws -> Data {
        let destination = directory.url.appendingPathComponent("straight-\(UUID().uuidString)")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: try HTTPBin.url(path)), destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        return try Data(contentsOf: destination)
    }

    /// Starts a slow download and cancels it for resume data once `bytes` arrived.
    private func resumeDataAfterCancelling(_ path: String, after bytes: Int64, manager: URLSessionManager) throws -> Data? {
        let enough = expectation(description: "enough bytes")
        let once = LockedFlag()
        let recorder = CompletionRecorder()
        let task = try manager.downloadTask(
            with: URLRequest(url: try HTTPBin.url(path)),
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
        let resumeData = try XCTUnwrap(try resumeDataAfterCancelling("/range/102400?duration=2&chunk_size=1024", after: 10_000, manager: manager))
        let decoded = try ResumeData(decoding: resumeData)
        XCTAssertEqual(decoded.headers.keys.filter { $0.lowercased().hasPrefix("x-afnetworking") }, [])
    }

    func testCancelledDownloadResumesWithARangeAndMatchesAStraightDownload() throws {
        let manager = makeManager()
        let expected = try straightDownload("/range/102400", manager: manager)
        let resumedFrom = Locked<Int64>(-1)
        var overrides = SessionDelegateOverrides()
        overrides.downloadTaskDidResume = { _, _, offset, _ in resumedFrom.withLock { $0 = offset } }
        manager.overrides = overrides

        let resumeData = try XCTUnwrap(try resumeDataAfterCancelling("/range/102400?duration=2&chunk_size=1024", after: 20_000, manager: manager))
        let destination = directory.url.appendingPathComponent("resumed.bin")
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resumeData, progress: progress.handler,
                                                    destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), expected)
        XCTAssertGreaterThanOrEqual(resumedFrom.withLock { $0 }, 20_000, "the server was not asked for the remaining range")
        XCTAssertEqual(progress.last?.completedUnitCount, 102_400)
        XCTAssertEqual(progress.last?.totalUnitCount, 102_400)
    }

    /// Downloads the fault server's resource that is cut after 40%; returns the failure.
    private func failedCutDownload(_ id: Int, manager: URLSessionManager, headers: [String: String] = [:]) throws -> URLError {
        var request = URLRequest(url: try FaultServer.url("/cut/100000?id=\(id)"))
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
        let id = FaultServer.uniqueID()
        let failure = try failedCutDownload(id, manager: manager)
        // URLSession's own protocol reports a reset as `.unknown`.
        XCTAssertEqual(failure.code, HTTPTransport.underTest == .urlSession ? .unknown : .networkConnectionLost)
        let resumeData = try XCTUnwrap(failure.downloadTaskResumeData)
        XCTAssertEqual(failure.userInfo[NSURLSessionDownloadTaskResumeData] as? Data, resumeData)
        XCTAssertEqual(try ResumeData(decoding: resumeData).bytesReceived, 40_000)
        let destination = directory.url.appendingPathComponent("cut.bin")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resumeData, destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), Data((0..<100_000).map { UInt8($0 % 256) }))
        XCTAssertEqual(try FaultServer.log(id).map(\.range), [nil, "bytes=40000-"], "only the remaining range was asked for")
    }

    func testAPartialFileNobodyResumedIsRemovedWhenTheSessionIsInvalidated() throws {
        let manager = makeManager()
        let failure = try failedCutDownload(FaultServer.uniqueID(), manager: manager)
        let partial = try ResumeData(decoding: try XCTUnwrap(failure.downloadTaskResumeData)).partialFilePath
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial))
        manager.invalidateSession(cancelingTasks: false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial))
    }

    func testAKeptPartialFileOutlivesTheSessionAndResumesWithAnotherManager() throws {
        let id = FaultServer.uniqueID()
        let manager = makeManager()
        let resumeData = try XCTUnwrap(try failedCutDownload(id, manager: manager).downloadTaskResumeData)
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
        XCTAssertEqual(try Data(contentsOf: destination), Data((0..<100_000).map { UInt8($0 % 256) }))
    }

    func testAPartialFileNobodyResumedIsRemovedWhenTheManagerIsFreed() throws {
        var manager: URLSessionManager? = URLSessionManager(transport: .underTest)
        let failure = try failedCutDownload(FaultServer.uniqueID(), manager: manager!)
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
        let path = "/bytes/5000?seed=7"
        let expected = try straightDownload(path, manager: manager)
        let partial = try stagedPartialFile(Data(repeating: 0xEE, count: 1200))
        var request = URLRequest(url: try HTTPBin.url(path))
        request.httpMethod = "GET"
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: ["ETag": "\"v1\""])
        let resume = try XCTUnwrap(ResumeData(request: request, response: response, partialFile: partial, bytesReceived: 1200))
        let destination = directory.url.appendingPathComponent("full.bin")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resume.encoded, destination: { _, _ in destination }, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try Data(contentsOf: destination), expected)
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
        XCTAssertNil(try resumeDataAfterCancelling("/drip?numbytes=400&duration=4", after: 10, manager: manager))
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
        let id = FaultServer.uniqueID()
        let manager = makeManager()
        let failure = try failedCutDownload(id, manager: manager, headers: ["Authorization": "Bearer first"])
        let resumeData = try XCTUnwrap(failure.downloadTaskResumeData)
        XCTAssertFalse(String(decoding: resumeData, as: UTF8.self).contains("Bearer"))
        var request = URLRequest(url: try FaultServer.url("/cut/100000?id=\(id)"))
        request.setValue("Bearer again", forHTTPHeaderField: "Authorization")
        let destination = directory.url.appendingPathComponent("cut.bin")
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(withResumeData: resumeData, request: request, destination: { _, _ in destination },
                                                    completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try FaultServer.log(id).map(\.authorization), ["Bearer first", "Bearer again"])
        XCTAssertEqual(try FaultServer.log(id).map(\.range), [nil, "bytes=40000-"])
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
        let failure = try failedCutDownload(FaultServer.uniqueID(), manager: manager)
        let partial = try ResumeData(decoding: try XCTUnwrap(failure.downloadTaskResumeData)).partialFilePath
        var info = stat()
        XCTAssertEqual(lstat(partial, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o600)
        XCTAssertEqual(lstat(URL(fileURLWithPath: partial).deletingLastPathComponent().path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o7777, 0o700)
        XCTAssertEqual(info.st_uid, geteuid())
    }
}
