// A typed REST client: Decodable models, async/await, errors that carry the API's reply.
// Usage: swift run rest-client [httpbin base URL]   (default: $AFN_HTTPBIN_URL)
import AFNetworking

struct Echo: Decodable, Sendable {
    let args: [String: String]
    let url: String
}

struct Created: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        let name: String
        let quantity: Int
    }

    let json: Item
}

struct NewItem: Encodable {
    let name: String
    let quantity: Int
}

guard let base = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["AFN_HTTPBIN_URL"] else {
    print("usage: rest-client <httpbin base URL>")
    exit(2)
}

let api = HTTPSessionManager(baseURL: URL(string: base))
api.requestSerializer = JSONRequestSerializer()
api.requestSerializer.setValue("application/json", forHTTPHeaderField: "Accept")
defer { api.invalidateSession(cancelingTasks: true) }

let echo = try await api.get("get", parameters: ["page": 2, "sort": "name"], as: Echo.self)
print("GET \(echo.url) -> args \(echo.args)")

let created = try await api.post("post", parameters: NewItem(name: "widget", quantity: 3), as: Created.self)
print("POST echoed \(created.json.name) x\(created.json.quantity)")

do {
    _ = try await api.get("status/404", as: Echo.self)
} catch let error as ResponseSerializationError {
    print("GET status/404 -> \(error.statusCode ?? 0), body \(error.data?.count ?? 0) bytes")
}
