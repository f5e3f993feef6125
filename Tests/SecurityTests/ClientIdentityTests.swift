import AFSecurity
import Foundation
import TestSupport
import XCTest

/// Loading client identities for mutual TLS from the committed fixtures (client.pem signed by
/// client-ca, client-encrypted.key and client.p12 under the passphrase "afn-fixture").
final class ClientIdentityTests: XCTestCase {
    private let passphrase = "afn-fixture"

    func testPEMCertificateAndKeyFilesLoadTheLeafAndItsKey() throws {
        let identity = try ClientIdentity(certificateFile: Fixtures.url("client.pem"), keyFile: Fixtures.url("client.key"))
        XCTAssertEqual(identity.certificates.map(\.subjectCommonName), ["afn-test-client"])
        XCTAssertEqual(String(decoding: identity.privateKeyPEM, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----"), true)
    }

    func testKeyFollowingTheCertificateInOneFileLoads() throws {
        let combined = try Data(contentsOf: Fixtures.url("client.pem")) + Data(contentsOf: Fixtures.url("client.key"))
        XCTAssertEqual(try ClientIdentity(pemCertificates: combined).certificates.count, 1)
    }

    func testChainAfterTheLeafIsKeptInOrder() throws {
        let chain = try Data(contentsOf: Fixtures.url("client.pem")) + Data(contentsOf: Fixtures.url("client-ca.pem"))
        let identity = try ClientIdentity(pemCertificates: chain, pemKey: Data(contentsOf: Fixtures.url("client.key")))
        XCTAssertEqual(identity.certificates.map(\.subjectCommonName), ["afn-test-client", "AFNetworking Test Client CA"])
    }

    func testEncryptedKeyLoadsWithItsPassphrase() throws {
        let identity = try ClientIdentity(
            certificateFile: Fixtures.url("client.pem"), keyFile: Fixtures.url("client-encrypted.key"), passphrase: passphrase)
        XCTAssertEqual(identity.certificates.first?.subjectCommonName, "afn-test-client")
        XCTAssertFalse(String(decoding: identity.privateKeyPEM, as: UTF8.self).contains("ENCRYPTED"))
    }

    func testEncryptedKeyWithoutItsPassphraseThrowsInvalidKey() {
        for wrong in [nil, "not-the-passphrase"] {
            XCTAssertThrowsError(try ClientIdentity(
                certificateFile: Fixtures.url("client.pem"), keyFile: Fixtures.url("client-encrypted.key"), passphrase: wrong)) {
                XCTAssertEqual($0 as? ClientIdentityError, .invalidKey)
            }
        }
    }

    func testPKCS12LoadsCertificateChainAndKey() throws {
        let identity = try ClientIdentity(pkcs12File: Fixtures.url("client.p12"), passphrase: passphrase)
        XCTAssertEqual(identity.certificates.map(\.subjectCommonName), ["afn-test-client", "AFNetworking Test Client CA"])
        let pem = try ClientIdentity(certificateFile: Fixtures.url("client.pem"), keyFile: Fixtures.url("client.key"))
        XCTAssertEqual(identity.privateKeyPEM, pem.privateKeyPEM)
    }

    func testPKCS12WithAWrongPassphraseThrowsInvalidPKCS12() {
        XCTAssertThrowsError(try ClientIdentity(pkcs12File: Fixtures.url("client.p12"), passphrase: "wrong")) {
            XCTAssertEqual($0 as? ClientIdentityError, .invalidPKCS12)
        }
    }

    func testKeyOfAnotherCertificateThrowsAtLoadTime() {
        XCTAssertThrowsError(try ClientIdentity(certificateFile: Fixtures.url("client.pem"), keyFile: Fixtures.url("other-client.key"))) {
            XCTAssertEqual($0 as? ClientIdentityError, .keyDoesNotMatchCertificate)
        }
    }

    func testGarbageThrowsTypedErrors() {
        let garbage = Data("not a certificate".utf8)
        XCTAssertThrowsError(try ClientIdentity(pemCertificates: garbage, pemKey: garbage)) {
            XCTAssertEqual($0 as? ClientIdentityError, .invalidCertificate)
        }
        XCTAssertThrowsError(try ClientIdentity(pemCertificates: (try? Data(contentsOf: Fixtures.url("client.pem"))) ?? Data(), pemKey: garbage)) {
            XCTAssertEqual($0 as? ClientIdentityError, .invalidKey)
        }
        XCTAssertThrowsError(try ClientIdentity(pkcs12Data: garbage, passphrase: "")) {
            XCTAssertEqual($0 as? ClientIdentityError, .invalidPKCS12)
        }
        XCTAssertThrowsError(try ClientIdentity(certificateFile: URL(fileURLWithPath: "/nonexistent/client.pem"))) {
            XCTAssertEqual($0 as? ClientIdentityError, .unreadableFile("/nonexistent/client.pem"))
        }
    }

    func testDescriptionMirrorAndDumpNeverShowTheKey() throws {
        let identity = try ClientIdentity(certificateFile: Fixtures.url("client.pem"), keyFile: Fixtures.url("client.key"))
        let keyLine = String(decoding: identity.privateKeyPEM, as: UTF8.self).split(separator: "\n")[1]
        var dumped = ""
        dump(identity, to: &dumped)
        for text in [identity.description, String(reflecting: identity), "\(identity)", dumped] {
            XCTAssertFalse(text.contains(keyLine), text)
            XCTAssertFalse(text.contains("PRIVATE KEY"), text)
        }
        XCTAssertTrue(identity.description.contains("CN=afn-test-client"))
    }
}
