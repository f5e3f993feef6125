#if OpenAPI
import AFLocking
import AFNetworking
import AFNetworkingOpenAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import XCTest

/// A large request body through `URLSessionManagerTransport` is pulled as it is sent, not
/// collected first.
final class URLSessionManagerTransportUploadTests: XCTestCase {
    private static let chunkSize = 64 * 1024
    private static let chunkCount = 1024 // 64 MiB in all.
    /// How far the producer may run ahead of the server: the transport's read-ahead and the
    /// loopback socket's buffers, which are a few MiB; a collected body would be 64 MiB ahead.
    private static let allowedLead: Int64 = 16 * 1024 * 1024

    func testA64MiBBodyOfUnknownLengthIsSentWithTheProducerABoundedAmountAhead() async throws {
        let server = try DiscardServer()
        addTeardownBlock { server.stop() }
        let manager = URLSessionManager()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let lead = Locked<Int64>(0)
        let chunk = ArraySlice([UInt8](repeating: UInt8(ascii: "a"), count: Self.chunkSize))
        // Each chunk is made when asked for; the lead is measured as each is handed over.
        let produced = AsyncStream<ArraySlice<UInt8>>(unfolding: { [count = Locked(0)] in
            let index = count.withLock { count -> Int in
                defer { count += 1 }
                return count
            }
            guard index < Self.chunkCount else { return nil }
            let ahead = Int64(index) * Int64(Self.chunkSize) - server.bytesReceived
            lead.withLock { $0 = max($0, ahead) }
            return chunk
        })
        let body = HTTPBody(produced, length: .unknown, iterationBehavior: .single)
        let start = Date()
        let (response, _) = try await URLSessionManagerTransport(manager: manager).send(
            HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/upload"), body: body,
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, operationID: "upload")
        XCTAssertEqual(response.status.code, 204)
        XCTAssertGreaterThan(server.bytesReceived, Int64(Self.chunkSize * Self.chunkCount), "the body did not arrive whole")
        XCTAssertLessThan(lead.withLock { $0 }, Self.allowedLead, "the producer ran ahead of the connection")
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
    }
}
#endif
