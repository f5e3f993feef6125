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
    /// The request's own `Host` field, the Unix socket, the client certificate and the route
    /// (security policy and proxy) it went through, as its key has them (`CacheKey`): `nil`
    /// for none.
    var host: String?
    var socketPath: String?
    var identity: String?
    var route: String?

    /// What the cache finds it by, and which requests it may answer besides `Vary`'s.
    var key: CacheKey {
        CacheKey(url: url, host: host, socketPath: socketPath, identity: identity, route: route)
    }

    /// Whether it is stored under `key`, compared field by field (no key, and no target, made
    /// for each stored response a lookup looks at).
    func isStored(under key: CacheKey) -> Bool {
        host == key.host && socketPath == key.socketPath && identity == key.identity && route == key.route
            && CacheKey.withoutFragment(url.absoluteString) == key.url
    }

    /// Whether it and `other` are stored under the same key.
    func sharesKey(with other: CachedResponse) -> Bool {
        host == other.host && socketPath == other.socketPath && identity == other.identity && route == other.route
            && CacheKey.withoutFragment(url.absoluteString) == CacheKey.withoutFragment(other.url.absoluteString)
    }

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

    /// What an entry costs the cache beyond its texts: its own value, the dictionaries' slots
    /// and the bookkeeping of its key.
    static let overhead = 256

    /// What it costs the cache's capacity: everything it holds, its URL and key and the
    /// varying values as well as its body and fields, so that many small responses to long
    /// URLs are counted as what they take. The URL counts three times: the entry's, and the
    /// target naming it in the cache's table and in its recency order.
    var cost: Int {
        let texts = 3 * url.absoluteString.utf8.count + [httpVersion, host ?? "", socketPath ?? "", identity ?? "", route ?? ""].reduce(0) { $0 + $1.utf8.count }
        let varyingBytes = varying.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.utf8.count ?? 0) }
        return Self.overhead + body.count + texts + varyingBytes + fields.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }
}
