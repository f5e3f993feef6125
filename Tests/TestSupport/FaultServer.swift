import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The project's fault server (`scripts/fault_server.py`) that `scripts/test.sh` starts: gzip
/// bombs, bodies with and without a declared length, scripted sequences and their request
/// log. Tests that need it fail (never skip) when it is absent.
public enum FaultServer {
    public static func url(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try testServerURL("AFN_FAULT_URL", path, file: file, line: line)
    }

    /// The scripted sequence `steps` (`503:1,503,200`) under the id `id`.
    public static func sequence(_ id: Int, _ steps: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try url("/seq/\(id)?s=\(steps)", file: file, line: line)
    }

    /// `/raw/0`: after `milliseconds`, the server writes `response` as it is, with `{pad}`
    /// replaced by `padding` letters, and closes.
    public static func raw(
        _ response: String, delay milliseconds: Int = 0, padding: Int = 0, file: StaticString = #filePath, line: UInt = #line
    ) throws -> URL {
        let encoded = Data(response.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "%3D")
        return try url("/raw/0?r=\(encoded)&delay=\(milliseconds)&pad=\(padding)", file: file, line: line)
    }

    /// A fresh id for the scripted kinds, so that no two tests share a sequence or a log.
    public static func uniqueID() -> Int { Int.random(in: 1_000_000...999_999_999) }

    /// One request the server logged for a scripted id.
    public struct LoggedRequest: Decodable, Sendable {
        public let method: String
        public let path: String
        /// Seconds since 1970, as the server's clock read it when the request arrived.
        public let time: Double
        public let range: String?
        public let authorization: String?
        public let idempotencyKey: String?

        enum CodingKeys: String, CodingKey {
            case method, path, time, range, authorization
            case idempotencyKey = "idempotency_key"
        }
    }

    /// The requests made to the scripted id `id`, in order.
    public static func log(_ id: Int, file: StaticString = #filePath, line: UInt = #line) throws -> [LoggedRequest] {
        let url = try url("/log/\(id)", file: file, line: line)
        let result = LockedResult()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: url) { data, _, error in
            result.set(data.map { .success($0) } ?? .failure(error ?? URLError(.badServerResponse)))
            done.signal()
        }.resume()
        done.wait()
        return try JSONDecoder().decode([LoggedRequest].self, from: try result.get())
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()
}

/// The result of one request, handed from its completion handler to the waiting thread.
private final class LockedResult: @unchecked Sendable {
    // @unchecked: written once before the semaphore is signalled, read after waiting on it.
    private var result: Result<Data, any Error> = .failure(URLError(.unknown))
    func set(_ result: Result<Data, any Error>) { self.result = result }
    func get() throws -> Data { try result.get() }
}
