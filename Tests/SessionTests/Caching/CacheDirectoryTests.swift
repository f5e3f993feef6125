@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// A `ResponseCache` on disk, without a server: what one cache writes another reads, the
/// directory and files are private, one cache uses a directory, the capacity holds, and a file
/// that is damaged, swapped, open to others or another cache's kind is a miss.
final class CacheDirectoryTests: XCTestCase {
    private var scratch: TemporaryDirectory!
    private var directory: URL { scratch.url.appendingPathComponent("cache") }
    private let key = "https://api.example.com/item"

    override func setUpWithError() throws { scratch = try TemporaryDirectory() }
    override func tearDown() { scratch.remove() }

    private func stored(_ path: String = "/item", body: Int = 10, varying: [String: String?] = [:]) -> CachedResponse {
        CachedResponse(url: URL(string: "https://api.example.com\(path)")!, statusCode: 200, httpVersion: "HTTP/1.1",
                       fields: ["Cache-Control": "max-age=60"], body: Data(repeating: 0x61, count: body),
                       requestTime: Date(timeIntervalSinceReferenceDate: 1000), responseTime: Date(timeIntervalSinceReferenceDate: 1001),
                       varying: varying)
    }

    private func request(_ path: String = "/item") -> URLRequest {
        URLRequest(url: URL(string: "https://api.example.com\(path)")!)
    }

    private func cache(memory: Int = 1024, disk: Int = 1 << 20, shared: Bool = true) throws -> ResponseCache {
        try ResponseCache(memoryCapacity: memory, diskCapacity: disk, directory: directory, isShared: shared)
    }

    /// Stores `responses` in a cache on the directory and lets it go once they are written.
    private func storeAndClose(_ responses: [CachedResponse], shared: Bool = true) throws {
        let writer = try cache(shared: shared)
        for response in responses { writer.store(response) }
        writer.waitForDiskWrites()
    }

    private var filePath: String { directory.appendingPathComponent(CacheFile.name(for: key)).path }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    private func assertRefused(containing text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try cache(), file: file, line: line) { error in
            guard case .unsafeCacheDirectory(let path, let reason)? = error as? SessionError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(path, directory.path, file: file, line: line)
            XCTAssertTrue(reason.contains(text), reason, file: file, line: line)
        }
    }

    func testAResponseStoredByOneCacheAnswersTheNextOnTheSameDirectory() throws {
        try storeAndClose([stored(body: 5)])
        let reader = try cache()
        XCTAssertEqual(reader.entry(for: request()), stored(body: 5))
        let written = CacheFile.encode(CacheFile.Contents(key: key, writtenShared: true, responses: [stored(body: 5)]))
        XCTAssertEqual(reader.currentDiskUsage, written.count)
    }

    func testAResponseLargerThanMemoryIsAnsweredFromDisk() throws {
        let cache = try cache(memory: 10)
        cache.store(stored(body: 100))
        cache.waitForDiskWrites()
        XCTAssertEqual(cache.currentMemoryUsage, 0)
        XCTAssertEqual(cache.entry(for: request())?.body.count, 100)
    }

    func testTheDirectoryIsMade0700AndEachFile0600() throws {
        try storeAndClose([stored()])
        XCTAssertEqual(mode(directory.path), 0o700)
        XCTAssertEqual(mode(filePath), 0o600)
    }

    func testMissingParentsAreMadePrivateToo() throws {
        let nested = scratch.url.appendingPathComponent("a/b/cache")
        _ = try ResponseCache(diskCapacity: 1 << 20, directory: nested)
        XCTAssertEqual(mode(nested.path), 0o700)
        XCTAssertEqual(mode(scratch.url.appendingPathComponent("a/b").path), 0o700)
        XCTAssertEqual(mode(scratch.url.appendingPathComponent("a").path), 0o700)
    }

    func testADirectoryOthersCanReachIsRefused() throws {
        XCTAssertEqual(mkdir(directory.path, 0o700), 0)
        XCTAssertEqual(chmod(directory.path, 0o755), 0)
        assertRefused(containing: "mode 755")
    }

    func testALinkInPlaceOfTheDirectoryIsRefused() throws {
        let elsewhere = scratch.url.appendingPathComponent("elsewhere")
        XCTAssertEqual(mkdir(elsewhere.path, 0o700), 0)
        XCTAssertEqual(symlink(elsewhere.path, directory.path), 0)
        assertRefused(containing: "symbolic link")
    }

    func testAFileInPlaceOfTheDirectoryIsRefused() throws {
        _ = try scratch.file("cache", contents: Data("x".utf8))
        assertRefused(containing: "not a directory")
    }

    func testASecondCacheOnADirectoryInUseIsRefusedUntilTheFirstIsGone() throws {
        var first: ResponseCache? = try cache()
        XCTAssertThrowsError(try cache()) { error in
            guard case .cacheDirectoryInUse(let path)? = error as? SessionError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, directory.path)
        }
        first?.waitForDiskWrites()
        first = nil
        XCTAssertNoThrow(try cache())
    }

    func testTheFilesStayWithinTheDiskCapacityTheLeastRecentlyUsedRemovedFirst() throws {
        let size = CacheFile.encode(CacheFile.Contents(key: "https://api.example.com/a", writtenShared: true, responses: [stored("/a")])).count
        let cache = try cache(memory: 0, disk: size * 2)
        cache.store(stored("/a"))
        cache.store(stored("/b"))
        cache.waitForDiskWrites()
        _ = cache.entry(for: request("/a"))
        cache.store(stored("/c"))
        cache.waitForDiskWrites()
        XCTAssertEqual(cache.currentDiskUsage, size * 2)
        XCTAssertNotNil(cache.entry(for: request("/a")))
        XCTAssertNil(cache.entry(for: request("/b")))
        XCTAssertNotNil(cache.entry(for: request("/c")))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(names.count, 2)
    }

    func testAFileAnsweredFromMemoryKeepsItsPlaceInTheEvictionOrder() throws {
        let size = CacheFile.encode(CacheFile.Contents(key: "https://api.example.com/a", writtenShared: true, responses: [stored("/a")])).count
        let cache = try cache(memory: 1024, disk: size * 2)
        cache.store(stored("/a"))
        cache.store(stored("/b"))
        cache.waitForDiskWrites()
        // From memory: the file of /a is used too, and /b's is now the least recently used.
        XCTAssertNotNil(cache.entry(for: request("/a")))
        cache.store(stored("/c"))
        cache.waitForDiskWrites()
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        XCTAssertEqual(names, [CacheFile.name(for: "https://api.example.com/a"), CacheFile.name(for: "https://api.example.com/c")])
    }

    func testAVariantOnDiskAnswersWhenMemoryHoldsOnlyOthersOfItsKey() throws {
        try storeAndClose([stored(body: 1, varying: ["accept-language": "fr"]), stored(body: 2, varying: ["accept-language": "de"])])
        let reader = try cache()
        reader.store(stored(body: 3, varying: ["accept-language": "en"]))
        var german = request()
        german.setValue("de", forHTTPHeaderField: "Accept-Language")
        XCTAssertEqual(reader.entry(for: german)?.body.count, 2)
    }

    func testAResponseLargerThanTheDiskCapacityIsNotWritten() throws {
        let cache = try cache(memory: 0, disk: 50)
        cache.store(stored(body: 100))
        cache.waitForDiskWrites()
        XCTAssertEqual(cache.currentDiskUsage, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    func testASmallerCapacityRemovesWhatNoLongerFitsWhenOpened() throws {
        try storeAndClose([stored("/a"), stored("/b"), stored("/c")])
        let smaller = try cache(disk: 1)
        smaller.waitForDiskWrites()
        XCTAssertEqual(smaller.currentDiskUsage, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [])
    }

    func testADamagedFileIsAMissAndIsRemoved() throws {
        try storeAndClose([stored()])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: filePath))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: filePath))
        let reader = try cache()
        XCTAssertNil(reader.entry(for: request()))
        reader.waitForDiskWrites()
        XCTAssertFalse(FileManager.default.fileExists(atPath: filePath))
        XCTAssertEqual(reader.currentDiskUsage, 0)
    }

    func testAFileReplacedByALinkIsAMiss() throws {
        try storeAndClose([stored()])
        let outside = scratch.url.appendingPathComponent("outside")
        XCTAssertEqual(rename(filePath, outside.path), 0)
        XCTAssertEqual(symlink(outside.path, filePath), 0)
        XCTAssertNil(try cache().entry(for: request()))
    }

    func testAFileOthersCanReadIsAMiss() throws {
        try storeAndClose([stored()])
        XCTAssertEqual(chmod(filePath, 0o644), 0)
        XCTAssertNil(try cache().entry(for: request()))
    }

    func testAFileOfAnotherKeyUnderTheNameIsAMiss() throws {
        try storeAndClose([stored("/other")])
        let other = directory.appendingPathComponent(CacheFile.name(for: "https://api.example.com/other")).path
        XCTAssertEqual(rename(other, filePath), 0)
        XCTAssertNil(try cache().entry(for: request()))
    }

    func testResponsesACacheForOneUserWroteAreAMissForASharedCache() throws {
        try storeAndClose([stored()], shared: false)
        XCTAssertNil(try cache(shared: true).entry(for: request()))
    }

    func testResponsesASharedCacheWroteAnswerACacheForOneUser() throws {
        try storeAndClose([stored()], shared: true)
        XCTAssertNotNil(try cache(shared: false).entry(for: request()))
    }

    func testEveryVariantOfAKeyIsKeptInItsFile() throws {
        try storeAndClose([stored(body: 1, varying: ["accept-language": "fr"]), stored(body: 2, varying: ["accept-language": "de"])])
        let reader = try cache()
        var german = request()
        german.setValue("de", forHTTPHeaderField: "Accept-Language")
        XCTAssertEqual(reader.entry(for: german)?.body.count, 2)
    }

    func testAPartialFileLeftByAnEndedProcessIsRemovedWhenOpened() throws {
        XCTAssertEqual(mkdir(directory.path, 0o700), 0)
        let partial = try scratch.file("cache/.partial-0000000000000000.response-1", contents: Data("half".utf8))
        _ = try cache()
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial.path))
    }

    func testRemovingAllResponsesRemovesTheFilesOnly() throws {
        let cache = try cache()
        cache.store(stored("/a"))
        cache.store(stored("/b"))
        let kept = try scratch.file("cache/notes.txt", contents: Data("mine".utf8))
        cache.removeAllResponses()
        cache.waitForDiskWrites()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [kept.lastPathComponent])
        XCTAssertEqual(cache.currentDiskUsage, 0)
    }

    func testAnInvalidatedResponseIsRemovedFromDisk() throws {
        let cache = try cache()
        cache.store(stored())
        cache.invalidate([URL(string: key)!])
        cache.waitForDiskWrites()
        XCTAssertFalse(FileManager.default.fileExists(atPath: filePath))
        XCTAssertEqual(cache.currentDiskUsage, 0)
    }
}
