import AFNetworking
import Foundation

/// A download to a file. Ctrl-C cancels it and keeps resume data beside the output
/// (`<output>.afnresume`); `--resume` continues from that data.
final class Download: @unchecked Sendable {
    // @unchecked: `task` is set once before the signal source is resumed and read only by it.
    private let manager: HTTPSessionManager
    private let output: URL
    private let resumeFile: URL
    private let resume: Bool
    private var task: URLSessionTask?
    private var interrupt: (any DispatchSourceSignal)?

    init(manager: HTTPSessionManager, output: URL, resume: Bool) {
        self.manager = manager
        self.output = output
        resumeFile = URL(fileURLWithPath: output.path + ".afnresume")
        self.resume = resume
    }

    /// The response of the finished download; throws its failure.
    func run(_ request: URLRequest) async throws -> HTTPURLResponse {
        manager.responseSerializer = HTTPResponseSerializer()
        let display = ProgressDisplay(verb: "downloaded")
        let output = output
        return try await withCheckedThrowingContinuation { continuation in
            let completion: URLSessionManager.CompletionHandler = { [self] response, _, error in
                display.finish()
                interrupt?.cancel()
                if let error {
                    if let status = (error as? ResponseSerializationError)?.response {
                        continuation.resume(returning: status)
                    } else {
                        continuation.resume(throwing: error)
                    }
                    return
                }
                try? FileManager.default.removeItem(at: resumeFile)
                continuation.resume(returning: response as! HTTPURLResponse)
            }
            do {
                let progress: URLSessionManager.ProgressHandler = { display.update(TransferProgress(completedBytes: $0.completedUnitCount, totalBytes: $0.totalUnitCount)) }
                let resumeData = resume ? try? Data(contentsOf: resumeFile) : nil
                let task = try resumeData.map {
                    try manager.downloadTask(withResumeData: $0, progress: progress, destination: { _, _ in output },
                                             options: [.replaceExistingFile, .createIntermediateDirectories], completionHandler: completion)
                } ?? manager.downloadTask(with: request, progress: progress, destination: { _, _ in output },
                                          options: [.replaceExistingFile, .createIntermediateDirectories], completionHandler: completion)
                self.task = task
                watchForInterrupt()
                manager.resume(task)
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    private func watchForInterrupt() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            guard let task else { exit(130) }
            manager.cancel(task) { [resumeFile] data in
                if let data, (try? data.write(to: resumeFile)) != nil {
                    FileHandle.standardError.write(Data("\nafn: interrupted; continue with --resume\n".utf8))
                }
                exit(130)
            }
        }
        source.resume()
        interrupt = source
    }
}
