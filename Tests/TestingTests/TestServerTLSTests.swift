import AFNetworking
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The loopback test server over TLS: a self-signed certificate made for each server, trusted by
/// the manager under test through its security policy, or a chain brought as PEM.
final class TestServerTLSTests: XCTestCase {
    private func server(tls: TestServerTLS, unixSocketPath: String? = nil, _ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(unixSocketPath: unixSocketPath, tls: tls, handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    private func manager(trusting policy: SecurityPolicy?) throws -> URLSessionManager {
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        if let policy { try manager.setSecurityPolicy(policy) }
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SecurityTests/Fixtures")
    }

    func testAServerWithASelfSignedCertificateAnswersAManagerTrustingIt() async throws {
        let tls = try TestServerTLS.selfSigned()
        let server = try server(tls: tls) { request in .text("secure \(request.path)") }
        XCTAssertEqual(server.baseURL.scheme, "https")
        let manager = try manager(trusting: tls.securityPolicy)
        for path in ["a", "b"] {
            let response = try await manager.data(for: URLRequest(url: server.baseURL.appendingPathComponent(path)))
            XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "secure /\(path)")
        }
        XCTAssertEqual(server.requests.map(\.path), ["/a", "/b"])
        XCTAssertEqual(server.connectionCount, 1, "the TLS connection is kept alive")
    }

    func testTheGeneratedCertificateNamesTheLoopbackAddressesAndExpiresAsAsked() throws {
        let tls = try TestServerTLS.selfSigned(validForDays: 3)
        let leaf = try XCTUnwrap(tls.certificates.first)
        XCTAssertEqual(tls.certificates.count, 1)
        XCTAssertEqual(leaf.subjectAlternativeNames, [.ip([127, 0, 0, 1]), .ip([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), .dns("localhost")])
        XCTAssertEqual(leaf.notValidAfter.timeIntervalSinceNow, 3 * 86400, accuracy: 120)
        XCTAssertEqual(leaf.notValidBefore.timeIntervalSinceNow, -3600, accuracy: 120)
        XCTAssertNotEqual(try TestServerTLS.selfSigned().certificates[0].derEncoded, leaf.derEncoded, "each server gets its own certificate")
    }

    func testAManagerNotTrustingTheCertificateSendsNoRequest() async throws {
        let server = try server(tls: try TestServerTLS.selfSigned()) { _ in .text("secret") }
        do {
            _ = try await manager(trusting: nil).data(for: URLRequest(url: server.baseURL))
            XCTFail("an untrusted certificate was accepted")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .serverCertificateHasUnknownRoot)
        }
        XCTAssertEqual(server.requests, [])
    }

    func testAnotherServersCertificateIsRefused() async throws {
        let server = try server(tls: try TestServerTLS.selfSigned()) { _ in .text("secret") }
        let other = try TestServerTLS.selfSigned()
        do {
            _ = try await manager(trusting: other.securityPolicy).data(for: URLRequest(url: server.baseURL))
            XCTFail("a certificate other than the trusted one was accepted")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .serverCertificateHasUnknownRoot)
        }
        XCTAssertEqual(server.requests, [])
    }

    func testLargeBodiesCrossTheTLSConnectionIntact() async throws {
        let upload = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let tls = try TestServerTLS.selfSigned()
        let server = try server(tls: tls) { request in .status(200, body: Data(request.body.reversed())) }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("reverse"))
        request.httpMethod = "PUT"
        request.httpBody = upload
        let response = try await manager(trusting: tls.securityPolicy).data(for: request)
        XCTAssertEqual(server.requests.first?.body, upload)
        XCTAssertEqual(response.value, Data(upload.reversed()))
    }

    func testAUnixSocketServerServesTLS() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("afn-tls-\(UUID().uuidString.prefix(8)).sock").path
        let tls = try TestServerTLS.selfSigned()
        let server = try server(tls: tls, unixSocketPath: path) { _ in .text("over a socket") }
        XCTAssertEqual(server.baseURL.scheme, "https+unix")
        let response = try await manager(trusting: tls.securityPolicy).data(for: URLRequest(url: server.baseURL.appendingPathComponent("x")))
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "over a socket")
    }

    func testAChainBroughtAsPEMIsServedWithItsIntermediate() async throws {
        let tls = try TestServerTLS(
            certificateChainPEM: try Data(contentsOf: Self.fixtures.appendingPathComponent("chained-localhost-fullchain.pem")),
            privateKeyPEM: try Data(contentsOf: Self.fixtures.appendingPathComponent("chained-localhost.key")))
        XCTAssertEqual(tls.certificates.count, 2)
        let server = try server(tls: tls) { _ in .text("chained") }
        let root = try Certificate.certificates(contentsOf: Self.fixtures.appendingPathComponent("root-ca.pem"))
        let manager = try manager(trusting: SecurityPolicy(anchorCertificates: root, trustsPartialChains: false))
        let response = try await manager.data(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "chained")
    }

    func testAKeyThatIsNotTheCertificatesIsRefusedAtStart() throws {
        let tls = try TestServerTLS(
            certificateChainPEM: try TestServerTLS.selfSigned().certificateChainPEM,
            privateKeyPEM: try TestServerTLS.selfSigned().privateKeyPEM)
        XCTAssertThrowsError(try TestServer(tls: tls)) { error in
            guard case TestServerError.tls(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("setting up the context"), reason)
        }
    }

    func testDataThatIsNotPEMIsRefused() {
        XCTAssertThrowsError(try TestServerTLS(certificateChainPEM: Data("not a certificate".utf8), privateKeyPEM: Data())) { error in
            guard case TestServerError.tls = error else { return XCTFail("\(error)") }
        }
    }

    /// A server requiring a certificate issued by `client`'s, and a manager trusting the server.
    private func mutualTLS(_ client: TestClientIdentity) throws -> (server: TestServer, manager: URLSessionManager) {
        let tls = try TestServerTLS.selfSigned().requiringClientCertificates(issuedBy: [client.certificate])
        let server = try server(tls: tls) { _ in .text("hello, client") }
        return (server, try manager(trusting: tls.securityPolicy))
    }

    func testAClientCertificateIsPresentedAndRecorded() async throws {
        let client = try TestClientIdentity()
        let (server, manager) = try mutualTLS(client)
        manager.clientIdentity = client.identity
        let response = try await manager.data(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(response.value, Data("hello, client".utf8))
        XCTAssertEqual(server.requests.map(\.clientCertificate), [client.certificate])
        XCTAssertEqual(client.certificate.subjectCommonName, "AFNetworkingTesting client")
    }

    /// The error code a request to a server requiring another client's certificate fails with,
    /// the manager presenting `presented` (none when `nil`), and how many requests the server got.
    private func refusal(presenting presented: TestClientIdentity?) async throws -> (code: URLError.Code?, requests: Int) {
        let (server, manager) = try mutualTLS(try TestClientIdentity())
        manager.clientIdentity = presented?.identity
        do {
            _ = try await manager.data(for: URLRequest(url: server.baseURL))
            return (nil, server.requests.count)
        } catch let error as URLError {
            return (error.code, server.requests.count)
        }
    }

    func testAClientWithoutACertificateIsRefusedAndSendsNoRequest() async throws {
        let outcome = try await refusal(presenting: nil)
        XCTAssertEqual(outcome.code, .clientCertificateRequired)
        XCTAssertEqual(outcome.requests, 0)
    }

    func testAClientCertificateFromAnotherIssuerIsRefused() async throws {
        let outcome = try await refusal(presenting: try TestClientIdentity())
        XCTAssertEqual(outcome.code, .clientCertificateRejected)
        XCTAssertEqual(outcome.requests, 0)
    }

    func testAServerAskingForNoCertificateRecordsNone() async throws {
        let tls = try TestServerTLS.selfSigned()
        let server = try server(tls: tls) { _ in .text("hi") }
        let manager = try manager(trusting: tls.securityPolicy)
        manager.clientIdentity = try TestClientIdentity().identity
        _ = try await manager.data(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(server.requests.map(\.clientCertificate), [nil])
    }
}

