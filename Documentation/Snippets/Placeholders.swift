// Names the documentation's listings use without defining them: a token, a service's
// types, files and addresses. Each is a stand-in so that every listing compiles as written.
import AFNetworking


let token = "token"
let secret = "secret"
let storedToken = "stored-token"
let url = URL(string: "https://api.example.com")!
let exportURL = URL(string: "https://api.example.com/export")!
let feedURL = URL(string: "https://api.example.com/feed")!
let request = URLRequest(url: URL(string: "https://api.example.com/export.ndjson")!)
let cacheDirectory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("afn-doc-cache")
let internalRoot = try! Certificate(derEncoded: Data())
let corpRoot = internalRoot
let plainProxy = Proxy(.http, host: "proxy.corp", port: 3128)

struct Order: Decodable, Sendable { let id: Int }
struct Container: Decodable, Sendable { let id: String }
struct Row: Decodable, Sendable { let amount: Double }

enum TokenService {
    static func newToken(replacing stale: String?) async throws -> String { (stale ?? "") + "-renewed" }
}
let tokenService = TokenService.self
