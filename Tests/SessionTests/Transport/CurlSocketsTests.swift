import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// The socket watches of the libcurl transport, against the fault server: a pooled connection
/// keeps its read source between requests.
final class CurlSocketsTests: XCTestCase {
    /// The server closes the kept-alive connection 100 ms after the first response; the read
    /// source kept for it fires once and is cancelled (a source left watching the closed socket
    /// would fire without end and keep a core busy), and the next request gets a new connection.
    func testAPooledConnectionTheServerClosesIsDroppedWithoutSpinning() throws {
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = try FaultServer.url("/idle-close/100")
        XCTAssertEqual(try get(url, with: manager), Data("ok".utf8))
        let before = Self.processorSeconds()
        Thread.sleep(forTimeInterval: 0.6)
        let busy = Self.processorSeconds() - before
        XCTAssertLessThan(busy, 0.15, "processor seconds while the closed connection sat in the pool for 0.6 s")
        XCTAssertEqual(try get(url, with: manager), Data("ok".utf8))
    }

    private func get(_ url: URL, with manager: URLSessionManager) throws -> Data? {
        let done = expectation(description: "completion")
        let body = Locked<Data?>(nil)
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        manager.resume(try manager.dataTask(with: request) { _, object, error in
            XCTAssertNil(error)
            body.withLock { $0 = object as? Data }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        return body.withLock { $0 }
    }

    private static func processorSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let seconds = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
        return Double(seconds) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
