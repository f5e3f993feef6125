@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The redirect targets and Basic-retry rules of the libcurl transport, without a server.
final class FollowUpRulesTests: XCTestCase {
    private func request(_ method: String, body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com:8443/v1/items?q=1")!)
        request.httpMethod = method
        request.httpBody = body
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("\(body.count)", forHTTPHeaderField: "Content-Length")
        }
        return request
    }

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

    /// The scheme is the whole first token: `BasicX` is another scheme, and so is `Basic`
    /// followed by a combining mark.
    func testOnlyAChallengeWhoseSchemeIsBasicIsAnswered() {
        for challenge in [#"BasicX realm="x""#, "Basic\u{301} realm=x", "Basic\u{301}"] {
            XCTAssertFalse(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: challenge, alreadyAttempted: false, bodyIsStream: false), challenge)
        }
        XCTAssertTrue(FollowUpRules.answersBasicChallenge(status: 401, wwwAuthenticate: "BASIC, Bearer", alreadyAttempted: false, bodyIsStream: false))
    }

    func test303TurnsAnyMethodButHEADIntoAGetWithoutBody() {
        let target = URL(string: "https://api.example.com:8443/done")!
        let next = FollowUpRules.redirectRequest(from: request("PUT", body: Data("{}".utf8)), to: target, status: 303)
        XCTAssertEqual(next.httpMethod, "GET")
        XCTAssertNil(next.httpBody)
        XCTAssertNil(next.value(forHTTPHeaderField: "Content-Type"))
        XCTAssertNil(next.value(forHTTPHeaderField: "Content-Length"))
        XCTAssertEqual(FollowUpRules.redirectRequest(from: request("HEAD"), to: target, status: 303).httpMethod, "HEAD")
    }

    func test301And302TurnOnlyAPOSTIntoAGet() {
        let target = URL(string: "https://api.example.com:8443/moved")!
        for status in [301, 302] {
            XCTAssertEqual(FollowUpRules.redirectRequest(from: request("POST", body: Data("{}".utf8)), to: target, status: status).httpMethod, "GET")
            let put = FollowUpRules.redirectRequest(from: request("PUT", body: Data("{}".utf8)), to: target, status: status)
            XCTAssertEqual(put.httpMethod, "PUT")
            XCTAssertEqual(put.httpBody, Data("{}".utf8))
        }
    }

    func test307And308KeepTheMethodAndBody() {
        let target = URL(string: "https://api.example.com:8443/again")!
        for status in [307, 308] {
            let next = FollowUpRules.redirectRequest(from: request("POST", body: Data("{}".utf8)), to: target, status: status)
            XCTAssertEqual(next.httpMethod, "POST")
            XCTAssertEqual(next.httpBody, Data("{}".utf8))
            XCTAssertEqual(next.url, target)
        }
    }
}
