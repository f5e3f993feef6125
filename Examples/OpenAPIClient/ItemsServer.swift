#if OpenAPI
import AFNetworkingTesting
import Foundation

/// The service the example calls: a `TestServer` on 127.0.0.1 answering openapi.yaml's three
/// operations under `/api` from a fixed list (a created item is answered, not kept).
enum ItemsServer {
    static let items = [Components.Schemas.Item(id: 1, name: "first"), Components.Schemas.Item(id: 2, name: "second")]

    /// A server answering the operations; it stops when released.
    static func start() throws -> TestServer {
        try TestServer { request in
            do {
                return try reply(to: request)
            } catch {
                return .text("\(error)", status: 500)
            }
        }
    }

    /// The answer to `request`: the items, one of them, the item made, or a 404.
    private static func reply(to request: RecordedRequest) throws -> ServerReply {
        switch (request.method, request.path) {
        case ("GET", "/api/items"):
            let limit = request.queryItems.first { $0.name == "limit" }?.value.flatMap(Int.init) ?? items.count
            return try .json(Array(items.prefix(limit)))
        case ("POST", "/api/items"):
            let new = try JSONDecoder().decode(Components.Schemas.NewItem.self, from: request.body)
            return try .json(Components.Schemas.Item(id: items.count + 1, name: new.name), status: 201)
        case ("GET", let path) where path.hasPrefix("/api/items/"):
            guard let id = Int(path.dropFirst("/api/items/".count)), let item = items.first(where: { $0.id == id }) else {
                return .status(404)
            }
            return try .json(item)
        default:
            return .status(404)
        }
    }
}
#endif
