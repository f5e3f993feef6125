// snippet: test-server
import AFNetworking
import AFNetworkingTesting
import XCTest

final class ClientTests: XCTestCase {
    func testAStalledServiceTimesOut() async throws {
        let server = try TestServer { request in
            request.path == "/v1/report" ? ServerReply.text("late").delayed(by: 5) : .status(404)
        }
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("v1/report"))
        request.timeoutInterval = 0.5
        do {
            _ = try await URLSessionManager().data(for: request)
            XCTFail("expected a timeout")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .timedOut)
        }
        XCTAssertEqual(server.requests.map(\.path), ["/v1/report"])
    }
}
// snippet: end
