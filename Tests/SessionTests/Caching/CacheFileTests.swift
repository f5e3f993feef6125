@testable import AFSession
import Foundation
import XCTest

/// The bytes of a cache directory's file, without a file system: written exactly as the format
/// says, read back whole, and every way a damaged or hostile file is refused (a miss).
final class CacheFileTests: XCTestCase {
    private let key = "https://api.example.com/item"

    private func response(fields: [String: String] = ["ETag": "\"v1\"", "Cache-Control": "max-age=60"],
                          varying: [String: String?] = [:], body: String = "hello", status: Int = 200,
                          url: String? = nil, version: String = "HTTP/1.1", requestTime: Double = 1000) -> CachedResponse {
        CachedResponse(url: URL(string: url ?? key)!, statusCode: status, httpVersion: version, fields: fields, body: Data(body.utf8),
                       requestTime: Date(timeIntervalSinceReferenceDate: requestTime), responseTime: Date(timeIntervalSinceReferenceDate: 1001.5),
                       varying: varying)
    }

    private func file(_ responses: [CachedResponse], shared: Bool = true) -> [UInt8] {
        CacheFile.encode(CacheFile.Contents(key: key, writtenShared: shared, responses: responses))
    }

    /// `bytes` with its last eight bytes made the checksum of the rest again, as a hostile
    /// writer would.
    private func resealed(_ bytes: [UInt8]) -> [UInt8] {
        let body = Array(bytes.dropLast(8))
        return body + withUnsafeBytes(of: CacheFile.checksum(body).bigEndian, Array.init)
    }

    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    func testAFileIsWrittenExactlyAsTheFormatSays() {
        let expected = hex(
            "41464e4302010000001c68747470733a2f2f6170692e6578616d706c652e636f6d2f6974656d000000010000001c68747470733a2f2f"
                + "6170692e6578616d706c652e636f6d2f6974656d00c800000008485454502f312e31408f400000000000408f4c0000000000"
                // flags, then no Host field, socket, certificate or route of its own
                + "00" + "00000000"
                + "00000002"
                + "0000000d43616368652d436f6e74726f6c0000000a6d61782d6167653d36300000000445546167000000042276312200000000000000"
                + "000000000568656c6c6f" + "7f84ee1fd34caffb")
        XCTAssertEqual(file([response()]), expected)
    }

    func testAWrittenFileIsReadBackWhole() {
        let responses = [
            response(fields: ["Vary": "Accept-Language", "Content-Length": "2"], varying: ["accept-language": "fr"], body: "fr"),
            response(fields: ["Vary": "Accept-Language"], varying: ["accept-language": String?.none], body: "", status: 203, version: "HTTP/2"),
        ]
        XCTAssertEqual(CacheFile.decode(file(responses, shared: false)),
                       CacheFile.Contents(key: key, writtenShared: false, responses: responses))
    }

    func testTheNameIsTheKeysHashInHexadecimal() {
        let name = CacheFile.name(for: key)
        XCTAssertTrue(CacheFile.isResponseFileName(name))
        XCTAssertEqual(name.utf8.count, 25)
        XCTAssertNotEqual(name, CacheFile.name(for: key + "/other"))
        XCTAssertFalse(CacheFile.isResponseFileName(".partial-" + name))
        XCTAssertFalse(CacheFile.isResponseFileName("../../../etc/passwd.response"))
    }

    func testEveryTruncationIsRefused() {
        let bytes = file([response()])
        for length in 0..<bytes.count {
            XCTAssertNil(CacheFile.decode(Array(bytes.prefix(length))), "\(length) bytes")
        }
    }

    func testAnyChangedByteIsRefused() {
        let bytes = file([response()])
        for index in bytes.indices {
            var damaged = bytes
            damaged[index] ^= 0x01
            XCTAssertNil(CacheFile.decode(damaged), "byte \(index)")
        }
    }

    func testAResponsesHostSocketAndCertificateAreReadBack() {
        var stored = response()
        (stored.host, stored.socketPath, stored.identity, stored.route) = ("tenant-a.example", "/run/api.sock", "cGlu", "cm91dGU=")
        let target = stored.key.target
        let bytes = CacheFile.encode(CacheFile.Contents(key: target, writtenShared: true, responses: [stored]))
        XCTAssertEqual(CacheFile.decode(bytes), CacheFile.Contents(key: target, writtenShared: true, responses: [stored]))
        XCTAssertEqual(target, "https://tenant-a.example/item")
    }

    func testAResponseOfAnotherTargetIsRefused() {
        var stored = response()
        stored.host = "tenant-b.example"
        XCTAssertNil(CacheFile.decode(CacheFile.encode(CacheFile.Contents(key: "https://tenant-a.example/item", writtenShared: true, responses: [stored]))))
        XCTAssertNil(CacheFile.decode(CacheFile.encode(CacheFile.Contents(key: key, writtenShared: true, responses: [stored]))))
    }

    func testAnotherVersionIsRefused() {
        var bytes = file([response()])
        bytes[4] = 1
        XCTAssertNil(CacheFile.decode(resealed(bytes)))
    }

    func testALengthPastTheEndIsRefused() {
        var bytes = file([response()])
        // The key's length, made larger than the file.
        bytes.replaceSubrange(6..<10, with: [0x7F, 0xFF, 0xFF, 0xFF])
        XCTAssertNil(CacheFile.decode(resealed(bytes)))
    }

    func testACountTheBytesCannotHoldIsRefused() {
        var bytes = file([response()])
        // The number of responses, after the 6 header bytes and the key (4 + 28).
        bytes.replaceSubrange(38..<42, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertNil(CacheFile.decode(resealed(bytes)))
    }

    func testABodyLongerThanTheFileIsRefused() {
        var bytes = file([response(body: "")])
        // The body's length, the last field before the checksum.
        bytes.replaceSubrange(bytes.count - 16..<bytes.count - 8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertNil(CacheFile.decode(resealed(bytes)))
    }

    func testTextThatIsNotUTF8IsRefused() {
        var bytes = file([response()])
        // The key's last byte, "m", made a lone continuation byte.
        bytes[37] = 0x80
        XCTAssertNil(CacheFile.decode(resealed(bytes)))
    }

    func testAByteLeftOverIsRefused() {
        let bytes = file([response()])
        XCTAssertNil(CacheFile.decode(resealed(Array(bytes.dropLast(8)) + [0] + Array(bytes.suffix(8)))))
    }

    func testAFieldValueWithALineBreakOrNULIsRefused() {
        for value in ["\"v1\"\r\nX-Injected: 1", "\"v1\"\nX: 1", "\"v1\"\u{0}"] {
            XCTAssertNil(CacheFile.decode(file([response(fields: ["ETag": value])])), value.debugDescription)
        }
    }

    func testAFieldNameThatIsNotATokenIsRefused() {
        for name in ["", "E Tag", "ETag:", "É"] {
            XCTAssertNil(CacheFile.decode(file([response(fields: [name: "x"])])), name)
        }
    }

    func testAFieldNamedTwiceInAnyCaseIsRefused() {
        XCTAssertNil(CacheFile.decode(file([response(fields: ["ETag": "\"a\"", "etag": "\"b\""])])))
    }

    func testAContentLengthOtherThanTheBodysIsRefused() {
        XCTAssertNil(CacheFile.decode(file([response(fields: ["Content-Length": "4"], body: "hello")])))
        XCTAssertNil(CacheFile.decode(file([response(fields: ["content-length": "5 "], body: "hello")])))
        XCTAssertNotNil(CacheFile.decode(file([response(fields: ["content-length": "5"], body: "hello")])))
    }

    func testAResponseOfAnotherKeyIsRefused() {
        XCTAssertNil(CacheFile.decode(file([response(url: "https://evil.example/item")])))
        XCTAssertNil(CacheFile.decode(file([response(url: key + "?other")])))
        XCTAssertNotNil(CacheFile.decode(file([response(url: key + "#part")])))
    }

    func testAStatusOutside200To599IsRefused() {
        for status in [0, 101, 199, 600, 65535] {
            XCTAssertNil(CacheFile.decode(file([response(status: status)])), "\(status)")
        }
    }

    func testAVersionThatIsNotHTTPIsRefused() {
        for version in ["", "HTTP/", "SPDY/3", "HTTP/1.1\r\n", "HTTP/1.1 200"] {
            XCTAssertNil(CacheFile.decode(file([response(version: version)])), version.debugDescription)
        }
    }

    func testATimeThatIsNotFiniteIsRefused() {
        for time in [Double.nan, .infinity, -.infinity] {
            XCTAssertNil(CacheFile.decode(file([response(requestTime: time)])), "\(time)")
        }
    }

    func testAVaryingNameThatIsNotALowerCasedTokenIsRefused() {
        for name in ["Accept", "a b", ""] {
            XCTAssertNil(CacheFile.decode(file([response(varying: [name: "x"])])), name)
        }
    }

    func testAnUnknownPresenceByteIsRefused() {
        var bytes = file([response(varying: ["accept": "x"], body: "")])
        // Before the value "x" (4 + 1 bytes), the body length (8) and the checksum (8).
        let presence = bytes.count - 8 - 8 - 5 - 1
        XCTAssertEqual(bytes[presence], 1)
        bytes[presence] = 2
        XCTAssertNil(CacheFile.decode(resealed(bytes)))
    }
}
