import AFLocking
import AFSecurity
import AFSerialization
@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The transport on whichever libcurl this process loaded (Debian 12's, or the CI matrix's
/// other builds through `LD_LIBRARY_PATH`): it runs where libcurl uses OpenSSL and refuses,
/// naming what it found, elsewhere; a manager whose policy needs it then refuses to send, and
/// the default manager falls back to URLSession's own protocol and says so once.
final class CurlTransportLoadingTests: XCTestCase {
    /// The facts of the libcurl loaded; every variant of the matrix loads one.
    private func facts() throws -> LibcurlCompatibility.Facts {
        try CurlTransport.loaded.get()
    }

    /// Whether libcurl names OpenSSL as its TLS library (as bytes).
    private func usesOpenSSL(_ facts: LibcurlCompatibility.Facts) -> Bool {
        facts.tlsBackend.map { $0.utf8.starts(with: "OpenSSL/".utf8) } ?? false
    }

    private func manager(_ policy: SecurityPolicy = .default) throws -> URLSessionManager {
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        try manager.setSecurityPolicy(policy)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func send(_ url: URL, with manager: URLSessionManager) async -> Result<HTTPResponse<Data>, any Error> {
        do {
            return .success(try await manager.data(for: URLRequest(url: url)))
        } catch {
            return .failure(error)
        }
    }

    func testTheTransportRunsOnALibcurlOnOpenSSLAndOtherwiseNamesItsTLSLibrary() throws {
        let facts = try facts()
        if usesOpenSSL(facts) {
            XCTAssertNil(CurlTransport.unavailable, "libcurl \(facts.version) on \(facts.tlsBackend ?? "")")
            XCTAssertEqual(facts.openSSLIsLibcurls, true)
        } else {
            let error = try XCTUnwrap(CurlTransport.unavailable)
            XCTAssertEqual(error, .tlsBackendUnsupported(libcurl: facts.version, backend: facts.tlsBackend ?? "no TLS library"))
        }
    }

    func testWhatTheBridgesFoundNeverReadsNull() throws {
        let facts = try facts()
        XCTAssertFalse(facts.version.isEmpty)
        for text in [facts.tlsBackend, facts.openSSLVersion, facts.openSSLError, CurlTransport.unavailable?.description].compactMap({ $0 }) {
            XCTAssertNil(text.range(of: "(null)"), text)
        }
    }

    func testAMismatchedPinIsRejectedWhereTheTransportRunsAndNothingIsSentElsewhere() async throws {
        let server = try TLSServer.named("localhost")
        let marker = UUID().uuidString
        let pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Fixtures.certificate("wrong-host")])
        let result = await send(server.url("/get?probe=\(marker)"), with: try manager(pinned))
        try assertRefused(result, else: .serverCertificateUntrusted)
        XCTAssertFalse(server.receivedRequest(containing: marker), "the request reached the server")
    }

    func testACertificateForAnotherHostIsRejectedWhereTheTransportRunsAndNothingIsSentElsewhere() async throws {
        let server = try TLSServer.named("wrong-host")
        let marker = UUID().uuidString
        let anchored = SecurityPolicy(pinningMode: .none, anchorCertificates: [try Fixtures.certificate("root-ca")])
        let result = await send(server.url("/get?probe=\(marker)"), with: try manager(anchored))
        try assertRefused(result, else: .serverCertificateUntrusted)
        XCTAssertFalse(server.receivedRequest(containing: marker), "the request reached the server")
    }

    func testTheDefaultManagerCarriesRequestsOnEveryVariantAndSaysOnceWhenItFallsBack() async throws {
        let recorder = Recorder()
        let manager = try manager()
        manager.eventMonitors = [recorder]
        for _ in 0..<2 {
            let result = await send(try HTTPBin.url("/get"), with: manager)
            XCTAssertEqual(try result.get().statusCode, 200)
        }
        recorder.queue.sync {}
        // Told only where the transport cannot run, and then once for the manager's tasks.
        XCTAssertEqual(recorder.unavailable.withLock { $0 }, CurlTransport.unavailable.map { [$0] } ?? [])
    }

    /// Where the transport runs, `result` failed with the URLError `code`; where it cannot,
    /// the manager refused to create the task, naming why.
    private func assertRefused(
        _ result: Result<HTTPResponse<Data>, any Error>, else code: URLError.Code, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        guard case .failure(let error) = result else { return XCTFail("the response was delivered: \(result)", file: file, line: line) }
        if let unavailable = CurlTransport.unavailable {
            guard case .securityPolicyUnavailable(let reason) = error as? SessionError else {
                return XCTFail("expected securityPolicyUnavailable, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(reason, unavailable.description, file: file, line: line)
        } else {
            XCTAssertEqual((error as? URLError)?.code, code, "\(error)", file: file, line: line)
        }
    }

    private final class Recorder: EventMonitor {
        let queue = DispatchQueue(label: "recorder")
        let unavailable = Locked<[TransportError]>([])

        func libcurlTransportUnavailable(_ error: TransportError) {
            unavailable.withLock { $0.append(error) }
        }
    }
}
