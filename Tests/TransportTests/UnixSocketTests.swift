import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Requests to httpbin on a Unix domain socket: by `http+unix` URL, or through a manager whose
/// every request goes to the socket.
final class UnixSocketTests: XCTestCase {
    private struct Echo: Decodable {
        let url: String
        let json: [String: String]?
        let form: [String: String]?
        let files: [String: String]?
    }

    private func socketManager() throws -> HTTPSessionManager {
        let manager = HTTPSessionManager(baseURL: URL(string: "http://localhost/")!)
        manager.unixSocketPath = try UnixSocketHTTPBin.socketPath()
        manager.requestSerializer = JSONRequestSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testAnHTTPUnixURLReachesTheServerOnTheSocket() async throws {
        let manager = URLSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = try UnixSocketHTTPBin.url("/get?x=1")
        let response = try await manager.response(for: URLRequest(url: url), serializer: JSONResponseSerializer())
        XCTAssertEqual(response.response.statusCode, 200)
        XCTAssertEqual(response.response.url, url, "the caller sees the URL it asked for")
        XCTAssertEqual((response.value as? [String: Any])?["url"] as? String, "http://localhost/get?x=1")
    }

    func testAManagerOnASocketPostsJSON() async throws {
        let echo = try await socketManager().post("post", parameters: ["name": "socket"], as: Echo.self)
        XCTAssertEqual(echo.json, ["name": "socket"])
        XCTAssertEqual(echo.url, "http://localhost/post")
    }

    func testAMultipartUploadArrivesWhole() async throws {
        let manager = try socketManager()
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: "http://localhost/post", parameters: ["title": "T"]
        ) { form in
            try form.appendPart(withFileData: bytes, name: "doc", fileName: "doc.bin", mimeType: "application/octet-stream")
        }
        let upload = manager.startUpload(for: request, serializer: JSONResponseSerializer())
        let value = try await upload.value
        let json = try XCTUnwrap(value as? [String: Any])
        XCTAssertEqual(HTTPBin.formValues(json), ["title": ["T"]])
        XCTAssertEqual(HTTPBin.fileContents(json)["doc"], bytes)
    }

    func testADownloadIsWrittenWhole() async throws {
        let manager = try socketManager()
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("unix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let file = try await manager.download(for: URLRequest(url: URL(string: "http://localhost/bytes/40000?seed=3")!), to: destination)
        XCTAssertEqual(try Data(contentsOf: file.value).count, 40_000)
    }

    func testARedirectStaysOnTheSocket() async throws {
        let manager = URLSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = try UnixSocketHTTPBin.url("/redirect-to?url=%2Fget%3Fredirected%3D1")
        let response = try await manager.response(for: URLRequest(url: url), serializer: JSONResponseSerializer())
        XCTAssertEqual(response.response.url, try UnixSocketHTTPBin.url("/get?redirected=1"))
        XCTAssertEqual(((response.value as? [String: Any])?["args"] as? [String: String])?["redirected"], "1")
    }

    func testACookieSetOnTheSocketIsSentBack() async throws {
        let manager = try socketManager()
        let name = "unix-\(UUID().uuidString.prefix(6))"
        defer {
            for cookie in HTTPCookieStorage.shared.cookies ?? [] where cookie.name == name { HTTPCookieStorage.shared.deleteCookie(cookie) }
        }
        let response = try await manager.data(for: URLRequest(url: URL(string: "http://localhost/cookies/set?\(name)=v")!))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: response.value) as? [String: Any])
        XCTAssertEqual((json["cookies"] as? [String: String])?[name], "v")
    }
}
