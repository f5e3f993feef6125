import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class URLSessionManagerSmokeTests: XCTestCase {
    func testDataTaskGetsJSON() throws {
        let manager = URLSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try HTTPBin.url("/get?a=1")), completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual((result.json?["args"] as? [String: Any])?["a"] as? String, "1")
    }
}
