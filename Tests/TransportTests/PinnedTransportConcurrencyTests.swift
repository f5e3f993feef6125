import AFSecurity
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Many pinned tasks at once, created from several threads: the transport's multi handle,
/// its sockets and URLSession's queue stay consistent (also under the thread sanitizer).
final class PinnedTransportConcurrencyTests: XCTestCase {
    private final class Counts: @unchecked Sendable {
        // @unchecked: `calls` is only touched under `lock`.
        private let lock = NSLock()
        private var calls: [Int: Int] = [:]
        func record(_ index: Int) { lock.withLock { calls[index, default: 0] += 1 } }
        var snapshot: [Int: Int] { lock.withLock { calls } }
    }

    func testMixedPinnedTasksEachCompleteExactlyOnce() throws {
        let server = try TLSServer.named("localhost")
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Fixtures.certificate("localhost")],
                                                     anchorCertificates: [try Fixtures.certificate("root-ca")]))
        defer { manager.invalidateSession(cancelingTasks: true) }
        let total = 400
        let counts = Counts()
        let inFlight = DispatchSemaphore(value: 32)
        let done = DispatchGroup()
        let body = Data(repeating: 0x41, count: 20_000)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in stride(from: thread, to: total, by: 4) {
                inFlight.wait()
                done.enter()
                let finish: URLSessionManager.CompletionHandler = { _, _, _ in
                    counts.record(index)
                    inFlight.signal()
                    done.leave()
                }
                do {
                    let task: URLSessionTask
                    switch index % 4 {
                    case 0:
                        task = try manager.dataTask(with: URLRequest(url: server.url("/get?n=\(index)")), completionHandler: finish)
                    case 1:
                        var request = URLRequest(url: server.url("/post"))
                        request.httpMethod = "POST"
                        task = try manager.uploadTask(with: request, from: body, completionHandler: finish)
                    case 2:
                        task = try manager.downloadTask(with: URLRequest(url: server.url("/bytes/50000")), completionHandler: finish)
                    default:
                        task = try manager.dataTask(with: URLRequest(url: server.url("/delay/2")), completionHandler: finish)
                        manager.resume(task)
                        task.cancel()
                        continue
                    }
                    manager.resume(task)
                } catch {
                    XCTFail("\(error)")
                    finish(nil, nil, error)
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        let snapshot = counts.snapshot
        XCTAssertEqual(snapshot.count, total)
        XCTAssertTrue(snapshot.values.allSatisfy { $0 == 1 }, "a completion ran more than once")
        XCTAssertTrue(manager.tasks.isEmpty)
    }
}
