import AFLocking
import AFSerialization
@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A task's side of its libcurl transfer, driven without a server: the transfer's events, in
/// the order the transport sends them, reach the handlers in order, the metrics carry each
/// hop, and the task completes once whatever is reported after.
final class TaskDelegateTransferEventsTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1:9/items")!

    private func manager() -> URLSessionManager {
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testTransferEventsReachTheHandlersInOrderAndTheTaskCompletesOnce() throws {
        let manager = manager()
        let log = Locked<[String]>([])
        let metrics = Locked<TaskMetrics?>(nil)
        manager.overrides.taskDidFinishCollectingMetrics = { _, _, taskMetrics in metrics.withLock { $0 = taskMetrics } }
        let completed = expectation(description: "completed")
        let task = try manager.dataTask(
            with: URLRequest(url: url),
            uploadProgress: { progress in log.withLock { $0.append("upload \(progress.completedUnitCount)/\(progress.totalUnitCount)") } },
            downloadProgress: { progress in log.withLock { $0.append("download \(progress.completedUnitCount)/\(progress.totalUnitCount)") } },
            completionHandler: { response, object, error in
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                log.withLock { $0.append("completion \(status) \((object as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "-") \(error == nil)") }
                completed.fulfill()
            })
        let delegate = try XCTUnwrap(manager.table.delegate(for: task))
        let transfer = try XCTUnwrap(delegate.makeTransfer() as? CurlTransfer)
        XCTAssertTrue(transfer.events === delegate)

        delegate.transferDidSendBodyData(totalBytesSent: 3, totalBytesExpectedToSend: 3)
        let response = try XCTUnwrap(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "4"]))
        delegate.transferDidReceive(response)
        Data("body".utf8).withUnsafeBytes { delegate.transferDidReceive($0) }
        var transaction = CurlTransactionInfo().metrics(url: url, fetchStart: Date(), requestEnd: nil, tls: nil)
        transaction.attempt = 1
        delegate.transferDidFinish(transaction)
        delegate.transferDidComplete(with: nil)
        delegate.transferDidComplete(with: URLError(.cancelled))
        wait(for: [completed], timeout: 5)
        XCTAssertEqual(task.state, .completed)
        XCTAssertNil(task.error)
        XCTAssertEqual(task.countOfBytesReceived, 4)
        XCTAssertEqual(task.countOfBytesSent, 3)
        XCTAssertEqual((task.response as? HTTPURLResponse)?.statusCode, 200)

        XCTAssertEqual(log.withLock { $0 }, ["upload 3/3", "download 4/4", "completion 200 body true"])
        XCTAssertEqual(metrics.withLock { $0 }?.transactionMetrics.map(\.url), [url])
        XCTAssertEqual(metrics.withLock { $0 }?.countOfResponseBodyBytesReceived, 4)
        XCTAssertNil(manager.table.delegate(for: task))
    }

    /// A task of a new manager, its delegate, and what its completion records.
    private func recordedTask() throws -> (delegate: TaskDelegate, failure: Locked<(any Error)?>, completed: XCTestExpectation) {
        let manager = manager()
        let failure = Locked<(any Error)?>(nil)
        let completed = expectation(description: "completed")
        let task = try manager.dataTask(with: URLRequest(url: url)) { _, _, error in
            failure.withLock { $0 = error }
            completed.fulfill()
        }
        return (try XCTUnwrap(manager.table.delegate(for: task)), failure, completed)
    }

    func testALimitTheTransferReportsFailsTheTaskWithTheTypedError() throws {
        let (delegate, failure, completed) = try recordedTask()
        delegate.transfer(exceeded: .bodySize(10), declaredLength: 20, response: nil)
        delegate.transferDidComplete(with: URLError(.cancelled))
        wait(for: [completed], timeout: 5)
        guard case .responseLimitExceeded(let limit, let declared, _) = failure.withLock({ $0 }) as? SessionError else {
            return XCTFail("\(String(describing: failure.withLock { $0 }))")
        }
        XCTAssertEqual(limit, .bodySize(10))
        XCTAssertEqual(declared, 20)
    }

    func testTheTransferSnapshotsWhatTheTaskAsksWhenItStarts() throws {
        let manager = manager()
        let task = try manager.dataTask(with: URLRequest(url: url)) { _, _, _ in }
        let delegate = try XCTUnwrap(manager.table.delegate(for: task))
        let before = try XCTUnwrap(delegate.makeTransfer() as? CurlTransfer)
        delegate.updateSettings { $0.totalTimeout = 7 }
        XCTAssertNotEqual(before.options.totalTimeout, 7)
        XCTAssertEqual((delegate.makeTransfer() as? CurlTransfer)?.options.totalTimeout, 7)
        XCTAssertFalse(before.options.isDownload)
        XCTAssertNil(before.options.interceptor)
    }

    func testAnUnansweredBasicOrDigestChallengeFailsTheTaskWithAuthenticationRequired() throws {
        for (header, required) in [("Basic realm=\"a\"", true), ("  digest realm=\"a\", nonce=\"n\"", true), ("Bearer", false),
                                   ("Basically", false), ("", false)] {
            let (delegate, failure, completed) = try recordedTask()
            delegate.transferDidReceive(try XCTUnwrap(HTTPURLResponse(
                url: url, statusCode: 401, httpVersion: "HTTP/1.1", headerFields: ["WWW-Authenticate": header])))
            delegate.transferDidComplete(with: nil)
            wait(for: [completed], timeout: 5)
            let error = failure.withLock { $0 }
            if required {
                guard case .authenticationRequired(let response)? = error as? SessionError else { return XCTFail("\(header): \(String(describing: error))") }
                XCTAssertEqual(response?.statusCode, 401)
            } else {
                XCTAssertEqual((error as? ResponseSerializationError)?.reason, .unacceptableStatusCode(401), header)
            }
        }
    }

    /// The realm of a Basic challenge ends at its closing quote, also when a combining mark
    /// follows that quote (one `Character` with it).
    func testTheRealmOfABasicChallengeEndsAtAClosingQuoteFollowedByACombiningMark() throws {
        let manager = manager()
        let realm = Locked<String?>(nil)
        manager.overrides.taskDidReceiveAuthenticationChallenge = { _, _, challenge in
            realm.withLock { $0 = challenge.protectionSpace.realm }
            return (.cancelAuthenticationChallenge, nil)
        }
        let task = try manager.dataTask(with: URLRequest(url: url), completionHandler: { _, _, _ in })
        let delegate = try XCTUnwrap(manager.table.delegate(for: task))
        let response = try XCTUnwrap(HTTPURLResponse(
            url: url, statusCode: 401, httpVersion: "HTTP/1.1", headerFields: ["WWW-Authenticate": "Basic realm=\"api\"\u{301}, charset=\"UTF-8\""]))
        XCTAssertNil(delegate.transfer(answeringBasicChallenge: response, to: URLRequest(url: url)))
        XCTAssertEqual(realm.withLock { $0 }, "api")
    }
}
