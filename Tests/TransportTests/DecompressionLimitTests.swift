import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A compressed body that decodes far beyond what was received (a "gzip bomb") is stopped by
/// the libcurl transport, which alone knows how many bytes arrived.
final class DecompressionLimitTests: XCTestCase {
    private func fetch(_ path: String, limits: ResponseLimits) async throws -> Result<HTTPResponse<Data?>, any Error> {
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseLimits = limits
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = try FaultServer.url(path)
        do {
            return .success(try await manager.response(for: URLRequest(url: url), serializer: HTTPResponseSerializer()))
        } catch {
            return .failure(error)
        }
    }

    func testAGzipBombFailsWithTheDecompressionLimitLongBeforeTheBodySizeLimit() async throws {
        let result = try await fetch("/gzip-bomb/1073741824", limits: .default)
        guard case .failure(let error) = result, case .responseLimitExceeded(let limit, let declared, let response)? = error as? SessionError else {
            return XCTFail("expected the decompression limit, got \(result)")
        }
        XCTAssertEqual(limit, .decompressionRatio(100))
        XCTAssertNil(declared)
        XCTAssertEqual(response?.value(forHTTPHeaderField: "Content-Encoding"), "gzip")
    }

    func testACompressedBodyWithinTheRatioIsDecoded() async throws {
        // 4 MiB of zeros compress about 1,000:1: within a ratio limit of 2,000.
        let result = try await fetch("/gzip-bomb/4194304", limits: ResponseLimits(maximumDecompressionRatio: 2_000))
        guard case .success(let response) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(response.value?.count, 4_194_304)
    }

    func testTheRatioIsCheckedOnlyAfterTheAllowance() async throws {
        let result = try await fetch("/gzip-bomb/900000", limits: ResponseLimits(maximumDecompressionRatio: 10, decompressionAllowance: 1 << 20))
        guard case .success(let response) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(response.value?.count, 900_000)
    }
}
