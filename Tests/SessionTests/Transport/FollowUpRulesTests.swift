@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The redirect targets and Basic-retry rules of the libcurl transport, without a server.
final class FollowUpRulesTests: XCTestCase {
    private let origin = URL(string: "https://api.example.com:8443/v1/items?q=1")!

    func testRedirectStatusesWithALocationGiveTheAbsoluteTarget() {
        for status in [301, 302, 303, 307, 308] {
            XCTAssertEqual(FollowUpRules.redirectTarget(status: status, location: "../v2/items", relativeTo: origin),
                           URL(string: "https://api.example.com:8443/v2/items"), "\(status)")
        }
    }

    func testOtherStatusesAndAMissingLocationGiveNoTarget() {
        XCTAssertNil(FollowUpRules.redirectTarget(status: 304, location: "/x", relativeTo: origin))
        XCTAssertNil(FollowUpRules.redirectTarget(status: 200, location: "/x", relativeTo: origin))
        XCTAssertNil(FollowUpRules.redirectTarget(status: 302, location: nil, relativeTo: origin))
    }

    func testOnlyAFirstBasicChallengeOfARepeatableBodyIsAnswered() {
        XCTAssertTrue(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: #"Basic realm="x""#, alreadyAttempted: false, bodyIsStream: false))
        XCTAssertTrue(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: "basic", alreadyAttempted: false, bodyIsStream: false))
        XCTAssertFalse(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: "Basic", alreadyAttempted: true, bodyIsStream: false))
        XCTAssertFalse(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: "Basic", alreadyAttempted: false, bodyIsStream: true))
        XCTAssertFalse(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: #"Digest realm="x""#, alreadyAttempted: false, bodyIsStream: false))
        XCTAssertFalse(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: nil, alreadyAttempted: false, bodyIsStream: false))
        XCTAssertFalse(FollowUpRules.answersBasicChallenge(status: 403, wwwAuthenticate: "Basic", alreadyAttempted: false, bodyIsStream: false))
    }

    func testTheRetryCarriesTheBasicCredentialInExactBytes() {
        let next = FollowUpRules.authenticated(URLRequest(url: origin), user: "user", password: "p:ss")
        XCTAssertEqual(next.value(forHTTPHeaderField: "Authorization"), "Basic dXNlcjpwOnNz")
    }
}
