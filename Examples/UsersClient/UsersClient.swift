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

/// A typed client of a users service, as an application writes one on `HTTPSessionManager`:
/// the example its tests (`Examples/UsersClientTests`) exercise both ways, against stubs and
/// against a loopback server.
public final class UsersClient: Sendable {
    private let manager: HTTPSessionManager

    /// A client of the service at `baseURL`, over `transport` (a stub's in tests), retrying busy
    /// replies and timeouts (`RetryPolicy`), each request limited to `timeout` seconds of silence.
    public init(baseURL: URL, transport: HTTPTransport = .libcurl, timeout: TimeInterval = 10) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        manager = HTTPSessionManager(baseURL: baseURL, configuration: configuration, transport: transport)
        manager.requestSerializer = JSONRequestSerializer()
        manager.interceptor = RetryPolicy(backoffBase: 0.05)
    }

    deinit {
        manager.invalidateSession(cancelingTasks: true)
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
}
