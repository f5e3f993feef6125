import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `URLRequest.curlCommand`, exact text.
final class CurlCommandTests: XCTestCase {
    private func request() -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example/v1/orders?token=t0p&page=1")!)
        request.httpMethod = "POST"
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"O'Brien"}"#.utf8)
        return request
    }

    func testCredentialsAreRedactedByDefault() {
        XCTAssertEqual(request().curlCommand(), """
            curl -X 'POST' 'https://api.example/v1/orders?token=%3Credacted%3E&page=1' -H 'Authorization: <redacted>' \
            -H 'Content-Type: application/json' --data-binary '{"name":"O'\\''Brien"}'
            """)
    }

    func testWithoutRedactionEverythingIsShown() {
        XCTAssertEqual(request().curlCommand(redaction: nil), """
            curl -X 'POST' 'https://api.example/v1/orders?token=t0p&page=1' -H 'Authorization: Bearer s3cret' \
            -H 'Content-Type: application/json' --data-binary '{"name":"O'\\''Brien"}'
            """)
    }

    func testAGetHasNoMethodFlagAndABinaryBodyIsNamedByLength() {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/upload")!)
        XCTAssertEqual(request.curlCommand(), "curl 'http://127.0.0.1/upload'")
        request.httpMethod = "PUT"
        request.httpBody = Data([0xFF, 0xFE, 0x00])
        XCTAssertEqual(request.curlCommand(), "curl -X 'PUT' 'http://127.0.0.1/upload' --data-binary '<3 bytes>'")
    }
}
