import Foundation
import XCTest

/// Tests that need root (a device node made with `mknod`, a directory given to another user).
/// Outside root they skip; where `AFN_REQUIRE_ROOT=1` (CI, which runs as root) they fail
/// instead, so that no check is ever skipped there unnoticed.
public enum Privileges {
    public static func requireRoot(for what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard geteuid() != 0 else { return }
        if ProcessInfo.processInfo.environment["AFN_REQUIRE_ROOT"] == "1" {
            XCTFail("\(what) needs root, and AFN_REQUIRE_ROOT=1 asks that it run", file: file, line: line)
        }
        throw XCTSkip("\(what) needs root")
    }
}
