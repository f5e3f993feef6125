// snippet: serializers
import AFNetworking

// snippet.hide
func serializationInFiveMinutes() async throws {
    // snippet.show
    let serializer = HTTPRequestSerializer()
    serializer.setValue("application/json", forHTTPHeaderField: "Accept")

    // GET, HEAD and DELETE put parameters in the query; every other method in a form body.
    let search = try serializer.request(method: "GET", urlString: "https://api.example.com/search",
                                        parameters: ["q": "swift", "tags": ["linux", "server"]])
    // https://api.example.com/search?q=swift&tags%5B%5D=linux&tags%5B%5D=server

    // Encodable values follow exactly the same rules as the dictionary they encode to.
    struct NewItem: Encodable { let name: String; let count: Int }
    let create = try JSONRequestSerializer().request(method: "POST", urlString: "https://api.example.com/items",
                                                     parameters: NewItem(name: "a", count: 2))

    // Multipart bodies stream from their sources: memory stays flat whatever the file size.
    let upload = try serializer.multipartFormRequest(method: "POST", urlString: "https://api.example.com/upload",
                                                     parameters: ["title": "Report"]) { form in
        try form.appendPart(withFileURL: URL(fileURLWithPath: "/var/data/report.pdf"), name: "file")
    }

    // Response serializers validate status and content type, then decode.
    let (data, response) = try await URLSession.shared.data(for: create)
    struct Item: Decodable, Sendable { let id: Int; let name: String }
    do {
        let item = try DecodableResponseSerializer(Item.self).responseObject(for: response, data: data)
        // snippet.hide
        _ = item
        // snippet.show
    } catch let error as ResponseSerializationError {
        // The response and the body are on the error itself: read the API's error payload here.
        print(error.statusCode ?? 0, String(decoding: error.data ?? Data(), as: UTF8.self))
    }
    // snippet.hide
    _ = (search, upload)
}

/// The query the listing shows in its comment, computed without a network.
func serializedSearchURL() throws -> String {
    let serializer = HTTPRequestSerializer()
    let search = try serializer.request(method: "GET", urlString: "https://api.example.com/search",
                                        parameters: ["q": "swift", "tags": ["linux", "server"]])
    return search.url?.absoluteString ?? ""
}
// snippet: end
