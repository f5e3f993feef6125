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
/// the right pin gives the response, a wrong one `serverCertificateUntrusted` (-1202; without
/// pins an expired chain is -1201, one to an unknown root -1203) and the
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
        _ policy: SecurityPolicy, server name: String, code: URLError.Code = .serverCertificateUntrusted,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> TrustFailure? {
        let server = try TLSServer.named(name)
        let (marker, result) = await probe(server, with: try manager(policy))
        guard case .failure(let error) = result, let urlError = error as? URLError else {
            XCTFail("expected a URLError, got \(result)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(urlError.code, code, file: file, line: line)
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
        XCTAssertEqual(failure, .unknownRoot(reason: "unable to get local issuer certificate"))
    }

    func testPinnedIntermediateCertificateGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.certificate, "intermediate-ca"), server: "chained-localhost")
    }

    func testPinnedRootCertificateGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.certificate, "root-ca"), server: "chained-localhost")
    }

    func testChangedPolicyAppliesToTheNextTask() async throws {
        let server = try TLSServer.named("localhost")
        let manager = try manager(try pinned(.certificate, "localhost"))
        let (_, trusted) = await probe(server, with: manager)
        XCTAssertEqual(try trusted.get().statusCode, 200)
        try manager.setSecurityPolicy(try pinned(.certificate, "wrong-host"))
        let (marker, rejected) = await probe(server, with: manager)
        guard case .failure(let error as URLError) = rejected else { return XCTFail("\(rejected)") }
        XCTAssertEqual(error.code, .serverCertificateUntrusted)
        XCTAssertFalse(server.receivedRequest(containing: marker, within: 0.5), "a connection of the old policy was reused")
    }

    func testCertificatePinningRejectsAValidChainOfAnUnpinnedServer() async throws {
        try await assertRejected(try pinned(.certificate, "self-signed"), server: "localhost")
    }

    // MARK: Public-key pinning

    func testPinnedPublicKeyGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.publicKey, "localhost"), server: "localhost")
    }

    func testWrongPinnedPublicKeyIsRejectedBeforeTheRequestIsSent() async throws {
        let failure = try await assertRejected(try pinned(.publicKey, "wrong-host"), server: "localhost")
        XCTAssertEqual(failure, .noPinnedPublicKey)
    }

    func testPublicKeyPinGivenAsHashGivesTheResponse() async throws {
        var policy = try pinned(.publicKey)
        policy.pinnedPublicKeyHashes = ["sha256/" + (try Fixtures.opensslPins()["intermediate-ca"]!)]
        try await assertTrusted(policy, server: "chained-localhost")
    }

    // MARK: No pinning: anchors, invalid certificates, domains

    func testPrivateAnchorWithoutPinningGivesTheResponse() async throws {
        try await assertTrusted(try pinned(.none), server: "localhost")
    }

    func testUnrelatedAnchorIsRejected() async throws {
        let failure = try await assertRejected(try pinned(.none, anchors: ["self-signed"]), server: "localhost", code: .serverCertificateHasUnknownRoot)
        XCTAssertEqual(failure, .unknownRoot(reason: "unable to get local issuer certificate"))
    }

    func testExpiredCertificateIsRejected() async throws {
        let failure = try await assertRejected(try pinned(.none), server: "expired", code: .serverCertificateHasBadDate)
        XCTAssertEqual(failure, .certificateDateInvalid(reason: "certificate has expired"))
    }

    func testExpiredPinnedCertificateIsAcceptedWhenInvalidCertificatesAreAllowed() async throws {
        var policy = try pinned(.certificate, "expired")
        policy.allowInvalidCertificates = true
        try await assertTrusted(policy, server: "expired")
    }

    func testWrongHostIsRejectedWhileDomainsAreValidated() async throws {
        let failure = try await assertRejected(try pinned(.certificate, "root-ca"), server: "wrong-host")
        XCTAssertEqual(failure, .domainMismatch(domain: "localhost"))
    }

    func testWrongHostIsAcceptedWithoutDomainValidation() async throws {
        var policy = try pinned(.certificate, "root-ca")
        policy.validatesDomainName = false
        try await assertTrusted(policy, server: "wrong-host")
    }

    func testSelfSignedIsAcceptedWhenInvalidAllowedWithoutDomainValidation() async throws {
        try await assertTrusted(SecurityPolicy(allowInvalidCertificates: true, validatesDomainName: false), server: "self-signed")
    }

    func testSelfSignedWithDomainValidationButNothingPinnedIsRejected() async throws {
        let failure = try await assertRejected(SecurityPolicy(allowInvalidCertificates: true), server: "self-signed")
        XCTAssertEqual(failure, .domainValidationNeedsPinning)
    }

    func testPinnedServerIsReachedByAddress() async throws {
        let server = try TLSServer.named("localhost")
        let address = URL(string: server.baseURL.absoluteString.replacingOccurrences(of: "localhost", with: "127.0.0.1") + "/get")!
        let response = try await manager(try pinned(.certificate, "localhost")).data(for: URLRequest(url: address))
        XCTAssertEqual(response.statusCode, 200)
    }

    func testWrongPinRejectsAnUploadWithoutSendingIt() async throws {
        let server = try TLSServer.named("localhost")
        let marker = UUID().uuidString
        var request = URLRequest(url: server.url("/post?probe=\(marker)"))
        request.httpMethod = "POST"
        let body = Data(repeating: 0x61, count: 100_000)
        let manager = try manager(try pinned(.certificate, "wrong-host"))
        do {
            _ = try await manager.startUpload(for: request, fromFile: try temporaryFile(body), serializer: HTTPResponseSerializer()).value
            XCTFail("the upload was sent")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .serverCertificateUntrusted)
        }
        XCTAssertFalse(server.receivedRequest(containing: marker, within: 0.5))
    }

    private func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try data.write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
