import Foundation
import XCTest

/// nginx speaking HTTP/2 in front of httpbin, started by `scripts/test.sh` (scripts/nginx.sh):
/// over TLS (ALPN) and over cleartext with prior knowledge.
public struct HTTP2Server: Sendable {
    /// https://localhost:PORT, with the fixture localhost certificate.
    public let tlsURL: URL
    /// http://127.0.0.1:PORT, HTTP/2 only (prior knowledge).
    public let cleartextURL: URL
    /// One line per request: "CONNECTION PROTOCOL \"REQUEST LINE\" STATUS".
    public let log: URL

    public static func running(file: StaticString = #filePath, line: UInt = #line) throws -> HTTP2Server {
        HTTP2Server(tlsURL: try testServerURL("AFN_H2_URL", "", file: file, line: line),
                    cleartextURL: try testServerURL("AFN_H2C_URL", "", file: file, line: line),
                    log: URL(fileURLWithPath: try testServerValue("AFN_H2_LOG", file: file, line: line)))
    }

    /// The log's entries whose request line contains `marker`, waiting up to `timeout` for
    /// `count` of them: each with nginx's connection serial number and the protocol.
    public func requests(containing marker: String, count: Int = 1, within timeout: TimeInterval = 3) -> [(connection: Int, protocol: String)] {
        let deadline = Date().addingTimeInterval(timeout)
        var entries: [(connection: Int, protocol: String)] = []
        repeat {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            entries = text.split(separator: "\n").filter { $0.contains(marker) }.compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count > 2, let connection = Int(fields[0]) else { return nil }
                return (connection, String(fields[1]))
            }
            if entries.count >= count { break }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return entries
    }
}
