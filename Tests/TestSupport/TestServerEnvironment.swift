import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The value `scripts/test.sh` exports in `variable` for a server it started. A missing value
/// fails the test (never skips it), so a missing server cannot pass as green.
func testServerValue(_ variable: String, file: StaticString, line: UInt) throws -> String {
    guard let value = ProcessInfo.processInfo.environment[variable] else {
        XCTFail("\(variable) is not set: run the tests through scripts/test.sh", file: file, line: line)
        throw URLError(.cannotConnectToHost)
    }
    return value
}

/// `path` on the server whose base URL `scripts/test.sh` exports in `variable`.
func testServerURL(_ variable: String, _ path: String, file: StaticString, line: UInt) throws -> URL {
    let base = try testServerValue(variable, file: file, line: line)
    guard let url = URL(string: base + path) else {
        XCTFail("\(base + path) is not a URL", file: file, line: line)
        throw URLError(.badURL)
    }
    return url
}
