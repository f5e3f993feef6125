@testable import AFSession
#if canImport(Glibc)
import Glibc
#endif
import XCTest

/// The rule for the directories the session keeps one user's files in, without a file system.
final class PrivateDirectoryTests: XCTestCase {
    func testADirectoryOfThisUserThatNobodyElseCanEnterIsPrivate() {
        XCTAssertNil(PrivateDirectory.problem(mode: S_IFDIR | 0o700, owner: 1000, user: 1000))
    }

    func testAnotherUsersDirectoryIsRefused() {
        XCTAssertEqual(PrivateDirectory.problem(mode: S_IFDIR | 0o700, owner: 0, user: 1000), "it belongs to user 0, not to this user (1000)")
    }

    func testADirectoryOthersCanReadOrEnterIsRefused() {
        XCTAssertEqual(PrivateDirectory.problem(mode: S_IFDIR | 0o750, owner: 1000, user: 1000), "other users can reach it (mode 750)")
        XCTAssertEqual(PrivateDirectory.problem(mode: S_IFDIR | 0o701, owner: 1000, user: 1000), "other users can reach it (mode 701)")
    }

    func testALinkOrAFileIsRefused() {
        XCTAssertEqual(PrivateDirectory.problem(mode: S_IFLNK | 0o777, owner: 1000, user: 1000), "it is a symbolic link")
        XCTAssertEqual(PrivateDirectory.problem(mode: S_IFREG | 0o600, owner: 1000, user: 1000), "it is not a directory")
    }
}
