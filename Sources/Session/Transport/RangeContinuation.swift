import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a retried attempt continues a response whose body was cut after reaching the task: a
/// `Range` request from the bytes already delivered, validated with `If-Range`, so that the
/// task's body and progress go on instead of starting over. Pure: tested without a server.
struct RangeContinuation: Equatable {
    /// The first byte of the resource still missing.
    let offset: Int64
    /// The strong `ETag`, or else the `Last-Modified` date, that the server must still match.
    let validator: String

    /// The continuation of `response`, of which `delivered` decoded body bytes reached the task;
    /// `nil` when there is none: nothing delivered, a content coding (ranges count encoded
    /// bytes), no validator, or a status other than 200 or a 206 with a `Content-Range`.
    init?(response: HTTPURLResponse, delivered: Int64) {
        guard delivered > 0, Self.isIdentity(response.value(forHTTPHeaderField: "Content-Encoding")) else { return nil }
        let entityTag = response.value(forHTTPHeaderField: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
        guard let validator = entityTag ?? response.value(forHTTPHeaderField: "Last-Modified") else { return nil }
        let start: Int64
        switch response.statusCode {
        case 200: start = 0
        case 206:
            guard let first = Self.rangeStart(response.value(forHTTPHeaderField: "Content-Range")) else { return nil }
            start = first
        default: return nil
        }
        offset = start + delivered
        self.validator = validator
    }

    /// `request` asking for the rest.
    func request(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
        request.setValue(validator, forHTTPHeaderField: "If-Range")
        return request
    }

    /// Whether `response` is the rest: a 206 whose range starts at `offset`.
    func isContinued(by response: HTTPURLResponse) -> Bool {
        response.statusCode == 206 && Self.rangeStart(response.value(forHTTPHeaderField: "Content-Range")) == offset
    }

    private static func isIdentity(_ coding: String?) -> Bool {
        guard let coding = coding?.trimmingCharacters(in: .whitespaces).lowercased(), !coding.isEmpty else { return true }
        return coding == "identity"
    }

    /// The first byte of `bytes first-last/length`.
    private static func rangeStart(_ contentRange: String?) -> Int64? {
        guard let contentRange, contentRange.lowercased().hasPrefix("bytes ") else { return nil }
        return contentRange.dropFirst(6).split(separator: "-", maxSplits: 1).first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }
}
