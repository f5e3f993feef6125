import AFNetworking

// snippet: pinning
// snippet.hide
enum Pinning {
struct User: Decodable, Sendable { let id: Int }
static func run() async throws {
    // snippet.show
    let api = HTTPSessionManager(baseURL: URL(string: "https://api.internal.example"))
    let pins = try SecurityPolicy.certificates(at: [URL(fileURLWithPath: "/etc/myapp/pins")])  // DER or PEM files
    try api.setSecurityPolicy(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins))
    let user: User = try await api.get("users/42")
    // snippet.hide
    _ = user
}
}
// snippet: end
