import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Puts a finished download at its destination in one atomic step: `rename(2)` when the
/// destination may be replaced, `link(2)` (which fails on an existing file) when it may not.
/// Across file systems the file is first copied next to the destination.
enum DownloadMover {
    static func move(_ source: URL, to destination: URL, options: DownloadOptions) throws {
        let fileManager = FileManager.default
        let directory = destination.deletingLastPathComponent()
        if options.contains(.createIntermediateDirectories) {
            try wrap(destination) { try fileManager.createDirectory(at: directory, withIntermediateDirectories: true) }
        }
        var staged = source
        if !sameFileSystem(source, directory) {
            staged = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).download")
            try wrap(destination) { try fileManager.copyItem(at: source, to: staged) }
            try? fileManager.removeItem(at: source)
        }
        if options.contains(.replaceExistingFile) {
            guard rename(staged.path, destination.path) == 0 else { throw failure(destination, staged) }
        } else {
            guard link(staged.path, destination.path) == 0 else { throw failure(destination, staged) }
            unlink(staged.path)
        }
    }

    private static func sameFileSystem(_ file: URL, _ directory: URL) -> Bool {
        var fileInfo = stat()
        var directoryInfo = stat()
        guard stat(file.path, &fileInfo) == 0, stat(directory.path, &directoryInfo) == 0 else { return true }
        return fileInfo.st_dev == directoryInfo.st_dev
    }

    private static func failure(_ destination: URL, _ staged: URL) -> SessionError {
        let reason = errno == EEXIST ? "a file exists there (pass .replaceExistingFile to replace it)" : String(cString: strerror(errno))
        return SessionError.downloadFileFailed(reason: reason, destination: destination)
    }

    private static func wrap(_ destination: URL, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            throw SessionError.downloadFileFailed(reason: error.localizedDescription, destination: destination)
        }
    }
}
