import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Run again under the thread sanitizer by `scripts/test.sh` (every `*ConcurrencyTests` class).
final class HTTPRequestSerializerConcurrencyTests: XCTestCase {
    let serializer = HTTPRequestSerializer()

    func testConcurrentHeaderWritesAreSafe() {
        let serializer = self.serializer
        DispatchQueue.concurrentPerform(iterations: 1000) { index in
            serializer.setValue("\(index)", forHTTPHeaderField: "X-Concurrent-\(index % 50)")
            _ = serializer.httpRequestHeaders
        }
        XCTAssertEqual(serializer.httpRequestHeaders.keys.filter { $0.hasPrefix("X-Concurrent-") }.count, 50)
    }

    func testRequestsBuiltWhileHeadersChangeAlwaysCarryAConsistentTable() {
        let serializer = self.serializer
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            if index % 2 == 0 {
                serializer.setValue("\(index)", forHTTPHeaderField: "X-Round")
                serializer.timeoutInterval = TimeInterval(index + 1)
            } else {
                let request = try? serializer.request(method: "POST", urlString: "http://example.com", parameters: ["i": index])
                XCTAssertEqual(request?.httpBody, Data("i=\(index)".utf8))
            }
        }
        XCTAssertNotNil(serializer.value(forHTTPHeaderField: "X-Round"))
    }
}
