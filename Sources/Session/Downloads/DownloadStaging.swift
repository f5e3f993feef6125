import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The private directory where downloads are written until they are put in place, and where
/// partial files wait to be resumed: `$TMPDIR/AFNetworking-downloads-<uid>`, one per user so
/// that a later process of the same user can resume, made 0700 and refused unless it is
/// private (`PrivateDirectory`): another user who made it first could otherwise read every
/// download and swap a file while it is written. Files in it are made 0600, exclusively and
/// without following links.
struct DownloadStaging: Sendable {
    /// The staging directory's path.
    let directory: URL

    /// The staging directory of this user under `parent` (default: the temporary directory).
    init(parent: URL = FileManager.default.temporaryDirectory) {
        directory = parent.appendingPathComponent("AFNetworking-downloads-\(geteuid())", isDirectory: true)
    }

    /// Makes the directory if it is missing and checks that it is private.
    /// Throws `SessionError.unsafeDownloadDirectory`.
    func prepare() throws {
        if let problem = PrivateDirectory.prepare(directory.path) {
            throw SessionError.unsafeDownloadDirectory(path: directory.path, reason: problem)
        }
    }

    /// A new file at `url`, made exclusively (never over an existing file or through a link)
    /// with mode 0600 and open for writing. Throws `SessionError.downloadFileFailed`.
    static func createPrivateFile(at url: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SessionError.downloadFileFailed(reason: "cannot create \(url.path): \(String(cString: strerror(errno)))", destination: nil)
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The partial file at `path` opened for writing, after checking that it is a regular file
    /// of this user directly inside the directory (never through a link) holding `size` bytes.
    /// Throws `SessionError.invalidResumeData` naming what is wrong.
    func openPartialFile(atPath path: String, size: Int64) throws -> FileHandle {
        try prepare()
        guard isInside(path) else {
            throw SessionError.invalidResumeData(reason: "its partial file is not in the private download directory \(directory.path)")
        }
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SessionError.invalidResumeData(reason: "its partial file cannot be opened: \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else {
            throw SessionError.invalidResumeData(reason: "its partial file is not a regular file of this user")
        }
        guard Int64(info.st_size) == size else {
            throw SessionError.invalidResumeData(reason: "its partial file is missing or changed")
        }
        return handle
    }

    /// Whether `path` names an entry directly inside the directory (no `..`, no other folder).
    func isInside(_ path: String) -> Bool {
        let file = URL(fileURLWithPath: path)
        let name = file.lastPathComponent
        return file.deletingLastPathComponent().path == directory.path && !name.isEmpty && name != "." && name != ".."
            && !path.contains("/../") && !path.hasSuffix("/..")
    }
}
