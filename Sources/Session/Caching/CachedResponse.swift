import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as a `ResponseCache` keeps it (RFC 9111, 3): its status, fields and whole body,
/// when its request was sent and when it arrived (for its age, 4.2.3), and the request's
/// values of the fields its `Vary` names (for which requests it answers, 4.1).
struct CachedResponse: Sendable, Equatable {
    var url: URL
    var statusCode: Int
    var httpVersion: String
    /// The response's fields by name, without the connection's own (RFC 9111, 3.1).
    var fields: [String: String]
    var body: Data
    /// When the request that brought the response (or last validated it) was sent.
    var requestTime: Date
    /// When that response arrived.
    var responseTime: Date
    /// The request's values of the fields the response's `Vary` names, by lower-cased name;
    /// `nil` for a field the request did not have.
    var varying: [String: String?]
    /// Whether the request it answered carried credentials (`Authorization`, `Cookie`, or a
    /// Basic answer or an interceptor's): a shared cache then hands it to another request only
    /// under RFC 9111's own rules, whatever the cache policy.
    var storedWithCredentials = false

    /// The value of the field `name`, in any case; `nil` when absent.
    func value(_ name: String) -> String? {
        CachedResponse.value(name, in: fields)
    }

    /// The value of the field `name` in `fields`, names compared in any ASCII case.
    static func value(_ name: String, in fields: [String: String]) -> String? {
        if let exact = fields[name] { return exact }
        return fields.first { HTTPToken.equalIgnoringASCIICase($0.key.utf8, name.utf8) }?.value
    }

    /// The response a task receives from it.
    var response: HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: fields)
    }

    /// What it costs the cache's capacity: its body and its fields' bytes.
    var cost: Int {
        body.count + fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}
