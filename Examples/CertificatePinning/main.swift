// Certificate pinning on Linux: the server's chain is checked against the pinned certificate
// during the TLS handshake, so a server that fails the check never receives the request.
// Usage: swift run certificate-pinning <https base URL> <pinned certificate> <other certificate>
//   (certificates as DER or PEM files; the second one must not match the server)
import AFNetworking

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let base = URL(string: arguments[arguments.startIndex]) else {
    print("usage: certificate-pinning <https base URL> <pinned certificate> <other certificate>")
    exit(2)
}
let pinnedFile = URL(fileURLWithPath: arguments[arguments.startIndex + 1])
let otherFile = URL(fileURLWithPath: arguments[arguments.startIndex + 2])

struct Echo: Decodable, Sendable {
    let url: String
}

/// GETs /get with `policy` and says what happened; returns whether the server was trusted.
func fetch(pinning file: URL, mode: SSLPinningMode) async throws -> Bool {
    let manager = HTTPSessionManager(baseURL: base)
    defer { manager.invalidateSession(cancelingTasks: true) }
    let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: try SecurityPolicy.certificates(at: [file]))
    try manager.setSecurityPolicy(policy)
    do {
        let echo: Echo = try await manager.get("get")
        print("pinned \(file.lastPathComponent) (\(mode)): trusted, fetched \(echo.url)")
        return true
    } catch let error as URLError where error.code == .serverCertificateUntrusted {
        let evaluation = error.userInfo[TrustEvaluation.errorUserInfoKey] as? TrustEvaluation
        print("pinned \(file.lastPathComponent) (\(mode)): rejected with \(error.code.rawValue), \(evaluation?.description ?? "")")
        return false
    }
}

do {
    let trusted = try await fetch(pinning: pinnedFile, mode: .certificate)
    let rejected = try await !fetch(pinning: otherFile, mode: .certificate)
    exit(trusted && rejected ? 0 : 1)
} catch {
    print("error: \(error.localizedDescription)")
    exit(1)
}
