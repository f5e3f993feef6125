import AFSecurity
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The certificate matrix through the libcurl transport's handshake, one TLS server a row on
/// 127.0.0.1 (`scripts/tls_matrix_server.py`, started here): the handshake gives the verdict the
/// evaluation API gives, for the same reason, and a rejected server never sees a request byte.
final class CertificateMatrixHandshakeTests: XCTestCase {
    private func get(_ url: URL, policy: SecurityPolicy) async throws -> Result<HTTPResponse<Data>, any Error> {
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(policy)
        defer { manager.invalidateSession(cancelingTasks: true) }
        do {
            return .success(try await manager.data(for: URLRequest(url: url)))
        } catch {
            return .failure(error)
        }
    }

    func testHandshakeAgreesWithTheEvaluationAPIOnEveryRow() async throws {
        let server = try CertificateMatrixServer()
        for row in try CertificateMatrix.rows() {
            let policy = CertificateMatrix.policy(for: row)
            let evaluation = policy.evaluation(of: ServerTrust(certificates: row.chain), forDomain: row.host)
            XCTAssertEqual(evaluation.isTrusted, row.accepted, "\(row.name): the evaluation API says \(evaluation) (\(row.recorded))")
            switch try await get(server.url(for: row), policy: policy) {
            case .success(let response):
                XCTAssertTrue(row.accepted, "\(row.name): the handshake accepted the chain (\(row.recorded))")
                XCTAssertEqual(String(decoding: response.value, as: UTF8.self), row.name)
            case .failure(let error):
                XCTAssertFalse(row.accepted, "\(row.name): the handshake refused the chain: \(error)")
                if let handshake = (error as? URLError)?.userInfo[TrustEvaluation.errorUserInfoKey] as? TrustEvaluation {
                    XCTAssertEqual(handshake, evaluation, "\(row.name): the handshake and the evaluation API disagree on the reason")
                    XCTAssertEqual(server.receivedBytes(row), [0], "\(row.name): the server received request bytes")
                } else {
                    // libcurl resolves no name with a trailing dot (`localhost.`): nothing connects.
                    XCTAssertEqual((error as? URLError)?.code, .cannotFindHost, "\(row.name): \(error)")
                    XCTAssertEqual(server.receivedBytes(row, within: 0.5), [], "\(row.name): a connection was made")
                }
            }
        }
    }

    func testClientCertificateIsRefusedInTheHandshakeBeforeAnyRequestByte() async throws {
        let server = try CertificateMatrixServer()
        let row = try XCTUnwrap(CertificateMatrix.rows().first { $0.name == "eku-client-auth" })
        guard case .failure(let error) = try await get(server.url(for: row), policy: CertificateMatrix.policy(for: row)) else {
            return XCTFail("a client certificate was accepted as the server's")
        }
        let urlError = try XCTUnwrap(error as? URLError)
        XCTAssertEqual(urlError.code, .serverCertificateUntrusted)
        XCTAssertTrue(urlError.localizedDescription.contains("key usage"), urlError.localizedDescription)
        XCTAssertEqual(server.receivedBytes(row), [0])
    }
}
