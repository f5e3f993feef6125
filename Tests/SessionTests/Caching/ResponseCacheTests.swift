@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The store of a `ResponseCache`, without a server: responses by URL and varying values,
/// replaced, evicted by recency within the capacity, invalidated.
final class ResponseCacheTests: XCTestCase {
    private func stored(_ path: String, body: Int = 10, varying: [String: String?] = [:]) -> CachedResponse {
        CachedResponse(url: URL(string: "https://api.example.com\(path)")!, statusCode: 200, httpVersion: "HTTP/1.1", fields: [:],
                       body: Data(count: body), requestTime: Date(), responseTime: Date(), varying: varying)
    }

    private func request(_ path: String, _ fields: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    func testAStoredResponseAnswersItsURLWithoutItsFragmentOnly() {
        let cache = ResponseCache()
        cache.store(stored("/a"))
        XCTAssertEqual(cache.entry(for: request("/a#part"))?.url.path, "/a")
        XCTAssertNil(cache.entry(for: request("/b")))
    }

    func testEachSetOfVaryingValuesKeepsItsOwnResponse() {
        let cache = ResponseCache()
        cache.store(stored("/a", body: 1, varying: ["accept-language": "fr"]))
        cache.store(stored("/a", body: 2, varying: ["accept-language": "de"]))
        cache.store(stored("/a", body: 3, varying: ["accept-language": "de"]))
        XCTAssertEqual(cache.entry(for: request("/a", ["Accept-Language": "fr"]))?.body.count, 1)
        XCTAssertEqual(cache.entry(for: request("/a", ["Accept-Language": "de"]))?.body.count, 3)
        XCTAssertNil(cache.entry(for: request("/a")))
        XCTAssertEqual(cache.currentMemoryUsage,
                       stored("/a", body: 1, varying: ["accept-language": "fr"]).cost + stored("/a", body: 3, varying: ["accept-language": "de"]).cost)
    }

    func testTheLeastRecentlyUsedGoFirstWhenTheCapacityIsReached() {
        let cache = ResponseCache(memoryCapacity: 3 * stored("/a").cost)
        cache.store(stored("/a"))
        cache.store(stored("/b"))
        _ = cache.entry(for: request("/a"))
        cache.store(stored("/c"))
        cache.store(stored("/d"))
        XCTAssertNotNil(cache.entry(for: request("/a")))
        XCTAssertNil(cache.entry(for: request("/b")))
        XCTAssertEqual(cache.currentMemoryUsage, 3 * stored("/a").cost)
    }

    func testAResponseLargerThanTheCapacityIsNotStored() {
        let cache = ResponseCache(memoryCapacity: 5)
        cache.store(stored("/a"))
        XCTAssertNil(cache.entry(for: request("/a")))
        XCTAssertEqual(cache.currentMemoryUsage, 0)
    }

    func testInvalidatingAURLForgetsEveryVariantOfIt() {
        let cache = ResponseCache()
        cache.store(stored("/a", varying: ["accept": "x"]))
        cache.store(stored("/a", varying: ["accept": "y"]))
        cache.store(stored("/b"))
        cache.invalidate([URL(string: "https://api.example.com/a")!])
        XCTAssertNil(cache.entry(for: request("/a", ["Accept": "x"])))
        XCTAssertNotNil(cache.entry(for: request("/b")))
        XCTAssertEqual(cache.currentMemoryUsage, stored("/b").cost)
    }

    func testAnEntryCostsEverythingItHolds() {
        // 3,000 responses to 64 KiB URLs are 3,000 times 192 KiB of URLs, not their bodies alone.
        let path = "/" + String(repeating: "a", count: 65_536)
        var entry = stored(path, body: 10, varying: ["authorization": "Bearer alice"])
        (entry.host, entry.socketPath, entry.identity) = ("tenant-a.example", "/run/api.sock", "pin")
        let url = "https://api.example.com\(path)"
        let texts = 3 * url.utf8.count + "HTTP/1.1".utf8.count + "tenant-a.example".utf8.count + "/run/api.sock".utf8.count + "pin".utf8.count
        XCTAssertEqual(entry.cost, CachedResponse.overhead + 10 + texts + "authorization".utf8.count + "Bearer alice".utf8.count)
        let cache = ResponseCache(memoryCapacity: 10 * 1024 * 1024)
        for index in 0..<100 { cache.store(stored(path + "\(index)")) }
        XCTAssertLessThanOrEqual(cache.currentMemoryUsage, 10 * 1024 * 1024)
        XCTAssertGreaterThanOrEqual(cache.currentMemoryUsage, 50 * 3 * 65_536, "what the URLs take counts")
    }

    func testRemovingForgetsResponses() {
        let cache = ResponseCache()
        cache.store(stored("/a"))
        cache.store(stored("/b"))
        cache.removeResponses(for: URL(string: "https://api.example.com/a")!)
        XCTAssertNil(cache.entry(for: request("/a")))
        cache.removeAllResponses()
        XCTAssertNil(cache.entry(for: request("/b")))
        XCTAssertEqual(cache.currentMemoryUsage, 0)
    }
}
