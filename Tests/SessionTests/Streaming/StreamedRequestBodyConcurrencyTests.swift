import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Streamed request bodies whose tasks end while their sequence waits: each producer ends and no
/// thread stays behind. Run again under the thread sanitizer by `scripts/test.sh`. Every wait is
/// bounded by a semaphore on the test's own thread (not on a pool a stuck producer could hold),
/// so that a leak fails the test instead of hanging it.
final class StreamedRequestBodyConcurrencyTests: XCTestCase {
    /// A sequence that tells `pulled` when the transport first asks it for a chunk, then waits
    /// on `base`.
    private struct Signalling: AsyncSequence, Sendable {
        typealias Element = Data
        let base: AsyncStream<Data>
        let pulled: DispatchSemaphore

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Data>.Iterator
            let pulled: DispatchSemaphore
            var asked = false

            mutating func next() async -> Data? {
                if !asked {
                    asked = true
                    pulled.signal()
                }
                return await base.next()
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), pulled: pulled) }
    }

    /// The threads of this process now.
    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// An upload whose body never yields: `pulled` is signalled when the transport first asks
    /// the body for bytes, `ended` when the upload ends, with its error in `outcome`.
    private struct StalledUpload {
        let task: Task<Void, Never>
        let pulled: DispatchSemaphore
        let ended: DispatchSemaphore
        let outcome: Locked<(any Error)?>
    }

    /// Starts a stalled upload on `manager`; `terminated` runs when the body's sequence is ended.
    private func startStalledUpload(on manager: URLSessionManager, url: URL, terminated: @escaping @Sendable () -> Void) -> StalledUpload {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        producer.onTermination = { _ in terminated() }
        let pulled = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<(any Error)?>(nil)
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let task = Task {
            do {
                _ = try await manager.upload(StreamedRequestBody(once: Signalling(base: chunks, pulled: pulled)), for: request,
                                             serializer: HTTPResponseSerializer())
            } catch {
                outcome.withLock { $0 = error }
            }
            ended.signal()
        }
        return StalledUpload(task: task, pulled: pulled, ended: ended, outcome: outcome)
    }

    /// Starts a stalled upload on `manager`, cancels it once the transport has asked the body
    /// for bytes, and waits for its end; `false` (with the failure recorded) when a step did not
    /// come within 10 seconds.
    private func cancelStalledUpload(_ index: Int, on manager: URLSessionManager, url: URL, terminated: Locked<Int>) -> Bool {
        let upload = startStalledUpload(on: manager, url: url) { terminated.withLock { $0 += 1 } }
        let (pulled, ended, outcome) = (upload.pulled, upload.ended, upload.outcome)
        guard pulled.wait(timeout: .now() + 10) == .success else {
            XCTFail("upload #\(index): the transport never asked the body for bytes")
            return false
        }
        upload.task.cancel()
        guard ended.wait(timeout: .now() + 10) == .success else {
            XCTFail("upload #\(index): the cancelled task never ended")
            return false
        }
        let error = outcome.withLock { $0 }
        XCTAssertTrue(error is CancellationError || (error as? URLError)?.code == .cancelled, "upload #\(index) ended with \(String(describing: error))")
        return true
    }

    func testFiveHundredCancelledUploadsWaitingOnTheirBodyEndEachProducerAndHoldNoThread() throws {
        let manager = URLSessionManager(transport: .underTest)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = try FaultServer.url("/duplex/0")
        let terminated = Locked(0)
        // One first, so that the threads the transport keeps are counted before.
        XCTAssertTrue(cancelStalledUpload(0, on: manager, url: url, terminated: terminated))
        let threadsBefore = Self.threadCount()
        let count = 500
        for index in 1..<count {
            guard cancelStalledUpload(index, on: manager, url: url, terminated: terminated) else { break }
        }
        var deadline = Date() + 10
        while terminated.withLock({ $0 }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(terminated.withLock { $0 }, count, "producers whose sequence was not terminated")

        let other = URLSessionManager(transport: .underTest)
        defer { other.invalidateSession(cancelingTasks: true) }
        var get = URLRequest(url: try HTTPBin.url("/bytes/16"))
        get.timeoutInterval = 10
        let got = DispatchSemaphore(value: 0)
        let status = Locked<Int?>(nil)
        other.resume(try other.dataTask(with: get) { response, _, _ in
            status.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
            got.signal()
        })
        XCTAssertEqual(got.wait(timeout: .now() + 10), .success, "a GET on another manager did not complete")
        XCTAssertEqual(status.withLock { $0 }, 200)

        // Idle dispatch workers leave after a few seconds.
        let margin = 8
        deadline = Date() + 20
        while Self.threadCount() > threadsBefore + margin, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        XCTAssertLessThanOrEqual(Self.threadCount(), threadsBefore + margin, "threads before: \(threadsBefore)")
    }

    func testInvalidatingTheSessionCancelsAnUploadWaitingOnItsBody() throws {
        let manager = URLSessionManager(transport: .underTest)
        let terminated = DispatchSemaphore(value: 0)
        let upload = startStalledUpload(on: manager, url: try FaultServer.url("/duplex/0")) { terminated.signal() }
        let (pulled, ended, outcome) = (upload.pulled, upload.ended, upload.outcome)
        XCTAssertEqual(pulled.wait(timeout: .now() + 10), .success, "the transport never asked the body for bytes")
        let invalidated = DispatchSemaphore(value: 0)
        Thread {
            manager.invalidateSession(cancelingTasks: true)
            invalidated.signal()
        }.start()
        XCTAssertEqual(invalidated.wait(timeout: .now() + 10), .success, "invalidating the session hung")
        XCTAssertEqual(ended.wait(timeout: .now() + 10), .success, "the upload never ended")
        XCTAssertEqual((outcome.withLock { $0 } as? URLError)?.code, .cancelled, "\(String(describing: outcome.withLock { $0 }))")
        XCTAssertEqual(terminated.wait(timeout: .now() + 10), .success, "the body's sequence was not ended")
    }
}
