@testable import AFSession
@testable import AFTransport
import Foundation
import XCTest

/// The `http+unix` URL form, without a server.
final class UnixSocketAddressTests: XCTestCase {
    func testTheHostIsThePercentEncodedSocketPath() throws {
        let address = try XCTUnwrap(UnixSocketAddress(URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json?all=1")!))
        XCTAssertEqual(address.socketPath, "/var/run/docker.sock")
        XCTAssertEqual(address.requestURL.absoluteString, "http://localhost/v1.43/containers/json?all=1")
    }

    func testHTTPSOverASocketKeepsTLS() throws {
        let address = try XCTUnwrap(UnixSocketAddress(URL(string: "https+unix://%2Ftmp%2Fs.sock/")!))
        XCTAssertEqual(address.requestURL.absoluteString, "https://localhost/")
    }

    func testAnEmptyPathBecomesTheRoot() throws {
        let address = try XCTUnwrap(UnixSocketAddress(URL(string: "HTTP+UNIX://%2Ftmp%2Fs.sock")!))
        XCTAssertEqual(address.requestURL.absoluteString, "http://localhost/")
    }

    func testEncodedCharactersOfThePathAndQueryAreKept() throws {
        let address = try XCTUnwrap(UnixSocketAddress(URL(string: "http+unix://%2Ftmp%2Fs.sock/a%20b?q=x%26y")!))
        XCTAssertEqual(address.requestURL.absoluteString, "http://localhost/a%20b?q=x%26y")
    }

    func testARelativeRedirectStaysOnTheSocket() throws {
        let base = URL(string: "http+unix://%2Ftmp%2Fs.sock/redirect")!
        let target = try XCTUnwrap(URL(string: "/get?x=1", relativeTo: base)?.absoluteURL)
        XCTAssertEqual(UnixSocketAddress(target)?.socketPath, "/tmp/s.sock")
        XCTAssertEqual(UnixSocketAddress(target)?.requestURL.absoluteString, "http://localhost/get?x=1")
    }

    func testOtherSchemesAndMissingPathsAreNotSocketAddresses() {
        XCTAssertNil(UnixSocketAddress(URL(string: "http://localhost/x")!))
        XCTAssertNil(UnixSocketAddress(URL(string: "http+unix:///x")!))
    }
}
