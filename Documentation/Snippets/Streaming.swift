import AFNetworking

func streaming(file: FileHandle) async throws {
    var total = 0.0
    // snippet: streaming
    let manager = URLSessionManager()
    let streamed = try await manager.stream(for: URLRequest(url: exportURL))   // returns at the head
    for try await chunk in streamed.body { try file.write(contentsOf: chunk) }

    for try await row in try await manager.stream(for: request).body.jsonLines(of: Row.self) {
        total += row.amount                                                     // NDJSON, as it arrives
    }

    manager.interceptor = RetryPolicy()                                         // reconnects
    for try await event in manager.events(for: URLRequest(url: feedURL)) {
        print(event.event, event.id, event.data)
    }
    // snippet: end
    _ = total
}
