// A typed API client that survives a flaky service: a bearer token added to every request and
// refreshed once for all the requests it failed (`Authenticator`), transient failures retried
// with backoff and `Retry-After` (`RetryPolicy`), and one log line per request with the token
// hidden (`RequestLogger`).
// Usage: swift run resilient-client <base URL of the project's fault server>
//   (scripts/fault_server.py: /token/<id> issues tokens, /protected/<id> takes only the newest,
//   /seq/<id>?s=... answers a scripted sequence of statuses)
import AFNetworking

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 1, let base = URL(string: arguments[0]) else {
    print("usage: resilient-client <fault server base URL>")
    exit(2)
}

struct Access: Decodable, Sendable {
    let ok: Bool
}

struct Attempt: Decodable, Sendable {
    let attempt: Int
}

/// The service's API, typed: each call returns a decoded value or throws.
final class ServiceClient: Sendable {
    private let manager: HTTPSessionManager
    let authenticator: Authenticator<String>
    private let account = Int.random(in: 1_000_000...9_999_999)

    init(baseURL: URL) {
        manager = HTTPSessionManager(baseURL: baseURL)
        // Tokens come from the service itself, through a manager without the authenticator
        // (whose own requests would wait for the refresh they are part of).
        let tokens = HTTPSessionManager(baseURL: baseURL)
        let account = account
        authenticator = Authenticator(credential: "expired-token", apply: { token, request in
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }, refresh: { _ in
            let response = try await tokens.data(for: URLRequest(url: baseURL.appendingPathComponent("token/\(account)")))
            return String(decoding: response.value, as: UTF8.self)
        })
        manager.interceptor = InterceptorChain([authenticator, RetryPolicy(backoffBase: 0.1)])
        manager.eventMonitors = [RequestLogger(includesHeaders: true) { print("log: \($0)") }]
    }

    func access() async throws -> Access {
        try await manager.get("protected/\(account)")
    }

    func flakyReport() async throws -> Attempt {
        try await manager.get("seq/\(account)", parameters: ["s": "503:1,502,200"])
    }

    deinit {
        manager.invalidateSession(cancelingTasks: true)
    }
}

let client = ServiceClient(baseURL: base)
do {
    // Ten calls at once with an expired token: one refresh, ten successes.
    let granted = try await withThrowingTaskGroup(of: Access.self) { group in
        for _ in 0..<10 { group.addTask { try await client.access() } }
        var granted = 0
        for try await access in group where access.ok { granted += 1 }
        return granted
    }
    print("access granted \(granted) times after \(client.authenticator.refreshCount) token refresh")
    let report = try await client.flakyReport()
    print("report fetched at attempt \(report.attempt)")
    exit(granted == 10 && client.authenticator.refreshCount == 1 && report.attempt == 3 ? 0 : 1)
} catch {
    print("resilient-client: \(error.localizedDescription)")
    exit(1)
}
