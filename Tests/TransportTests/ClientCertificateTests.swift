import AFLocking
import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Mutual TLS against the local mTLS server (httpbin under gunicorn requiring a client
/// certificate signed by the fixture client CA; its access log names the accepted subject).
final class ClientCertificateTests: XCTestCase {
    private let passphrase = "afn-fixture"

    private func manager(identity: ClientIdentity?) throws -> URLSessionManager {
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [Fixtures.certificate("root-ca")]))
        manager.clientIdentity = identity
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func pemIdentity(_ name: String = "client") throws -> ClientIdentity {
        try ClientIdentity(certificateFile: Fixtures.url("\(name).pem"), keyFile: Fixtures.url("\(name).key"))
    }

    /// GETs `/get?probe=<marker>` from the mTLS server.
    private func probe(_ manager: URLSessionManager, configure: (URLSessionTask) -> Void = { _ in }) async throws -> (marker: String, server: TLSServer, result: Result<HTTPURLResponse, any Error>) {
        let server = try TLSServer.named("mtls")
        let marker = UUID().uuidString
        let completed = expectation(description: "completed")
        let outcome = Locked<Result<HTTPURLResponse, any Error>>(.failure(URLError(.unknown)))
        let task = try manager.dataTask(with: URLRequest(url: server.url("/get?probe=\(marker)"))) { response, _, error in
            outcome.withLock { $0 = if let error { .failure(error) } else { .success(response as! HTTPURLResponse) } }
            completed.fulfill()
        }
        configure(task)
        task.resume()
        await fulfillment(of: [completed], timeout: 10)
        return (marker, server, outcome.withLock { $0 })
    }

    private func assertAccepted(_ manager: URLSessionManager, subject: String = "commonName=afn-test-client", file: StaticString = #filePath, line: UInt = #line,
                                configure: (URLSessionTask) -> Void = { _ in }) async throws {
        let (marker, server, result) = try await probe(manager, configure: configure)
        switch result {
        case .success(let response):
            XCTAssertEqual(response.statusCode, 200, file: file, line: line)
            XCTAssertEqual(response.value(forHTTPHeaderField: "X-Client-Subject"), "organizationName=AFNetworking Tests,\(subject)", file: file, line: line)
        case .failure(let error):
            XCTFail("\(error)", file: file, line: line)
        }
        XCTAssertTrue(server.receivedRequest(containing: "probe=\(marker) HTTP/1.1\" 200 organizationName=AFNetworking Tests,\(subject)"),
                      "the server logged no request from \(subject)", file: file, line: line)
    }

    private func assertFails(_ manager: URLSessionManager, with code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) async throws -> URLError? {
        let (marker, server, result) = try await probe(manager)
        guard case .failure(let error) = result, let urlError = error as? URLError else {
            XCTFail("expected a URLError, got \(result)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(urlError.code, code, "\(urlError.userInfo)", file: file, line: line)
        XCTAssertEqual(urlError.failingURL?.absoluteString, server.url("/get?probe=\(marker)").absoluteString, file: file, line: line)
        XCTAssertFalse(server.receivedRequest(containing: marker, within: 0.3), "the server answered a request", file: file, line: line)
        return urlError
    }

    func testPEMIdentityIsAcceptedAndTheServerLogsItsSubject() async throws {
        try await assertAccepted(try manager(identity: try pemIdentity()))
    }

    func testPKCS12IdentityIsAccepted() async throws {
        try await assertAccepted(try manager(identity: try ClientIdentity(pkcs12File: Fixtures.url("client.p12"), passphrase: passphrase)))
    }

    func testAServerThatAsksForNoCertificateIsReachedWithAnIdentitySet() async throws {
        let server = try TLSServer.named("localhost")
        let response = try await manager(identity: try pemIdentity()).data(for: URLRequest(url: server.url("/get")))
        XCTAssertEqual(response.statusCode, 200)
    }

    func testNoIdentityFailsWithClientCertificateRequired() async throws {
        let error = try await assertFails(try manager(identity: nil), with: .clientCertificateRequired)
        XCTAssertEqual(error?.code.rawValue, -1206)
        XCTAssertEqual((error?.userInfo[NSUnderlyingErrorKey] as? CurlError)?.receivedTLSAlert, 116)
        XCTAssertTrue(error?.localizedDescription.contains("requires a client certificate") == true, "\(String(describing: error))")
    }

    func testIdentityOfAnotherCAFailsWithClientCertificateRejected() async throws {
        let error = try await assertFails(try manager(identity: try pemIdentity("other-client")), with: .clientCertificateRejected)
        XCTAssertEqual(error?.code.rawValue, -1205)
        XCTAssertEqual((error?.userInfo[NSUnderlyingErrorKey] as? CurlError)?.receivedTLSAlert, 48)
        XCTAssertTrue(error?.localizedDescription.contains("unknown ca") == true, "\(String(describing: error))")
    }

    func testATasksOwnIdentityIsPresentedOverTheManagers() async throws {
        let manager = try manager(identity: try pemIdentity("other-client"))
        let own = try pemIdentity()
        try await assertAccepted(manager) { manager.setClientIdentity(own, for: $0) }
        // The manager's identity still applies to its other tasks, on a connection of its own.
        _ = try await assertFails(manager, with: .clientCertificateRejected)
    }

    func testTheServerPolicyStillAppliesInTheSameHandshake() async throws {
        let manager = URLSessionManager()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.certificate("wrong-host")],
                                                     anchorCertificates: [Fixtures.certificate("root-ca")]))
        manager.clientIdentity = try pemIdentity()
        _ = try await assertFails(manager, with: .serverCertificateUntrusted)
    }

    func testAManagerOnTheURLSessionTransportCarriesAnIdentityOnLibcurl() async throws {
        let manager = URLSessionManager(transport: .urlSession)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [Fixtures.certificate("root-ca")]))
        manager.clientIdentity = try pemIdentity()
        try await assertAccepted(manager)
    }
}
