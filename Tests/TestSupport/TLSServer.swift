import Foundation
import XCTest

/// One of the local TLS servers (httpbin over HTTPS, one per fixture certificate) that
/// `scripts/test.sh` starts. Tests that need one fail (never skip) when it is absent.
public struct TLSServer: Sendable {
    public let baseURL: URL
    /// gunicorn's access log: one line per HTTP request the server received.
    public let accessLog: URL

    /// The server presenting the fixture `name` (`localhost`, `chained-localhost`, `expired`,
    /// `wrong-host`, `self-signed`).
    public static func named(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> TLSServer {
        let variable = name.uppercased().replacingOccurrences(of: "-", with: "_")
        let environment = ProcessInfo.processInfo.environment
        guard let base = environment["AFN_TLS_\(variable)_URL"].flatMap(URL.init(string:)),
              let log = environment["AFN_TLS_\(variable)_LOG"] else {
            XCTFail("AFN_TLS_\(variable)_URL is not set: run the tests through scripts/test.sh", file: file, line: line)
            throw URLError(.cannotConnectToHost)
        }
        return TLSServer(baseURL: base, accessLog: URL(fileURLWithPath: log))
    }

    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path)!
    }

    /// Whether the access log holds a request line containing `marker`, waiting up to
    /// `timeout` for it (the server writes the line after answering).
    public func receivedRequest(containing marker: String, within timeout: TimeInterval = 2) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let log = try? String(contentsOf: accessLog, encoding: .utf8), log.contains(marker) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }
}
