import AFNetworkingTesting
import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A manager's security policy enforced in the TLS handshake, against loopback TLS servers
/// presenting the fixture certificates (`TestServer`, which records every request it received):
/// the right pin gives the response, a wrong one `serverCertificateUntrusted` (-1202; without
/// pins an expired chain is -1201, one to an unknown root -1203) and the server never sees the
/// request.
final class PinnedTransportTests: XCTestCase {
    private func manager(_ policy: SecurityPolicy) throws -> URLSessionManager {
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(policy)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func pinned(_ mode: SSLPinningMode, _ names: String..., anchors: [String] = ["root-ca"]) throws -> SecurityPolicy {
        SecurityPolicy(pinningMode: mode, pinnedCertificates: try names.map(TestSupport.Fixtures.certificate),
                       anchorCertificates: try anchors.map(TestSupport.Fixtures.certificate))
    }

    /// A server presenting the fixture `name` (`chained-localhost` with its intermediate).
    private func server(_ name: String) throws -> TestServer {
        let chain = name == "chained-localhost" ? "chained-localhost-fullchain" : name
        let tls = try TestServerTLS(
            certificateChainPEM: try Data(contentsOf: TestSupport.Fixtures.url("\(chain).pem")),
            privateKeyPEM: try Data(contentsOf: TestSupport.Fixtures.url("\(name).key")))
        let server = try TestServer(tls: tls) { _ in .text("ok") }
        addTeardownBlock { server.stop() }
        return server
    }

    /// `path` on `server` by the name its fixture certificates are for.
    private func url(_ server: TestServer, _ path: String) -> URL {
        URL(string: "https://localhost:\(server.port)\(path)")!
    }

    /// GETs `/get` from `server`.
    private func probe(_ server: TestServer, with manager: URLSessionManager) async -> Result<HTTPResponse<Data>, any Error> {
        do {
            return .success(try await manager.data(for: URLRequest(url: url(server, "/get"))))
        } catch {
            return .failure(error)
        }
    }

    private func assertTrusted(_ policy: SecurityPolicy, server name: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let server = try server(name)
        switch await probe(server, with: try manager(policy)) {
        case .success(let response): XCTAssertEqual(response.statusCode, 200, file: file, line: line)
        case .failure(let error): XCTFail("\(error)", file: file, line: line)
        }
        XCTAssertEqual(server.requests.map(\.target), ["/get"], file: file, line: line)
    }

    @discardableResult
    private func assertRejected(
        _ policy: SecurityPolicy, server name: String, code: URLError.Code = .serverCertificateUntrusted,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> TrustFailure? {
        let server = try server(name)
        let result = await probe(server, with: try manager(policy))
        guard case .failure(let error) = result, let urlError = error as? URLError else {
            XCTFail("expected a URLError, got \(result)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(urlError.code, code, file: file, line: line)
        XCTAssertEqual(urlError.failingURL?.absoluteString, url(server, "/get").absoluteString, file: file, line: line)
        let evaluation = urlError.userInfo[TrustEvaluation.errorUserInfoKey] as? TrustEvaluation
        XCTAssertNotNil(evaluation?.failure, file: file, line: line)
        XCTAssertEqual(server.requests, [], "the rejected server received the request", file: file, line: line)
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
        let server = try server("localhost")
        let manager = try manager(try pinned(.certificate, "localhost"))
        let trusted = await probe(server, with: manager)
        XCTAssertEqual(try trusted.get().statusCode, 200)
        try manager.setSecurityPolicy(try pinned(.certificate, "wrong-host"))
        let rejected = await probe(server, with: manager)
        guard case .failure(let error as URLError) = rejected else { return XCTFail("\(rejected)") }
        XCTAssertEqual(error.code, .serverCertificateUntrusted)
        XCTAssertEqual(server.requests.count, 1, "a connection of the old policy was reused")
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
        policy.pinnedPublicKeyHashes = ["sha256/" + (try TestSupport.Fixtures.opensslPins()["intermediate-ca"]!)]
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
        let server = try server("localhost")
        let response = try await manager(try pinned(.certificate, "localhost")).data(for: URLRequest(url: server.baseURL.appendingPathComponent("get")))
        XCTAssertEqual(server.baseURL.host, "127.0.0.1")
        XCTAssertEqual(response.statusCode, 200)
    }

    func testWrongPinRejectsAnUploadWithoutSendingIt() async throws {
        let server = try server("localhost")
        var request = URLRequest(url: url(server, "/post"))
        request.httpMethod = "POST"
        let body = Data(repeating: 0x61, count: 100_000)
        let manager = try manager(try pinned(.certificate, "wrong-host"))
        do {
            _ = try await manager.startUpload(for: request, fromFile: try temporaryFile(body), serializer: HTTPResponseSerializer()).value
            XCTFail("the upload was sent")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .serverCertificateUntrusted)
        }
        XCTAssertEqual(server.requests, [])
    }

    private func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try data.write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
