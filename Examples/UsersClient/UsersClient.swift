import AFNetworking
import Foundation

/// A user of the example service.
public struct User: Codable, Equatable, Sendable {
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}

/// A token from the service's `POST /v1/tokens`.
struct Token: Codable, Sendable {
    var token: String
}

/// A typed client of a users service, as an application writes one on `HTTPSessionManager`:
/// the example its tests (`Examples/UsersClientTests`) exercise both ways, against stubs and
/// against a loopback server.
public final class UsersClient: Sendable {
    private let baseURL: URL
    private let manager: HTTPSessionManager
    /// The manager that fetches tokens, when the client has an API key.
    private let tokens: HTTPSessionManager?

    /// A client of the service at `baseURL`, over `transport` (a stub's in tests), retrying busy
    /// replies and timeouts (`RetryPolicy`), each request limited to `timeout` seconds of silence.
    /// With an `apiKey`, every request carries a bearer token got for it from `POST /v1/tokens`
    /// (fetched before the first request, and again when the service refuses one with 401).
    public init(baseURL: URL, transport: HTTPTransport = .libcurl, timeout: TimeInterval = 10, apiKey: String? = nil) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        self.baseURL = baseURL
        manager = HTTPSessionManager(baseURL: baseURL, configuration: configuration, transport: transport)
        manager.requestSerializer = JSONRequestSerializer()
        let retries = RetryPolicy(backoffBase: 0.05)
        guard let apiKey else {
            tokens = nil
            manager.interceptor = retries
            return
        }
        // Tokens come from a manager of their own: the authenticated one waits for them.
        let tokens = HTTPSessionManager(baseURL: baseURL, configuration: configuration, transport: transport)
        tokens.requestSerializer = JSONRequestSerializer()
        self.tokens = tokens
        let authenticator = Authenticator<String>(credential: nil, apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: { _ in
            let issued: Token = try await tokens.post("v1/tokens", parameters: ["apiKey": apiKey])
            return issued.token
        })
        manager.interceptor = InterceptorChain([authenticator, retries])
    }

    deinit {
        manager.invalidateSession(cancelingTasks: true)
        tokens?.invalidateSession(cancelingTasks: true)
    }

    /// The user with `id`.
    public func user(id: Int) async throws -> User {
        try await manager.get("v1/users/\(id)")
    }

    /// Creates a user named `name`.
    public func createUser(name: String) async throws -> User {
        try await manager.post("v1/users", parameters: ["name": name])
    }

    /// Uploads `image` (PNG bytes) as the avatar of the user with `id`; returns the user.
    public func uploadAvatar(_ image: Data, forUser id: Int) async throws -> User {
        try await manager.post("v1/users/\(id)/avatar", constructingBodyWith: { form in
            try form.appendPart(withFileData: image, name: "avatar", fileName: "avatar.png", mimeType: "image/png")
        })
    }

    /// Downloads every user as JSON lines to `destination`, reporting `progress`; returns the
    /// file's URL.
    public func exportUsers(to destination: URL, progress: (@Sendable (Progress) -> Void)? = nil) async throws -> URL {
        let request = URLRequest(url: baseURL.appendingPathComponent("v1/users/export"))
        return try await manager.download(for: request, to: destination, progress: progress).value
    }
}

