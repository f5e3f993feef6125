import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A manager's `ResponseCache` against a server on 127.0.0.1, on the transport under test
/// (`scripts/test.sh` runs these on libcurl and on URLSession's own protocol): the conformance
/// case of a GET with an `ETag` validated by `If-None-Match` and answered `304`, a fresh
/// response answered without the network, a stale one standing in for a server error, a
/// cache-only request, a configuration's `URLCache`, and what the metrics say.
final class ResponseCachingTests: XCTestCase {
    private func manager(configuration: URLSessionConfiguration? = nil, cache: ResponseCache? = ResponseCache()) -> URLSessionManager {
        let manager = URLSessionManager(configuration: configuration, transport: .underTest)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        if let cache { manager.responseCache = cache }
        return manager
    }

    /// The conformance case's server: `body` with `ETag: "v1"` and `no-cache`, and a `304` to
    /// `If-None-Match: "v1"`.
    private func conformanceServer(body: String) throws -> TestServer {
        try makeServer { request in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" { return .status(304, fields: ["ETag": "\"v1\""]) }
            return .status(200, fields: ["Content-Type": "application/json", "ETag": "\"v1\"", "Cache-Control": "no-cache"], body: Data(body.utf8))
        }
    }

    /// A server answering its first request with `first` and every later one with `later`.
    private func makeServer(first: ServerReply, later: ServerReply) throws -> TestServer {
        let served = Locked(0)
        return try makeServer { _ in
            served.withLock { count -> Int in
                count += 1
                return count
            } == 1 ? first : later
        }
    }

    /// The cache outcomes of the tasks `manager` completes from now on, in order.
    private func recordOutcomes(of manager: URLSessionManager) -> Locked<[CacheOutcome]> {
        let outcomes = Locked<[CacheOutcome]>([])
        manager.overrides.taskDidFinishCollectingMetrics = { _, _, metrics in outcomes.withLock { $0.append(metrics.cacheOutcome) } }
        return outcomes
    }

    func testARevalidatedGetDeliversTheFirstBodyWithStatus200() async throws {
        let body = #"{"items":[1,2,3]}"#
        let server = try conformanceServer(body: body)
        let manager = manager()
        let outcomes = recordOutcomes(of: manager)
        let first = try await manager.data(for: URLRequest(url: server.url("/items")))
        let second = try await manager.data(for: URLRequest(url: server.url("/items")))
        XCTAssertEqual(String(decoding: first.value, as: UTF8.self), body)
        XCTAssertEqual(second.response.statusCode, 200)
        XCTAssertEqual(String(decoding: second.value, as: UTF8.self), body)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .revalidated])
    }

    func testAResponseARevalidationConfirmedIsKeptForTheNextRevalidation() async throws {
        let server = try makeServer { request in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" { return .status(304, fields: ["ETag": "\"v1\""]) }
            return .status(200, fields: ["ETag": "\"v1\"", "Cache-Control": "no-cache"], body: Data("first".utf8))
        }
        let manager = manager()
        let outcomes = recordOutcomes(of: manager)
        for _ in 0..<3 { _ = try await manager.data(for: URLRequest(url: server.url("/items"))) }
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", "\"v1\""])
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .revalidated, .revalidated])
    }

    func testAResponseARevalidationConfirmedIsKeptWhenTheCachingOverrideAcceptsIt() async throws {
        // The override's answer is held to the rules of the task's own request, not of the one
        // carrying the cache's validators (which may never be stored).
        let server = try makeServer { request in
            if request.value(forHeader: "If-None-Match") == "\"v1\"" { return .status(304, fields: ["ETag": "\"v1\""]) }
            return .status(200, fields: ["ETag": "\"v1\"", "Cache-Control": "no-cache"], body: Data("first".utf8))
        }
        let manager = manager()
        manager.overrides.dataTaskWillCacheResponse = { _, _, proposed in proposed }
        let outcomes = recordOutcomes(of: manager)
        for _ in 0..<3 { _ = try await manager.data(for: URLRequest(url: server.url("/items"))) }
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", "\"v1\""])
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .revalidated, .revalidated])
    }

    func testAChangedResourceAnsweringARevalidationIsStored() async throws {
        let served = Locked(0)
        let server = try makeServer { request in
            let count = served.withLock { count -> Int in
                count += 1
                return count
            }
            if count == 3, request.value(forHeader: "If-None-Match") == "\"v2\"" { return .status(304, fields: ["ETag": "\"v2\""]) }
            return .status(200, fields: ["ETag": "\"v\(count)\"", "Cache-Control": "no-cache"], body: Data("body \(count)".utf8))
        }
        let manager = manager()
        for _ in 0..<2 { _ = try await manager.data(for: URLRequest(url: server.url("/items"))) }
        let third = try await manager.data(for: URLRequest(url: server.url("/items")))
        XCTAssertEqual(third.value, Data("body 2".utf8))
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", "\"v2\""])
    }

    func testAFreshResponseAnswersWithoutTheNetwork() async throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8)) }
        let manager = manager()
        let outcomes = recordOutcomes(of: manager)
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        let second = try await manager.data(for: URLRequest(url: server.url("/item")))
        XCTAssertEqual(second.value, Data("first".utf8))
        XCTAssertEqual(second.response.value(forHTTPHeaderField: "Cache-Control"), "max-age=3600")
        XCTAssertEqual(server.requests.count, 1)
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .hit])
    }

    func testTheBodyOfAnAnswerFromTheCacheReachesTheDataOverride() async throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8)) }
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        let chunks = Locked<[Data]>([])
        manager.overrides.dataTaskDidReceiveData = { _, _, data in chunks.withLock { $0.append(data) } }
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        XCTAssertEqual(chunks.withLock { $0 }, [Data("first".utf8)])
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAStaleResponseStandsInForAServerErrorWithinStaleIfError() async throws {
        let server = try makeServer(first: .status(200, fields: ["Cache-Control": "max-age=0, stale-if-error=3600"], body: Data("first".utf8)),
                                    later: .status(503, body: Data("down".utf8)))
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        let second = try await manager.data(for: URLRequest(url: server.url("/item")))
        XCTAssertEqual(second.response.statusCode, 200)
        XCTAssertEqual(second.value, Data("first".utf8))
        XCTAssertEqual(server.requests.count, 2)
    }

    func testAStaleResponseStandsInForAConnectionRefusedWithinStaleIfError() async throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=0, stale-if-error=3600"], body: Data("first".utf8)) }
        let url = server.url("/item")
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: url))
        server.stop()
        let second = try await manager.data(for: URLRequest(url: url))
        XCTAssertEqual(second.value, Data("first".utf8))
    }

    func testADecodedGzipResponseOnDiskAnswersAnotherCacheOnTheDirectory() async throws {
        let server = try makeServer { _ in
            .status(200, fields: ["Content-Encoding": "gzip", "Content-Length": String(GzipFixture.coded.count), "Cache-Control": "max-age=3600"],
                    body: GzipFixture.coded)
        }
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let directory = scratch.url.appendingPathComponent("cache")
        let first = manager(cache: try ResponseCache(diskCapacity: 1 << 20, directory: directory))
        let fetched = try await first.data(for: URLRequest(url: server.url("/gzip")))
        XCTAssertEqual(fetched.value, GzipFixture.decoded)
        first.responseCache?.waitForDiskWrites()
        // The directory is free once no manager holds the cache (a process that ended).
        first.responseCache = nil
        let later = manager(cache: try reopenedCache(at: directory))
        let answer = try await later.data(for: URLRequest(url: server.url("/gzip")))
        XCTAssertEqual(answer.value, GzipFixture.decoded)
        XCTAssertEqual(answer.response.value(forHTTPHeaderField: "Content-Length"), String(GzipFixture.decoded.count))
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAResponseReachedThroughARedirectIsNotStored() async throws {
        let server = try makeServer { request in
            request.path == "/start"
                ? .status(302, fields: ["Location": "/item"])
                : .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8))
        }
        let manager = manager()
        for _ in 0..<2 {
            let answer = try await manager.data(for: URLRequest(url: server.url("/start")))
            XCTAssertEqual(answer.value, Data("first".utf8))
        }
        XCTAssertEqual(server.requests.map(\.path), ["/start", "/item", "/start", "/item"])
    }

    func testAResponseToABasicAnswerStaysOutOfASharedCache() async throws {
        let server = try makeServer { request in
            request.value(forHeader: "Authorization") == nil
                ? .status(401, fields: ["WWW-Authenticate": #"Basic realm="api""#])
                : .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("alice's".utf8))
        }
        let manager = manager()
        manager.credential = URLCredential(user: "alice", password: "secret", persistence: .none)
        for _ in 0..<2 {
            let answer = try await manager.data(for: URLRequest(url: server.url("/private")))
            XCTAssertEqual(answer.value, Data("alice's".utf8))
        }
        XCTAssertEqual(server.requests.filter { $0.value(forHeader: "Authorization") != nil }.count, 2)
        XCTAssertEqual(manager.responseCache?.currentMemoryUsage, 0)
    }

    func testACacheOnlyRequestWithNothingStoredFailsUnsent() async throws {
        let server = try makeServer()
        let manager = manager()
        let outcomes = recordOutcomes(of: manager)
        do {
            _ = try await manager.data(for: URLRequest(url: server.url("/item"), cachePolicy: .returnCacheDataDontLoad))
            XCTFail("answered")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        }
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertEqual(outcomes.withLock { $0 }, [.unavailable])
    }

    func testAConfigurationsURLCacheIsTheStore() async throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8)) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        let manager = manager(configuration: configuration, cache: nil)
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        let second = try await manager.data(for: URLRequest(url: server.url("/item")))
        XCTAssertEqual(second.value, Data("first".utf8))
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAnAnswerFromTheCacheCanBeCancelledBeforeItIsResumed() throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8)) }
        let manager = manager()
        _ = try run(URLRequest(url: server.url("/item")), on: manager)
        let completion = try run(URLRequest(url: server.url("/item")), on: manager) { $0.cancel() }
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled)
    }

    func testA304AboutAnotherResponseNeverReachesACallerWhoseRequestWasNotConditional() async throws {
        let served = Locked(0)
        let server = try makeServer { request in
            let count = served.withLock { count -> Int in
                count += 1
                return count
            }
            if request.value(forHeader: "If-None-Match") != nil { return .status(304, fields: ["ETag": "\"v2\""]) }
            return .status(200, fields: ["ETag": "\"v\(count)\"", "Cache-Control": "no-cache"], body: Data("body \(count)".utf8))
        }
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        do {
            let answer = try await manager.data(for: URLRequest(url: server.url("/item")))
            XCTFail("answered with \(answer.response.statusCode)")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .badServerResponse, "\(error)")
        }
        // The stored response is forgotten: the next request is sent without validators.
        let third = try await manager.data(for: URLRequest(url: server.url("/item")))
        XCTAssertEqual(third.response.statusCode, 200)
        XCTAssertEqual(third.value, Data("body 3".utf8))
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", nil])
    }

    func testANoCacheResponseIsNotServedStaleWhenItsValidationFails() async throws {
        let server = try makeServer(first: .status(200, fields: ["Cache-Control": "no-cache, max-age=600", "ETag": "\"v1\""], body: Data("first".utf8)),
                                    later: .status(503, body: Data("down".utf8)))
        let manager = manager()
        var request = URLRequest(url: server.url("/item"))
        request.setValue("stale-if-error=600", forHTTPHeaderField: "Cache-Control")
        _ = try await manager.data(for: request)
        do {
            let second = try await manager.data(for: request)
            XCTFail("answered with \(second.response.statusCode): \(String(decoding: second.value, as: UTF8.self))")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.response?.statusCode, 503)
        }
    }

    // MARK: Streams

    /// The streamed body of `request`, collected, with its status.
    private func streamed(_ request: URLRequest, on manager: URLSessionManager) async throws -> (status: Int, body: String) {
        let stream = try await manager.stream(for: request)
        let body = try await stream.body.collect(upTo: 1 << 20)
        return (stream.response.statusCode, String(decoding: body, as: UTF8.self))
    }

    func testAStreamedGetIsRevalidatedAndA304StreamsTheStoredBody() async throws {
        // The conformance suite's ETag case, through the streaming API.
        let body = #"{"items":[1,2,3]}"#
        let server = try conformanceServer(body: body)
        let manager = manager()
        let outcomes = recordOutcomes(of: manager)
        let first = try await streamed(URLRequest(url: server.url("/items")), on: manager)
        let second = try await streamed(URLRequest(url: server.url("/items")), on: manager)
        XCTAssertEqual(first.body, body)
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.body, body)
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .revalidated])
    }

    func testAFreshResponseAnswersAStreamWithoutTheNetwork() async throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("first".utf8)) }
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        let streamedAnswer = try await streamed(URLRequest(url: server.url("/item")), on: manager)
        XCTAssertEqual(streamedAnswer.body, "first")
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAStreamedBodyPastTheCachesCapacityIsStreamedWholeAndNotStored() async throws {
        let large = Data(repeating: UInt8(ascii: "x"), count: 200_000)
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: large) }
        let manager = manager(cache: ResponseCache(memoryCapacity: 64 * 1024))
        for _ in 0..<2 {
            let answer = try await streamed(URLRequest(url: server.url("/large")), on: manager)
            XCTAssertEqual(answer.body.utf8.count, large.count)
        }
        XCTAssertEqual(server.requests.count, 2)
        XCTAssertEqual(manager.responseCache?.currentMemoryUsage, 0)
    }

    func testAStreamedBodyWithinTheCapacityIsStored() async throws {
        let server = try makeServer { _ in .status(200, fields: ["Cache-Control": "max-age=3600"], body: Data("streamed".utf8)) }
        let manager = manager()
        _ = try await streamed(URLRequest(url: server.url("/item")), on: manager)
        let answer = try await manager.data(for: URLRequest(url: server.url("/item")))
        XCTAssertEqual(answer.value, Data("streamed".utf8))
        XCTAssertEqual(server.requests.count, 1)
    }

    func testALargeServerErrorAStoredResponseStandsInForDoesNotStallAStream() async throws {
        // The 503's 3 MiB body is dropped, not left waiting in the stream's 1 MiB window.
        let server = try makeServer(first: .status(200, fields: ["Cache-Control": "max-age=0, stale-if-error=3600"], body: Data("first".utf8)),
                                    later: .status(503, body: Data(count: 3 << 20)))
        let manager = manager()
        _ = try await manager.data(for: URLRequest(url: server.url("/item")))
        let answer = try await streamed(URLRequest(url: server.url("/item")), on: manager)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body, "first")
    }
}
