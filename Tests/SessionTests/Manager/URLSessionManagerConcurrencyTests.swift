import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Run again under the thread sanitizer by `scripts/test.sh` (every `*ConcurrencyTests` class).
final class URLSessionManagerConcurrencyTests: XCTestCase {
    /// Completion counts per request, filled from many threads.
    private final class Ledger: @unchecked Sendable {
        // @unchecked: every field is only touched under `lock`.
        private let lock = NSLock()
        private var calls: [Int]
        private var failures: [String] = []

        init(count: Int) { calls = Array(repeating: 0, count: count) }

        func record(_ index: Int, failure: String?) {
            lock.lock()
            calls[index] += 1
            if let failure { failures.append("#\(index): \(failure)") }
            lock.unlock()
        }

        var snapshot: (calls: [Int], failures: [String]) {
            lock.lock()
            defer { lock.unlock() }
            return (calls, failures)
        }
    }

    func testFiveThousandMixedRequestsFromEightThreadsCompleteExactlyOnceEach() throws {
        let total = 5000
        let threads = 8
        let inFlight = DispatchSemaphore(value: 64)
        let finished = DispatchGroup()
        let ledger = Ledger(count: total)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let manager = URLSessionManager(transport: .underTest)
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        let base = try HTTPBin.url("")

        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in stride(from: thread, to: total, by: threads) {
                inFlight.wait()
                finished.enter()
                let kind = index % 5
                let handler: URLSessionManager.CompletionHandler = { response, _, error in
                    let status = (response as? HTTPURLResponse)?.statusCode
                    var failure: String?
                    if kind == 4 {
                        if let error, (error as? URLError)?.code != .cancelled { failure = "cancel gave \(error)" }
                    } else if error != nil || status != 200 {
                        failure = "kind \(kind): status \(String(describing: status)) error \(String(describing: error))"
                    }
                    ledger.record(index, failure: failure)
                    inFlight.signal()
                    finished.leave()
                }
                do {
                    let task: URLSessionTask
                    switch kind {
                    case 0:
                        task = try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("get")), completionHandler: handler)
                    case 1:
                        var request = URLRequest(url: base.appendingPathComponent("post"))
                        request.httpMethod = "POST"
                        task = try manager.uploadTask(with: request, from: Data(count: 512 + index % 1024), completionHandler: handler)
                    case 2:
                        var request = URLRequest(url: base.appendingPathComponent("post"))
                        request.httpMethod = "POST"
                        request.httpBodyStream = InputStream(data: Data(count: 4096))
                        task = try manager.uploadTask(withStreamedRequest: request, completionHandler: handler)
                    case 3:
                        let destination = directory.url.appendingPathComponent("d\(index)")
                        task = try manager.downloadTask(with: URLRequest(url: base.appendingPathComponent("bytes/2048")),
                                                        destination: { _, _ in destination }, completionHandler: handler)
                    default:
                        task = try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("delay/2")), completionHandler: handler)
                    }
                    manager.resume(task)
                    if kind == 4 { task.cancel() }
                } catch {
                    ledger.record(index, failure: "creation failed: \(error)")
                    inFlight.signal()
                    finished.leave()
                }
            }
        }
        XCTAssertEqual(finished.wait(timeout: .now() + 600), .success, "not every request completed")
        manager.completionGroup.wait()
        let (calls, failures) = ledger.snapshot
        XCTAssertEqual(calls.filter { $0 != 1 }.count, 0, "completions called other than once: \(calls.enumerated().filter { $0.element != 1 }.prefix(10))")
        XCTAssertEqual(failures, [])
        XCTAssertEqual(manager.tasks.count, 0)
        let downloaded = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        XCTAssertEqual(downloaded.count, total / 5)
    }
}
