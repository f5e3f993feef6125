#if OpenAPI
import AFNetworking
import AFNetworkingOpenAPI
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import XCTest

/// A generated client's calls through `URLSessionManagerTransport`, on a stub transport.
final class URLSessionManagerTransportTests: XCTestCase {
    private let stubs = StubTransport()
    private let baseURL = URL(string: "https://api.example.com/api")!

    private var transport: URLSessionManagerTransport {
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return URLSessionManagerTransport(manager: manager)
    }

    private func send(_ request: HTTPRequest, body: HTTPBody? = nil) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        try await transport.send(request, body: body, baseURL: baseURL, operationID: "test")
    }

    func testTheRequestReachesTheServerWithItsMethodPathQueryAndEveryHeaderField() async throws {
        stubs.on("DELETE", "https://api.example.com/api/v1/items/7").reply(.status(204))
        var fields = HTTPFields()
        fields[.accept] = "application/json"
        fields.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: "a"))
        fields.append(HTTPField(name: HTTPField.Name("X-Tag")!, value: "b"))
        _ = try await send(HTTPRequest(method: .delete, scheme: nil, authority: nil, path: "/v1/items/7?force=true", headerFields: fields))
        XCTAssertEqual(stubs.requests.map(\.target), ["/api/v1/items/7?force=true"])
        XCTAssertEqual(stubs.requests.first?.value(forHeader: "Accept"), "application/json")
        XCTAssertEqual(stubs.requests.first?.value(forHeader: "X-Tag"), "a,b")
    }

    func testTheResponseArrivesWithItsStatusFieldsAndBody() async throws {
        stubs.on("GET", "https://api.example.com/api/v1/items").reply(.status(200, fields: ["Content-Type": "application/json", "X-Total": "2"],
                                                                              body: Data(#"[1,2]"#.utf8)))
        let (response, body) = try await send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/items"))
        XCTAssertEqual(response.status.code, 200)
        XCTAssertEqual(response.headerFields[.contentType], "application/json")
        XCTAssertEqual(response.headerFields[HTTPField.Name("X-Total")!], "2")
        XCTAssertEqual(body?.length, .known(5))
        XCTAssertEqual(body?.iterationBehavior, .single)
        let text = try await String(collecting: XCTUnwrap(body), upTo: 1024)
        XCTAssertEqual(text, "[1,2]")
    }

    func testAnErrorStatusIsAResponseForTheGeneratedCodeToDecideOn() async throws {
        stubs.on("GET", "https://api.example.com/api/v1/missing").reply(.status(404, body: Data("gone".utf8)))
        let (response, body) = try await send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/missing"))
        XCTAssertEqual(response.status.code, 404)
        let text = try await String(collecting: XCTUnwrap(body), upTo: 1024)
        XCTAssertEqual(text, "gone")
    }

    func testARequestBodyIsSentWithItsLength() async throws {
        stubs.on("POST", "https://api.example.com/api/v1/items").reply(.status(201))
        _ = try await send(HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/v1/items"), body: HTTPBody(#"{"a":1}"#))
        XCTAssertEqual(stubs.requests.map(\.text), [#"{"a":1}"#])
        XCTAssertEqual(stubs.requests.first?.value(forHeader: "Content-Length"), "7")
    }

    func testABodyThatCanBeIteratedAgainIsSentAgainOnA307() async throws {
        stubs.on("POST", "https://api.example.com/api/v1/old").reply(.redirect(to: "https://api.example.com/api/v1/new", status: 307))
        stubs.on("POST", "https://api.example.com/api/v1/new").reply(.status(201))
        let (response, _) = try await send(HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/v1/old"), body: HTTPBody("hello"))
        XCTAssertEqual(response.status.code, 201)
        XCTAssertEqual(stubs.requests.map(\.text), ["hello", "hello"])
    }

    func testABodyIteratedOnceIsNotSentAgainOnA307WhichFailsTheCall() async throws {
        stubs.on("POST", "https://api.example.com/api/v1/old").reply(.redirect(to: "https://api.example.com/api/v1/new", status: 307))
        let once = HTTPBody(AsyncStream { continuation in
            continuation.yield(ArraySlice("hello".utf8))
            continuation.finish()
        }, length: .known(5))
        do {
            let (response, _) = try await send(HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/v1/old"), body: once)
            XCTFail("the 307 came back as the response (\(response.status.code))")
        } catch let error as SessionError {
            guard case .redirectWouldDropBody = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(stubs.requests.map(\.text), ["hello"])
    }

    func testAResponseToHEADHasNoBody() async throws {
        stubs.on("HEAD", "https://api.example.com/api/v1/items").reply(.status(200, fields: ["Content-Length": "42"]))
        let (response, body) = try await send(HTTPRequest(method: .head, scheme: nil, authority: nil, path: "/v1/items"))
        XCTAssertEqual(response.status.code, 200)
        XCTAssertNil(body)
    }

    func testCancellingTheCallingTaskCancelsTheRequest() async throws {
        stubs.on("GET", "https://api.example.com/api/v1/slow").reply(StubReply.text("late").delayed(by: 30))
        let (transport, baseURL) = (transport, baseURL)
        let call = Task { try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/slow"), body: nil,
                                                   baseURL: baseURL, operationID: "slow") }
        let sent = Date()
        while stubs.requests.isEmpty, Date().timeIntervalSince(sent) < 5 { try await Task.sleep(nanoseconds: 1_000_000) }
        call.cancel()
        do {
            _ = try await call.value
            XCTFail("a cancelled call got its response")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(sent), 10)
    }

    func testATransportFailureIsThrown() async throws {
        stubs.on("GET", "https://api.example.com/api/v1/items").reply(.failure(.cannotConnectToHost))
        do {
            _ = try await send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/v1/items"))
            XCTFail("a refused connection succeeded")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cannotConnectToHost)
        }
    }
}
#endif
