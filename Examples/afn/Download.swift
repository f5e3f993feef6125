import AFNetworking
import Foundation

/// A download to a file. Ctrl-C cancels it and keeps resume data beside the output
/// (`<output>.afnresume`, 0600, made anew and never through a link; it holds no credential),
/// and so does a failure after bytes arrived; `--resume` continues from that data (for the same
/// URL only: the request's headers are sent again), or else from the size of a regular partial
/// file at the output (as `curl -C -` does).
final class Download: @unchecked Sendable {
    // @unchecked: `task` is set once before the signal source is resumed and read only by it.
    private let manager: HTTPSessionManager
    private let output: URL
    private let resumeFile: URL
    private let resume: Bool
    private let verboseLog: VerboseLog?
    private var task: URLSessionTask?
    private var interrupt: (any DispatchSourceSignal)?

    init(manager: HTTPSessionManager, output: URL, resume: Bool, verboseLog: VerboseLog?) {
        self.manager = manager
        self.output = output
        resumeFile = URL(fileURLWithPath: output.path + ".afnresume")
        self.resume = resume
        self.verboseLog = verboseLog
    }

    /// The response of the finished download; throws its failure.
    func run(_ request: URLRequest) async throws -> HTTPURLResponse {
        manager.responseSerializer = HTTPResponseSerializer()
        let resumeData = resume ? Self.readPrivateFile(resumeFile) : nil
        if resume, resumeData == nil, let size = Self.sizeOfRegularFile(output), size > 0 {
            return try await continuePartialOutput(request, from: size)
        }
        let display = ProgressDisplay(verb: "downloaded")
        let output = output
        return try await withCheckedThrowingContinuation { continuation in
            let completion: URLSessionManager.CompletionHandler = { [self] response, _, error in
                display.finish()
                verboseLog?.flush()
                interrupt?.cancel()
                if let error {
                    if let status = (error as? ResponseSerializationError)?.response {
                        continuation.resume(returning: status)
                    } else {
                        keepResumeData(of: error)
                        continuation.resume(throwing: error)
                    }
                    return
                }
                unlink(resumeFile.path)
                continuation.resume(returning: response as! HTTPURLResponse)
            }
            do {
                let progress = display.progressHandler
                let task = try resumeData.map {
                    try manager.downloadTask(withResumeData: $0, request: request, progress: progress, destination: { _, _ in output },
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

    /// A failure after bytes arrived leaves resume data in its error: it goes beside the output,
    /// and the partial file it names is kept past this process.
    private func keepResumeData(of error: any Error) {
        guard let data = (error as? URLError)?.downloadTaskResumeData, (try? manager.keepPartialFile(ofResumeData: data)) != nil,
              Self.writePrivateFile(resumeFile, data) else { return }
        FileHandle.standardError.write(Data("afn: the download failed; resume data kept in \(resumeFile.path): continue with --resume\n".utf8))
    }

    /// Asks for the bytes after the `size` already at the output and appends them when the
    /// server sends exactly those (206 from `size`); a server that sends the whole resource
    /// (200) replaces the file, never extends it. A failure leaves the output as it was.
    private func continuePartialOutput(_ request: URLRequest, from size: Int64) async throws -> HTTPURLResponse {
        var ranged = request
        ranged.setValue("bytes=\(size)-", forHTTPHeaderField: "Range")
        let part = URL(fileURLWithPath: output.path + ".afnpart")
        let display = ProgressDisplay(verb: "downloaded")
        let response: HTTPURLResponse = try await withCheckedThrowingContinuation { continuation in
            do {
                let task = try manager.downloadTask(with: ranged, progress: display.progressHandler, destination: { _, _ in part },
                                                    options: [.replaceExistingFile]) { [verboseLog] response, _, error in
                    display.finish()
                    verboseLog?.flush()
                    if let error {
                        if let status = (error as? ResponseSerializationError)?.response {
                            continuation.resume(returning: status)
                        } else {
                            continuation.resume(throwing: error)
                        }
                        return
                    }
                    continuation.resume(returning: response as! HTTPURLResponse)
                }
                manager.resume(task)
            } catch {
                continuation.resume(throwing: error)
            }
        }
        defer { try? FileManager.default.removeItem(at: part) }
        guard (200..<300).contains(response.statusCode) else { return response }
        if response.statusCode == 206, Self.rangeStart(of: response) == size {
            try Self.append(part, to: output)
            FileHandle.standardError.write(Data("afn: continued \(output.path) after \(size) bytes\n".utf8))
        } else {
            // rename(2) replaces the output atomically (FileManager.replaceItemAt on Linux removed
            // it and then failed).
            guard rename(part.path, output.path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output.path]) }
            FileHandle.standardError.write(Data("afn: the server sent the whole resource; \(output.path) was downloaded again\n".utf8))
        }
        return response
    }

    /// The first byte of a 206's `Content-Range: bytes first-last/length`.
    private static func rangeStart(of response: HTTPURLResponse) -> Int64? {
        guard let range = response.value(forHTTPHeaderField: "Content-Range"), range.hasPrefix("bytes ") else { return nil }
        return range.dropFirst(6).split(separator: "-").first.flatMap { Int64($0) }
    }

    /// Appends the file `part` to `file`, a MiB at a time.
    private static func append(_ part: URL, to file: URL) throws {
        let reader = try FileHandle(forReadingFrom: part)
        let writer = try FileHandle(forWritingTo: file)
        defer {
            try? reader.close()
            try? writer.close()
        }
        try writer.seekToEnd()
        while let chunk = try reader.read(upToCount: 1 << 20), !chunk.isEmpty { try writer.write(contentsOf: chunk) }
    }

    /// Writes `data` to a new file at `url` (0600), never through a link another user planted:
    /// whatever is at `url` is unlinked first (a link itself, not its target) and the file is
    /// made exclusively.
    private static func writePrivateFile(_ url: URL, _ data: Data) -> Bool {
        unlink(url.path)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return (try? handle.write(contentsOf: data)) != nil
    }

    /// The contents of `url` when it is a regular file of this user (not a link), or `nil`.
    private static func readPrivateFile(_ url: URL) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return nil }
        return try? handle.readToEnd()
    }

    /// The size of the regular file at `url` (not following a link), or `nil`.
    private static func sizeOfRegularFile(_ url: URL) -> Int64? {
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    private func watchForInterrupt() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            guard let task else { exit(130) }
            manager.cancel(task) { [resumeFile] data in
                if let data, Self.writePrivateFile(resumeFile, data) {
                    FileHandle.standardError.write(Data("\nafn: interrupted; continue with --resume\n".utf8))
                }
                exit(130)
            }
        }
        source.resume()
        interrupt = source
    }
}
