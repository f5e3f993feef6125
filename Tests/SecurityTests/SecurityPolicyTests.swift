import AFSecurity
import Foundation
import TestSupport
import XCTest

/// AFNetworking's SecurityPolicy behaviours over the committed fixture chains.
final class SecurityPolicyTests: XCTestCase {
    private func trust(_ names: String...) throws -> ServerTrust {
        ServerTrust(certificates: try names.map(Fixtures.certificate))
    }

    private func rootAnchored(_ mode: SSLPinningMode = .none, pinned: [String] = []) throws -> SecurityPolicy {
        SecurityPolicy(pinningMode: mode, pinnedCertificates: try pinned.map(Fixtures.certificate),
                       anchorCertificates: [try Fixtures.certificate("root-ca")])
    }

    // MARK: Defaults

    func testDefaultPolicyPinsNothingAndValidatesDomainNames() {
        let policy = SecurityPolicy.default
        XCTAssertEqual(policy.pinningMode, .none)
        XCTAssertFalse(policy.allowInvalidCertificates)
        XCTAssertTrue(policy.validatesDomainName)
        XCTAssertTrue(policy.pinnedCertificates.isEmpty)
        XCTAssertFalse(policy.needsEnforcement)
    }

    func testDefaultPolicyRejectsAChainOfAPrivateCA() throws {
        let evaluation = SecurityPolicy.default.evaluation(of: try trust("localhost"), forDomain: "localhost")
        guard case .rejected(.unknownRoot(let reason)) = evaluation else { return XCTFail("\(evaluation)") }
        XCTAssertTrue(reason.contains("issuer"), reason)
    }

    func testAnyNonDefaultSettingNeedsEnforcement() {
        XCTAssertTrue(SecurityPolicy(allowInvalidCertificates: true).needsEnforcement)
        XCTAssertTrue(SecurityPolicy(validatesDomainName: false).needsEnforcement)
        XCTAssertTrue(SecurityPolicy(pinningMode: .publicKey).needsEnforcement)
    }

    func testEmptyChainIsRejected() throws {
        XCTAssertEqual(try rootAnchored().evaluation(of: ServerTrust(certificates: []), forDomain: nil), .rejected(.noCertificates))
    }

    // MARK: No pinning, custom anchors

    func testCustomAnchorTrustsItsLeafForItsNameAndAddress() throws {
        let policy = try rootAnchored()
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("localhost"), forDomain: "localhost"))
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("localhost"), forDomain: "127.0.0.1"))
    }

    func testWrongDomainIsRejected() throws {
        XCTAssertEqual(try rootAnchored().evaluation(of: try trust("wrong-host"), forDomain: "localhost"),
                       .rejected(.domainMismatch(domain: "localhost")))
    }

    func testWrongDomainIsTrustedWithoutDomainValidation() throws {
        var policy = try rootAnchored()
        policy.validatesDomainName = false
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("wrong-host"), forDomain: "localhost"))
    }

    func testNoDomainSkipsTheHostCheck() throws {
        XCTAssertTrue(try rootAnchored().evaluate(serverTrust: try trust("wrong-host"), forDomain: nil))
    }

    func testIntermediateChainIsTrustedWhenTheIntermediateIsPresented() throws {
        XCTAssertTrue(try rootAnchored().evaluate(serverTrust: try trust("chained-localhost", "intermediate-ca"), forDomain: "localhost"))
    }

    func testIntermediateChainIsRejectedWithoutTheIntermediate() throws {
        XCTAssertFalse(try rootAnchored().evaluate(serverTrust: try trust("chained-localhost"), forDomain: "localhost"))
    }

    func testCommonNameIsUsedWhenThereAreNoAlternativeNames() throws {
        let policy = try rootAnchored()
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("no-san"), forDomain: "common-name.example"))
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("no-san"), forDomain: "localhost"))
    }

    func testWildcardCoversOneLabel() throws {
        let policy = try rootAnchored()
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("wildcard"), forDomain: "api.example.test"))
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("wildcard"), forDomain: "example.test"))
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("wildcard"), forDomain: "a.b.example.test"))
    }

    func testExpiredCertificateIsRejected() throws {
        guard case .rejected(.certificateDateInvalid(let reason)) = try rootAnchored().evaluation(of: try trust("expired"), forDomain: "localhost") else {
            return XCTFail("expired certificate trusted")
        }
        XCTAssertTrue(reason.contains("expired"), reason)
    }

    func testSelfSignedIsRejectedWithoutPinning() throws {
        XCTAssertFalse(try rootAnchored().evaluate(serverTrust: try trust("self-signed"), forDomain: "localhost"))
    }

    // MARK: allowInvalidCertificates

    func testAllowingInvalidCertificatesWithDomainValidationNeedsPinning() throws {
        let policy = SecurityPolicy(allowInvalidCertificates: true)
        XCTAssertEqual(policy.evaluation(of: try trust("self-signed"), forDomain: "localhost"), .rejected(.domainValidationNeedsPinning))
    }

    func testAllowingInvalidCertificatesWithoutDomainValidationTrustsSelfSigned() throws {
        let policy = SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false)
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: "localhost"))
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("expired"), forDomain: "wrong.example"))
    }

    func testAllowingInvalidCertificatesWithoutDomainTrustsSelfSigned() throws {
        let policy = SecurityPolicy(allowInvalidCertificates: true)
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: nil))
    }

    func testAllowingInvalidCertificatesStillEnforcesPins() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("localhost")],
                                    allowInvalidCertificates: true)
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("expired"), forDomain: "localhost") == false)
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("localhost"), forDomain: "localhost"))
    }

    func testPinnedExpiredCertificateIsTrustedOnlyWhenInvalidCertificatesAreAllowed() throws {
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("expired")])
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("expired"), forDomain: "localhost"))
        policy.allowInvalidCertificates = true
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("expired"), forDomain: "localhost"))
    }

    // MARK: Certificate pinning

    func testCertificatePinningByLeaf() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("localhost")])
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("localhost", "root-ca"), forDomain: "localhost"))
    }

    func testCertificatePinningByIntermediate() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("intermediate-ca")])
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("chained-localhost", "intermediate-ca"), forDomain: "localhost"))
    }

    func testCertificatePinningByRoot() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("root-ca")])
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("chained-localhost", "intermediate-ca"), forDomain: "localhost"))
    }

    func testCertificatePinningByWholeChain() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: try ["chained-localhost", "intermediate-ca", "root-ca"].map(Fixtures.certificate))
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("chained-localhost", "intermediate-ca"), forDomain: "localhost"))
    }

    func testCertificatePinningOfAnotherCertificateIsRejected() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("wrong-host")])
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("localhost", "root-ca"), forDomain: "localhost"))
    }

    func testCertificatePinningWithNothingPinnedIsRejected() throws {
        let policy = SecurityPolicy(pinningMode: .certificate)
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("localhost", "root-ca"), forDomain: "localhost"))
    }

    func testCertificatePinningStillValidatesTheDomain() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("root-ca")])
        XCTAssertEqual(policy.evaluation(of: try trust("wrong-host", "root-ca"), forDomain: "localhost"),
                       .rejected(.domainMismatch(domain: "localhost")))
    }

    func testSelfSignedPinnedCertificateIsTrustedForItsName() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("self-signed")])
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: "localhost"))
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: "example.org"))
    }

    func testSelfSignedPinnedWithInvalidAllowedAndDomainValidationIsTrusted() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("self-signed")],
                                    allowInvalidCertificates: true)
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: "localhost"))
    }

    // MARK: Public-key pinning

    func testPublicKeyPinningByLeafKey() throws {
        let policy = try rootAnchored(.publicKey, pinned: ["localhost"])
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("localhost"), forDomain: "localhost"))
    }

    func testPublicKeyPinningByIntermediateKey() throws {
        let policy = try rootAnchored(.publicKey, pinned: ["intermediate-ca"])
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("chained-localhost", "intermediate-ca"), forDomain: "localhost"))
    }

    func testPublicKeyPinningOfAnotherKeyIsRejected() throws {
        let policy = try rootAnchored(.publicKey, pinned: ["wrong-host"])
        XCTAssertEqual(policy.evaluation(of: try trust("localhost"), forDomain: "localhost"), .rejected(.noPinnedPublicKey))
    }

    func testPublicKeyPinningRequiresAValidChainUnlessInvalidIsAllowed() throws {
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Fixtures.certificate("self-signed")])
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: "localhost"))
        policy.allowInvalidCertificates = true
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("self-signed"), forDomain: "localhost"))
    }

    func testPublicKeyPinsGivenAsHashes() throws {
        let pins = try Fixtures.opensslPins()
        var policy = try rootAnchored(.publicKey)
        policy.pinnedPublicKeyHashes = ["sha256/" + pins["localhost"]!]
        XCTAssertTrue(policy.evaluate(serverTrust: try trust("localhost"), forDomain: "localhost"))
        policy.pinnedPublicKeyHashes = [pins["wrong-host"]!]
        XCTAssertFalse(policy.evaluate(serverTrust: try trust("localhost"), forDomain: "localhost"))
    }

    // MARK: Pins are looked for in the verified chain only

    // An impostor holding any valid certificate for the host appends the real server's (public)
    // certificate to its chain: OpenSSL builds the path without it, so it proves nothing.
    func testPublicKeyPinnedOnlyInAnAppendedCertificateIsRejected() throws {
        let policy = try rootAnchored(.publicKey, pinned: ["localhost"])
        XCTAssertEqual(policy.evaluation(of: try trust("chained-localhost", "intermediate-ca", "localhost"), forDomain: "localhost"),
                       .rejected(.noPinnedPublicKey))
    }

    func testPublicKeyPinnedOnlyInAnUnrelatedExtraCertificateIsRejected() throws {
        let policy = try rootAnchored(.publicKey, pinned: ["self-signed"])
        XCTAssertEqual(policy.evaluation(of: try trust("localhost", "self-signed"), forDomain: "localhost"), .rejected(.noPinnedPublicKey))
    }

    func testCertificatePinnedOnlyInAnAppendedCertificateIsRejectedWhenInvalidCertificatesAreAllowed() throws {
        let policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("localhost")],
                                    allowInvalidCertificates: true)
        XCTAssertEqual(policy.evaluation(of: try trust("chained-localhost", "intermediate-ca", "localhost"), forDomain: "localhost"),
                       .rejected(.noPinnedCertificate))
    }

    func testPublicKeyPinnedOnlyInAnAppendedCertificateIsRejectedWhenInvalidCertificatesAreAllowed() throws {
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Fixtures.certificate("localhost")],
                                    allowInvalidCertificates: true)
        XCTAssertEqual(policy.evaluation(of: try trust("self-signed", "localhost"), forDomain: "localhost"), .rejected(.noPinnedPublicKey))
    }

    // MARK: Loading certificates

    func testCertificatesAreLoadedFromDERAndPEMFilesOfADirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: Fixtures.url("localhost.der"), to: directory.appendingPathComponent("localhost.cer"))
        try FileManager.default.copyItem(at: Fixtures.url("chained-localhost-fullchain.pem"), to: directory.appendingPathComponent("chain.pem"))
        try Data("not a certificate".utf8).write(to: directory.appendingPathComponent("README.txt"))
        let certificates = try SecurityPolicy.certificates(at: [directory])
        XCTAssertEqual(certificates, try ["chained-localhost", "intermediate-ca", "localhost"].map(Fixtures.certificate))
    }

    func testMissingCertificateFileIsATypedError() {
        XCTAssertThrowsError(try SecurityPolicy.certificates(at: [URL(fileURLWithPath: "/nonexistent/pin.pem")])) { error in
            XCTAssertEqual(error as? CertificateError, .unreadableFile("/nonexistent/pin.pem"))
        }
    }
}
