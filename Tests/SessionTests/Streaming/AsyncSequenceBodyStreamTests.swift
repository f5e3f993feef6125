import AFLocking
@testable import AFSession
import Foundation
import XCTest

/// The body stream the transport reads a `StreamedRequestBody` through, read directly.
final class AsyncSequenceBodyStreamTests: XCTestCase {
    /// An endless sequence of 1 KiB chunks that counts the chunks asked of it.
    private struct Counting: AsyncSequence, Sendable {
        typealias Element = Data
        let asked: Locked<Int>

        struct AsyncIterator: AsyncIteratorProtocol {
            let asked: Locked<Int>
            mutating func next() async -> Data? {
                asked.withLock { $0 += 1 }
                return Data(count: 1024)
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(asked: asked) }
    }

    func testTheSequenceIsPulledOnlyAsTheReaderNeedsBytes() {
        let asked = Locked(0)
        let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(once: Counting(asked: asked)))
        stream.open()
        var buffer = [UInt8](repeating: 0, count: 1024)
        for _ in 0..<3 { XCTAssertEqual(stream.read(&buffer, maxLength: buffer.count), 1024) }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(asked.withLock { $0 }, 3, "chunks were produced ahead of the reader")
        stream.close()
    }

    func testABodySentOnceCannotBeReplayedAndARestartableOneReplaysWhole() {
        XCTAssertNil(AsyncSequenceBodyStream(body: StreamedRequestBody(once: Counting(asked: Locked(0)))).replay())
        let restartable = AsyncSequenceBodyStream(body: StreamedRequestBody(length: 3) { AsyncStream { $0.yield(Data("abc".utf8)); $0.finish() } })
        for stream in [restartable, restartable.replay()!] {
            stream.open()
            var buffer = [UInt8](repeating: 0, count: 16)
            XCTAssertEqual(stream.read(&buffer, maxLength: 16), 3)
            XCTAssertEqual(stream.read(&buffer, maxLength: 16), 0)
            XCTAssertEqual(stream.streamStatus, .atEnd)
            stream.close()
        }
    }

    func testClosingABodyNeverOpenedEndsItsSequence() {
        // A task answered before its carrier opened the body (an early 413 on URLSession's own
        // protocol) closes it unopened: the body's producer still hears that it ended.
        assertClosingEndsTheSequence(afterOpening: false)
    }

    func testClosingABodyOpenedButNeverReadEndsItsSequence() {
        // Opened, its producer waiting for the reader's first demand, when the task ends.
        assertClosingEndsTheSequence(afterOpening: true)
    }

    func testClosingABodyThatStartsOverNeverOpenedMakesNoSequence() {
        let made = Locked(0)
        let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(restartingWith: { () -> AsyncStream<Data> in
            made.withLock { $0 += 1 }
            return AsyncStream { $0.finish() }
        }))
        stream.close()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(made.withLock { $0 }, 0, "the body's closure ran for a pass never sent")
    }

    /// Closes a stream over an `AsyncStream` whose consumer was never asked for a chunk; its
    /// `onTermination` must run.
    private func assertClosingEndsTheSequence(afterOpening opens: Bool, file: StaticString = #filePath, line: UInt = #line) {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let terminated = DispatchSemaphore(value: 0)
        producer.onTermination = { _ in terminated.signal() }
        let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(once: chunks))
        if opens { stream.open() }
        stream.close()
        XCTAssertEqual(terminated.wait(timeout: .now() + 5), .success, "the body's sequence was not ended", file: file, line: line)
        XCTAssertEqual(stream.streamStatus, .closed, file: file, line: line)
        withExtendedLifetime(stream) {}
    }

    func testClosingReleasesAReaderWaitingForAChunkThatNeverComes() {
        // Read on one thread and closed from another, as the transport's body reader and a
        // cancelled task do.
        nonisolated(unsafe) let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(once: AsyncStream<Data> { _ in }))
        stream.open()
        let result = Locked<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = stream.read(&buffer, maxLength: 16)
            result.withLock { $0 = count }
            done.signal()
        }
        reader.start()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertNil(result.withLock { $0 }, "the read returned before any chunk")
        stream.close()
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success, "the reader stayed blocked after close")
        XCTAssertEqual(result.withLock { $0 }, -1)
    }

    /// The answers `readChunk` gives until the end or a failure, each awaited up to 2 seconds.
    private func chunks(of stream: AsyncSequenceBodyStream) -> [String] {
        var answers: [String] = []
        while answers.last.map({ !["end", "failed"].contains($0) }) ?? true {
            let answer = Locked<String?>(nil)
            let done = DispatchSemaphore(value: 0)
            stream.readChunk { chunk in
                switch chunk {
                case .bytes(let bytes): answer.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
                case .end: answer.withLock { $0 = "end" }
                case .failed: answer.withLock { $0 = "failed" }
                }
                done.signal()
            }
            guard done.wait(timeout: .now() + 2) == .success else { return answers + ["no answer"] }
            answers.append(answer.withLock { $0 } ?? "")
        }
        return answers
    }

    func testChunksAreHandedByCallbackWithoutTheEmptyOnes() {
        let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(length: 5, once: AsyncStream { continuation in
            for part in ["abc", "", "de"] { continuation.yield(Data(part.utf8)) }
            continuation.finish()
        }))
        stream.open()
        XCTAssertEqual(chunks(of: stream), ["abc", "de", "end"])
        XCTAssertEqual(stream.streamStatus, .atEnd)
    }

    func testAChunkPastTheDeclaredLengthFailsTheStream() {
        let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(length: 2, once: AsyncStream { continuation in
            continuation.yield(Data("abc".utf8))
            continuation.finish()
        }))
        stream.open()
        XCTAssertEqual(chunks(of: stream), ["failed"])
        XCTAssertNotNil(stream.streamError)
    }

    func testClosingAnswersAPendingRequestAndEndsTheSequence() {
        let (sequence, producer) = AsyncStream.makeStream(of: Data.self)
        let terminated = DispatchSemaphore(value: 0)
        producer.onTermination = { _ in terminated.signal() }
        let stream = AsyncSequenceBodyStream(body: StreamedRequestBody(once: sequence))
        stream.open()
        let answered = DispatchSemaphore(value: 0)
        let failed = Locked(false)
        stream.readChunk { chunk in
            if case .failed = chunk { failed.withLock { $0 = true } }
            answered.signal()
        }
        XCTAssertEqual(answered.wait(timeout: .now() + 0.1), .timedOut, "answered before any chunk")
        stream.close()
        XCTAssertEqual(answered.wait(timeout: .now() + 2), .success, "the request stayed pending after close")
        XCTAssertTrue(failed.withLock { $0 })
        XCTAssertEqual(terminated.wait(timeout: .now() + 2), .success, "the sequence was not ended")
        XCTAssertNil(stream.streamError, "closing is not a failure of the body")
    }
}
