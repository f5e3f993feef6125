// Builds requests with the serializers, sends them to an httpbin, and prints what the server
// parsed and what the response serializers made of the replies.
// Usage: swift run serialization-demo http://127.0.0.1:PORT   (scripts/demo.sh starts one)
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

guard CommandLine.arguments.count == 2 else {
    print("usage: serialization-demo <httpbin base URL>")
    exit(2)
}
let base = CommandLine.arguments[1]
let session = URLSession(configuration: .ephemeral)
let json = JSONResponseSerializer()

struct Search: Encodable {
    let query: String
    let tags: Set<String>
    let page: Int
}

func show(_ title: String, _ request: URLRequest, field: String) async throws {
    let (data, response) = try await session.data(for: request)
    let object = try json.responseObject(for: response, data: data) as? [String: Any]
    let echoed = object?[field].map { "\($0)" } ?? "-"
    print("== \(title)\n\(request.httpMethod ?? "GET") \(request.url!.absoluteString)\nserver saw \(field): \(echoed)\n")
}

let form = HTTPRequestSerializer()
try await show("query string from an Encodable value",
               try form.request(method: "GET", urlString: base + "/get", parameters: Search(query: "a+b c", tags: ["x", "y"], page: 2)),
               field: "args")
try await show("form body with nesting",
               try form.request(method: "POST", urlString: base + "/post", parameters: ["user": ["name": "Al", "roles": ["admin", "ops"]]]),
               field: "form")
try await show("JSON body",
               try JSONRequestSerializer().request(method: "PUT", urlString: base + "/put", parameters: ["id": 7, "done": true]),
               field: "json")

let file = FileManager.default.temporaryDirectory.appendingPathComponent("afn-demo-notes.txt")
try Data("streamed from disk\n".utf8).write(to: file)
defer { try? FileManager.default.removeItem(at: file) }
let multipart = try form.multipartFormRequest(method: "POST", urlString: base + "/post", parameters: ["title": "Notes"]) { body in
    try body.appendPart(withFileURL: file, name: "attachment")
}
print("multipart body: \(multipart.multipartContentLength ?? 0) bytes, streamed")
try await show("streamed multipart upload", multipart, field: "files")

do {
    let (data, response) = try await session.data(for: URLRequest(url: URL(string: base + "/status/418")!))
    _ = try HTTPResponseSerializer().responseObject(for: response, data: data)
} catch let error as ResponseSerializationError {
    print("== validation\n\(error.localizedDescription); body carried on the error: \(error.data?.count ?? 0) bytes")
}
