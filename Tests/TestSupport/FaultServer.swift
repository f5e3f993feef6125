import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The project's fault server (`scripts/fault_server.py`) that `scripts/test.sh` starts: gzip
/// bombs, bodies with and without a declared length. Tests that need it fail (never skip)
/// when it is absent.
public enum FaultServer {
    public static func url(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try testServerURL("AFN_FAULT_URL", path, file: file, line: line)
    }
}
