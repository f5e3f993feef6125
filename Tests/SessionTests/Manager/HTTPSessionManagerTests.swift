import AFNetworkingTesting
import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// AFNetworking's HTTPSessionManager behaviours, against the in-process `TestServer`.
final class HTTPSessionManagerTests: XCTestCase {
    func testDefaultSerializers() {
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        XCTAssertTrue(type(of: manager.requestSerializer) == HTTPRequestSerializer.self)
        XCTAssertTrue(manager.responseSerializer is JSONResponseSerializer)
    }

    func testARelativeURLWithoutABaseURLIsAnInvalidURL() {
        XCTAssertThrowsError(try HTTPSessionManager().request(method: "GET", urlString: "users/1", parameters: nil, headers: nil)) { error in
            guard case .invalidURL("users/1")? = error as? RequestSerializationError else { return XCTFail("\(error)") }
        }
    }

    func testPinningPolicyIsRefusedForAnHTTPBaseURL() {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://example.com/api"))
        XCTAssertThrowsError(try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .certificate))) { error in
            guard case SessionError.pinningRequiresHTTPS(let baseURL) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(baseURL?.absoluteString, "http://example.com/api/")
            XCTAssertEqual((error as NSError).code, -1022)
        }
        XCTAssertEqual(manager.securityPolicy, .default)
    }

    func testPinningPolicyIsRefusedWithoutABaseURL() {
        XCTAssertThrowsError(try HTTPSessionManager().setSecurityPolicy(SecurityPolicy(pinningMode: .publicKey)))
    }

    func testPinningPolicyIsAcceptedForAnHTTPSBaseURL() throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com"))
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedPublicKeyHashes: ["AAAA"])
        try manager.setSecurityPolicy(policy)
        XCTAssertEqual(manager.securityPolicy, policy)
    }

    func testPolicyWithoutPinningIsAcceptedForAnHTTPBaseURL() throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://example.com"))
        try manager.setSecurityPolicy(SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false))
        XCTAssertTrue(manager.securityPolicy.allowInvalidCertificates)
    }

    func testBaseURLGetsATrailingSlashWhenItHasAPath() {
        XCTAssertEqual(HTTPSessionManager(baseURL: URL(string: "http://example.com/api")).baseURL?.absoluteString, "http://example.com/api/")
        XCTAssertEqual(HTTPSessionManager(baseURL: URL(string: "http://example.com/api/")).baseURL?.absoluteString, "http://example.com/api/")
        XCTAssertEqual(HTTPSessionManager(baseURL: URL(string: "http://example.com")).baseURL?.absoluteString, "http://example.com")
    }

    func testRelativePathsResolveAgainstTheBaseURL() throws {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://example.com/v1"))
        XCTAssertEqual(try manager.resolve("users"), "http://example.com/v1/users")
        XCTAssertEqual(try manager.resolve("/root"), "http://example.com/root")
        XCTAssertEqual(try manager.resolve("https://other.example/x"), "https://other.example/x")
    }

    func testGETSucceedsWithTheParsedBody() throws {
        let server = try makeServer { _ in .jsonObject(["parsed": true]) }
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        let task = manager.get("get", parameters: ["key": "value"], success: call.success, failure: call.failure)
        XCTAssertNotNil(task)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertTrue(call.succeeded)
        XCTAssertIdentical(call.task, task)
        XCTAssertEqual(call.json?["parsed"] as? Bool, true)
        XCTAssertEqual(server.requests.first?.target, "/get?key=value")
    }

    func testStatus404CallsFailureWithTheResponseAndBody() throws {
        let server = try makeServer { _ in .status(404) }
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        manager.get("status/404", success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        let error = try XCTUnwrap(call.error as? ResponseSerializationError)
        XCTAssertEqual(error.reason, .unacceptableStatusCode(404))
        XCTAssertEqual(error.response?.statusCode, 404)
        XCTAssertEqual((call.error! as NSError).code, -1011)
        XCTAssertNotNil(call.task)
    }

    func testRedirectIsFollowed() throws {
        let server = try makeServer { request in request.path == "/redirect/1" ? .redirect(to: "/get") : .emptyJSON }
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        manager.get("redirect/1", success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertTrue(call.succeeded)
        XCTAssertEqual(call.task?.response?.url?.path, "/get")
        XCTAssertEqual(server.requests.map(\.path), ["/redirect/1", "/get"])
    }

    func testSerializationErrorCallsFailureAsynchronouslyWithNoTask() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        manager.requestSerializer = JSONRequestSerializer()
        // A suspended completion queue proves the failure is dispatched, not called in place.
        let completionQueue = DispatchQueue(label: "test.completion")
        completionQueue.suspend()
        manager.completionQueue = completionQueue
        let call = CallRecorder()
        let returned = manager.post("post", parameters: ["bad": Double.nan], success: call.success, failure: call.failure)
        XCTAssertNil(returned)
        XCTAssertNil(call.error, "failure ran before the method returned")
        completionQueue.resume()
        wait(for: [call.expectation], timeout: 10)
        XCTAssertNil(call.task)
        XCTAssertEqual(call.error as? RequestSerializationError, .invalidJSONParameters)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testPerRequestHeadersOverrideDefaults() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        manager.requestSerializer.setValue("default", forHTTPHeaderField: "X-Mode")
        manager.requestSerializer.setValue("kept", forHTTPHeaderField: "X-Other")
        let call = CallRecorder()
        manager.get("headers", headers: ["X-Mode": "per-request"], success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.fields.filter { $0.name.lowercased() == "x-mode" }.map(\.value), ["per-request"])
        XCTAssertEqual(sent.value(forHeader: "X-Other"), "kept")
    }

    func testPerRequestHeaderWithCRLFIsRefusedBeforeAnythingIsSent() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        XCTAssertNil(manager.get("headers", headers: ["X-Evil": "a\r\nX-Injected: 1"], success: call.success, failure: call.failure))
        wait(for: [call.expectation], timeout: 10)
        XCTAssertEqual(call.error as? RequestSerializationError, .invalidHeader(name: "X-Evil", value: "a\r\nX-Injected: 1"))
        XCTAssertEqual(server.requests.count, 0)
    }

    func testDownloadProgressIsReportedForGET() throws {
        let server = try makeServer { _ in .bytes(100_000) }
        let manager = makeHTTPSessionManager(for: server)
        manager.responseSerializer = HTTPResponseSerializer()
        let call = CallRecorder()
        let progressSeen = ProgressLog()
        manager.get("bytes", progress: progressSeen.handler, success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertTrue(call.succeeded)
        XCTAssertEqual(progressSeen.last?.completedUnitCount, 100_000)
        XCTAssertTrue(progressSeen.isMonotonic)
    }

    func testUploadProgressIsReportedForPOST() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        let progressSeen = ProgressLog()
        manager.post("post", parameters: ["blob": String(repeating: "x", count: 300_000)], progress: progressSeen.handler,
                     success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertTrue(call.succeeded)
        XCTAssertEqual(progressSeen.last?.completedUnitCount, 300_005)
        XCTAssertEqual(progressSeen.last?.totalUnitCount, 300_005)
        XCTAssertEqual(server.requests.first?.body.count, 300_005)
    }

    func testMultipartPOSTSendsFilesAndFormWithProgress() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        let progressSeen = ProgressLog()
        let file = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0) })
        manager.post("post", parameters: ["field": "value"], constructingBodyWith: { form in
            try form.appendPart(withFileData: file, name: "upload", fileName: "f.bin", mimeType: "application/octet-stream")
        }, progress: progressSeen.handler, success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertTrue(call.succeeded)
        let sent = try XCTUnwrap(server.requests.first)
        let parts = MultipartParts.parse(sent.body, contentType: sent.value(forHeader: "Content-Type"))
        XCTAssertEqual(parts.filter { $0.filename == nil }.map { [$0.name, String(decoding: $0.content, as: UTF8.self)] }, [["field", "value"]])
        XCTAssertEqual(parts.filter { $0.filename != nil }.map(\.name), ["upload"])
        XCTAssertEqual(parts.first { $0.name == "upload" }?.content, file)
        XCTAssertGreaterThan(progressSeen.last?.completedUnitCount ?? 0, 150_000)
        XCTAssertEqual(progressSeen.last?.completedUnitCount, progressSeen.last?.totalUnitCount)
    }

    func testNoContentGivesANilObject() throws {
        let server = try makeServer { _ in .status(204) }
        let manager = makeHTTPSessionManager(for: server)
        let call = CallRecorder()
        manager.get("no-content", success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertTrue(call.succeeded)
        XCTAssertNil(call.object)
    }

    func testEveryRESTMethodReachesTheServer() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        let calls = (0..<6).map { _ in CallRecorder() }
        manager.get("get", success: calls[0].success, failure: calls[0].failure)
        manager.head("get", success: { task in calls[1].success(task, nil) }, failure: calls[1].failure)
        manager.post("post", parameters: ["m": "post"], success: calls[2].success, failure: calls[2].failure)
        manager.put("put", parameters: ["m": "put"], success: calls[3].success, failure: calls[3].failure)
        manager.patch("patch", parameters: ["m": "patch"], success: calls[4].success, failure: calls[4].failure)
        manager.delete("delete", parameters: ["m": "delete"], success: calls[5].success, failure: calls[5].failure)
        wait(for: calls.map(\.expectation), timeout: 10)
        XCTAssertTrue(calls.allSatisfy(\.succeeded), "\(calls.map { $0.error.map { "\($0)" } ?? "ok" })")
        XCTAssertEqual(calls.map { $0.task?.originalRequest?.httpMethod }, ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"])
        XCTAssertEqual(Set(server.requests.map { "\($0.method) \($0.path)" }),
                       ["GET /get", "HEAD /get", "POST /post", "PUT /put", "PATCH /patch", "DELETE /delete"])
        XCTAssertEqual(try XCTUnwrap(server.request(method: "PUT")).formFields, [URLQueryItem(name: "m", value: "put")])
        XCTAssertEqual(try XCTUnwrap(server.request(method: "DELETE")).queryItems, [URLQueryItem(name: "m", value: "delete")])
    }

    func testDataTaskWithHTTPMethodIsNotResumed() throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        let task = try XCTUnwrap(manager.dataTask(httpMethod: "GET", urlString: "get"))
        XCTAssertEqual(task.state, .suspended)
        task.cancel()
    }

    func testBasicAuthorizationHeaderFromTheSerializer() throws {
        let server = try makeServer { .basicAuth($0, user: "user", password: "pass", challenges: false) }
        let manager = makeHTTPSessionManager(for: server)
        manager.requestSerializer.setAuthorizationHeaderField(username: "user", password: "pass")
        let call = CallRecorder()
        manager.get("hidden-basic-auth/user/pass", success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertEqual(call.json?["authenticated"] as? Bool, true)
        XCTAssertEqual(server.requests.map(\.target), ["/hidden-basic-auth/user/pass"])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Authorization") }, ["Basic dXNlcjpwYXNz"])
    }

    func testBasicAuthThroughTheManagersCredential() throws {
        let server = try makeServer { .basicAuth($0, user: "user", password: "pass") }
        let manager = makeHTTPSessionManager(for: server)
        manager.credential = URLCredential(user: "user", password: "pass", persistence: .forSession)
        assertChallengeAnswered(by: manager, on: server)
    }

    func testBasicAuthThroughTheChallengeOverride() throws {
        let server = try makeServer { .basicAuth($0, user: "user", password: "pass") }
        let manager = makeHTTPSessionManager(for: server)
        var overrides = SessionDelegateOverrides()
        overrides.taskDidReceiveAuthenticationChallenge = { _, _, challenge in
            (.useCredential, URLCredential(user: "user", password: "pass", persistence: .none))
        }
        manager.overrides = overrides
        assertChallengeAnswered(by: manager, on: server)
    }

    /// A GET of `server`'s Basic-protected route by `manager` is answered as authenticated: its
    /// first request went without credentials, the second with them.
    private func assertChallengeAnswered(by manager: HTTPSessionManager, on server: TestServer, line: UInt = #line) {
        let call = CallRecorder()
        manager.get("basic-auth/user/pass", success: call.success, failure: call.failure)
        wait(for: [call.expectation], timeout: 10)
        XCTAssertEqual(call.json?["authenticated"] as? Bool, true, line: line)
        XCTAssertEqual(server.requests.map(\.target), ["/basic-auth/user/pass", "/basic-auth/user/pass"], line: line)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Authorization") }, [nil, "Basic dXNlcjpwYXNz"], line: line)
    }
}

/// Progress values seen by a handler, in order.
final class ProgressLog: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = NSLock()
    private var values: [(completed: Int64, total: Int64)] = []

    var handler: URLSessionManager.ProgressHandler {
        { [self] progress in
            lock.lock()
            values.append((progress.completedUnitCount, progress.totalUnitCount))
            lock.unlock()
        }
    }

    var last: (completedUnitCount: Int64, totalUnitCount: Int64)? {
        lock.lock()
        defer { lock.unlock() }
        return values.last.map { ($0.completed, $0.total) }
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return values.count
    }

    var isMonotonic: Bool {
        lock.lock()
        defer { lock.unlock() }
        return zip(values, values.dropFirst()).allSatisfy { $0.completed <= $1.completed }
    }

}
