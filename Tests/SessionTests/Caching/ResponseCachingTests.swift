import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A manager's `ResponseCache` against a server on 127.0.0.1, through libcurl (the transport
/// that carries the cache; URLSession's own protocol does not use it): the conformance case of
/// a GET with an `ETag` validated by `If-None-Match` and answered `304`.
final class ResponseCachingTests: XCTestCase {
    func testARevalidatedGetDeliversTheFirstBodyWithStatus200() async throws {
        let body = #"{"items":[1,2,3]}"#
        let server = try makeServer { request in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" { return .status(304, fields: ["ETag": "\"v1\""]) }
            return .status(200, fields: ["Content-Type": "application/json", "ETag": "\"v1\"", "Cache-Control": "no-cache"], body: Data(body.utf8))
        }
        let manager = URLSessionManager(transport: .libcurl)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.responseCache = ResponseCache()
        let first = try await manager.data(for: URLRequest(url: server.url("/items")))
        let second = try await manager.data(for: URLRequest(url: server.url("/items")))
        XCTAssertEqual(String(decoding: first.value, as: UTF8.self), body)
        XCTAssertEqual(second.response.statusCode, 200)
        XCTAssertEqual(String(decoding: second.value, as: UTF8.self), body)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
    }
}
