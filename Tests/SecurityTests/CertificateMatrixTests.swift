import AFSecurity
import Foundation
import TestSupport
import XCTest

/// The certificate matrix through `SecurityPolicy`'s evaluation API: every row gets the verdict
/// recorded beside it, which is never more lenient than OpenSSL's verifier or curl.
final class CertificateMatrixTests: XCTestCase {
    func testMatrixHasAtLeastFortyRowsOfBothVerdicts() throws {
        let rows = try CertificateMatrix.rows()
        XCTAssertGreaterThanOrEqual(rows.count, 40)
        XCTAssertGreaterThanOrEqual(rows.filter(\.accepted).count, 10)
        XCTAssertGreaterThanOrEqual(rows.filter { !$0.accepted }.count, 30)
    }

    func testEveryRowGetsItsRecordedVerdict() throws {
        for row in try CertificateMatrix.rows() {
            let evaluation = CertificateMatrix.policy(for: row).evaluation(of: ServerTrust(certificates: row.chain), forDomain: row.host)
            XCTAssertEqual(evaluation.isTrusted, row.accepted, "\(row.name): \(evaluation) (\(row.recorded))")
        }
    }

    func testClientCertificateIsRefusedForItsKeyUsage() throws {
        let row = try XCTUnwrap(CertificateMatrix.rows().first { $0.name == "eku-client-auth" })
        let evaluation = CertificateMatrix.policy(for: row).evaluation(of: ServerTrust(certificates: row.chain), forDomain: row.host)
        XCTAssertEqual(evaluation, .rejected(.notForServerAuthentication(reason: "unsuitable certificate purpose")))
        XCTAssertTrue(evaluation.description.contains("key usage"), evaluation.description)
    }

    func testClientCertificateIsRefusedEvenWhenInvalidCertificatesAreAllowedWithoutDomainValidation() throws {
        // The purpose check is part of validity: only `allowInvalidCertificates` waives it, as it
        // waives every other check of the chain.
        let row = try XCTUnwrap(CertificateMatrix.rows().first { $0.name == "eku-client-auth" })
        var policy = CertificateMatrix.policy(for: row)
        policy.validatesDomainName = false
        XCTAssertFalse(policy.evaluate(serverTrust: ServerTrust(certificates: row.chain), forDomain: row.host))
    }

    func testSystemTrustStoreAlsoRefusesAClientCertificate() throws {
        // The default policy reads the system's store, which OpenSSL takes from SSL_CERT_FILE.
        let rows = try CertificateMatrix.rows()
        let client = try XCTUnwrap(rows.first { $0.name == "eku-client-auth" })
        let server = try XCTUnwrap(rows.first { $0.name == "eku-server-auth" })
        let previous = ProcessInfo.processInfo.environment["SSL_CERT_FILE"]
        setenv("SSL_CERT_FILE", CertificateMatrix.directory.appendingPathComponent("root.pem").path, 1)
        defer { if let previous { setenv("SSL_CERT_FILE", previous, 1) } else { unsetenv("SSL_CERT_FILE") } }
        XCTAssertTrue(SecurityPolicy.default.evaluate(serverTrust: ServerTrust(certificates: server.chain), forDomain: "localhost"))
        XCTAssertEqual(SecurityPolicy.default.evaluation(of: ServerTrust(certificates: client.chain), forDomain: "localhost"),
                       .rejected(.notForServerAuthentication(reason: "unsuitable certificate purpose")))
    }

    func testPartialChainsCanBeRefused() throws {
        let row = try XCTUnwrap(CertificateMatrix.rows().first { $0.name == "partial-chain-anchor" })
        var policy = CertificateMatrix.policy(for: row)
        XCTAssertTrue(policy.evaluate(serverTrust: ServerTrust(certificates: row.chain), forDomain: row.host))
        policy.trustsPartialChains = false
        XCTAssertFalse(policy.evaluate(serverTrust: ServerTrust(certificates: row.chain), forDomain: row.host))
    }
}
