import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A session configuration's `URLCache` as the store of a manager's tasks, answered by a stub
/// (no socket): its memory capacity, one cache per `URLCache` object, none without one.
final class ResponseCacheURLCacheTests: XCTestCase {
    private func manager(_ configuration: URLSessionConfiguration?, stubs: StubTransport = StubTransport()) -> URLSessionManager {
        let manager = URLSessionManager(configuration: configuration, transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func configuration(with urlCache: URLCache?) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = urlCache
        return configuration
    }

    func testAConfigurationsURLCacheGivesASharedCacheOfItsMemoryCapacity() throws {
        let cache = try XCTUnwrap(manager(configuration(with: URLCache(memoryCapacity: 12_345, diskCapacity: 0, diskPath: nil))).responseCache)
        XCTAssertEqual(cache.memoryCapacity, 12_345)
        XCTAssertEqual(cache.diskCapacity, 0)
        XCTAssertTrue(cache.isShared)
    }

    func testManagersMadeWithOneURLCacheShareOneCache() throws {
        let urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let first = try XCTUnwrap(manager(configuration(with: urlCache)).responseCache)
        let second = try XCTUnwrap(manager(configuration(with: urlCache)).responseCache)
        let other = try XCTUnwrap(manager(configuration(with: URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil))).responseCache)
        XCTAssertTrue(first === second)
        XCTAssertFalse(first === other)
    }

    func testTheDefaultConfigurationsSharedURLCacheIsOneCacheForEveryManager() throws {
        let first = try XCTUnwrap(manager(.default).responseCache)
        let second = try XCTUnwrap(manager(.default).responseCache)
        XCTAssertTrue(first === second)
        XCTAssertEqual(first.memoryCapacity, URLCache.shared.memoryCapacity)
    }

    func testWithoutAURLCacheThereIsNoCache() {
        XCTAssertNil(manager(configuration(with: nil)).responseCache)
        XCTAssertNil(manager(nil).responseCache)
    }

    func testAFreshResponseAnswersTheNextGetOfAManagerMadeWithAURLCache() throws {
        let stubs = StubTransport(baseURL: URL(string: "https://api.example.com")!)
        stubs.on("GET", "/item").replies([
            .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8)), .status(200, body: Data("second".utf8)),
        ])
        let manager = manager(configuration(with: URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)), stubs: stubs)
        let request = URLRequest(url: URL(string: "https://api.example.com/item")!)
        XCTAssertEqual(try run(request, on: manager).object as? Data, Data("first".utf8))
        XCTAssertEqual(try run(request, on: manager).object as? Data, Data("first".utf8))
        XCTAssertEqual(stubs.requests.count, 1)
    }
}
