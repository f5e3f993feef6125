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

/// AFNetworking's URLSessionManager behaviours, against the in-process `TestServer`.
final class URLSessionManagerTests: XCTestCase {
    func testDataTaskReportsDownloadProgressToCompletion() throws {
        let server = try makeServer { _ in .bytes(60_000) }
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/bytes")), downloadProgress: progress.handler, completionHandler: handler))
        }
        XCTAssertEqual(result.object as? Data, ServerReply.bytes(60_000).body)
        XCTAssertEqual(progress.last?.completedUnitCount, 60_000)
    }

    func testSlowProgressHandlerGetsCoalescedUpdatesAllBeforeTheCompletion() throws {
        // About 100 chunks of 1 KiB over half a second.
        let server = try makeServer { _ in ServerReply.bytes(102_400).dripped(1024, every: 0.005) }
        let manager = makeManager()
        let events = Locked<[String]>([])
        let recorder = CompletionRecorder()
        let task = try manager.downloadTask(
            with: URLRequest(url: server.url("/range")),
            progress: { progress in
                Thread.sleep(forTimeInterval: 0.05)
                events.withLock { $0.append("progress \(progress.completedUnitCount)") }
            },
            completionHandler: { response, object, error in
                events.withLock { $0.append("completion") }
                recorder.handler(response, object, error)
            })
        manager.resume(task)
        wait(for: [recorder.expectation], timeout: 10)
        manager.completionGroup.wait()
        let seen = events.withLock { $0 }
        XCTAssertEqual(seen.last, "completion")
        XCTAssertEqual(seen.dropLast().last, "progress 102400", "the final progress must arrive, before the completion")
        XCTAssertLessThan(seen.count, 40, "about 100 chunks arrived; a slow handler must see coalesced updates, not each one")
    }

    func testUploadFromDataReportsProgress() throws {
        let server = try makeServer()
        let manager = makeManager()
        var request = URLRequest(url: server.url("/post"))
        request.httpMethod = "POST"
        let progress = ProgressLog()
        let body = Data(count: 250_000)
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(with: request, from: body, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(progress.last?.completedUnitCount, 250_000)
        XCTAssertEqual(progress.last?.totalUnitCount, 250_000)
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.value(forHeader: "Content-Length"), "250000")
        XCTAssertEqual(sent.body, body)
    }

    func testUploadFromFileSendsContentLengthAndReportsProgress() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("body.bin", contents: Data((0..<90_000).map { UInt8(truncatingIfNeeded: $0) }))
        let server = try makeServer()
        let manager = makeManager()
        var request = URLRequest(url: server.url("/post"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(with: request, fromFile: file, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.value(forHeader: "Content-Length"), "90000")
        XCTAssertEqual(progress.last?.completedUnitCount, 90_000)
        XCTAssertEqual(sent.value(forHeader: "Content-Type"), "application/octet-stream")
        XCTAssertEqual(sent.body, try Data(contentsOf: file))
    }

    func testDownloadTaskMovesTheFileAndReportsProgress() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("out.bin")
        let server = try makeServer { _ in .bytes(80_000) }
        let manager = makeManager()
        let progress = ProgressLog()
        let moved = NotificationLog(.downloadTaskDidMoveFileSuccessfully)
        var task: URLSessionTask?
        let result = try complete { handler in
            task = try manager.downloadTask(with: URLRequest(url: server.url("/bytes")), progress: progress.handler,
                                            destination: { _, _ in destination }, completionHandler: handler)
            manager.resume(task!)
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(result.object as? URL, destination)
        XCTAssertEqual(try Data(contentsOf: destination), ServerReply.bytes(80_000).body)
        XCTAssertEqual(progress.last?.completedUnitCount, 80_000)
        XCTAssertEqual(moved.posted(for: task!).first?.userInfo?[SessionNotificationKey.assetPath] as? URL, destination)
    }

    func testDownloadWithoutDestinationUsesTheManagerLevelOverride() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("managed.bin")
        let server = try makeServer { _ in .bytes(1000) }
        let manager = makeManager()
        var overrides = SessionDelegateOverrides()
        overrides.downloadTaskDidFinishDownloading = { _, _, _ in destination }
        manager.overrides = overrides
        let result = try complete { handler in
            manager.resume(try manager.downloadTask(with: URLRequest(url: server.url("/bytes")), completionHandler: handler))
        }
        XCTAssertEqual(result.object as? URL, destination)
        XCTAssertEqual(try Data(contentsOf: destination).count, 1000)
    }

    func testDownloadThatCannotBeMovedFailsAndPostsTheFailure() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("missing-dir/out.bin")
        let server = try makeServer { _ in .bytes(100) }
        let manager = makeManager()
        let failed = NotificationLog(.downloadTaskDidFailToMoveFile)
        var task: URLSessionTask?
        let result = try complete { handler in
            task = try manager.downloadTask(with: URLRequest(url: server.url("/bytes")), destination: { _, _ in destination }, completionHandler: handler)
            manager.resume(task!)
        }
        guard case .downloadFileFailed(_, let failedDestination)? = result.error as? SessionError else {
            return XCTFail("expected downloadFileFailed, got \(String(describing: result.error))")
        }
        XCTAssertEqual(failedDestination, destination)
        XCTAssertNil(result.object)
        XCTAssertEqual(failed.posted(for: task!).count, 1)
    }

    func testInvalidatingWithoutResetRefusesNewTasks() throws {
        let server = try makeServer()
        let manager = URLSessionManager(transport: .underTest)
        manager.invalidateSession(cancelingTasks: false)
        XCTAssertThrowsError(try manager.dataTask(with: URLRequest(url: server.url("/get")))) { error in
            guard case .sessionInvalidated? = error as? SessionError else { return XCTFail("got \(error)") }
        }
    }

    func testInvalidatingWithResetGivesANewSession() throws {
        let server = try makeServer()
        let manager = makeManager()
        let first = manager.session
        manager.invalidateSession(cancelingTasks: true, resetSession: true)
        XCTAssertFalse(first === manager.session)
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/get")), completionHandler: handler))
        }
        XCTAssertNil(result.error)
    }

    func testInvalidatingAndCancellingCompletesInFlightTasksWithCancelled() throws {
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 5) }
        let manager = URLSessionManager(transport: .underTest)
        let invalidated = expectation(description: "invalidated")
        var overrides = SessionDelegateOverrides()
        overrides.sessionDidBecomeInvalid = { _, _ in invalidated.fulfill() }
        manager.overrides = overrides
        let recorder = CompletionRecorder()
        manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/delay")), completionHandler: recorder.handler))
        manager.invalidateSession(cancelingTasks: true)
        wait(for: [recorder.expectation, invalidated], timeout: 10)
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
    }

    /// URLSession on Linux forgets its delegate right after reporting the invalidation; a task
    /// whose cancellation had not reached the delegate by then never completed (about one
    /// manager in fifteen, so thirty are tried).
    func testInvalidatingRightAfterResumingCompletesTheTaskOfEveryManagerExactlyOnce() throws {
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 5) }
        let managers = (0..<30).map { _ in URLSessionManager(transport: .underTest) }
        let recorder = CompletionRecorder(count: managers.count)
        for manager in managers {
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/delay")), completionHandler: recorder.handler))
            manager.invalidateSession(cancelingTasks: true)
        }
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertEqual(recorder.completions.compactMap { ($0.error as? URLError)?.code }, Array(repeating: .cancelled, count: managers.count))
        XCTAssertEqual(managers.map(\.tasks.count), Array(repeating: 0, count: managers.count))
    }

    func testResumeAndSuspendThroughTheManagerPostNotifications() throws {
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 2) }
        let manager = makeManager()
        let resumed = NotificationLog(.taskDidResume)
        let suspended = NotificationLog(.taskDidSuspend)
        let task = try manager.dataTask(with: URLRequest(url: server.url("/delay")))
        manager.resume(task)
        manager.suspend(task)
        XCTAssertEqual(resumed.posted(for: task).count, 1)
        XCTAssertEqual(suspended.posted(for: task).count, 1)
        task.cancel()
    }

    func testCompletionNotificationCarriesTheResultAndMetrics() throws {
        let server = try makeServer { _ in .jsonObject(["slideshow": ["title": "Sample Slide Show"]]) }
        let manager = makeManager()
        let completed = NotificationLog(.taskDidComplete)
        var task: URLSessionTask?
        _ = try complete { handler in
            task = try manager.dataTask(with: URLRequest(url: server.url("/json")), completionHandler: handler)
            manager.resume(task!)
        }
        manager.completionGroup.wait()
        let userInfo = try XCTUnwrap(completed.posted(for: task!).first?.userInfo)
        XCTAssertNotNil(userInfo[SessionNotificationKey.serializedResponse] as? [String: Any])
        XCTAssertNotNil(userInfo[SessionNotificationKey.responseData] as? Data)
        XCTAssertTrue(userInfo[SessionNotificationKey.responseSerializer] is JSONResponseSerializer)
        XCTAssertNotNil(userInfo[SessionNotificationKey.metrics] as? TaskMetrics)
        XCTAssertNil(userInfo[SessionNotificationKey.error])
    }

    func testTaskListsTrackKindsUntilCompletion() throws {
        let server = try makeServer()
        let manager = makeManager()
        let data = try manager.dataTask(with: URLRequest(url: server.url("/get")))
        var post = URLRequest(url: server.url("/post"))
        post.httpMethod = "POST"
        let upload = try manager.uploadTask(with: post, from: Data("x".utf8))
        let download = try manager.downloadTask(with: URLRequest(url: server.url("/bytes")))
        XCTAssertEqual(Set(manager.tasks.map(ObjectIdentifier.init)), Set([data, upload, download].map(ObjectIdentifier.init)))
        XCTAssertTrue(manager.dataTasks.elementsEqual([data], by: ===))
        XCTAssertTrue(manager.uploadTasks.elementsEqual([upload], by: ===))
        XCTAssertTrue(manager.downloadTasks.elementsEqual([download], by: ===))
        XCTAssertNotNil(manager.uploadProgress(for: upload))
        XCTAssertNotNil(manager.downloadProgress(for: download))
        [data, upload, download].forEach { $0.cancel() }
        let deadline = Date().addingTimeInterval(5)
        while !manager.tasks.isEmpty && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(manager.tasks.isEmpty)
        XCTAssertNil(manager.downloadProgress(for: download))
    }

    func testCancellingTheProgressCancelsTheTask() throws {
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 5) }
        let manager = makeManager()
        let recorder = CompletionRecorder()
        let task = try manager.dataTask(with: URLRequest(url: server.url("/delay")), completionHandler: recorder.handler)
        manager.resume(task)
        manager.downloadProgress(for: task)?.cancel()
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
    }

    func testCompletionRunsOnTheCompletionQueueInsideTheCompletionGroup() throws {
        let server = try makeServer()
        let manager = makeManager()
        let queue = DispatchQueue(label: "test.completion")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let group = DispatchGroup()
        manager.completionQueue = queue
        manager.completionGroup = group
        let sessionCompleted = expectation(description: "URLSession completed the task")
        var overrides = SessionDelegateOverrides()
        overrides.taskDidComplete = { _, _, _ in sessionCompleted.fulfill() }
        manager.overrides = overrides
        let ranOnQueue = LockedFlag()
        manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/get")), completionHandler: { _, _, _ in
            Thread.sleep(forTimeInterval: 0.2)
            ranOnQueue.set(DispatchQueue.getSpecific(key: key) == 7)
        }))
        wait(for: [sessionCompleted], timeout: 10)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(ranOnQueue.value, "the group was left before the handler ran, or it ran elsewhere")
    }

    func testDataTaskReceiveResponseOverrideCanCancel() throws {
        // 3 bytes over 3 s: the task is still running when the response is decided on.
        let server = try makeServer { _ in ServerReply.bytes(3).dripped(1, every: 1.5) }
        let manager = makeManager()
        var overrides = SessionDelegateOverrides()
        overrides.dataTaskDidReceiveResponse = { _, _, _ in .cancel }
        manager.overrides = overrides
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/drip")), completionHandler: handler))
        }
        XCTAssertEqual((result.error as? URLError)?.code, .cancelled)
    }

    func testADataOverrideSeesEveryBodyByteAndTheTaskKeepsThemAll() throws {
        let server = try makeServer { _ in .bytes(100_000) }
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        let seen = Locked(Data())
        var overrides = SessionDelegateOverrides()
        overrides.dataTaskDidReceiveData = { _, _, data in seen.withLock { $0.append(data) } }
        manager.overrides = overrides
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/bytes")), completionHandler: handler))
        }
        let body = try XCTUnwrap(result.object as? Data)
        XCTAssertEqual(body.count, 100_000)
        XCTAssertEqual(seen.withLock { $0 }, body)
    }

    func testSubSecondTimeoutDoesNotFailAtOnce() throws {
        let server = try makeServer()
        let manager = makeManager()
        for _ in 0..<5 {
            var request = URLRequest(url: server.url("/get"))
            request.timeoutInterval = 0.95
            let result = try complete { handler in
                manager.resume(try manager.dataTask(with: request, completionHandler: handler))
            }
            XCTAssertNil(result.error)
        }
    }

    func testRedirectOverrideCanStopAtTheRedirect() throws {
        let server = try makeServer { request in request.path == "/redirect/1" ? .redirect(to: "/get") : .emptyJSON }
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        var overrides = SessionDelegateOverrides()
        overrides.taskWillPerformHTTPRedirection = { _, _, _, _ in nil }
        manager.overrides = overrides
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/redirect/1")), completionHandler: handler))
        }
        XCTAssertEqual(result.status, 302)
    }

    /// How the manager routes a task is its own business: no header of its own appears in the
    /// task's requests or reaches the server.
    func testTaskRequestsAndTheWireCarryNoInternalHeader() throws {
        let server = try makeServer()
        let manager = makeManager()
        let recorder = CompletionRecorder()
        let task = try manager.dataTask(with: URLRequest(url: server.url("/headers")), completionHandler: recorder.handler)
        manager.resume(task)
        wait(for: [recorder.expectation], timeout: 10)
        let internalHeaders: (URLRequest?) -> [String] = { request in
            (request?.allHTTPHeaderFields ?? [:]).keys.filter { $0.lowercased().hasPrefix("x-afnetworking") }
        }
        XCTAssertEqual(internalHeaders(task.originalRequest), [])
        XCTAssertEqual(internalHeaders(task.currentRequest), [])
        let sent = try XCTUnwrap(server.requests.first).fields.map(\.name)
        XCTAssertEqual(sent.filter { $0.lowercased().hasPrefix("x-afnetworking") }, [])
    }

    func testCompletionGroupIsTheOneSetWhenTheTaskWasCreated() throws {
        let server = try makeServer()
        let manager = makeManager()
        let atCreation = DispatchGroup()
        let later = DispatchGroup()
        manager.completionGroup = atCreation
        let release = DispatchSemaphore(value: 0)
        let inHandler = expectation(description: "in the completion handler")
        let task = try manager.dataTask(with: URLRequest(url: server.url("/get"))) { _, _, _ in
            inHandler.fulfill()
            release.wait()
        }
        manager.completionGroup = later
        manager.resume(task)
        wait(for: [inHandler], timeout: 10)
        XCTAssertEqual(atCreation.wait(timeout: .now()), .timedOut, "the task's group waits for its handler")
        XCTAssertEqual(later.wait(timeout: .now()), .success, "a group set after creation is not the task's")
        release.signal()
        XCTAssertEqual(atCreation.wait(timeout: .now() + 5), .success)
    }

    func testDownloadOverrideGetsTheTasksOwnSessionAfterAReset() throws {
        // 4 bytes over about a second, the first at once.
        let server = try makeServer { _ in ServerReply.bytes(4).dripped(1, every: 0.33) }
        let manager = makeManager()
        let handedSession = Locked<URLSession?>(nil)
        var overrides = SessionDelegateOverrides()
        overrides.downloadTaskDidFinishDownloading = { session, _, _ in
            handedSession.withLock { $0 = session }
            return nil
        }
        manager.overrides = overrides
        let started = expectation(description: "response")
        started.assertForOverFulfill = false
        let recorder = CompletionRecorder()
        let task = try manager.downloadTask(with: URLRequest(url: server.url("/drip")),
                                            progress: { _ in started.fulfill() }, completionHandler: recorder.handler)
        let taskSession = manager.session
        manager.resume(task)
        wait(for: [started], timeout: 10)
        manager.invalidateSession(cancelingTasks: false, resetSession: true)
        XCTAssertFalse(manager.session === taskSession, "the reset made a new session")
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertTrue(handedSession.withLock { $0 } === taskSession)
    }
}

/// A Boolean set from another thread.
final class LockedFlag: @unchecked Sendable {
    // @unchecked: `flag` is only touched under `lock`.
    private let lock = NSLock()
    private var flag = false

    func set(_ value: Bool) {
        lock.lock()
        flag = value
        lock.unlock()
    }

    var value: Bool {
        lock.lock()
        defer { lock.unlock() }
        return flag
    }
}

/// The completion handler can be a trailing closure; calls without one still compile.
final class URLSessionManagerTrailingClosureTests: XCTestCase {
    func testCompletionHandlersAsTrailingClosures() throws {
        let server = try makeServer()
        let manager = makeManager()
        let recorder = CompletionRecorder(count: 4)
        var post = URLRequest(url: server.url("/post"))
        post.httpMethod = "POST"
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("f", contents: Data("x".utf8))
        var streamed = post
        streamed.httpBodyStream = InputStream(data: Data("y".utf8))
        manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/get"))) { recorder.handler($0, $1, $2) })
        manager.resume(try manager.uploadTask(with: post, fromFile: file) { recorder.handler($0, $1, $2) })
        manager.resume(try manager.uploadTask(with: post, from: Data("z".utf8)) { recorder.handler($0, $1, $2) })
        manager.resume(try manager.uploadTask(withStreamedRequest: streamed) { recorder.handler($0, $1, $2) })
        let plain = try manager.dataTask(with: URLRequest(url: server.url("/get")))
        plain.cancel()
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertTrue(recorder.completions.allSatisfy { $0.error == nil })
    }
}
