import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A manager's security policy enforced in the TLS handshake, against the local TLS servers:
/// the right pin gives the response, a wrong one `serverCertificateUntrusted` (-1202) and the
/// server never sees the request.
final class PinnedTransportTests: XCTestCase {
    private func manager(_ policy: SecurityPolicy) throws -> URLSessionManager {
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(policy)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func pinned(_ mode: SSLPinningMode, _ names: String..., anchors: [String] = ["root-ca"]) throws -> SecurityPolicy {
        SecurityPolicy(pinningMode: mode, pinnedCertificates: try names.map(Fixtures.certificate),
                       anchorCertificates: try anchors.map(Fixtures.certificate))
    }

    /// GETs `/get?probe=<marker>` from `server` and returns the marker with the outcome.
    private func probe(_ server: TLSServer, with manager: URLSessionManager) async -> (marker: String, result: Result<HTTPResponse<Data>, any Error>) {
        let marker = UUID().uuidString
        let request = URLRequest(url: server.url("/get?probe=\(marker)"))
        do {
            return (marker, .success(try await manager.data(for: request)))
        } catch {
            return (marker, .failure(error))
        }
    }

    private func assertTrusted(_ policy: SecurityPolicy, server name: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let server = try TLSServer.named(name)
        let (marker, result) = await probe(server, with: try manager(policy))
        switch result {
        case .success(let response): XCTAssertEqual(response.statusCode, 200, file: file, line: line)
        case .failure(let error): XCTFail("\(error)", file: file, line: line)
        }
        XCTAssertTrue(server.receivedRequest(containing: marker), "the server saw no request", file: file, line: line)
    }

    @discardableResult
    private func assertRejected(
        _ policy: SecurityPolicy, server name: String, file: StaticString = #filePath, line: UInt = #line
    ) async throws -> TrustFailure? {
        let server = try TLSServer.named(name)
        let (marker, result) = await probe(server, with: try manager(policy))
        guard case .failure(let error) = result, let urlError = error as? URLError else {
            XCTFail("expected a URLError, got \(result)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(urlError.code, .serverCertificateUntrusted, file: file, line: line)
        XCTAssertEqual(urlError.code.rawValue, -1202, file: file, line: line)
        XCTAssertEqual(urlError.failingURL?.absoluteString, server.url("/get?probe=\(marker)").absoluteString, file: file, line: line)
        let evaluation = urlError.userInfo[TrustEvaluation.errorUserInfoKey] as? TrustEvaluation
        XCTAssertNotNil(evaluation?.failure, file: file, line: line)
        XCTAssertFalse(server.receivedRequest(containing: marker, within: 0.5), "the rejected server received the request", file: file, line: line)
        return evaluation?.failure
    }

    // MARK: Certificate pinning

    func testPinnedLeafCertificateGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.certificate, "localhost"), server: "localhost")
    }

    func testWrongPinnedCertificateIsRejectedBeforeTheRequestIsSent() async throws {
        let failure = try await assertRejected(try pinned(.certificate, "wrong-host"), server: "localhost")
        XCTAssertEqual(failure, .invalidChain(reason: "unable to get local issuer certificate"))
    }

    func testPinnedIntermediateCertificateGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.certificate, "intermediate-ca"), server: "chained-localhost")
    }

    func testPinnedRootCertificateGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.certificate, "root-ca"), server: "chained-localhost")
    }
}
