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

    func testTokenHeadersOfCommonAPIsAreHidden() {
        for name in ["Private-Token", "X-Amz-Security-Token", "X-Csrf-Token", "X-Goog-Api-Key"] {
            XCTAssertEqual(Redaction().value("secret", ofHeader: name), Redaction.placeholder, name)
        }
    }

    func testSecretFragmentParametersAreHidden() {
        let url = URL(string: "https://app.example/callback#access_token=abc&state=xyz")!
        XCTAssertEqual(Redaction().url(url), "https://app.example/callback#access_token=%3Credacted%3E&state=xyz")
    }

    func testPercentEncodedNamesAreComparedDecoded() {
        let url = URL(string: "https://api.example/x?%74oken=abc&p%61ssword=pw")!
        XCTAssertEqual(Redaction().url(url), "https://api.example/x?%74oken=%3Credacted%3E&p%61ssword=%3Credacted%3E")
    }

    func testJWTSignatureAndAuthorizationCodeValuesAreHidden() {
        let url = URL(string: "https://api.example/x?jwt=eyJ&sig=s&code=c&page=1")!
        XCTAssertEqual(Redaction().url(url), "https://api.example/x?jwt=%3Credacted%3E&sig=%3Credacted%3E&code=%3Credacted%3E&page=1")
    }

    func testSecretPathParametersAreHidden() {
        let url = URL(string: "https://shop.example/cart;jsessionid=ABC123/items;color=red")!
        XCTAssertEqual(Redaction().url(url), "https://shop.example/cart;jsessionid=%3Credacted%3E/items;color=red")
    }

    func testHeadersNamedLikeSecretsAreHidden() {
        for name in ["X-Access-Token", "X-Session-Secret", "X-Upstream-Authorization", "X-Partner-ApiKey", "X-Db-Password"] {
            XCTAssertEqual(Redaction().value("secret", ofHeader: name), Redaction.placeholder, name)
        }
        XCTAssertEqual(Redaction().value("abc", ofHeader: "X-Request-Id"), "abc")
    }

    /// A name's last letter followed by U+0301 is one `Character` with it (`ń`): the name
    /// still spells the secret's, and its value is still hidden.
    func testNamesWhoseSecretWordIsFollowedByACombiningMarkAreHidden() {
        XCTAssertEqual(Redaction().value("secret", ofHeader: "X-Token\u{301}"), Redaction.placeholder)
        let url = URL(string: "https://api.example/x?token%CC%81=abc&page=1")!
        XCTAssertEqual(Redaction().url(url), "https://api.example/x?token%CC%81=%3Credacted%3E&page=1")
    }

    /// The URL's parts are percent-encoded ASCII: a `=`, `&` or `;` followed by an encoded
    /// combining mark still separates them.
    func testSeparatorsFollowedByAnEncodedCombiningMarkStillSeparate() {
        let url = URL(string: "https://api.example/p;jsessionid=%CC%81a?page=%CC%81&token=%CC%81b#code=%CC%81c")!
        XCTAssertEqual(Redaction().url(url),
                       "https://api.example/p;jsessionid=%3Credacted%3E?page=%CC%81&token=%3Credacted%3E#code=%3Credacted%3E")
    }
}
