import AFNetworking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers the requests a `StubTransport` has no route for by sending them for real: each
/// exchange is written as a fixture (`Fixtures`) and the response received is the stub's reply.
/// Redirects are not followed here but handed back, so that the manager under test follows
/// them by its own rules (and the next hop is recorded in turn).
final class FixtureRecorder: Sendable {
    private let directory: URL
    private let manager: URLSessionManager
    /// Whether the recorder made `manager` (and so invalidates it when it goes).
    private let ownsManager: Bool

    /// A recorder writing under `directory`, sending with `manager`, or when `nil` with one of its
    /// own that hands redirects back.
    init(directory: URL, manager: URLSessionManager?) {
        self.directory = directory
        ownsManager = manager == nil
        self.manager = manager ?? Self.managerStoppingAtRedirects()
    }

    deinit {
        if ownsManager { manager.invalidateSession(cancelingTasks: false) }
    }

    private static func managerStoppingAtRedirects() -> URLSessionManager {
        let manager = URLSessionManager()
        var overrides = SessionDelegateOverrides()
        overrides.taskWillPerformHTTPRedirection = { _, _, _, _ in nil }
        manager.overrides = overrides
        return manager
    }

    /// The answer to `request` (with `body`): given once the real exchange is over.
    func answer(_ request: URLRequest, body: Data) -> StubAnswer {
        .later { [self] reply in
            Task { reply(await exchange(request, body: body)) }
        }
    }

    private func exchange(_ request: URLRequest, body: Data) async -> StubbedReply {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = body.isEmpty ? nil : body
        let method = request.httpMethod ?? "GET"
        do {
            let serializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
            let response = try await manager.response(for: request, serializer: serializer)
            let received = response.value ?? Data()
            let folder = try Fixtures.makeNumberedDirectory(named: Self.name(of: request), in: directory)
            try Fixtures.save(Fixtures.exchange(of: request, response: response.response, redaction: manager.redaction), body: received, in: folder)
            var reply = StubReply.status(response.statusCode, body: received)
            reply.fields = Fixtures.replayedFields((response.response.allHeaderFields as? [String: String] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            return reply.stubbed(forMethod: method)
        } catch let error as URLError {
            return StubbedReply(outcome: .transportFailure(error))
        } catch {
            return StubbedReply(outcome: .taskFailure(error))
        }
    }

    /// `METHOD-path` with every character but letters, digits, `.`, `_` and `-` as `-`, at most
    /// 80 characters: a fixture's name says what it is.
    static func name(of request: URLRequest) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let path = (request.url?.path ?? "").map { allowed.contains($0) ? $0 : "-" }
        let name = (request.httpMethod ?? "GET") + "-" + String(path).trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return String(name.prefix(80))
    }
}
