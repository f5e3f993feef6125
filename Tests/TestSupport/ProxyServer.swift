import Foundation
import XCTest

/// One of the local tinyproxy instances that `scripts/test.sh` starts (scripts/proxy-servers.sh):
/// `open`, or `guarded` (Basic credentials `username`/`password`, CONNECT to port 443 only).
public struct ProxyServer: Sendable {
    public static let username = "afn-proxy-user"
    public static let password = "proxy-secret"

    public let host: String
    public let port: Int
    /// tinyproxy's log: one "Request (file descriptor N): METHOD TARGET HTTP/1.1" line per request.
    public let log: URL

    public static func named(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> ProxyServer {
        let variable = "AFN_PROXY_\(name.uppercased())"
        let base = try testServerURL("\(variable)_URL", "", file: file, line: line)
        let log = try testServerValue("\(variable)_LOG", file: file, line: line)
        return ProxyServer(host: base.host ?? "127.0.0.1", port: base.port ?? 0, log: URL(fileURLWithPath: log))
    }

    /// The SOCKS5 proxy (microsocks): the same credentials; servers see its connections come
    /// from 127.0.0.2.
    public static func socksURL(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try testServerValue("AFN_PROXY_SOCKS_URL", file: file, line: line)
    }

    /// The open proxy reached over TLS (stunnel with the fixture localhost certificate).
    public static func tlsURL(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try testServerValue("AFN_PROXY_TLS_URL", file: file, line: line)
    }

    /// The proxy's URL for environment variables, with credentials when given.
    public func url(username: String? = nil, password: String? = nil) -> String {
        let credentials = username.map { "\($0):\(password ?? "")@" } ?? ""
        return "http://\(credentials)\(host):\(port)"
    }

    /// Whether the log holds a request line containing `marker`, waiting up to `timeout`.
    public func receivedRequest(containing marker: String, within timeout: TimeInterval = 2) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let text = try? String(contentsOf: log, encoding: .utf8),
               text.split(separator: "\n").contains(where: { $0.contains("Request (file descriptor") && $0.contains(marker) }) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return false
    }
}
