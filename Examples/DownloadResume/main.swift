// A download that is cancelled halfway and resumed from resume data (URLSession on Linux
// produces none; the manager does, with Range and If-Range).
// Usage: swift run download-resume [httpbin base URL]   (default: $AFN_HTTPBIN_URL)
import AFNetworking

guard let base = CommandLine.arguments.dropFirst().first ?? ProcessInfo.processInfo.environment["AFN_HTTPBIN_URL"] else {
    print("usage: download-resume <httpbin base URL>")
    exit(2)
}

let manager = URLSessionManager()
defer { manager.invalidateSession(cancelingTasks: true) }
let destination = FileManager.default.temporaryDirectory.appendingPathComponent("download-resume.bin")
let request = URLRequest(url: URL(string: base + "/range/102400?duration=2&chunk_size=1024")!)

let resumeData: Data? = await withCheckedContinuation { continuation in
    let halfway = DispatchSemaphore(value: 0)
    let task: URLSessionTask
    do {
        task = try manager.downloadTask(with: request, progress: { progress in
            if progress.fractionCompleted >= 0.5 { halfway.signal() }
        })
    } catch {
        return continuation.resume(returning: nil)
    }
    manager.resume(task)
    DispatchQueue.global().async {
        halfway.wait()
        manager.cancel(task) { continuation.resume(returning: $0) }
    }
}
guard let resumeData else {
    print("the server gave nothing to resume from")
    exit(1)
}
print("cancelled halfway; resuming")

let finished: URL = try await withCheckedThrowingContinuation { continuation in
    do {
        manager.resume(try manager.downloadTask(
            withResumeData: resumeData, destination: { _, _ in destination }, options: .replaceExistingFile,
            completionHandler: { _, object, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: object as! URL) }
            }))
    } catch {
        continuation.resume(throwing: error)
    }
}
let size = try FileManager.default.attributesOfItem(atPath: finished.path)[.size] as? Int ?? 0
print("finished: \(finished.path), \(size) bytes")
try? FileManager.default.removeItem(at: finished)
