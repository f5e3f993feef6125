import AFSecurity
import TestSupport
import XCTest

final class HostnameMatchingTests: XCTestCase {
    func testExactNameIsCaseInsensitive() throws {
        let certificate = try Fixtures.certificate("localhost")
        XCTAssertTrue(certificate.matches(hostname: "localhost"))
        XCTAssertTrue(certificate.matches(hostname: "LocalHost"))
        XCTAssertFalse(certificate.matches(hostname: "localhost.example"))
        XCTAssertFalse(certificate.matches(hostname: "otherhost"))
    }

    func testIPLiteralsMatchOnlyIPAddressNames() throws {
        let certificate = try Fixtures.certificate("localhost")
        XCTAssertTrue(certificate.matches(hostname: "127.0.0.1"))
        XCTAssertTrue(certificate.matches(hostname: "::1"))
        XCTAssertTrue(certificate.matches(hostname: "[::1]"))
        XCTAssertFalse(certificate.matches(hostname: "127.0.0.2"))
    }

    func testWildcardCoversExactlyOneLeftMostLabel() throws {
        let certificate = try Fixtures.certificate("wildcard")
        XCTAssertTrue(certificate.matches(hostname: "api.example.test"))
        XCTAssertTrue(certificate.matches(hostname: "API.Example.Test"))
        XCTAssertFalse(certificate.matches(hostname: "example.test"), "the wildcard needs a label")
        XCTAssertFalse(certificate.matches(hostname: "a.b.example.test"), "one label only")
        XCTAssertFalse(certificate.matches(hostname: "api.example.other"))
    }

    func testTrailingDotIsComparedAsWrittenAsOpenSSLDoes() throws {
        XCTAssertFalse(try Fixtures.certificate("localhost").matches(hostname: "localhost."))
        XCTAssertFalse(try Fixtures.certificate("wildcard").matches(hostname: "api.example.test."))
    }

    func testCommonNameIsIgnoredBesideAnIPAddressName() throws {
        let row = try XCTUnwrap(CertificateMatrix.rows().first { $0.name == "ip-san-for-dns-name" })
        XCTAssertEqual(row.chain[0].subjectCommonName, "localhost")
        XCTAssertFalse(row.chain[0].matches(hostname: "localhost"))
    }

    func testWildcardNeverMatchesAnIPLiteral() throws {
        XCTAssertFalse(try Fixtures.certificate("wildcard").matches(hostname: "10.0.0.1"))
    }

    func testCommonNameIsUsedWhenThereAreNoDNSNames() throws {
        XCTAssertTrue(try Fixtures.certificate("no-san").matches(hostname: "common-name.example"))
        XCTAssertFalse(try Fixtures.certificate("no-san").matches(hostname: "other.example"))
    }

    func testWrongHostLeafDoesNotMatchLocalhost() throws {
        XCTAssertTrue(try Fixtures.certificate("wrong-host").matches(hostname: "wrong.example"))
        XCTAssertFalse(try Fixtures.certificate("wrong-host").matches(hostname: "localhost"))
        XCTAssertFalse(try Fixtures.certificate("wrong-host").matches(hostname: "127.0.0.1"))
    }
}
