import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension XCTestCase {
    /// A `URLSessionManager` answered by `stubs` (no socket), handing back every body as data
    /// whatever its status, with `interceptor` when given one; invalidated when the test ends.
    func makeManager(stubs: StubTransport, interceptor: (any RequestInterceptor)? = nil) -> URLSessionManager {
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        manager.interceptor = interceptor
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// Runs a data task of `request` on `manager` and waits for its one completion; `prepare`
    /// sees the task before it is resumed (per-task settings).
    func run(
        _ request: URLRequest, on manager: URLSessionManager, timeout: TimeInterval = 10,
        prepare: (URLSessionTask) throws -> Void = { _ in }
    ) throws -> Completion {
        try complete(timeout: timeout) { handler in
            let task = try manager.dataTask(with: request, completionHandler: handler)
            try prepare(task)
            manager.resume(task)
        }
    }
}

extension URLRequest {
    /// A request of `method` to `url`, with `body` as `text/plain` when given one.
    init(_ method: String, _ url: URL, body: String? = nil) {
        self.init(url: url)
        httpMethod = method
        if let body {
            httpBody = Data(body.utf8)
            setValue("text/plain", forHTTPHeaderField: "Content-Type")
        }
    }
}

extension Completion {
    /// The body handed back, as UTF-8 text.
    var text: String? { (object as? Data).map { String(decoding: $0, as: UTF8.self) } }
}
