import AFLocking
import AFNetworking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A table of stubbed replies for one manager, its transport (`transport`): every request the
/// manager sends is answered here instead of on the network, and recorded. Only the transport is
/// replaced: the serializers, interceptors and retries, redirects (by the manager's rules),
/// Basic challenges, limits, validation, progress, metrics, downloads to files and the completion
/// order all run as with a server. Nothing is global: tests that stub the same URL differently
/// run in parallel.
///
/// ```swift
/// let stubs = StubTransport()
/// stubs.on("GET", "/v1/users/1").reply(try .json(User(id: 1, name: "Ada")))
/// stubs.on("GET", "/v1/report").replies([.status(503), .status(503), .text("ready")])
/// let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com"), transport: stubs.transport)
/// ```
///
/// A request no route matches fails its task with `StubError.unmatched`, which names the
/// request and the nearest routes; `unusedRoutes` lists the routes never called. Routes are
/// tried in the order they were added; the first that matches answers.
public final class StubTransport: Sendable {
    private struct State {
        var routes: [StubRoute] = []
        var requests: [RecordedRequest] = []
        var recorder: FixtureRecorder?
    }

    private let state = Locked(State())
    private let stub: TransportStub
    /// The base the routes' paths are resolved against, when set.
    public let baseURL: URL?

    /// An empty table: every request fails as unmatched until routes are added. With a
    /// `baseURL`, a route's path (`/v1/users/1`) means that path under the base
    /// (`https://api.example.com/v1/users/1`), so a request to another host or port does not
    /// match it; without one (the default), a path matches on any host. With a `clock`, the
    /// tasks' timeouts, retry waits and the replies' delays run on it, when the test advances
    /// it (`TestClock`); without one (the default), on the system's time.
    public init(baseURL: URL? = nil, clock: TestClock? = nil) {
        self.baseURL = baseURL
        let state = self.state
        stub = TransportStub(clock: clock) { request, body, trailers in
            var recorded = Self.recorded(request, body: body)
            recorded.trailers = trailers.sorted { $0.key < $1.key }.map { RecordedRequest.Field(name: $0.key, value: $0.value) }
            switch Self.answer(recorded, in: state) {
            case .success(let reply): return .now(reply.stubbed(forMethod: recorded.method))
            case .failure(let error):
                if let recorder = state.withLock({ $0.recorder }) { return recorder.answer(request, body: body) }
                return .now(StubbedReply(outcome: .taskFailure(error)))
            }
        }
    }

    /// Records `request` and answers it by the first route that matches it, or fails naming the
    /// request and the nearest routes.
    private static func answer(_ request: RecordedRequest, in state: Locked<State>) -> Result<StubReply, StubError> {
        let routes = state.withLock { state in
            state.requests.append(request)
            return state.routes
        }
        guard let route = routes.first(where: { $0.matcher.matches(request) }) else {
            let nearest = routes.map { ($0, $0.matcher.unmet(by: request)) }.sorted { $0.1 < $1.1 }.prefix(3).map(\.0.description)
            return .failure(.unmatched(request: "\(request.method) \(request.url?.absoluteString ?? request.target)", nearest: nearest))
        }
        return .success(route.answer(request))
    }

    /// A `TestServer` handler answering by these routes, so that one set serves both tools: each
    /// request the server receives is recorded here too and answered with the first matching
    /// route's reply (its chunks dripped, a cut or a failure a closed connection); a request no
    /// route matches gets 404 with `StubError`'s description as its text. Requests are not
    /// recorded as fixtures (`record(unmatchedTo:with:)` answers the transport only).
    public var serverHandler: TestServer.Handler {
        { [state] request in
            switch Self.answer(request, in: state) {
            case .success(let reply): reply
            case .failure(let error): .text(error.description, status: 404)
            }
        }
    }

    /// The transport to make the manager with.
    public var transport: HTTPTransport { .stubbed(stub) }

    /// Adds a route for requests with `method` (any when `nil`) to `path` (a path, under
    /// `baseURL` when set, or an absolute URL without its query; a `*` segment matches any one
    /// segment), with at least these `query` items and `headers`, and a body that `body`
    /// accepts. It answers 200 with no body until given a reply.
    @discardableResult
    public func on(
        _ method: String? = nil, _ path: String? = nil, query: [String: String] = [:], headers: [String: String] = [:], body: BodyMatch? = nil
    ) -> StubRoute {
        on(RequestMatcher(method: method, path: path.map(resolved), query: query, headers: headers, body: body))
    }

    /// `path` under `baseURL` (which may have a path of its own), when it is set and `path` is
    /// not an absolute URL.
    private func resolved(_ path: String) -> String {
        guard let baseURL, !path.contains("://") else { return path }
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// Adds a route for the requests `matcher` matches.
    @discardableResult
    public func on(_ matcher: RequestMatcher) -> StubRoute {
        let route = StubRoute(matcher: matcher)
        state.withLock { $0.routes.append(route) }
        return route
    }

    /// Sends every request no route matches for real, with `manager`, writes the exchange as a
    /// fixture under `directory` (`NNNN-METHOD-path`, numbered in order, secrets redacted by the
    /// manager's redaction list, private files), and answers with the response received. After
    /// `replay(fixturesAt:)` of the same directory, a suite records what it lacks and replays the
    /// rest: the first run records, the runs after it need no server. The default manager hands
    /// redirects back, so that the manager under test follows them by its own rules.
    public func record(unmatchedTo directory: URL, with manager: URLSessionManager? = nil) {
        let recorder = FixtureRecorder(directory: directory, manager: manager)
        state.withLock { $0.recorder = recorder }
    }

    /// Every request sent, in order, as the transport would have sent it.
    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// The routes that answered no request.
    public var unusedRoutes: [StubRoute] { state.withLock { $0.routes }.filter { $0.callCount == 0 } }

    private static func recorded(_ request: URLRequest, body: Data) -> RecordedRequest {
        let url = request.url
        var target = url.map { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? $0.path } ?? "/"
        if target.isEmpty { target = "/" }
        if let query = url?.query { target += "?" + query }
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { RecordedRequest.Field(name: $0.key, value: $0.value) }
        return RecordedRequest(method: request.httpMethod ?? "GET", target: target, fields: fields, body: body, connection: 0, url: url)
    }
}
