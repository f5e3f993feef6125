import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What `Redaction` hides, without a server.
final class RedactionTests: XCTestCase {
    func testCredentialHeadersAreHiddenWhateverTheirCase() {
        let redaction = Redaction()
        for name in ["Authorization", "authorization", "PROXY-AUTHORIZATION", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token"] {
            XCTAssertEqual(redaction.value("secret", ofHeader: name), Redaction.placeholder, name)
        }
        XCTAssertEqual(redaction.value("application/json", ofHeader: "Accept"), "application/json")
    }

    func testConfiguredHeadersAreHiddenToo() {
        XCTAssertEqual(Redaction(additionalHeaders: ["X-Signature"]).value("s", ofHeader: "x-signature"), Redaction.placeholder)
    }

    func testSecretQueryValuesAndPasswordsAreHidden() {
        let url = URL(string: "https://user:pw@api.example/v1/items?access_token=abc&page=2&api_key=k&Signature=x")!
        XCTAssertEqual(Redaction().url(url),
                       "https://user:%3Credacted%3E@api.example/v1/items?access_token=%3Credacted%3E&page=2&api_key=%3Credacted%3E&Signature=%3Credacted%3E")
    }

    func testAURLWithoutSecretsIsUnchanged() {
        let url = URL(string: "http://127.0.0.1:8080/get?page=2&q=a%20b")!
        XCTAssertEqual(Redaction().url(url), url.absoluteString)
    }
}
