import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Puts a finished download at its destination, by what is there now:
/// - nothing or a regular file: the file is put in place in one atomic step, `rename(2)` when
///   the destination may be replaced, `link(2)` (which fails on an existing file) when it may
///   not; across file systems it is first copied next to the destination (0600, exclusively);
/// - a character device or a FIFO (`/dev/null`, a pipe): the body is written into it, as curl's
///   `-o` does, and the node stays what it is;
/// - a symbolic link, a directory, a block device or a socket: refused with
///   `SessionError.downloadFileFailed`, and left untouched (a link is neither replaced by a
///   regular file nor followed).
enum DownloadMover {
    /// What a destination is, by `lstat(2)`. Pure.
    enum Destination: Equatable {
        case absent, regularFile, writableNode, refused(String)

        init(mode: mode_t?) {
            guard let mode else {
                self = .absent
                return
            }
            switch mode & S_IFMT {
            case S_IFREG: self = .regularFile
            case S_IFCHR, S_IFIFO: self = .writableNode
            case S_IFLNK: self = .refused("it is a symbolic link, which is never replaced or followed")
            case S_IFDIR: self = .refused("it is a directory")
            case S_IFBLK: self = .refused("it is a block device")
            default: self = .refused("it is a socket")
            }
        }
    }

    static func move(_ source: URL, to destination: URL, options: DownloadOptions) throws {
        let fileManager = FileManager.default
        let directory = destination.deletingLastPathComponent()
        if options.contains(.createIntermediateDirectories) {
            try wrap(destination) { try fileManager.createDirectory(at: directory, withIntermediateDirectories: true) }
        }
        var info = stat()
        switch Destination(mode: lstat(destination.path, &info) == 0 ? info.st_mode : nil) {
        case .refused(let reason):
            throw SessionError.downloadFileFailed(reason: reason, destination: destination)
        case .writableNode:
            try writeInto(destination, from: source)
            unlink(source.path)
            return
        case .absent, .regularFile:
            break
        }
        var staged = source
        if !sameFileSystem(source, directory) {
            staged = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).download")
            do {
                try copy(source, to: DownloadStaging.createPrivateFile(at: staged))
            } catch {
                unlink(staged.path)
                throw SessionError.downloadFileFailed(reason: "\(error)", destination: destination)
            }
            unlink(source.path)
        }
        if options.contains(.replaceExistingFile) {
            guard rename(staged.path, destination.path) == 0 else { throw failure(destination, staged) }
        } else {
            guard link(staged.path, destination.path) == 0 else { throw failure(destination, staged) }
            unlink(staged.path)
        }
    }

    /// Writes `source` into the device or FIFO at `destination`, opened without following a
    /// link and checked again once open (the node may have been swapped since `lstat`). A FIFO
    /// without a reader fails at once rather than blocking.
    private static func writeInto(_ destination: URL, from source: URL) throws {
        let descriptor = open(destination.path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "it is a FIFO that nobody reads" : String(cString: strerror(errno))
            throw SessionError.downloadFileFailed(reason: reason, destination: destination)
        }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, Destination(mode: info.st_mode) == .writableNode else {
            throw SessionError.downloadFileFailed(reason: "it changed while it was opened", destination: destination)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        do {
            try copy(source, to: output)
        } catch {
            throw SessionError.downloadFileFailed(reason: "\(error)", destination: destination)
        }
    }

    /// Copies the file at `source` into `output` a MiB at a time, and closes `output`.
    private static func copy(_ source: URL, to output: FileHandle) throws {
        let input = try FileHandle(forReadingFrom: source)
        defer {
            try? input.close()
            try? output.close()
        }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
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
