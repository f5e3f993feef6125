import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The async REST methods.
final class HTTPSessionManagerAsyncTests: XCTestCase {
    struct Echo: Decodable, Sendable {
        let args: [String: String]
        let url: String
    }

    struct Posted: Decodable, Sendable {
        let form: [String: String]
    }

    func testGETDecodesTheBody() async throws {
        let manager = try makeHTTPBinManager()
        let echo = try await manager.get("get", parameters: ["q": "a b"], as: Echo.self)
        XCTAssertEqual(echo.args, ["q": "a b"])
    }

    func testPOSTDecodesTheBody() async throws {
        let manager = try makeHTTPBinManager()
        let posted: Posted = try await manager.post("post", parameters: ["k": "v"])
        XCTAssertEqual(posted.form, ["k": "v"])
    }

    func testErrorStatusThrowsWithResponseAndBody() async throws {
        let manager = try makeHTTPBinManager()
        do {
            _ = try await manager.get("status/418", as: Echo.self)
            XCTFail("expected an error")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.statusCode, 418)
            XCTAssertFalse(error.data?.isEmpty ?? true)
        }
    }

    func testHEADReturnsTheResponse() async throws {
        let manager = try makeHTTPBinManager()
        let response = try await manager.head("get")
        XCTAssertEqual(response.statusCode, 200)
    }

    func testSendUsesTheManagersSerializer() async throws {
        let manager = try makeHTTPBinManager()
        let response = try await manager.send("PATCH", "patch", parameters: ["k": "v"])
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual((response.value as? [String: Any])?["form"] as? [String: String], ["k": "v"])
    }

    func testMultipartPOSTDecodesTheEcho() async throws {
        struct Files: Decodable, Sendable { let files: [String: String] }
        let manager = try makeHTTPBinManager()
        let echo = try await manager.post("post", constructingBodyWith: { form in
            try form.appendPart(withFileData: Data("hello".utf8), name: "f", fileName: "f.txt", mimeType: "text/plain")
        }, as: Files.self)
        XCTAssertEqual(echo.files, ["f": "hello"])
    }

    func testCancellingTheCallingTaskCancelsTheRequest() async throws {
        let manager = try makeHTTPBinManager()
        let start = Date()
        let call = Task { try await manager.get("delay/5", as: Echo.self) }
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
        let manager = try makeHTTPBinManager()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.get("delay/5", as: Echo.self)
        }
        do {
            _ = try await call.value
            XCTFail("expected cancellation")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled)
        }
    }

    func testSerializationErrorIsThrownBeforeAnyRequest() async throws {
        let manager = try makeHTTPBinManager()
        manager.requestSerializer = JSONRequestSerializer()
        do {
            _ = try await manager.post("post", parameters: ["x": Double.infinity], as: Posted.self)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? RequestSerializationError, .invalidJSONParameters)
        }
    }
}
