import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// URLSession retains its delegate until invalidated (AFNetworking's most reported "leak");
/// after invalidation nothing may keep the manager alive, and the table must end empty. Against
/// the in-process `TestServer` (its own sockets, in this process, are counted with the rest).
final class LifecycleTests: XCTestCase {
    private func waitUntil(_ condition: () -> Bool, timeout: TimeInterval = 5) {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline { usleep(10_000) }
    }

    func testInvalidatedManagerIsReleasedEvenWhenHandlersCapturedIt() throws {
        weak var weakManager: URLSessionManager?
        let server = try makeServer()
        let url = server.url("/get")
        try {
            let manager = URLSessionManager(transport: .underTest)
            weakManager = manager
            let recorder = CompletionRecorder()
            let task = try manager.dataTask(with: URLRequest(url: url), downloadProgress: { _ in _ = manager }, completionHandler: { response, object, error in
                _ = manager.tasks
                recorder.handler(response, object, error)
            })
            manager.resume(task)
            wait(for: [recorder.expectation], timeout: 10)
            manager.completionGroup.wait()
            manager.invalidateSession(cancelingTasks: false)
        }()
        waitUntil { weakManager == nil }
        XCTAssertNil(weakManager)
    }

    func testAManagerAndItsAuthenticatorAreReleasedAfterARefresh() throws {
        weak var weakManager: URLSessionManager?
        weak var weakAuthenticator: Authenticator<String>?
        try {
            let stubs = StubTransport()
            stubs.on("GET", "/v1/private").reply { request in .status(request.value(forHeader: "Authorization") == "Bearer fresh" ? 200 : 401) }
            let manager = URLSessionManager(transport: stubs.transport)
            let authenticator = Authenticator<String>(credential: "stale", apply: { token, request in
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            }, refresh: { _ in "fresh" })
            manager.interceptor = authenticator
            weakManager = manager
            weakAuthenticator = authenticator
            let completion = try complete { handler in
                manager.resume(try manager.dataTask(with: URLRequest(url: URL(string: "https://api.example.com/v1/private")!), completionHandler: handler))
            }
            XCTAssertEqual(completion.status, 200)
            XCTAssertEqual(authenticator.refreshCount, 1)
            manager.invalidateSession(cancelingTasks: false)
        }()
        waitUntil { weakManager == nil && weakAuthenticator == nil }
        XCTAssertNil(weakManager)
        XCTAssertNil(weakAuthenticator)
    }

    func testManagerInvalidatedWhileTasksRunIsReleasedAfterThem() throws {
        weak var weakManager: URLSessionManager?
        let recorder = CompletionRecorder(count: 3)
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 1) }
        let url = server.url("/delay")
        try {
            let manager = URLSessionManager(transport: .underTest)
            weakManager = manager
            for _ in 0..<3 { manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler)) }
            manager.invalidateSession(cancelingTasks: false)
        }()
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertTrue(recorder.completions.allSatisfy { $0.error == nil }, "tasks must finish, not be cancelled")
        waitUntil { weakManager == nil }
        XCTAssertNil(weakManager)
    }

    func testTableIsEmptyAfterEveryKindOfTaskCompletes() throws {
        let server = try makeServer { request in
            switch request.path {
            case "/bytes": .bytes(100)
            case "/delay": ServerReply.emptyJSON.delayed(by: 3)
            default: .emptyJSON
            }
        }
        let manager = makeManager()
        let recorder = CompletionRecorder(count: 5)
        var post = URLRequest(url: server.url("/post"))
        post.httpMethod = "POST"
        var streamed = post
        streamed.httpBodyStream = InputStream(data: Data(count: 1000))
        manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/get")), completionHandler: recorder.handler))
        manager.resume(try manager.uploadTask(with: post, from: Data(count: 100), completionHandler: recorder.handler))
        manager.resume(try manager.uploadTask(withStreamedRequest: streamed, completionHandler: recorder.handler))
        manager.resume(try manager.downloadTask(with: URLRequest(url: server.url("/bytes")), completionHandler: recorder.handler))
        let cancelled = try manager.dataTask(with: URLRequest(url: server.url("/delay")), completionHandler: recorder.handler)
        manager.resume(cancelled)
        cancelled.cancel()
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertEqual(manager.tasks.count, 0)
    }

    func testTaskCreatedButNeverResumedIsReleasedWithTheInvalidatedSession() throws {
        weak var weakManager: URLSessionManager?
        let server = try makeServer()
        let url = server.url("/get")
        let recorder = CompletionRecorder()
        try {
            let manager = URLSessionManager(transport: .underTest)
            weakManager = manager
            _ = try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler)
            manager.invalidateSession(cancelingTasks: true)
        }()
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
        waitUntil { weakManager == nil }
        XCTAssertNil(weakManager)
    }

    /// The process's open file descriptors.
    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    func testManagerDroppedWithRequestInFlightCompletesItThenIsFreed() throws {
        weak var weakManager: URLSessionManager?
        let recorder = CompletionRecorder()
        let server = try makeServer { _ in ServerReply.emptyJSON.delayed(by: 1) }
        let url = server.url("/delay")
        try {
            let manager = URLSessionManager(transport: .underTest)
            weakManager = manager
            manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler))
        }()
        XCTAssertNotNil(weakManager, "the task in flight keeps its manager")
        wait(for: [recorder.expectation], timeout: 10)
        XCTAssertNil(recorder.first.error)
        XCTAssertEqual(recorder.first.response?.statusCode, 200)
        waitUntil { weakManager == nil }
        XCTAssertNil(weakManager, "a manager nobody references is freed after its last task")
    }

    func testFiftyDroppedManagersLeaveNoDescriptorOpen() throws {
        // Started before the baseline: its listening socket is counted in it.
        let server = try makeServer()
        let url = server.url("/get")
        // One manager first, so that what the process opens once (libraries, URLSession's
        // shared machinery) is counted in the baseline.
        let warmUp = CompletionRecorder()
        try {
            let manager = URLSessionManager(transport: .underTest)
            manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: warmUp.handler))
        }()
        wait(for: [warmUp.expectation], timeout: 10)
        usleep(200_000)
        let before = openDescriptors()
        let recorder = CompletionRecorder(count: 50)
        var weakManagers: [() -> URLSessionManager?] = []
        for _ in 0..<50 {
            try {
                let manager = URLSessionManager(transport: .underTest)
                weakManagers.append { [weak manager] in manager }
                manager.resume(try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler))
            }()
        }
        wait(for: [recorder.expectation], timeout: 30)
        XCTAssertTrue(recorder.completions.allSatisfy { $0.error == nil })
        waitUntil { weakManagers.allSatisfy { $0() == nil } && self.openDescriptors() <= before + 2 }
        XCTAssertEqual(weakManagers.filter { $0() != nil }.count, 0, "every manager is freed")
        XCTAssertLessThanOrEqual(openDescriptors(), before + 2, "sockets and queues of the dropped managers are closed")
    }
}
