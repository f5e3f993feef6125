// Mutual TLS: a service that requires a client certificate is called with one, and refuses a
// caller without. The private CA that signed the server goes in the policy; the identity
// (certificate and key) in the manager.
// Usage: swift run mutual-tls <https base URL> <server CA> <client certificate> <client key>
//   (PEM files; the server must require a certificate signed by the client's CA)
import AFNetworking

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4, let base = URL(string: arguments[0]) else {
    print("usage: mutual-tls <https base URL> <server CA> <client certificate> <client key>")
    exit(2)
}

struct Echo: Decodable, Sendable {
    let url: String
}

/// GETs /get presenting `identity` (or none) and says what happened; returns the URLError code
/// of a failure, or `nil` on success.
func fetch(presenting identity: ClientIdentity?) async throws -> URLError.Code? {
    let manager = HTTPSessionManager(baseURL: base)
    defer { manager.invalidateSession(cancelingTasks: true) }
    try manager.setSecurityPolicy(SecurityPolicy(
        pinningMode: .none, anchorCertificates: try SecurityPolicy.certificates(at: [URL(fileURLWithPath: arguments[1])])))
    manager.clientIdentity = identity
    let name = identity.map { "\($0)" } ?? "no identity"
    do {
        let echo: Echo = try await manager.get("get")
        print("\(name): fetched \(echo.url)")
        return nil
    } catch let error as URLError {
        print("\(name): failed with \(error.code.rawValue), \(error.localizedDescription)")
        return error.code
    }
}

do {
    let identity = try ClientIdentity(certificateFile: URL(fileURLWithPath: arguments[2]), keyFile: URL(fileURLWithPath: arguments[3]))
    let accepted = try await fetch(presenting: identity) == nil
    let refused = try await fetch(presenting: nil) == .clientCertificateRequired
    exit(accepted && refused ? 0 : 1)
} catch {
    print("mutual-tls: \(error.localizedDescription)")
    exit(1)
}
