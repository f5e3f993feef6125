import AFLocking
import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes a download's body to a file the manager owns, so that the file is always removed
/// unless it was moved or kept for resuming (URLSession on Linux leaves its own download files
/// behind, also after a cancel), and so that a download can continue from a partial file.
final class DownloadWriter: Sendable {
    private struct State {
        var handle: FileHandle?
        var bytesInFile: Int64
    }

    /// The file in the private staging directory (`DownloadStaging`).
    let fileURL: URL
    /// Bytes already in the file when the task started (a resumed download).
    let resumeOffset: Int64
    private let staging: DownloadStaging
    private let state: Locked<State>

    /// A writer for a new download: its file is made (exclusively, 0600) when the response arrives.
    init(staging: DownloadStaging = DownloadStaging()) {
        self.staging = staging
        fileURL = staging.directory.appendingPathComponent(UUID().uuidString + ".download")
        resumeOffset = 0
        state = Locked(State(bytesInFile: 0))
    }

    /// A writer continuing the partial file `fileURL`, already checked and opened as `handle`,
    /// that holds `resumeOffset` bytes.
    init(resuming fileURL: URL, handle: FileHandle, resumeOffset: Int64, staging: DownloadStaging = DownloadStaging()) {
        self.staging = staging
        self.fileURL = fileURL
        self.resumeOffset = resumeOffset
        state = Locked(State(handle: handle, bytesInFile: resumeOffset))
    }

    /// Bytes in the file so far, counting a resumed download's partial bytes.
    var bytesInFile: Int64 { state.withLock { $0.bytesInFile } }

    /// Prepares the file for the body of `response`: appends after the partial bytes when the
    /// server sent exactly the remaining range (206 starting at `resumeOffset`), otherwise
    /// starts the file over (a server that ignores ranges, or a resource that changed). A new
    /// download's file is made on the first response, never over an existing one.
    func begin(response: HTTPURLResponse) throws {
        let continuing = resumeOffset > 0 && response.statusCode == 206 && ContentRange.start(of: response) == resumeOffset
        try state.withLock { state in
            let handle = try state.handle ?? {
                try staging.prepare()
                return try DownloadStaging.createPrivateFile(at: fileURL)
            }()
            state.handle = handle
            if continuing {
                try handle.seek(toOffset: UInt64(resumeOffset))
                state.bytesInFile = resumeOffset
            } else {
                try handle.truncate(atOffset: 0)
                state.bytesInFile = 0
            }
        }
    }

    /// Appends `bytes`; returns the bytes now in the file.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int64 {
        try state.withLock { state in
            guard let handle = state.handle else {
                throw SessionError.downloadFileFailed(reason: "body arrived before a response", destination: nil)
            }
            try handle.write(contentsOf: bytes)
            state.bytesInFile += Int64(bytes.count)
            return state.bytesInFile
        }
    }

    /// The first `limit` bytes of the file, read back through no link: the body of an error
    /// response, which starts the file over (`begin(response:)`); `nil` when there is no file.
    func prefix(_ limit: Int) -> Data? {
        let descriptor = open(fileURL.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { Glibc.close(descriptor) }
        var data = Data(count: limit)
        let read = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return read >= 0 ? data.prefix(read) : nil
    }

    /// Closes the file, keeping it.
    func close() {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
        }
    }

    /// Closes and deletes the file.
    func discard() {
        close()
        try? FileManager.default.removeItem(at: fileURL)
    }
}
