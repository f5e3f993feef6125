@testable import AFSession
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// A finished download is put in place by what is at the destination: a regular file replaced
/// atomically, a device or FIFO written into, a link or a directory refused and left alone.
final class DownloadMoverTests: XCTestCase {
    var scratch: TemporaryDirectory!

    override func setUpWithError() throws { scratch = try TemporaryDirectory() }
    override func tearDown() { scratch.remove() }

    private func finished(_ contents: String) throws -> URL {
        try scratch.file("finished-\(UUID().uuidString).download", contents: Data(contents.utf8))
    }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0)
        return info.st_mode & S_IFMT
    }

    private func assertRefused(_ destination: URL, containing text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let source = try finished("body")
        XCTAssertThrowsError(try DownloadMover.move(source, to: destination, options: [.replaceExistingFile]), file: file, line: line) { error in
            guard case .downloadFileFailed(let reason, destination?)? = error as? SessionError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertTrue(reason.contains(text), reason, file: file, line: line)
        }
    }

    func testDestinationKindsAreClassifiedPurely() {
        XCTAssertEqual(DownloadMover.Destination(mode: nil), .absent)
        XCTAssertEqual(DownloadMover.Destination(mode: S_IFREG | 0o644), .regularFile)
        XCTAssertEqual(DownloadMover.Destination(mode: S_IFCHR | 0o666), .writableNode)
        XCTAssertEqual(DownloadMover.Destination(mode: S_IFIFO | 0o600), .writableNode)
        for mode in [S_IFLNK | 0o777, S_IFDIR | 0o755, S_IFBLK | 0o660, S_IFSOCK | 0o755] {
            guard case .refused = DownloadMover.Destination(mode: mode) else { return XCTFail("mode \(mode) accepted") }
        }
    }

    func testRegularFileIsReplacedAtomically() throws {
        let destination = try scratch.file("out", contents: Data("old".utf8))
        try DownloadMover.move(try finished("new"), to: destination, options: [.replaceExistingFile])
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "new")
    }

    func testCharacterDeviceIsWrittenIntoAndStaysADevice() throws {
        // A private /dev/null (as root, in the scratch directory): never the system's own.
        try Privileges.requireRoot(for: "mknod")
        let device = scratch.url.appendingPathComponent("null")
        XCTAssertEqual(mknod(device.path, S_IFCHR | 0o666, dev_t((1 << 8) | 3)), 0)
        let source = try finished("discarded")
        try DownloadMover.move(source, to: device, options: [.replaceExistingFile])
        XCTAssertEqual(fileType(device.path), S_IFCHR)
        XCTAssertFalse(FileManager.default.fileExists(atPath: source.path), "the staged file stays behind")
    }

    func testFIFOIsWrittenIntoForItsReader() throws {
        let fifo = scratch.url.appendingPathComponent("pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        try DownloadMover.move(try finished("through the pipe"), to: fifo, options: [])
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(reader, &buffer, buffer.count)
        XCTAssertEqual(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self), "through the pipe")
        XCTAssertEqual(fileType(fifo.path), S_IFIFO)
    }

    func testFIFOWithoutAReaderFailsAtOnce() throws {
        let fifo = scratch.url.appendingPathComponent("pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        try assertRefused(fifo, containing: "FIFO that nobody reads")
    }

    func testSymbolicLinkIsNeitherReplacedNorFollowed() throws {
        let target = try scratch.file("target", contents: Data("keep".utf8))
        let link = scratch.url.appendingPathComponent("link")
        XCTAssertEqual(symlink(target.path, link.path), 0)
        try assertRefused(link, containing: "symbolic link")
        XCTAssertEqual(fileType(link.path), S_IFLNK)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "keep")
    }

    func testDanglingSymbolicLinkIsRefused() throws {
        let link = scratch.url.appendingPathComponent("dangling")
        let target = scratch.url.appendingPathComponent("would-be-created")
        XCTAssertEqual(symlink(target.path, link.path), 0)
        try assertRefused(link, containing: "symbolic link")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
    }

    func testDirectoryIsRefused() throws {
        let folder = scratch.url.appendingPathComponent("folder")
        XCTAssertEqual(mkdir(folder.path, 0o755), 0)
        try assertRefused(folder, containing: "directory")
    }

    func testDownloadedFileIsPrivate() throws {
        let destination = scratch.url.appendingPathComponent("fresh")
        let source = scratch.url.appendingPathComponent("staged.download")
        try DownloadStaging.createPrivateFile(at: source).write(contentsOf: Data("x".utf8))
        try DownloadMover.move(source, to: destination, options: [])
        var info = stat()
        XCTAssertEqual(stat(destination.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }
}
