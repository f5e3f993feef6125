import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Writes a download's body to a file the manager owns, so that the file is always removed
/// unless it was moved or kept for resuming (URLSession on Linux leaves its own download files
/// behind, also after a cancel), and so that a download can continue from a partial file.
final class DownloadWriter: Sendable {
    /// Where the library keeps files of downloads in progress.
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("AFNetworking-downloads", isDirectory: true)

    private struct State {
        var handle: FileHandle?
        var bytesInFile: Int64
    }

    let fileURL: URL
    /// Bytes already in the file when the task started (a resumed download).
    let resumeOffset: Int64
    private let state: Locked<State>

    /// A writer for a new download, or for continuing the partial file `fileURL` that holds
    /// `resumeOffset` bytes.
    init(resumingFile fileURL: URL? = nil, resumeOffset: Int64 = 0) {
        self.fileURL = fileURL ?? Self.directory.appendingPathComponent(UUID().uuidString + ".download")
        self.resumeOffset = resumeOffset
        state = Locked(State(bytesInFile: resumeOffset))
    }

    /// Bytes in the file so far, counting a resumed download's partial bytes.
    var bytesInFile: Int64 { state.withLock { $0.bytesInFile } }

    /// Prepares the file for the body of `response`: appends after the partial bytes when the
    /// server sent exactly the remaining range (206 starting at `resumeOffset`), otherwise
    /// starts the file over (a server that ignores ranges, or a resource that changed).
    func begin(response: HTTPURLResponse) throws {
        let continuing = resumeOffset > 0 && response.statusCode == 206 && Self.rangeStart(of: response) == resumeOffset
        try state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: fileURL.path) {
                guard FileManager.default.createFile(atPath: fileURL.path, contents: nil) else {
                    throw SessionError.downloadFileFailed(reason: "cannot create \(fileURL.path)", destination: nil)
                }
            }
            let handle = try FileHandle(forWritingTo: fileURL)
            if continuing {
                try handle.seek(toOffset: UInt64(resumeOffset))
                state.bytesInFile = resumeOffset
            } else {
                try handle.truncate(atOffset: 0)
                state.bytesInFile = 0
            }
            state.handle = handle
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

    /// The first byte position of a `Content-Range: bytes a-b/n` header.
    static func rangeStart(of response: HTTPURLResponse) -> Int64? {
        guard let range = response.value(forHTTPHeaderField: "Content-Range"),
              range.lowercased().hasPrefix("bytes "),
              let dash = range.firstIndex(of: "-") else { return nil }
        return Int64(range[range.index(range.startIndex, offsetBy: 6)..<dash].trimmingCharacters(in: .whitespaces))
    }
}
