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

/// Per-phase metrics of each request of a task on the libcurl transport, against the local
/// TLS, HTTP/2 and plain servers; and their conversion from libcurl's timings without a server.
final class TransactionMetricsTests: XCTestCase {
    private func manager() throws -> URLSessionManager {
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [Fixtures.certificate("root-ca")]))
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// The metrics of a GET of `url`.
    private func metrics(of url: URL, with manager: URLSessionManager) throws -> TaskMetrics {
        let collected = Locked<TaskMetrics?>(nil)
        let done = expectation(description: "metrics")
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, _, metrics in
            collected.withLock { $0 = metrics }
            done.fulfill()
        }
        manager.overrides = overrides
        manager.resume(try manager.dataTask(with: URLRequest(url: url)) { _, _, error in XCTAssertNil(error) })
        wait(for: [done], timeout: 10)
        return try XCTUnwrap(collected.withLock { $0 })
    }

    func testPhasesOfAnHTTPSRequestAreOrderedAndNameTheConnection() throws {
        let server = try TLSServer.named("localhost")
        let transaction = try XCTUnwrap(try metrics(of: server.url("/get"), with: try manager()).transactionMetrics.first)
        let phases = [transaction.fetchStartDate, transaction.domainLookupStartDate, transaction.domainLookupEndDate, transaction.connectStartDate,
                      transaction.secureConnectionStartDate, transaction.secureConnectionEndDate, transaction.connectEndDate,
                      transaction.requestStartDate, transaction.requestEndDate, transaction.responseStartDate, transaction.responseEndDate]
        XCTAssertEqual(phases.compactMap { $0 }.count, phases.count, "every phase happened: \(transaction)")
        let dates = phases.compactMap { $0 }
        XCTAssertEqual(dates, dates.sorted(), "\(transaction)")
        XCTAssertFalse(transaction.isReusedConnection)
        XCTAssertEqual(transaction.remoteAddress, "127.0.0.1")
        XCTAssertEqual(transaction.remotePort, server.baseURL.port)
        XCTAssertEqual(transaction.localAddress, "127.0.0.1")
        XCTAssertNotNil(transaction.localPort)
        XCTAssertEqual(transaction.networkProtocolName, "http/1.1")
        XCTAssertEqual(transaction.negotiatedTLSProtocolVersion, "TLSv1.3")
        XCTAssertTrue(transaction.negotiatedTLSCipherSuite?.hasPrefix("TLS_") == true, "\(String(describing: transaction.negotiatedTLSCipherSuite))")
        XCTAssertGreaterThan(transaction.countOfRequestHeaderBytesSent, 0)
        XCTAssertGreaterThan(transaction.countOfResponseHeaderBytesReceived, 0)
        XCTAssertGreaterThan(transaction.countOfResponseBodyBytesReceived, 0)
    }

    func testTheSecondRequestToAHostReusesTheConnection() throws {
        let manager = try manager()
        let url = try HTTPBin.url("/get")
        let first = try XCTUnwrap(try metrics(of: url, with: manager).transactionMetrics.first)
        let second = try XCTUnwrap(try metrics(of: url, with: manager).transactionMetrics.first)
        XCTAssertFalse(first.isReusedConnection)
        XCTAssertTrue(second.isReusedConnection)
        XCTAssertNil(second.connectStartDate)
        XCTAssertNil(second.domainLookupEndDate)
        XCTAssertNil(first.negotiatedTLSProtocolVersion, "plain HTTP")
        XCTAssertEqual(first.localPort, second.localPort, "one connection")
    }

    func testHTTP2IsReportedAgainstAnHTTP2Server() throws {
        let server = try HTTP2Server.running()
        let metrics = try metrics(of: URL(string: server.tlsURL.absoluteString + "/get")!, with: try manager())
        XCTAssertEqual(metrics.transactionMetrics.map(\.networkProtocolName), ["h2"])
    }

    func testEachRedirectHopIsATransaction() throws {
        let metrics = try metrics(of: try HTTPBin.url("/redirect/2"), with: try manager())
        XCTAssertEqual(metrics.transactionMetrics.map { $0.url?.path }, ["/redirect/2", "/relative-redirect/1", "/get"])
        let starts = metrics.transactionMetrics.map(\.fetchStartDate)
        XCTAssertEqual(starts, starts.sorted())
    }

    func testLibcurlTimingsBecomeDatesFromTheFetchStart() {
        var info = CurlTransactionInfo()
        info.nameLookup = 1_000
        info.connect = 2_000
        info.appConnect = 5_000
        info.preTransfer = 5_500
        info.startTransfer = 9_000
        info.total = 10_000
        info.newConnections = 1
        info.httpVersion = 3
        let start = Date(timeIntervalSince1970: 1_000)
        let metrics = info.metrics(url: nil, fetchStart: start, requestEnd: nil, tls: ("TLSv1.3", "TLS_AES_128_GCM_SHA256"))
        XCTAssertEqual(metrics.domainLookupEndDate, start.addingTimeInterval(0.001))
        XCTAssertEqual(metrics.secureConnectionStartDate, start.addingTimeInterval(0.002))
        XCTAssertEqual(metrics.connectEndDate, start.addingTimeInterval(0.005))
        XCTAssertEqual(metrics.requestEndDate, start.addingTimeInterval(0.0055), "no body: the request ends as it starts")
        XCTAssertEqual(metrics.responseEndDate, start.addingTimeInterval(0.010))
        XCTAssertEqual(metrics.networkProtocolName, "h2")
        XCTAssertFalse(metrics.isReusedConnection)
        info.newConnections = 0
        info.appConnect = 0
        let reused = info.metrics(url: nil, fetchStart: start, requestEnd: nil, tls: nil)
        XCTAssertTrue(reused.isReusedConnection)
        XCTAssertNil(reused.connectStartDate)
        XCTAssertNil(reused.secureConnectionStartDate)
    }
}
