import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The manager's contract over a pinned connection: uploads of every kind and downloads with
/// progress, redirects, credentials, cancellation and timeouts.
final class PinnedManagerTests: XCTestCase {
    private var server: TLSServer!
    private var manager: URLSessionManager!

    override func setUpWithError() throws {
        server = try TLSServer.named("localhost")
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("localhost")]))
        self.manager = manager
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
    }

    /// A POST of raw bytes (without a type, the body would be sent as a form, as URLSession
    /// sends it, and httpbin would parse it).
    private func post(_ path: String = "/post") -> URLRequest {
        var request = URLRequest(url: server.url(path))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        return request
    }

    private func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try data.write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// The last progress seen, by a handler that may run many times.
    private final class ProgressLog: @unchecked Sendable {
        // @unchecked: `values` is only touched under `lock`.
        private let lock = NSLock()
        private var values: (Int64, Int64)?
        var handler: URLSessionManager.ProgressHandler {
            { [self] progress in lock.withLock { values = (progress.completedUnitCount, progress.totalUnitCount) } }
        }
        var last: (completed: Int64, total: Int64)? { lock.withLock { values } }
    }

    private static let body = Data((0..<300_000).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0..<26) })

    // MARK: Uploads

    func testFileUploadArrivesWithItsLengthAndReportsProgress() async throws {
        let upload = manager.startUpload(for: post(), fromFile: try temporaryFile(Self.body), serializer: HTTPResponseSerializer())
        var last: TransferProgress?
        for await progress in upload.progress { last = progress }
        let body = try await upload.value ?? Data()
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertEqual(json["data"] as? String, String(decoding: Self.body, as: UTF8.self))
        XCTAssertEqual((json["headers"] as? [String: String])?["Content-Length"], "\(Self.body.count)")
        XCTAssertEqual(last, TransferProgress(completedBytes: Int64(Self.body.count), totalBytes: Int64(Self.body.count)))
    }

    func testDataUploadArrivesAndReportsProgress() async throws {
        let progress = ProgressLog()
        var request = post()
        request.httpBody = Self.body
        let response = try await manager.response(for: request, serializer: JSONResponseSerializer(), uploadProgress: progress.handler)
        let json = try XCTUnwrap(response.value as? [String: Any])
        XCTAssertEqual(json["data"] as? String, String(decoding: Self.body, as: UTF8.self))
        XCTAssertEqual(progress.last?.completed, Int64(Self.body.count))
    }

    func testStreamedUploadWithoutLengthArrivesChunked() async throws {
        var request = post()
        request.httpBodyStream = InputStream(data: Self.body)
        let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
        let json = try XCTUnwrap(response.value as? [String: Any])
        XCTAssertEqual(json["data"] as? String, String(decoding: Self.body, as: UTF8.self))
        XCTAssertEqual((json["headers"] as? [String: String])?["Transfer-Encoding"], "chunked")
    }

    func testMultipartUploadArrivesWithItsLengthAndReportsProgress() async throws {
        let progress = ProgressLog()
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: server.url("/post").absoluteString, parameters: ["field": "value"]
        ) { form in
            try form.appendPart(withFileData: Self.body, name: "file", fileName: "body.txt", mimeType: "text/plain")
        }
        let response = try await manager.response(for: request, serializer: JSONResponseSerializer(), uploadProgress: progress.handler)
        let json = try XCTUnwrap(response.value as? [String: Any])
        XCTAssertEqual(HTTPBin.formValues(json)["field"], ["value"])
        XCTAssertEqual(HTTPBin.fileContents(json)["file"], Self.body)
        let length = try XCTUnwrap(request.multipartContentLength)
        XCTAssertEqual((json["headers"] as? [String: String])?["Content-Length"], "\(length)")
        XCTAssertEqual(progress.last?.completed, Int64(length))
    }

    // MARK: Downloads

    func testDownloadIsWrittenAndReportsProgress() async throws {
        let progress = ProgressLog()
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        addTeardownBlock { try? FileManager.default.removeItem(at: destination) }
        let request = URLRequest(url: server.url("/bytes/100000?seed=7"))
        let download = try await manager.download(for: request, to: destination, progress: progress.handler)
        let expected = try await manager.data(for: request).value
        XCTAssertEqual(try Data(contentsOf: download.value), expected)
        XCTAssertEqual(expected.count, 100_000)
        XCTAssertEqual(progress.last?.completed, 100_000)
        XCTAssertEqual(progress.last?.total, 100_000)
    }

    // MARK: Redirects, credentials, errors

    func testRedirectsAreFollowedOverThePinnedConnection() async throws {
        let response = try await manager.data(for: URLRequest(url: server.url("/redirect/3")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.response.url?.path, "/get")
    }

    func testRedirectOverrideCanStopAtTheRedirect() async throws {
        var overrides = manager.overrides
        overrides.taskWillPerformHTTPRedirection = { _, _, _, _ in nil }
        manager.overrides = overrides
        let response = try await manager.response(for: URLRequest(url: server.url("/redirect/1")), serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(response.statusCode, 302)
    }

    func testTemporaryRedirectOfABodyFailsInsteadOfDroppingIt() async throws {
        var request = post("/redirect-to?url=/post&status_code=307")
        request.httpBodyStream = InputStream(data: Self.body)
        do {
            _ = try await manager.data(for: request)
            XCTFail("the redirect was followed")
        } catch SessionError.redirectWouldDropBody(let response) {
            XCTAssertEqual(response.statusCode, 307)
        }
    }

    func testAuthorizationIsKeptOnTheSameHostAndDroppedForAnother() async throws {
        func echoedAuthorization(redirectingTo host: String) async throws -> String? {
            let target = server.url("/headers").absoluteString.replacingOccurrences(of: "localhost", with: host)
            var components = URLComponents(url: server.url("/redirect-to"), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "url", value: target)]
            var request = URLRequest(url: components.url!)
            request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
            let response = try await manager.response(for: request, serializer: JSONResponseSerializer())
            XCTAssertEqual(response.response.url?.absoluteString, target)
            return ((response.value as? [String: Any])?["headers"] as? [String: String])?["Authorization"]
        }
        let sameHost = try await echoedAuthorization(redirectingTo: "localhost")
        XCTAssertEqual(sameHost, "Bearer secret")
        let otherHost = try await echoedAuthorization(redirectingTo: "127.0.0.1")
        XCTAssertNil(otherHost)
    }

    func testBasicChallengeIsAnsweredWithTheCredential() async throws {
        let credential = URLCredential(user: "user", password: "secret", persistence: .none)
        let response = try await manager.data(for: URLRequest(url: server.url("/basic-auth/user/secret")), credential: credential)
        XCTAssertEqual(response.statusCode, 200)
    }

    func testBasicChallengeWithoutCredentialFailsPromptly() async throws {
        let start = Date()
        do {
            _ = try await manager.data(for: URLRequest(url: server.url("/basic-auth/user/secret")))
            XCTFail("no error")
        } catch SessionError.authenticationRequired(let response) {
            XCTAssertEqual(response?.statusCode, 401)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testRefusedCredentialFailsWithAuthenticationRequired() async throws {
        let credential = URLCredential(user: "user", password: "wrong", persistence: .none)
        do {
            _ = try await manager.data(for: URLRequest(url: server.url("/basic-auth/user/secret")), credential: credential)
            XCTFail("no error")
        } catch SessionError.authenticationRequired(let response) {
            XCTAssertEqual(response?.statusCode, 401)
        }
    }

    func testHTTPErrorStatusIsDeliveredWithItsResponse() async throws {
        do {
            _ = try await manager.data(for: URLRequest(url: server.url("/status/404")))
            XCTFail("no error")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.response?.statusCode, 404)
        }
    }

    func testCancellingStopsTheTransferPromptly() throws {
        let done = expectation(description: "completion")
        let start = Date()
        let task = try manager.dataTask(with: URLRequest(url: server.url("/delay/10"))) { _, _, error in
            XCTAssertEqual((error as? URLError)?.code, .cancelled)
            done.fulfill()
        }
        manager.resume(task)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { task.cancel() }
        wait(for: [done], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
    }

    func testIdleServerTimesOut() async throws {
        var request = URLRequest(url: server.url("/delay/5"))
        request.timeoutInterval = 1
        let start = Date()
        do {
            _ = try await manager.data(for: request)
            XCTFail("no timeout")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .timedOut)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
    }

    func testPlainHTTPRequestOfAPinnedManagerStillWorks() async throws {
        let response = try await manager.data(for: URLRequest(url: try HTTPBin.url("/get")))
        XCTAssertEqual(response.statusCode, 200)
    }
}
