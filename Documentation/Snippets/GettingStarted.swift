// snippet: quick-start
import AFNetworking

// snippet.hide
enum QuickStart {
// snippet.show
struct User: Decodable, Sendable { let id: Int; let name: String }

// snippet.hide
static func run() async throws {
    // snippet.show
    let api = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1"))
    api.requestSerializer.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")

    // async/await: cancelling the calling task cancels the request.
    let user = try await api.get("users/42", as: User.self)
    let created: User = try await api.post("users", parameters: ["name": "Al"])

    // AFNetworking-style closures; they run on a private queue (see `completionQueue`).
    api.get("users", parameters: ["page": 2], success: { task, object in
        print(object as? [[String: Any]] ?? [])
    }, failure: { task, error in
        if let error = error as? ResponseSerializationError {
            print(error.statusCode ?? 0, String(decoding: error.data ?? Data(), as: UTF8.self))
        }
    })

    // Downloads with progress as an AsyncSequence, and resume after a cancel.
    let transfer = api.startDownload(for: URLRequest(url: URL(string: "https://cdn.example.com/big.iso")!),
                                     to: URL(fileURLWithPath: "/var/data/big.iso"), options: .replaceExistingFile)
    for await progress in transfer.progress { print(progress.fractionCompleted ?? 0) }
    let file = try await transfer.value

    // A manager lives while referenced or while its tasks run; invalidating ends its session now.
    api.invalidateSession(cancelingTasks: false)
    // snippet.hide
    _ = (user, created, file)
}
}
// snippet: end
