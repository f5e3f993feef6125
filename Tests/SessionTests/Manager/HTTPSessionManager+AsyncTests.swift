import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The async REST methods, against the in-process `TestServer`.
final class HTTPSessionManagerAsyncTests: XCTestCase {
    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let url: String
    }

    struct Posted: Decodable, Sendable {
        let form: [String: String]
    }

    func testGETDecodesTheBody() async throws {
        let server = try makeServer { request in
            .jsonObject(["args": Dictionary(uniqueKeysWithValues: request.queryItems.map { ($0.name, $0.value ?? "") }), "url": request.url?.absoluteString ?? ""])
        }
        let manager = makeHTTPSessionManager(for: server)
        let echo = try await manager.get("get", parameters: ["q": "a b"], as: Echo.self)
        XCTAssertEqual(echo.args, ["q": "a b"])
        XCTAssertEqual(server.requests.first?.target, "/get?q=a%20b")
    }

    func testPOSTDecodesTheBody() async throws {
        let server = try makeServer { request in
            .jsonObject(["form": Dictionary(uniqueKeysWithValues: request.formFields.map { ($0.name, $0.value ?? "") })])
        }
        let manager = makeHTTPSessionManager(for: server)
        let posted: Posted = try await manager.post("post", parameters: ["k": "v"])
        XCTAssertEqual(posted.form, ["k": "v"])
        XCTAssertEqual(server.requests.first?.text, "k=v")
    }

    func testErrorStatusThrowsWithResponseAndBody() async throws {
        let server = try makeServer { _ in .text("I'm a teapot", status: 418) }
        let manager = makeHTTPSessionManager(for: server)
        do {
            _ = try await manager.get("teapot", as: Echo.self)
            XCTFail("expected an error")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.statusCode, 418)
            XCTAssertEqual(error.data, Data("I'm a teapot".utf8))
        }
    }

    func testHEADReturnsTheResponse() async throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        let response = try await manager.head("get")
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(server.requests.map { "\($0.method) \($0.target)" }, ["HEAD /get"])
    }

    func testSendUsesTheManagersSerializer() async throws {
        let server = try makeServer { request in
            .jsonObject(["form": Dictionary(uniqueKeysWithValues: request.formFields.map { ($0.name, $0.value ?? "") })])
        }
        let manager = makeHTTPSessionManager(for: server)
        let response = try await manager.send("PATCH", "patch", parameters: ["k": "v"])
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual((response.value as? [String: Any])?["form"] as? [String: String], ["k": "v"])
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.method, "PATCH")
        XCTAssertEqual(sent.value(forHeader: "Content-Type"), "application/x-www-form-urlencoded")
    }

    func testMultipartPOSTDecodesTheEcho() async throws {
        struct Files: Decodable, Sendable { let files: [String: String] }
        // Echoes the file parts' names and contents, as httpbin's "files".
        let server = try makeServer { request in
            let parts = MultipartParts.parse(request.body, contentType: request.value(forHeader: "Content-Type"))
            return .jsonObject(["files": Dictionary(parts.filter { $0.filename != nil }.map { ($0.name ?? "", String(decoding: $0.content, as: UTF8.self)) }) { first, _ in first }])
        }
        let manager = makeHTTPSessionManager(for: server)
        let echo = try await manager.post("post", constructingBodyWith: { form in
            try form.appendPart(withFileData: Data("hello".utf8), name: "f", fileName: "f.txt", mimeType: "text/plain")
        }, as: Files.self)
        XCTAssertEqual(echo.files, ["f": "hello"])
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(MultipartParts.parse(sent.body, contentType: sent.value(forHeader: "Content-Type")).map(\.filename), ["f.txt"])
    }

    func testCancellingTheCallingTaskCancelsTheRequest() async throws {
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 5) }
        let manager = makeHTTPSessionManager(for: server)
        let start = Date()
        let call = Task { try await manager.get("delay", as: Echo.self) }
        try await Task.sleep(nanoseconds: 200_000_000)
        call.cancel()
        do {
            _ = try await call.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        XCTAssertEqual(manager.tasks.count, 0)
    }

    func testAlreadyCancelledCallerNeverLeavesARequestRunning() async throws {
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 5) }
        let manager = makeHTTPSessionManager(for: server)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.get("delay", as: Echo.self)
        }
        do {
            _ = try await call.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled)
        }
    }

    func testSerializationErrorIsThrownBeforeAnyRequest() async throws {
        let server = try makeServer()
        let manager = makeHTTPSessionManager(for: server)
        manager.requestSerializer = JSONRequestSerializer()
        do {
            _ = try await manager.post("post", parameters: ["x": Double.infinity], as: Posted.self)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? RequestSerializationError, .invalidJSONParameters)
        }
        XCTAssertEqual(server.requests.count, 0)
    }
}
