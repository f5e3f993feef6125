import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Puts a header on every attempt, its value made from the attempt number: set, or with
/// `appends` added after any value already there (so a chain shows its order).
struct HeaderInterceptor: RequestInterceptor {
    let name: String
    var appends = false
    let value: @Sendable (_ attempt: Int) -> String

    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        var request = request
        if appends {
            request.addValue(value(attempt), forHTTPHeaderField: name)
        } else {
            request.setValue(value(attempt), forHTTPHeaderField: name)
        }
        return request
    }

    /// Adds `value` to `X-Chain`.
    static func chain(_ value: String) -> HeaderInterceptor {
        HeaderInterceptor(name: "X-Chain", appends: true) { _ in value }
    }
}
