import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// One `ResponseCache` shared by tasks on several threads at once (also run under the thread
/// sanitizer): stored, answered, invalidated and evicted while in use, in memory and on disk,
/// every task completes once with its own resource's body.
final class ResponseCacheConcurrencyTests: XCTestCase {
    func testTasksSharingACacheFromManyThreadsEachGetTheirOwnResourcesBody() throws {
        // Small enough that storing evicts while other tasks read.
        let cache = ResponseCache(memoryCapacity: 200)
        try runTasks(sharing: cache)
        XCTAssertLessThanOrEqual(cache.currentMemoryUsage, 200)
    }

    func testTasksSharingACacheOnDiskFromManyThreadsEachGetTheirOwnResourcesBody() throws {
        let scratch = try TemporaryDirectory()
        addTeardownBlock { scratch.remove() }
        let directory = scratch.url.appendingPathComponent("cache")
        // Nothing in memory: every answer is read from a file that other tasks write, replace,
        // evict and remove meanwhile.
        let cache = try ResponseCache(memoryCapacity: 0, diskCapacity: 600, directory: directory)
        try runTasks(sharing: cache)
        cache.waitForDiskWrites()
        XCTAssertLessThanOrEqual(cache.currentDiskUsage, 600)
        let sizes = try FileManager.default.contentsOfDirectory(atPath: directory.path).map {
            try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($0).path)[.size] as? Int ?? 0
        }
        XCTAssertEqual(sizes.reduce(0, +), cache.currentDiskUsage)
    }

    /// 400 tasks from many threads, a tenth of them POSTs that invalidate, through `cache`.
    private func runTasks(sharing cache: ResponseCache) throws {
        let stubs = StubTransport()
        for item in 0..<8 {
            stubs.on("GET", "/items/\(item)").reply(.status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("item \(item)".utf8)))
            stubs.on("POST", "/items/\(item)").reply(.status(204))
        }
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.responseCache = cache
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let count = 400
        let wrong = Locked<[String]>([])
        let completed = Locked(0)
        let done = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let item = index % 8
            var request = URLRequest(url: URL(string: "https://api.example.com/items/\(item)")!)
            let isPost = index % 10 == 9
            if isPost { request.httpMethod = "POST" }
            done.enter()
            guard let task = try? manager.dataTask(with: request, completionHandler: { _, object, error in
                completed.withLock { $0 += 1 }
                if !isPost, (object as? Data) != Data("item \(item)".utf8) || error != nil {
                    wrong.withLock { $0.append("\(index): \(String(describing: error))") }
                }
                done.leave()
            }) else { return done.leave() }
            manager.resume(task)
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(completed.withLock { $0 }, count)
        XCTAssertEqual(wrong.withLock { $0 }, [])
    }
}
