import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The local httpbin that `scripts/test.sh` starts. Tests that need it fail (never skip) when
/// it is absent, so a missing server cannot pass as green.
public enum HTTPBin {
    public static func url(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try testServerURL("AFN_HTTPBIN_URL", path, file: file, line: line)
    }

    /// Sends `request` with a plain URLSession and returns the status and the JSON body.
    public static func send(_ request: URLRequest) async throws -> (status: Int, json: [String: Any]) {
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (status, json)
    }

    /// Uploads the file at `file` with `request` and returns the status and the JSON body.
    public static func upload(_ request: URLRequest, fromFile file: URL) async throws -> (status: Int, json: [String: Any]) {
        let (data, response) = try await session.upload(for: request, fromFile: file)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (status, json)
    }

    /// Fetches `path` and returns the response and body for response-serializer tests.
    public static func fetch(_ path: String) async throws -> (HTTPURLResponse, Data) {
        let (data, response) = try await session.data(for: URLRequest(url: try url(path)))
        return (try XCTUnwrap(response as? HTTPURLResponse), data)
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    /// httpbin's form values: a string for one value, a list for several; always a list here.
    public static func formValues(_ json: [String: Any]) -> [String: [String]] {
        let form = json["form"] as? [String: Any] ?? [:]
        return form.mapValues { value in (value as? [String]) ?? [value as? String ?? "\(value)"] }
    }

    /// httpbin's file contents: UTF-8 text as is, anything else as a base64 `data:` URI.
    public static func fileContents(_ json: [String: Any]) -> [String: Data] {
        let files = json["files"] as? [String: Any] ?? [:]
        return files.compactMapValues { value in
            guard let text = value as? String else { return nil }
            if text.hasPrefix("data:"), let comma = text.range(of: ";base64,") {
                return Data(base64Encoded: String(text[comma.upperBound...]))
            }
            return Data(text.utf8)
        }
    }
}

/// The httpbin that `scripts/test.sh` starts on a Unix domain socket.
public enum UnixSocketHTTPBin {
    /// The socket's path; fails the test (never skips) when it is not set.
    public static func socketPath(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try testServerValue("AFN_HTTPBIN_SOCKET", file: file, line: line)
    }

    /// `path` on the socket, in the `http+unix` URL form.
    public static func url(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let socket = try socketPath(file: file, line: line).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return URL(string: "http+unix://\(socket)\(path)")!
    }
}
