import AFNetworking
import Foundation

/// `-N` and `afn sse`: bodies and events written to standard output as they arrive.
extension Client {
    /// Writes the body as it arrives (the transport waits while standard output is slow), then
    /// the status to stderr.
    func printStreamed(_ request: URLRequest) async throws -> Int32 {
        let streamed = try await manager.stream(for: request, validation: HTTPResponseSerializer(acceptableStatusCodes: nil))
        var count = 0
        for try await chunk in streamed.body {
            FileHandle.standardOutput.write(chunk)
            count += chunk.count
        }
        verboseLog?.flush()
        let status = streamed.statusCode
        FileHandle.standardError.write(Data("HTTP \(status) \(HTTPURLResponse.localizedString(forStatusCode: status)) (\(count) bytes)\n".utf8))
        return (200..<300).contains(status) ? 0 : 1
    }

    /// Prints each server-sent event as it arrives, in the event-stream format (`event:` for a
    /// type other than `message`, `id:` when one is set, one `data:` line per line of data, a
    /// blank line), reconnecting as `--retry` allows.
    func printEvents(of request: URLRequest) async throws -> Int32 {
        var count = 0
        for try await event in manager.events(for: request) {
            var text = event.event == "message" ? "" : "event: \(event.event)\n"
            if !event.id.isEmpty { text += "id: \(event.id)\n" }
            for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
            count += 1
        }
        verboseLog?.flush()
        FileHandle.standardError.write(Data("\(count) events\n".utf8))
        return 0
    }
}
