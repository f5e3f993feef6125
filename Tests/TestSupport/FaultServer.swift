import Foundation
import XCTest

/// The project's fault server (`scripts/fault_server.py`) that `scripts/test.sh` starts: gzip
/// bombs, bodies with and without a declared length. Tests that need it fail (never skip)
/// when it is absent.
public enum FaultServer {
    public static func url(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        guard let base = ProcessInfo.processInfo.environment["AFN_FAULT_URL"], let url = URL(string: base + path) else {
            XCTFail("AFN_FAULT_URL is not set: run the tests through scripts/test.sh", file: file, line: line)
            throw URLError(.cannotConnectToHost)
        }
        return url
    }
}
