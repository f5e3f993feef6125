@testable import AFTransport
import XCTest

/// The defence in depth of a hop: a response over https is taken only on a connection the
/// manager's policy trusted in its handshake (or in the handshake of the connection reused).
final class CurlHopTests: XCTestCase {
    private func hop(https: Bool) -> CurlHop {
        var hop = CurlHop(proxy: nil, serverName: "localhost", totalMilliseconds: 0, start: .now())
        hop.requiresTrust = https
        return hop
    }

    func testAnHTTPSResponseOnAConnectionThePolicyNeverTrustedIsRefused() {
        XCTAssertFalse(hop(https: true).mayReceive(connectionTrusted: false))
    }

    func testAnHTTPSResponseIsRefusedEvenWithATrustedEvaluationWhenItsConnectionIsNotMarked() {
        // The evaluation of one handshake does not vouch for another connection libcurl chose.
        var trusted = hop(https: true)
        trusted.evaluation = .trusted
        XCTAssertFalse(trusted.mayReceive(connectionTrusted: false))
    }

    func testAnHTTPSResponseOnATrustedOrReusedTrustedConnectionIsTaken() {
        XCTAssertTrue(hop(https: true).mayReceive(connectionTrusted: true))
    }

    func testAPlainHTTPResponseNeedsNoTrust() {
        XCTAssertTrue(hop(https: false).mayReceive(connectionTrusted: false))
    }
}
