import AFLocking
import AFSerialization
import AFSession
@testable import AFTransport
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

    /// A socket libcurl still watched, or closed itself, when the transport went: its watch's
    /// duplicate is closed with the watches (a source never cancelled kept it open for the life
    /// of the process: 8 descriptors after a 10,000-request soak's manager was freed).
    func testTheWatchesOfAFreedTransportLeaveNoDescriptorOpen() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { _ = Glibc.close(pair[1]) }
        let before = Self.openDescriptors()
        var sockets: CurlSockets? = CurlSockets(queue: DispatchQueue(label: "sockets"))
        sockets?.watch(pair[0], read: true, write: true) { _ in }
        // The watch's own sockets, by number: other tests' connections may close meanwhile, so
        // a count of every descriptor would not say whose went.
        let duplicates = Self.openDescriptors().subtracting(before)
        XCTAssertFalse(duplicates.isEmpty, "the watch holds duplicates")
        // libcurl closes it itself, without the close-socket callback.
        _ = Glibc.close(pair[0])
        sockets = nil
        let deadline = Date().addingTimeInterval(5)
        while !Self.openDescriptors().isDisjoint(with: duplicates), Date() < deadline { usleep(10_000) }
        XCTAssertEqual(Self.openDescriptors().intersection(duplicates), [], "the watch's duplicates are closed")
    }

    /// The process's open sockets by descriptor (libdispatch's own event descriptors, made
    /// when a first source is, are not sockets).
    private static func openDescriptors() -> Set<Int32> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(names.compactMap { name in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
            return target?.hasPrefix("socket:") == true ? Int32(name) : nil
        })
    }

    /// libcurl 7.74 closes its resolver's socket pair itself, and the connection's socket may
    /// take the same number: the watch of that number must follow the new file (a source of
    /// the closed one never fires again, and neither does one made beside it while libdispatch
    /// drops the old registration).
    func testAWatchFollowsANewFileUnderANumberClosedBehindItsBack() throws {
        let sockets = CurlSockets(queue: DispatchQueue(label: "sockets"))
        assertANewSocketUnderAWatchedNumberIsSeen(watchedBy: sockets, thenBy: sockets)
    }

    /// The same across transports: libdispatch's registrations are the process's, and one left
    /// on a number libcurl closed used to swallow every later source on that number.
    func testAnotherTransportsWatchOfANumberClosedBehindAWatchSeesItsBytes() throws {
        let first = CurlSockets(queue: DispatchQueue(label: "first"))
        let second = CurlSockets(queue: DispatchQueue(label: "second"))
        assertANewSocketUnderAWatchedNumberIsSeen(watchedBy: first, thenBy: second)
    }

    /// `before` watches a socket, whose number is then closed without `close(_:)` and given to
    /// another socket; `after`'s watch of that number must see the new socket's bytes.
    private func assertANewSocketUnderAWatchedNumberIsSeen(watchedBy before: CurlSockets, thenBy after: CurlSockets,
                                                          file: StaticString = #filePath, line: UInt = #line) {
        var old: [Int32] = [0, 0], new: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &old), 0, file: file, line: line)
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &new), 0, file: file, line: line)
        let number = old[0]
        before.watch(number, read: true, write: false) { _ in }
        XCTAssertEqual(dup2(new[0], number), number, file: file, line: line)
        _ = Glibc.close(new[0])
        let readable = expectation(description: "the new socket's bytes are seen")
        readable.assertForOverFulfill = false
        after.watch(number, read: true, write: false) { _ in readable.fulfill() }
        XCTAssertEqual(write(new[1], "x", 1), 1, file: file, line: line)
        wait(for: [readable], timeout: 5)
        after.close(number)
        _ = Glibc.close(old[1])
        _ = Glibc.close(new[1])
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
