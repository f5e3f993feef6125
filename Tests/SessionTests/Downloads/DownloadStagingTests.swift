@testable import AFSession
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// The private directory downloads are staged in: made 0700 for this user, refused when it is
/// anyone else's or open to others, and files in it made 0600 exclusively.
final class DownloadStagingTests: XCTestCase {
    var scratch: TemporaryDirectory!

    override func setUpWithError() throws { scratch = try TemporaryDirectory() }
    override func tearDown() { scratch.remove() }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0)
        return info.st_mode
    }

    private func assertRefused(_ staging: DownloadStaging, containing text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try staging.prepare(), file: file, line: line) { error in
            guard case .unsafeDownloadDirectory(let path, let reason)? = error as? SessionError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(path, staging.directory.path, file: file, line: line)
            XCTAssertTrue(reason.contains(text), reason, file: file, line: line)
        }
    }

    func testDirectoryIsMadePrivateToThisUser() throws {
        let staging = DownloadStaging(parent: scratch.url)
        XCTAssertEqual(staging.directory.lastPathComponent, "AFNetworking-downloads-\(geteuid())")
        try staging.prepare()
        XCTAssertEqual(mode(staging.directory.path) & 0o7777, 0o700)
        XCTAssertEqual(mode(staging.directory.path) & S_IFMT, S_IFDIR)
    }

    func testDirectoryOpenToOthersIsRefused() throws {
        let staging = DownloadStaging(parent: scratch.url)
        XCTAssertEqual(mkdir(staging.directory.path, 0o777), 0)
        XCTAssertEqual(chmod(staging.directory.path, 0o777), 0)
        assertRefused(staging, containing: "mode 777")
    }

    func testDirectoryOfAnotherUserIsRefused() throws {
        // As root (CI): a directory another user made first, private to that user.
        try Privileges.requireRoot(for: "chown to another user")
        let staging = DownloadStaging(parent: scratch.url)
        XCTAssertEqual(mkdir(staging.directory.path, 0o700), 0)
        XCTAssertEqual(chown(staging.directory.path, 65534, 65534), 0)
        assertRefused(staging, containing: "belongs to user 65534")
    }

    func testSymbolicLinkInPlaceOfTheDirectoryIsRefused() throws {
        let staging = DownloadStaging(parent: scratch.url)
        let elsewhere = scratch.url.appendingPathComponent("elsewhere")
        XCTAssertEqual(mkdir(elsewhere.path, 0o700), 0)
        XCTAssertEqual(symlink(elsewhere.path, staging.directory.path), 0)
        assertRefused(staging, containing: "symbolic link")
    }

    func testFileInPlaceOfTheDirectoryIsRefused() throws {
        let staging = DownloadStaging(parent: scratch.url)
        _ = try scratch.file(staging.directory.lastPathComponent, contents: Data("x".utf8))
        assertRefused(staging, containing: "not a directory")
    }

    func testPrivateFilesAreMode0600AndNeverReplaceAnExistingFile() throws {
        let url = scratch.url.appendingPathComponent("new.download")
        try DownloadStaging.createPrivateFile(at: url).close()
        XCTAssertEqual(mode(url.path) & 0o7777, 0o600)
        XCTAssertThrowsError(try DownloadStaging.createPrivateFile(at: url))
    }

    func testPrivateFileIsNeverCreatedThroughAPlantedLink() throws {
        let target = try scratch.file("target", contents: Data("keep".utf8))
        let link = scratch.url.appendingPathComponent("planted.download")
        XCTAssertEqual(symlink(target.path, link.path), 0)
        XCTAssertThrowsError(try DownloadStaging.createPrivateFile(at: link))
        XCTAssertEqual(try Data(contentsOf: target), Data("keep".utf8))
    }

    func testPartialFileOutsideTheDirectoryIsRefusedAndLeftAlone() throws {
        let staging = DownloadStaging(parent: scratch.url)
        let outside = try scratch.file("victim", contents: Data(count: 10))
        for path in [outside.path, staging.directory.path + "/../victim", staging.directory.appendingPathComponent("sub/x").path] {
            XCTAssertThrowsError(try staging.openPartialFile(atPath: path, size: 10), path) { error in
                guard case .invalidResumeData(let reason)? = error as? SessionError else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("not in the private download directory"), reason)
            }
        }
        XCTAssertEqual(try Data(contentsOf: outside), Data(count: 10))
    }

    func testPartialFileThatIsALinkIsRefused() throws {
        let staging = DownloadStaging(parent: scratch.url)
        try staging.prepare()
        let target = try scratch.file("victim", contents: Data(count: 10))
        let link = staging.directory.appendingPathComponent("planted.download")
        XCTAssertEqual(symlink(target.path, link.path), 0)
        XCTAssertThrowsError(try staging.openPartialFile(atPath: link.path, size: 10))
        XCTAssertEqual(try Data(contentsOf: target), Data(count: 10))
    }

    func testPartialFileOfAnotherSizeIsRefused() throws {
        let staging = DownloadStaging(parent: scratch.url)
        try staging.prepare()
        let url = staging.directory.appendingPathComponent("p.download")
        try DownloadStaging.createPrivateFile(at: url).write(contentsOf: Data(count: 5))
        XCTAssertThrowsError(try staging.openPartialFile(atPath: url.path, size: 10))
        XCTAssertNoThrow(try staging.openPartialFile(atPath: url.path, size: 5))
    }
}
