import AFSecurity
import Foundation
import TestSupport
import XCTest

final class CertificateTests: XCTestCase {
    static let names = ["root-ca", "intermediate-ca", "localhost", "chained-localhost", "wrong-host", "wildcard", "no-san", "self-signed", "expired"]

    func testPublicKeyPinsMatchOpenSSL() throws {
        let pins = try Fixtures.opensslPins()
        for name in Self.names {
            XCTAssertEqual(try Fixtures.certificate(name).publicKeyPinSHA256, pins[name], name)
        }
    }

    func testPEMAndDERGiveTheSameCertificate() throws {
        for name in Self.names {
            let pem = try Certificate.certificates(contentsOf: Fixtures.url("\(name).pem"))
            XCTAssertEqual(pem, [try Fixtures.certificate(name)], name)
        }
    }

    func testBundleGivesEveryCertificateInOrder() throws {
        let bundle = try Certificate.certificates(contentsOf: Fixtures.url("chained-localhost-fullchain.pem"))
        XCTAssertEqual(bundle, [try Fixtures.certificate("chained-localhost"), try Fixtures.certificate("intermediate-ca")])
    }

    func testNamesOfTheLocalhostLeaf() throws {
        let certificate = try Fixtures.certificate("localhost")
        XCTAssertEqual(certificate.subjectCommonName, "localhost")
        XCTAssertEqual(certificate.subjectAlternativeNames, [
            .dns("localhost"), .ip([127, 0, 0, 1]), .ip([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        ])
        XCTAssertFalse(certificate.isSelfIssued)
    }

    func testWildcardAndCommonNameOnlyLeaves() throws {
        XCTAssertEqual(try Fixtures.certificate("wildcard").subjectAlternativeNames, [.dns("*.example.test")])
        let noSAN = try Fixtures.certificate("no-san")
        XCTAssertEqual(noSAN.subjectAlternativeNames, [])
        XCTAssertEqual(noSAN.subjectCommonName, "common-name.example")
    }

    func testRootAndSelfSignedAreSelfIssued() throws {
        XCTAssertTrue(try Fixtures.certificate("root-ca").isSelfIssued)
        XCTAssertTrue(try Fixtures.certificate("self-signed").isSelfIssued)
    }

    func testValidityDates() throws {
        let expired = try Fixtures.certificate("expired")
        XCTAssertEqual(expired.notValidBefore, Date(timeIntervalSince1970: 1_577_836_800))
        XCTAssertEqual(expired.notValidAfter, Date(timeIntervalSince1970: 1_609_459_200))
        XCTAssertFalse(expired.isValid())
        let localhost = try Fixtures.certificate("localhost")
        XCTAssertTrue(localhost.isValid())
        XCTAssertGreaterThan(localhost.notValidAfter, Date(timeIntervalSince1970: 2_398_291_200), "valid beyond 2046")
    }

    func testEveryTruncationThrowsInsteadOfCrashing() throws {
        let der = try Data(contentsOf: Fixtures.url("localhost.der"))
        for length in 0..<der.count {
            XCTAssertThrowsError(try Certificate(derEncoded: der.prefix(length)), "\(length) bytes")
        }
    }

    func testTrailingBytesAreRejected() throws {
        let der = try Data(contentsOf: Fixtures.url("localhost.der"))
        XCTAssertThrowsError(try Certificate(derEncoded: der + Data([0]))) {
            XCTAssertEqual($0 as? CertificateError, .malformed("data after the certificate"))
        }
    }

    func testCorruptedLengthsAreRejected() throws {
        var der = Array(try Data(contentsOf: Fixtures.url("localhost.der")))
        der[1] = 0x85
        XCTAssertThrowsError(try Certificate(derEncoded: Data(der)))
        der[1] = 0x80
        XCTAssertThrowsError(try Certificate(derEncoded: Data(der)))
    }

    func testPEMWithoutCertificatesOrWithBadBase64IsRejected() {
        XCTAssertThrowsError(try Certificate.certificates(fromPEM: "no certificate here")) {
            XCTAssertEqual($0 as? CertificateError, .invalidPEM)
        }
        XCTAssertThrowsError(try Certificate.certificates(fromPEM: "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----"))
        XCTAssertThrowsError(try Certificate.certificates(fromPEM: "-----BEGIN CERTIFICATE-----\nAAAA"))
    }

    func testMissingFileIsATypedError() {
        XCTAssertThrowsError(try Certificate.certificates(contentsOf: URL(fileURLWithPath: "/nonexistent/x.pem"))) {
            XCTAssertEqual($0 as? CertificateError, .unreadableFile("/nonexistent/x.pem"))
        }
    }
}
