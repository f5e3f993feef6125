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
        guard let validator = ContentRange.strongEntityTag(of: response) ?? response.value(forHTTPHeaderField: "Last-Modified") else {
            return nil
        }
        let start: Int64
        switch response.statusCode {
        case 200: start = 0
        case 206:
            guard let first = ContentRange.start(of: response), first >= 0 else { return nil }
            start = first
        default: return nil
        }
        // The start is the server's number: a sum past Int64.max has no continuation.
        let (offset, overflow) = start.addingReportingOverflow(delivered)
        guard !overflow else { return nil }
        self.offset = offset
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
        response.statusCode == 206 && ContentRange.start(of: response) == offset
    }

    private static func isIdentity(_ coding: String?) -> Bool {
        guard let coding = coding?.trimmingCharacters(in: .whitespaces).lowercased(), !coding.isEmpty else { return true }
        return coding == "identity"
    }
}
