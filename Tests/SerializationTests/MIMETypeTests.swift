import AFSerialization
import TestSupport
import XCTest

final class MIMETypeTests: XCTestCase {
    func testCommonExtensionsMapToTheirTypes() {
        let expected = [
            "cer": "application/x-x509-ca-cert", "png": "image/png", "jpg": "image/jpeg", "json": "application/json",
            "html": "text/html", "mp3": "audio/mpeg", "mp4": "video/mp4", "zip": "application/zip",
            "pdf": "application/pdf", "txt": "text/plain", "pem": "application/x-pem-file", "gz": "application/gzip",
        ]
        for (pathExtension, type) in expected {
            XCTAssertEqual(MIMEType.forPathExtension(pathExtension), type, pathExtension)
        }
    }

    func testLookupIsCaseInsensitive() {
        XCTAssertEqual(MIMEType.forPathExtension("JPEG"), "image/jpeg")
    }

    func testUnknownExtensionIsOctetStream() {
        XCTAssertEqual(MIMEType.forPathExtension("nope"), "application/octet-stream")
        XCTAssertEqual(MIMEType.forPathExtension(""), "application/octet-stream")
    }
}
