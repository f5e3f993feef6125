// A streamed multipart upload with progress from an AsyncStream.
// Usage: swift run upload-progress [httpbin base URL]   (default: $AFN_HTTPBIN_URL)
import AFNetworking

guard let base = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["AFN_HTTPBIN_URL"] else {
    print("usage: upload-progress <httpbin base URL>")
    exit(2)
}

let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-progress-\(UUID().uuidString).bin")
try Data((0..<5_000_000).map { UInt8(truncatingIfNeeded: $0) }).write(to: file)
defer { try? FileManager.default.removeItem(at: file) }

let manager = URLSessionManager()
defer { manager.invalidateSession(cancelingTasks: true) }
// The body streams from the file: memory does not grow with its size.
let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: base + "/post", parameters: ["title": "Report"]) { form in
    try form.appendPart(withFileURL: file, name: "document")
}
print("uploading \(request.multipartContentLength ?? 0) bytes")
let upload = manager.startUpload(for: request, serializer: JSONResponseSerializer())
for await progress in upload.progress {
    print(String(format: "  %5.1f%%", (progress.fractionCompleted ?? 0) * 100))
}
let reply = try await upload.value as? [String: Any]
print("server saw form \(reply?["form"] ?? "-") and files \((reply?["files"] as? [String: Any])?.keys.sorted() ?? [])")
